"""Run the ``neardup-lab`` command and stop it at one step of a write: the crash tests' power cut.

The steps are the calls that make a write durable or visible: ``os.fsync``,
``os.replace``, ``os.rename`` and ``os.unlink``. This script wraps them, so
the package itself carries no test hooks::

    python crash_run.py trace STEPS_FILE -- index add idx day2.jsonl
        runs the command normally and writes one line per step to STEPS_FILE;
    python crash_run.py kill N -- index add idx day2.jsonl
        kills itself with SIGKILL just before step N (counting from 1);
    python crash_run.py pause N FLAG_FILE -- index build idx day1.jsonl
        just before step N, creates FLAG_FILE and waits (at most a minute)
        until the test deletes it, then carries on: a run caught mid-write.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

STEPS = ("fsync", "replace", "rename", "unlink")


def die() -> None:
    """End this process the way a power cut or ``kill -9`` would: no cleanup, no ``finally``."""
    if hasattr(signal, "SIGKILL"):
        os.kill(os.getpid(), signal.SIGKILL)
    os._exit(70)


def wait_for_removal(flag: Path) -> None:
    flag.touch()
    deadline = time.monotonic() + 60
    while flag.exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def watch_steps(before_step: Callable[[int, str, tuple], None]) -> None:
    """Call ``before_step(number, name, args)`` before every step the command takes."""
    count = 0
    for name in STEPS:
        real = getattr(os, name)

        def wrapper(*args, _real=real, _name=name, **kwargs):
            nonlocal count
            count += 1
            before_step(count, _name, args)
            return _real(*args, **kwargs)

        setattr(os, name, wrapper)


def main(argv: list[str]) -> int:
    split = argv.index("--")
    mode, options, command = argv[0], argv[1:split], argv[split + 1 :]
    from neardup_lab.cli.main import main as neardup_lab  # imported before the steps are watched

    if mode == "trace":
        log = Path(options[0])

        def record(number: int, name: str, args: tuple) -> None:
            paths = [os.fsdecode(a) for a in args if isinstance(a, (str, os.PathLike))]
            with log.open("a", encoding="utf-8") as f:  # plain writes: not steps
                print(number, name, *paths, file=f)

        watch_steps(record)
    elif mode == "kill":
        target = int(options[0])
        watch_steps(lambda number, name, args: die() if number == target else None)
    elif mode == "pause":
        target, flag = int(options[0]), Path(options[1])
        watch_steps(lambda number, name, args: wait_for_removal(flag) if number == target else None)
    else:
        raise SystemExit(f"unknown mode {mode!r}; use trace, kill or pause")
    return neardup_lab(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
