"""Builtins whose answer on a staged value is itself staged: `len(t)`, `x in t`.

    len(xs)       ->   ag__.len_(xs)
    x in xs       ->   ag__.in_(x, xs)
    x not in xs   ->   ag__.not_in(x, xs)

On Python values they are the builtins. On a staged value the backend answers
(`backend.len`: an int when the length is known while tracing, else a staged int;
`backend.contains`: a staged bool), because Python would insist on an int or a bool.
"""
from __future__ import annotations

from builtins import len, type  # the originals: see operators/__init__

from typing import Any

from autograph.operators.control_flow import PLAIN, backend_of
from autograph.operators.undefined import unwrap


def len_(value: Any) -> Any:
    if type(value) in PLAIN:
        return len(value)
    value = unwrap(value)
    backend = backend_of(value)
    if backend is None:
        return len(value)
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
