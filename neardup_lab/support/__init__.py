"""Below the core: what every layer shares and no chapter teaches.

:mod:`.validate` (argument checks: TypeError for a wrong type, ValueError for a bad value,
one message style), :mod:`.limits` (batch sizes, memory budgets and input limits, in one
place), :mod:`.spans` (ragged lists as flat numpy arrays) and :mod:`.xxh3` (XXH3 in plain
Python, for a platform without the ``xxhash`` wheel). A module here imports nothing else
from the package.
"""
