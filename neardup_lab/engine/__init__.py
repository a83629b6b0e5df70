"""The engine: the fast ``dedup``, one module per stage (tokenize, signing, banding, verify,
components, pipeline; explain and workers beside them). Each stage names the core function it
speeds up, and :mod:`neardup_lab.reference`, built from core functions only, is its test oracle.
"""
