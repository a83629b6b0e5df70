"""The ``neardup-lab`` command: parsing (:mod:`.main`), the commands, what they print and write."""
