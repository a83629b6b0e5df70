"""Writing a file so that it is all there or not at all: written and synced under a temporary name
next to where it goes, then renamed into place (POSIX ``rename`` replaces atomically).

The saved index and the command line's outputs both write this way. It lives with the index, the
lowest tool that writes files: the command line already builds on the index, while a home in
``cli/`` would make the index import the command line.

New files and folders are created with the mode a plain ``open()`` or ``mkdir`` gives, the kernel
applying the umask (which is never read or set: that would change the process, and is not
thread-safe); a file that replaces another takes that one's mode.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

__all__ = ["written_aside", "atomic_writer", "sync_folder"]
__all__ += ["create_temporary_file", "create_temporary_folder", "UnsafeLink", "followed_for_writing"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # Windows has no such flag
_MAX_LINKS = 40  # links followed in one path at most, as the kernel itself allows
_SHARED = stat.S_ISVTX | stat.S_IWOTH  # a sticky folder anyone may write to, such as /tmp


class UnsafeLink(PermissionError):
    """A link that another user planted in a shared folder: writing through it is refused."""


def _check_link(link: str, info: os.stat_result, folder: str) -> None:
    """Refuse ``link`` (its ``lstat`` is ``info``) as the kernel's protected-symlinks rule would: in
    a sticky folder anyone may write to, a link is followed only if this user or the folder's
    owner owns it. Applied here because a path resolved in Python escapes the kernel's check."""
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
    """The absolute path ``path`` leads to, every link on the way followed as the kernel follows it;
    a link another user planted in a sticky folder anyone may write to (such as /tmp), owned
    neither by the folder's owner nor by this user, raises :class:`UnsafeLink`. Names that do not
    exist yet are kept as they are. No ``..`` is tidied as text: it is taken after the links before it.

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


def _temporary_names(folder: str | os.PathLike[str], prefix: str) -> Iterator[str]:
    for _ in range(100):
        yield os.path.join(folder or ".", f"{prefix}{secrets.token_hex(6)}")
    raise FileExistsError(f"no free temporary name in {os.fspath(folder)!r}")


def create_temporary_file(
    folder: str | os.PathLike[str], prefix: str, like: str | os.PathLike[str] | None = None
) -> tuple[int, str]:
    """Create a new file ``prefix`` + a random tail in ``folder``, exclusively and never through a
    link: its descriptor (open for writing) and its path. It takes the mode of the file ``like``
    when that exists (the one it will replace).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     fd, path = create_temporary_file(tmp, ".tmp-out-")
    ...     os.close(fd)
    ...     os.path.basename(path).startswith(".tmp-out-")
    True
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for name in _temporary_names(folder, prefix):
        try:
            fd = os.open(name, flags, 0o666)
        except FileExistsError:
            continue
        if like is not None:
            with contextlib.suppress(OSError):
                os.chmod(name, os.stat(like).st_mode & 0o777)
        return fd, name
    raise AssertionError("unreachable: _temporary_names raises when it runs out")


def create_temporary_folder(parent: str | os.PathLike[str], prefix: str) -> Path:
    """Create a new folder ``prefix`` + a random tail in ``parent``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     create_temporary_folder(tmp, ".tmp-idx-").is_dir()
    True
    """
    for name in _temporary_names(parent, prefix):
        try:
            os.mkdir(name, 0o777)
        except FileExistsError:
            continue
        return Path(name)
    raise AssertionError("unreachable: _temporary_names raises when it runs out")


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
    """A new temporary file next to ``path``, open for writing, and its name; synced to disk when
    the block ends, removed if it raises. Renaming it into place is the caller's move (several
    files can then be committed together).

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
def atomic_writer(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """Open a file that replaces ``path`` once the block succeeds (:func:`written_aside`, then
    renamed into place); if the block raises, ``path`` is left as it was. Text is UTF-8, a lone
    surrogate (from an undecodable file name) written as a backslash escape.

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
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="", errors="backslashreplace")
            yield text
            text.flush()
            text.detach()
    try:
        os.replace(staged, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise
    sync_folder(os.path.dirname(os.fspath(path)) or ".")
