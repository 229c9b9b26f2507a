"""Builtins whose answer on a staged value is itself staged: `len(t)`, `x in t`,
`max`/`min` of staged scalars (or of a staged vector's elements), and, with
`Feature.BUILTIN_FUNCTIONS`, `print(t)`.

    len(xs)       ->   ag__.len_(xs)
    x in xs       ->   ag__.in_(x, xs)
    x not in xs   ->   ag__.not_in(x, xs)
    max(a, b)     ->   ag__.max_(a, b)
    print(x, y)   ->   ag__.print_(x, y)          (only with Feature.BUILTIN_FUNCTIONS)

The design in full: docs/architecture.md, under `autograph/operators/py_builtins.py`.
"""
from __future__ import annotations

from builtins import (  # the originals: see operators/__init__
    dict, isinstance, len, list, max, min, print, tuple, type)

from typing import Any

from autograph.operators.iterables import PLAIN, backend_of
from autograph.operators.undefined import unwrap


# len() of values Python's len() has no answer for, by type (register_len).
_LENGTHS: dict = {}


def register_len(cls: type, length: Any) -> None:
    """`len(v)` in converted code is `length(v)` for a value of class `cls` that is not
    staged (a backend's array of tensors: the runtime's TensorArray gives its size, as
    TensorFlow's `len` of a TensorArray does)."""
    _LENGTHS[cls] = length


def len_(value: Any) -> Any:
    if type(value) in PLAIN:
        return len(value)
    value = unwrap(value)
    backend = backend_of(value)
    if backend is None:
        length = _LENGTHS.get(type(value))
        return len(value) if length is None else length(value)
    return backend.len(value)


def in_(item: Any, container: Any) -> Any:
    if type(container) in PLAIN:
        return item in container
    container = unwrap(container)
    backend = backend_of(container)
    if backend is None:
        return item in container
    return backend.contains(container, unwrap(item))


def not_in(item: Any, container: Any) -> Any:
    if type(container) in PLAIN:
        return item not in container
    container = unwrap(container)
    backend = backend_of(container)
    if backend is None:
        return item not in container
    return backend.logical_not(backend.contains(container, unwrap(item)))


def max_(*args: Any, **kwargs: Any) -> Any:
    """`max(...)`: Python's, unless a value compared is staged; then the backend's
    `extremum`, which keeps Python's meaning (the first of equal values; a NaN is never
    larger, so it is the answer only where it comes first)."""
    return _extremum(args, kwargs, True, max)


def min_(*args: Any, **kwargs: Any) -> Any:
    """`min(...)`: as `max_`, for the smallest."""
    return _extremum(args, kwargs, False, min)


def _extremum(args: tuple, kwargs: dict, largest: bool, builtin: Any) -> Any:
    if kwargs or not args:            # key=, default=: Python's (it compares them itself)
        return builtin(*args, **kwargs)
    values = args
    if len(args) == 1 and type(args[0]) in (list, tuple):
        values = args[0]              # max([a, b]): the elements are compared
    values = tuple(unwrap(v) for v in values)
    for value in values:
        backend = backend_of(value)
        if backend is not None:
            return backend.extremum(values, largest)
    return builtin(*args)


def print_(*values: Any, sep: Any = " ", end: Any = "\n", file: Any = None,
           flush: bool = False) -> None:
    """`print(...)` in code converted with `Feature.BUILTIN_FUNCTIONS`: Python's print
    when no argument is staged; else the backend stages a print (`backend.print`) that
    runs at every run of the graph, showing the staged values' values and the other
    arguments as Python prints them. `flush` has no staged meaning (ignored there)."""
    backend = None
    for value in values:
        backend = _staged_in(value, 4)
        if backend is not None:
            break
    if backend is None:
        return print(*values, sep=sep, end=end, file=file, flush=flush)
    backend.print(tuple(unwrap(v) for v in values), " " if sep is None else sep,
                  "\n" if end is None else end, file)
    return None


def _staged_in(value: Any, depth: int) -> Any:
    """The backend of `value` or of a value in it (lists, tuples, dicts, `depth` deep)."""
    if isinstance(value, (list, tuple, dict)):
        if depth:
            for item in (value.values() if isinstance(value, dict) else value):
                backend = _staged_in(item, depth - 1)
                if backend is not None:
                    return backend
        return None
    if type(value) in PLAIN:
        return None
    return backend_of(unwrap(value))
