"""Below the core, shared by every layer; a module here imports nothing else from the package."""
