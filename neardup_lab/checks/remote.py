"""Answers that live in another process: how grading keeps the checks out of a student's kernel.

A handed-in notebook runs in its own kernel, where its code may replace anything,
the checks included (``checks.grade = lambda lab, ns: ...``). So grading runs the
checks in a process that never runs the student's code. There each answer is a
*proxy*: calling it sends the arguments over a local socket to the kernel, where
:func:`serve` calls the student's function and sends back the result as plain data.

- :func:`plain` is the only shape a reply can take: numbers, strings, bytes, lists,
  tuples, sets, dicts and numpy arrays; anything else (a generator, an object of a
  class the student wrote) comes back as an :class:`Opaque` stand-in that no check
  accepts.
- :func:`decode` reads a reply with an unpickler that refuses every global, so a
  reply can carry data only, never code.
- :class:`Kernel` is the grading side of the socket: a deadline on every call, and
  proxies (:meth:`Kernel.answer`) that look like the student's function, class or value.
- :func:`serve` is the kernel's side.

A function that changes its arguments changes them on the grading side too, so the
checks see the change as they would in the notebook.
"""

from __future__ import annotations

import builtins
import io
import pickle
import secrets
import socket
import struct
import time
from collections.abc import Callable, ItemsView, KeysView, Mapping, ValuesView
from typing import Any

import numpy as np

_ARRAY = "\x00neardup-lab array"
_OPAQUE = "\x00neardup-lab opaque"
_ELLIPSIS = ("\x00neardup-lab ellipsis",)  # an answer not given yet: `...`
_HEADER = struct.Struct("!Q")
MAX_REPLY_BYTES = 64 * 2**20  # a reply larger than this is refused: the answer is not plain data
_REPR_LIMIT = 200


class DeadlineExceeded(BaseException):
    """The kernel did not answer in time (a ``BaseException``, so no check swallows it)."""


class KernelGone(BaseException):
    """The kernel closed the connection or sent something that is not a reply."""


class Opaque:
    """What grading sees of a value that is not plain data: its type's name and a short repr.

    >>> Opaque("generator", "<generator object f at 0x1>")
    <generator object f at 0x1>
    """

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return self.text


# ----------------------------------------------------------- plain data


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain data (see the module docstring); other things become an opaque marker.

    >>> plain({"a": (1, 2.5)})
    {'a': (1, 2.5)}
    >>> type(plain(np.float64(0.5)))
    <class 'float'>
    >>> plain(x for x in [])[0] == _OPAQUE
    True
    """
    if depth > 50:
        return _opaque(value)
    # numpy scalars first: np.float64 is also a float, but pickles as a numpy object
    if isinstance(value, np.generic) and isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if value is Ellipsis:
        return _ELLIPSIS
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return (_ARRAY, value.dtype.str, value.shape, value.tobytes())
    if type(value) in (list, tuple, set, frozenset):
        return type(value)(plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return {plain(k, depth + 1): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (KeysView, ValuesView, ItemsView, range)):
        return [plain(v, depth + 1) for v in value]
    return _opaque(value)


def _opaque(value: Any) -> tuple:
    try:
        text = repr(value)
    except Exception:  # a student's __repr__ may fail: say so instead
        text = f"<{type(value).__name__} object>"
    return (_OPAQUE, type(value).__name__, text[:_REPR_LIMIT])


def restore(data: Any) -> Any:
    """Undo :func:`plain`: arrays rebuilt, opaque markers turned into :class:`Opaque`.

    >>> restore(plain(np.arange(3, dtype=np.uint8)))
    array([0, 1, 2], dtype=uint8)
    """
    if type(data) is tuple and len(data) == 4 and data[0] == _ARRAY:
        _, dtype, shape, raw = data
        return np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape).copy()
    if type(data) is tuple and len(data) == 3 and data[0] == _OPAQUE:
        return Opaque(data[1], data[2])
    if data == _ELLIPSIS:
        return Ellipsis
    if type(data) in (list, tuple, set, frozenset):
        return type(data)(restore(v) for v in data)
    if type(data) is dict:
        return {restore(k): restore(v) for k, v in data.items()}
    return data


class _DataOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a reply may hold data only, not {module}.{name}")


def decode(raw: bytes) -> Any:
    """Read a reply: pickled plain data, refusing any global (a class, a function, a reduce).

    >>> decode(pickle.dumps({"x": [1, 2]}))
    {'x': [1, 2]}
    >>> decode(pickle.dumps(print))
    Traceback (most recent call last):
    ...
    _pickle.UnpicklingError: a reply may hold data only, not builtins.print
    """
    return _DataOnly(io.BytesIO(raw)).load()


# ------------------------------------------------------------- framing


def _send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(_HEADER.pack(len(payload)) + payload)


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 2**20))
        if not chunk:
            raise KernelGone("the kernel closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket, limit: int = MAX_REPLY_BYTES) -> bytes:
    (size,) = _HEADER.unpack(_recv_exactly(sock, _HEADER.size))
    if size > limit:
        raise KernelGone(f"a reply of {size:,} bytes is more than the {limit:,} allowed")
    return _recv_exactly(sock, size)


# ------------------------------------------------------- the kernel's side


def serve(port: int, token: str, namespace: Mapping[str, Any]) -> None:
    """Connect to the grading process and answer its requests until it says ``bye``.

    Runs inside the student's kernel, in the notebook's namespace. Requests:
    ``("look", name)``, ``("call", oid, attribute or None, args, kwargs)``,
    ``("getattr", oid, attribute)``, ``("bye",)``.
    """
    sock = socket.create_connection(("127.0.0.1", port))
    objects: dict[int, Any] = {}
    try:
        _send(sock, token.encode())
        while True:
            request = pickle.loads(_recv(sock, limit=2**31))
            if request[0] == "bye":
                return
            try:
                reply = _handle(request, namespace, objects)
            except BaseException as exc:  # anything the student's code raises goes back as data
                names = [klass.__name__ for klass in type(exc).__mro__]
                reply = ("raised", names, str(exc)[:2000])
            try:
                payload = pickle.dumps(reply, protocol=5)
            except Exception as exc:  # should not happen: plain() made it data
                payload = pickle.dumps(("raised", ["RuntimeError"], f"reply not sendable: {exc}"))
            _send(sock, payload)
    finally:
        sock.close()


def _describe(value: Any, objects: dict[int, Any]) -> tuple:
    oid = len(objects)
    objects[oid] = value
    module = getattr(value, "__module__", "") or ""
    if isinstance(value, type):
        return ("class", oid, value.__name__, module)
    if callable(value):
        return ("function", oid, getattr(value, "__name__", type(value).__name__), module)
    return ("value", plain(value))


def _handle(request: tuple, namespace: Mapping[str, Any], objects: dict[int, Any]) -> tuple:
    op = request[0]
    if op == "look":
        name = request[1]
        return ("missing",) if name not in namespace else _describe(namespace[name], objects)
    if op == "getattr":
        value = getattr(objects[request[1]], request[2])
        return ("method",) if callable(value) else ("value", plain(value))
    if op == "call":
        _, oid, attribute, args, kwargs = request
        target = objects[oid] if attribute is None else getattr(objects[oid], attribute)
        before = pickle.dumps(plain((args, kwargs)))
        result = target(*args, **kwargs)
        after = plain((args, kwargs))
        changed = after if pickle.dumps(after) != before else None
        if attribute is None and isinstance(objects[oid], type):
            new = len(objects)
            objects[new] = result
            return ("object", new, type(result).__name__, changed)
        return ("ok", plain(result), changed)
    raise ValueError(f"unknown request {op!r}")


# ------------------------------------------------------- the grading side


def _exception(names: list[str], message: str) -> BaseException:
    """An exception of the kernel's class (rebuilt by name on a built-in base) with its message."""
    base = next(
        (
            klass
            for name in names
            if isinstance(klass := getattr(builtins, name, None), type) and issubclass(klass, Exception)
        ),
        RuntimeError,
    )
    klass = base if base.__name__ == names[0] else type(names[0], (base,), {})
    return klass(message)


def _mirror(local: Any, remote: Any) -> None:
    """Apply a change the kernel made to an argument to the grading side's argument."""
    if isinstance(local, (tuple, list)) and isinstance(remote, (tuple, list)) and len(local) == len(remote):
        if isinstance(local, list) and type(local) is list and local != remote:
            try:
                local[:] = remote
                return
            except Exception:  # elements that do not compare: mirror them one by one
                pass
        for item, new in zip(local, remote):
            _mirror(item, new)
    elif isinstance(local, set) and isinstance(remote, (set, frozenset)):
        local.clear()
        local.update(remote)
    elif isinstance(local, dict) and isinstance(remote, dict):
        if set(local) == set(remote):
            for key in local:
                if isinstance(local[key], (set, list, dict, np.ndarray)):
                    _mirror(local[key], remote[key])
                else:
                    local[key] = remote[key]
        else:
            local.clear()
            local.update(remote)
    elif _writable_like(local, remote):
        local[...] = remote


def _writable_like(local: Any, remote: Any) -> bool:
    """Whether ``local`` is a writable array that ``remote`` can be copied into.

    >>> _writable_like(np.zeros(2), np.ones(2))
    True
    """
    if not (isinstance(local, np.ndarray) and isinstance(remote, np.ndarray)):
        return False
    return local.shape == remote.shape and local.flags.writeable


class Kernel:
    """The grading side of the connection to a student's kernel.

    ``deadline`` (a ``time.monotonic()`` value) bounds every request; past it a
    request raises :class:`DeadlineExceeded`. ``wait`` is called while waiting
    (the grader drains the kernel's output there). Here a thread plays the kernel:

    >>> import threading
    >>> server, port, token = Kernel.listen()
    >>> namespace = {"double": lambda x: 2 * x}
    >>> threading.Thread(target=serve, args=(port, token, namespace), daemon=True).start()
    >>> kernel = Kernel.accept(server, token, time.monotonic() + 10)
    >>> server.close()
    >>> kernel.answer("double")(21)
    42
    >>> kernel.close()
    """

    def __init__(self, sock: socket.socket, wait: Callable[[], None] = lambda: None) -> None:
        self.sock, self.wait, self.deadline = sock, wait, float("inf")

    @staticmethod
    def listen() -> tuple[socket.socket, int, str]:
        """A listening socket on 127.0.0.1, its port, and the token the kernel must send first."""
        server = socket.create_server(("127.0.0.1", 0))
        return server, server.getsockname()[1], secrets.token_hex(16)

    @classmethod
    def accept(
        cls, server: socket.socket, token: str, deadline: float, wait: Callable[[], None] = lambda: None
    ) -> Kernel:
        """Wait (until ``deadline``) for the kernel to connect and prove it knows ``token``."""
        server.settimeout(0.2)
        while True:
            try:
                sock, _ = server.accept()
                break
            except TimeoutError:
                wait()
                if time.monotonic() > deadline:
                    raise DeadlineExceeded("the kernel did not connect in time") from None
        kernel = cls(sock, wait)
        kernel.deadline = deadline
        if kernel._read() != token.encode():
            sock.close()
            raise KernelGone("the kernel did not send the grading token")
        return kernel

    def _read(self) -> bytes:
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise DeadlineExceeded("the student's code did not return in time")
            self.sock.settimeout(min(left, 0.2))
            try:
                self.sock.settimeout(min(left, 0.2))
                head = self.sock.recv(1, socket.MSG_PEEK)
            except TimeoutError:
                self.wait()
                continue
            if not head:
                raise KernelGone("the kernel closed the connection")
            self.sock.settimeout(max(self.deadline - time.monotonic(), 0.01))
            try:
                return _recv(self.sock)
            except TimeoutError:
                raise DeadlineExceeded("the student's code did not return in time") from None

    def request(self, *message: Any) -> tuple:
        """Send one request, return its decoded reply."""
        _send(self.sock, pickle.dumps(message, protocol=5))
        try:
            return decode(self._read())
        except (pickle.UnpicklingError, EOFError, ValueError) as exc:
            raise KernelGone(f"the kernel sent something that is not a reply: {exc}") from None

    def close(self) -> None:
        """Tell the kernel to stop serving (it then finishes the grading cell) and close."""
        try:
            self.sock.settimeout(1)
            _send(self.sock, pickle.dumps(("bye",)))
        except OSError:
            pass
        self.sock.close()

    # -- proxies

    def answer(self, name: str) -> Any:
        """The student's ``name`` as the checks should see it, or ``_MISSING`` if it is not defined."""
        reply = self.request("look", name)
        if reply[0] == "missing":
            return MISSING
        if reply[0] == "value":
            return restore(reply[1])
        _, oid, remote_name, module = reply
        if reply[0] == "class":
            return _RemoteClass(self, oid, remote_name, module)
        return _function(self, oid, None, remote_name, module)

    def call(self, oid: int, attribute: str | None, args: tuple, kwargs: dict) -> Any:
        reply = self.request("call", oid, attribute, args, kwargs)
        if reply[0] == "raised":
            raise _exception(reply[1], reply[2])
        changed = reply[-1]
        if changed is not None:
            _mirror((args, kwargs), restore(changed))
        if reply[0] == "object":
            return _RemoteObject(self, reply[1], reply[2])
        return restore(reply[1])


MISSING = object()


def _function(kernel: Kernel, oid: int, attribute: str | None, name: str, module: str = "") -> Callable:
    def proxy(*args: Any, **kwargs: Any) -> Any:
        return kernel.call(oid, attribute, args, kwargs)

    proxy.__name__ = proxy.__qualname__ = name
    proxy.__module__ = module or "__main__"
    return proxy


class _RemoteClass:
    """A student's class: calling it makes an instance in the kernel."""

    def __init__(self, kernel: Kernel, oid: int, name: str, module: str) -> None:
        self._kernel, self._oid, self.__name__, self.__module__ = kernel, oid, name, module

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._kernel.call(self._oid, None, args, kwargs)


class _RemoteObject:
    """An instance in the kernel: its methods are called there, its other attributes copied."""

    def __init__(self, kernel: Kernel, oid: int, type_name: str) -> None:
        self._kernel, self._oid, self._type_name = kernel, oid, type_name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        reply = self._kernel.request("getattr", self._oid, attribute)
        if reply[0] == "raised":
            raise _exception(reply[1], reply[2])
        if reply[0] == "method":
            return _function(self._kernel, self._oid, attribute, f"{self._type_name}.{attribute}")
        return restore(reply[1])

    def __repr__(self) -> str:
        return f"<{self._type_name} object in the student's kernel>"
