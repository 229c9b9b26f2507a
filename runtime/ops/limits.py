"""Run-time limits on what kernels allocate, for graphs from strangers.

A kernel that allocates from sizes computed while the graph runs (Fill of computed dims,
Range, BroadcastTo, Tile, OneHot, ...) calls `check_elements` before allocating. No limit
holds by default (`rt.function` graphs allocate what they compute, as TensorFlow's do);
a function loaded by `rt.saved.load` runs under one (`max_elements`, 2**28 elements by
default): the executor sets it for the call (`limited`), and a kernel asked for more
fails with a clear error naming the node instead of allocating.
"""
from __future__ import annotations

import contextvars
import math

from ..errors import InvalidArgumentError

_MAX_ELEMENTS: contextvars.ContextVar = contextvars.ContextVar("runtime_max_elements",
                                                               default=None)


def limited(max_elements):
    """Sets the limit for the current context; returns the token for `restore`."""
    return _MAX_ELEMENTS.set(max_elements)


def restore(token) -> None:
    _MAX_ELEMENTS.reset(token)


def current():
    """The number of elements one kernel may allocate now, or None (no limit)."""
    return _MAX_ELEMENTS.get()


def check_elements(what: str, dims) -> None:
    """Fails when an array of shape `dims` (computed at run time) is over the limit."""
    cap = _MAX_ELEMENTS.get()
    if cap is None:
        return
    n = 1
    for d in dims:
        n *= abs(int(d))  # Python ints: a product of huge dims cannot wrap around
    if n > cap:
        _fail(what, n, cap, f" of shape {tuple(int(d) for d in dims)}")


def check_count(what: str, n) -> None:
    cap = _MAX_ELEMENTS.get()
    if cap is not None and n > cap:
        _fail(what, n, cap, "")


def range_length(start, limit, delta) -> int:
    """The length of a range (as numpy and TensorFlow count it), for the check."""
    return max(0, math.ceil((float(limit) - float(start)) / float(delta)))


def _fail(what, n, cap, shape):
    raise InvalidArgumentError(
        f"{what}{shape} would allocate {n} elements, more than the {cap} this graph may "
        "allocate at once (a loaded graph's limit: rt.saved.load(..., max_elements=...))")
