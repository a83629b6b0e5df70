"""Below the core, shared by every layer: :mod:`.limits`, :mod:`.spans` and :mod:`.xxh3`.
A module here imports nothing else from the package."""
