"""The engine: the fast ``dedup``, one module per stage, read after the pipeline chapter.

Each stage names the core function it speeds up; :mod:`neardup_lab.reference` builds the same
pipeline from core functions only, and the tests hold ``dedup`` equal to it.

==========================  =============================================================
:mod:`.tokenize`            word-shingle ids straight from the bytes of many texts
:mod:`.signing`             many signatures at once, in blocks of bounded memory
:mod:`.banding`             candidate pairs of many signatures: sorted band keys, threads
:mod:`.components`          clusters and an array union-find from many pairs at once
:mod:`.pipeline`            ``prepare`` (texts to exact keys, ids and signatures), ``dedup``
:mod:`.idsets`              each document's sorted distinct ids; verification from texts
:mod:`.verify`              exact Jaccard of many pairs at once; pairs already joined skipped
:mod:`.explain`             the evidence for one pair; what tied each removed document
:mod:`.workers`             threads and progress bars, and what the browser allows of them
==========================  =============================================================
"""
