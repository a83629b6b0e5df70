"""Writing a file all or nothing: written and synced under a temporary name beside it, then renamed
into place. New files get the mode ``open()`` gives (the umask is never set: not thread-safe)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO, TypeVar

__all__ = ["written_aside", "atomic_writer", "sync_folder", "utf8_text"]
__all__ += ["create_temporary_file", "create_temporary_folder", "UnsafeLink", "followed_for_writing"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # Windows has no such flag
_MAX_LINKS = 40  # links followed in one path at most, as the kernel itself allows
_SHARED = stat.S_ISVTX | stat.S_IWOTH  # a sticky folder anyone may write to, such as /tmp
T = TypeVar("T")


class UnsafeLink(PermissionError):
    """A link that another user planted in a shared folder: writing through it is refused."""


def _check_link(link: str, info: os.stat_result, folder: str) -> None:
    """Refuse ``link`` as the kernel's protected-symlinks rule would (a Python-resolved path escapes it)."""
    uid = os.geteuid()
    if info.st_uid == uid:
        return
    held = os.stat(folder)
    if held.st_mode & _SHARED != _SHARED or held.st_uid == info.st_uid:
        return
    raise UnsafeLink(
        errno.EACCES,
        f"{link} is a symbolic link owned by another user (uid {info.st_uid}) in {folder}, a sticky "
        "folder anyone may write to; it is not followed, as the kernel's protected-symlinks rule "
        "would not: remove the link or write elsewhere",
    )


def followed_for_writing(path: str | os.PathLike[str]) -> str:
    """The absolute path ``path`` leads to, links followed as the kernel does; a link planted by
    another user in a sticky shared folder (/tmp) raises :class:`UnsafeLink`.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     os.symlink("sub", os.path.join(tmp, "link"))
    ...     followed_for_writing(os.path.join(tmp, "link", "out.jsonl")) == os.path.join(
    ...         os.path.realpath(tmp), "sub", "out.jsonl")
    True
    """
    path = os.fspath(path)
    if not hasattr(os, "geteuid"):  # no such rule, nor owners to compare, on Windows
        return os.path.realpath(path)
    todo = list(reversed(os.path.join(os.getcwd(), path).split(os.sep)))
    here, followed = os.sep, 0
    while todo:
        part = todo.pop()
        if part in ("", "."):
            continue
        if part == "..":  # ``here`` holds no link: its parent is the text's
            here = os.path.dirname(here)
            continue
        step = os.path.join(here, part)
        try:
            info = os.lstat(step)
        except OSError:  # a new name (or none at all: writing it says why)
            here = step
            continue
        if not stat.S_ISLNK(info.st_mode):
            here = step
            continue
        followed += 1
        if followed > _MAX_LINKS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
        _check_link(step, info, here)
        target = os.readlink(step)
        here = os.sep if os.path.isabs(target) else here
        todo.extend(reversed(target.split(os.sep)))
    return here


def _create(folder: str | os.PathLike[str], prefix: str, make: Callable[[str], T]) -> T:
    """``make(name)`` for a new name ``prefix`` + a random tail in ``folder``, retried on FileExistsError."""
    for _ in range(100):
        with contextlib.suppress(FileExistsError):
            return make(os.path.join(folder or ".", f"{prefix}{secrets.token_hex(6)}"))
    raise FileExistsError(f"no free temporary name in {os.fspath(folder)!r}")


def create_temporary_file(
    folder: str | os.PathLike[str], prefix: str, like: str | os.PathLike[str] | None = None
) -> tuple[int, str]:
    """Create a new file ``prefix`` + random tail in ``folder``, never through a link: fd and path.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     fd, path = create_temporary_file(tmp, ".tmp-out-")
    ...     os.close(fd)
    ...     os.path.basename(path).startswith(".tmp-out-")
    True
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

    def make(name: str) -> tuple[int, str]:
        fd = os.open(name, flags, 0o666)
        if like is not None:
            with contextlib.suppress(OSError):
                os.chmod(name, os.stat(like).st_mode & 0o777)
        return fd, name

    return _create(folder, prefix, make)


def create_temporary_folder(parent: str | os.PathLike[str], prefix: str) -> Path:
    """Create a new folder ``prefix`` + a random tail in ``parent``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     create_temporary_folder(tmp, ".tmp-idx-").is_dir()
    True
    """

    def make(name: str) -> Path:
        os.mkdir(name, 0o777)
        return Path(name)

    return _create(parent, prefix, make)


def sync_folder(path: str | os.PathLike[str]) -> None:
    """Make a rename in the folder ``path`` durable (POSIX; Windows cannot open a folder, nor needs to).

    >>> sync_folder(".")
    """
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def written_aside(path: str | os.PathLike[str]) -> Iterator[tuple[BinaryIO, str]]:
    """A new temporary file beside ``path`` and its name; synced at the end, removed if the block raises.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with written_aside(os.path.join(tmp, "out.txt")) as (f, staged):
    ...         _ = f.write(b"done")
    ...     os.path.basename(staged).startswith(".tmp-out.txt-"), open(staged).read()
    (True, 'done')
    """
    folder, name = os.path.split(os.fspath(path))
    followed_for_writing(folder or ".")  # never into a folder reached by another user's link
    fd, staged = create_temporary_file(folder, f".tmp-{name}-", like=path)
    try:
        with open(fd, "wb") as f:
            yield f, staged
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise


@contextlib.contextmanager
def utf8_text(raw: IO[bytes]) -> Iterator[io.TextIOWrapper]:
    """``raw`` as UTF-8 text (lone surrogates escaped), flushed and detached when the block ends."""
    text = io.TextIOWrapper(raw, encoding="utf-8", newline="", errors="backslashreplace")
    yield text
    text.flush()
    text.detach()


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """Open a file that replaces ``path`` if the block succeeds (text as ``utf8_text`` writes it).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with atomic_writer(os.path.join(tmp, "out.txt")) as f:
    ...         _ = f.write("done")
    ...     os.listdir(tmp), open(os.path.join(tmp, "out.txt")).read()
    (['out.txt'], 'done')
    """
    with written_aside(path) as (raw, staged):
        if binary:
            yield raw
        else:
            with utf8_text(raw) as text:
                yield text
    try:
        os.replace(staged, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise
    sync_folder(os.path.dirname(os.fspath(path)) or ".")
