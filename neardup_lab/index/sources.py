"""Which input files an index holds: the same inode with the same bytes (path spellings vary)."""

from __future__ import annotations

import hashlib
import os
from typing import NamedTuple

from ..readers.files import NotRegular, open_regular

__all__ = ["FileIdentity", "identify"]

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
    try:
        f, _ = open_regular(os.fspath(path))
        with f:
            info = os.fstat(f.fileno())
            digest = hashlib.file_digest(f, "sha256").digest()
    except (OSError, NotRegular):
        return None
    return FileIdentity(info.st_dev & _U64, info.st_ino & _U64, digest)
