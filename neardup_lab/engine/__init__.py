"""The fast ``dedup``, one module per stage; :mod:`neardup_lab.reference` is its test oracle."""
