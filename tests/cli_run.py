"""Run ``neardup-lab`` in a subprocess as a user would, bounded in time and (on Linux) memory.

Shared by the command-line tests: a regression that hangs or eats memory fails its
test instead of stalling CI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TIMEOUT = 300  # seconds; a healthy run takes one or two
MEMORY_CAP = 2 * 2**30  # bytes of address space for the command under test


def _cap_memory() -> None:  # runs in the child, before it starts Python
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = TIMEOUT, **options
) -> subprocess.CompletedProcess:
    """``python -m neardup_lab ARGS`` in ``cwd``, output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "neardup_lab", *args],
        cwd=cwd,
        env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8", **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_cap_memory if sys.platform.startswith("linux") else None,
        **options,
    )
