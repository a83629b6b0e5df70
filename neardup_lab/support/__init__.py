"""Below the core, shared by every layer: argument checks, limits, ragged arrays, XXH3. A module
here imports nothing else from the package."""
