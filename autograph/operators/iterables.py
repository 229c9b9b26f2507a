"""What decides whether a construct is staged: `backend_of(value)` (see
staging_backends), and the iterables of
a `for` that stay staged (`range_`, `enumerate_`: the builtins on Python values)."""
from __future__ import annotations

from builtins import (  # the originals: see operators/__init__
    all, enumerate, len, min, range, tuple, type, zip)

from typing import Any

from autograph.operators.staging_backends import backend_of
from autograph.errors import user_location
from autograph.operators.undefined import is_undefined, unwrap

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


def iteration_plan(backend: Any, iterable: Any) -> tuple:
    """The backend's plan for iterating `iterable`: (length, item at i), or ("iterator",
    first, next) (control_flow's staged iterator loop); a zip's plan combines its parts' plans."""
    if type(iterable) is not StagedZip:
        return backend.iterate(iterable)
    plans = [backend.iterate(part) for part in iterable.parts]
    if all(len(p) == 2 for p in plans):
        lengths = [p[0] for p in plans]
        length = lengths[0]
        for other in lengths[1:]:        # (the shortest: known or staged lengths)
            if type(length) is int and type(other) is int:
                length = min(length, other)
            else:
                length = backend.minimum(length, other)
        return length, (lambda i: tuple(p[1](i) for p in plans))
    if all(len(p) == 3 for p in plans):
        def first():
            fetched = [p[1]() for p in plans]
            return all_of(backend, [f[0] for f in fetched]), tuple(f[1] for f in fetched), \
                tuple(f[2] for f in fetched)

        def next_(its):
            fetched = [p[2](it) for p, it in zip(plans, its)]
            return all_of(backend, [f[0] for f in fetched]), tuple(f[1] for f in fetched), \
                tuple(f[2] for f in fetched)
        return "iterator", first, next_
    raise TypeError(f"{user_location(4)}: zip() of a staged iterator (a dataset) and an "
                    f"array is not staged: zip datasets with each other, or make the array "
                    f"a dataset")


def all_of(backend: Any, flags: list) -> Any:
    """Every one of `flags` (staged bools, or Python ones) holds."""
    out = flags[0]
    both = getattr(backend, "logical_and", None)
    for flag in flags[1:]:
        if both is not None:
            out = both(out, flag)
        else:
            outs, _ = backend.cond(out, lambda flag=flag: (flag,), lambda: (False,), ("and",),
                                   is_undefined)
            out = outs[0]
    return out
