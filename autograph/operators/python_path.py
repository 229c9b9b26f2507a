"""Whether anything can be staged now: the switch between a converted function's two paths.

A converted function starts with

    if ag__.staging:
        <the converted body: if_stmt, for_stmt, converted_call, ...>
        return ...
    <the original body, as written>

While no backend is building a graph, no value can be staged, and the converted body
would do exactly what the original does, only slower and through more frames. So the
original body runs: at the original's speed, with the original's frames (`logging`'s
function names and lines, `warnings` stack levels, `inspect.stack()`, recursion depth,
tracebacks). While a graph is being built (in any thread), `ag__.staging` is true and
the converted body runs, staging control flow on the values that are staged.

A backend holds a `Staging()` scope open while it may hand out staged values (the runtime
does, for as long as a graph records ops). The count is process-wide, not per thread: a
thread that runs converted code while another builds a graph takes the converted path,
which gives the same results on Python values.
"""
from __future__ import annotations

import sys
import threading

_package = sys.modules[__package__]      # `ag__`: converted code reads `ag__.staging`
_package.staging = 0
_lock = threading.Lock()


def enter() -> None:
    """A backend starts building a graph: converted functions take the converted path."""
    with _lock:
        _package.staging += 1


def exit() -> None:        # noqa: A001  (the pair of `enter`)
    with _lock:
        _package.staging -= 1


class Staging:
    """`with Staging():` — converted functions take the converted path inside (also in
    tests that stage with a backend of their own)."""

    __slots__ = ()

    def __enter__(self) -> "Staging":
        enter()
        return self

    def __exit__(self, *exc) -> None:
        exit()
