"""What decides whether a construct is staged: `backend_of(value)` (see
staging_backends), and the iterables of
a `for` that stay staged (`range_`, `enumerate_`: the builtins on Python values)."""
from __future__ import annotations

from builtins import enumerate, range, tuple, type, zip  # the originals: see operators/__init__

from typing import Any

from autograph.operators.staging_backends import backend_of
from autograph.operators.undefined import unwrap

# Types that are never staged: the Python paths test them first, because converted code
# runs on Python values far more often than on tensors, once per iteration of every loop.
PLAIN = frozenset({bool, int, float, str, bytes, type(None), list, tuple, dict, set, range})


def range_(*args: Any) -> Any:
    """`range(...)` in a `for`: a staged range when a bound is a tensor."""
    args = tuple(unwrap(a) for a in args)
    for a in args:
        backend = backend_of(a)
        if backend is not None:
            for b in args:      # (Python's range takes no float: nor does it staged)
                dtype = getattr(b, "dtype", None)
                if isinstance(b, float) or getattr(dtype, "is_integer", True) is False:
                    what = f"a {dtype.name} tensor" if dtype is not None else "a float"
                    raise TypeError(f"range() takes integers, not {what}: cast it to an "
                                    f"integer dtype first")
            start, limit, delta = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
            return backend.range(start, limit, delta)
    return range(*args)


class StagedEnumerate:
    """`enumerate(t)` of a staged tensor, for `for_stmt` to iterate as a staged loop."""

    __slots__ = ("tensor", "start")

    def __init__(self, tensor: Any, start: Any):
        self.tensor, self.start = tensor, start


def enumerate_(iterable: Any, start: Any = 0) -> Any:
    """`enumerate(...)` in a `for`: staged when it enumerates a staged tensor."""
    iterable = unwrap(iterable)
    if backend_of_iterable(iterable) is None:
        return enumerate(iterable, start)
    return StagedEnumerate(iterable, start)


class StagedZip:
    """`zip(a, b, ...)` of staged values of one backend, for `for_stmt` to iterate as one
    staged loop (as long as the shortest)."""

    __slots__ = ("backend", "parts")

    def __init__(self, backend: Any, parts: tuple):
        self.backend, self.parts = backend, parts


def zip_(*iterables: Any) -> Any:
    """`zip(...)` in a `for`: staged when every iterable is a staged value of one backend
    (a mix with Python iterables stays Python's zip, which iterates each)."""
    parts = tuple(unwrap(p) for p in iterables)
    backends = {id(b): b for b in (backend_of(p) for p in parts)}
    if len(backends) != 1 or None in backends.values():
        return zip(*parts)
    return StagedZip(next(iter(backends.values())), parts)


def backend_of_iterable(iterable: Any) -> Any:
    """The backend that stages a `for` over `iterable` (None: a Python loop)."""
    kind = type(iterable)
    if kind is StagedEnumerate:
        return backend_of_iterable(iterable.tensor)
    if kind is StagedZip:
        return iterable.backend
    return backend_of(iterable)
