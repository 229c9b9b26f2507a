"""`and`, `or`, `not` as functions that keep Python's short-circuit order.

    a and b and c   ->   ag__.and_(a, lambda: b, lambda: c)
    not a           ->   ag__.not_(a)
    a < f(b) < c    ->   ag__.compare(a, '<', lambda: f(b), '<', lambda: c)

The operands after the first are functions, so they run only when Python would run
them. A tensor operand stages the rest as a `cond` (`b` is traced, and computed only
when `a` is true at run time).
"""
from __future__ import annotations

from builtins import enumerate, len, type  # the originals: see operators/__init__

import operator
from typing import Any, Callable

from autograph.operators.control_flow import PLAIN, staged_if, backend_of
from autograph.operators.py_builtins import in_, not_in
from autograph.operators.undefined import unwrap


def and_(first: Any, *rest: Callable[[], Any]) -> Any:
    value = first
    for i, next_fn in enumerate(rest):
        if type(value) in PLAIN:
            if not value:
                return value
            value = next_fn()
            continue
        value = unwrap(value)
        backend = backend_of(value)
        if backend is not None:
            remaining = rest[i + 1:]
            return staged_if(backend, value, lambda: and_(next_fn(), *remaining),
                              lambda v=value: v, (), (), ("the `and` expression",))
        if not value:
            return value
        value = next_fn()
    return value


def or_(first: Any, *rest: Callable[[], Any]) -> Any:
    value = first
    for i, next_fn in enumerate(rest):
        if type(value) in PLAIN:
            if value:
                return value
            value = next_fn()
            continue
        value = unwrap(value)
        backend = backend_of(value)
        if backend is not None:
            remaining = rest[i + 1:]
            return staged_if(backend, value, lambda v=value: v,
                              lambda: or_(next_fn(), *remaining), (), (),
                              ("the `or` expression",))
        if value:
            return value
        value = next_fn()
    return value


def not_(value: Any) -> Any:
    if type(value) in PLAIN:
        return not value
    value = unwrap(value)
    backend = backend_of(value)
    if backend is None:
        return not value
    return backend.logical_not(value)


_COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
                "==": operator.eq, "!=": operator.ne, "is": operator.is_,
                "is not": operator.is_not, "in": in_, "not in": not_in}


def compare(left: Any, *chain: Any) -> Any:
    """A chained comparison, `a < f(b) <= c` as `compare(a, "<", lambda: f(b), "<=",
    lambda: c)`: each operand evaluated once, in Python's order, and the rest of the chain
    only while it holds (an `and_`, so staged when a comparison gives a tensor)."""
    right = chain[1]()
    result = _COMPARISONS[chain[0]](left, right)
    if len(chain) == 2:
        return result
    return and_(result, lambda: compare(right, *chain[2:]))
