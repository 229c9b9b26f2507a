"""Whether anything can be staged now: the switch between a converted function's two paths.

A converted function starts with

    if ag__.staging:
        <the converted body: if_stmt, for_stmt, converted_call, ...>
        return ...
    <the original body, as written>

The design in full: docs/architecture.md, under `autograph/operators/python_path.py`.
"""
from __future__ import annotations

import sys
import threading
from _thread import get_ident

_package = sys.modules[__package__]      # `ag__`: converted code reads `ag__.staging`
_scopes: dict = {}                       # thread id -> the Staging() scopes it has open
_lock = threading.Lock()


class _ThisThreadStages:
    """`ag__.staging` while some thread stages: true in the threads that do."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return get_ident() in _scopes

    def __repr__(self) -> str:
        return f"<staging in this thread: {get_ident() in _scopes}>"


THIS_THREAD = _ThisThreadStages()
_package.staging = False


def enter() -> None:
    """A backend starts building a graph in this thread: converted functions called in
    it take the converted path."""
    me = get_ident()
    with _lock:
        _scopes[me] = _scopes.get(me, 0) + 1
        _package.staging = THIS_THREAD


def exit() -> None:        # noqa: A001  (the pair of `enter`)
    me = get_ident()
    with _lock:
        left = _scopes.get(me, 0) - 1
        if left > 0:
            _scopes[me] = left
        else:
            _scopes.pop(me, None)
            if not _scopes:
                _package.staging = False


def scopes_open() -> int:
    """How many `Staging()` scopes the calling thread has open (0: its converted
    functions run their original bodies)."""
    return _scopes.get(get_ident(), 0)


class Staging:
    """`with Staging():` — converted functions called in this thread take the converted
    path inside (also in tests that stage with a backend of their own)."""

    __slots__ = ()

    def __enter__(self) -> "Staging":
        enter()
        return self

    def __exit__(self, *exc) -> None:
        exit()
