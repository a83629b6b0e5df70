"""Which input files an index holds: the same file is the same inode with the same bytes.

Ids made from paths change with the spelling of a path (absolute, another working folder, a link),
so an index also remembers each added file's ``(st_dev, st_ino)`` and SHA-256, and refuses a file
that matches both. A copy (another inode) or a file rewritten in place (other bytes) is new.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import NamedTuple

__all__ = ["FileIdentity", "identify"]

_BLOCK = 1 << 20
_U64 = (1 << 64) - 1  # the index stores 64 bits (Windows may give a 128-bit st_ino)


class FileIdentity(NamedTuple):
    """A file's device, inode and the SHA-256 of its bytes."""

    device: int
    inode: int
    digest: bytes


def identify(path: str | os.PathLike) -> FileIdentity | None:
    """The identity of the regular file ``path``; None if it cannot be read or is not a regular file.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "a.txt")
    ...     _ = open(path, "w").write("heavy rain")
    ...     os.symlink(path, os.path.join(tmp, "b.txt"))
    ...     identify(path) == identify(os.path.join(tmp, "b.txt"))
    True
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        digest = hashlib.sha256()
        try:
            for block in iter(lambda: f.read(_BLOCK), b""):
                digest.update(block)
        except OSError:
            return None
    return FileIdentity(info.st_dev & _U64, info.st_ino & _U64, digest.digest())
