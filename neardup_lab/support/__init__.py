"""Below the core, shared by every layer and taught by no chapter: :mod:`.validate` (argument
checks, one vocabulary of errors), :mod:`.limits`, :mod:`.spans` and :mod:`.xxh3`. A module
here imports nothing else from the package.
"""
