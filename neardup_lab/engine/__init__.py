"""The engine: the fast ``dedup``, one module per stage, each naming the core function it speeds
up; :mod:`neardup_lab.reference`, built from core functions only, is its test oracle."""
