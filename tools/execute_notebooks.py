"""Execute notebooks in place with the ``python3`` kernel, as a reader would run them.

Each notebook runs in its own folder (so relative paths work as in the book), with a
ten-minute limit per cell; its outputs are replaced by the fresh ones. Used by
``make execute``.

    python tools/execute_notebooks.py book/04_minhash.ipynb labs/solutions/*.ipynb
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def execute(path: Path) -> float:
    """Run every cell of the notebook at ``path`` and write it back; return the seconds taken."""
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    nbformat.write(notebook, path)
    return time.perf_counter() - started


def main(paths: list[str]) -> int:
    if not paths:
        print(__doc__)
        return 2
    for name in paths:
        print(f"{name}: {execute(Path(name)):.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
