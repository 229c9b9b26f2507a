"""Python's truth value of a staged value, for the constructs autograph stages: `if`,
`while`, `x if c else y`, `and`, `or`, `not` and `assert` on a symbolic tensor.

Eagerly these ask `bool()` of a value, which for a tensor is numpy's: a number is true
when it is not zero (NaN is true), a string when it is not empty, and a tensor of one
element (shape (1,), (1, 1), ...) is its element's truth; a tensor of more elements or
none raises ValueError ("ambiguous"). Staged, the same: `truth_value` gives a scalar
bool tensor, raises the same ValueError while tracing where the static shape already
says the number of elements is not one, and, where the shape does not say (an unknown
dimension or rank), checks at run time that there is exactly one element, as TensorFlow
reshapes such a condition to a scalar.
"""
from __future__ import annotations

from .core.graph import user_location
from .core.tensor import Tensor
from .ops.array_ops import reshape, size
from .ops.core import convert_to_tensor
from .ops.io_ops import assert_that
from .ops.list_ops import StagedList
from .ops.math_ops import equal, greater, not_equal
from .ops.reduce_ops import reduce_any
from .ops.string_ops import strings


def truth_value(value, what: str = "the condition") -> Tensor:
    """`bool(value)` as a scalar bool tensor (see the module docstring). `what` names
    the construct in errors ("the condition of an `if`")."""
    if isinstance(value, StagedList):        # a list: true when it is not empty
        return greater(value.length(), 0)
    x = convert_to_tensor(value)
    if x.dtype.is_string:
        x = not_equal(strings.length(x), 0)
    elif not x.dtype.is_bool:
        if not x.dtype.is_numeric:
            raise TypeError(f"{what} must be a bool or a number, got {x!r}")
        x = not_equal(x, convert_to_tensor(0, dtype=x.dtype))
    shape = x.shape
    if shape.rank == 0:
        return x
    n = shape.num_elements()
    if n == 1:
        return reshape(x, [])
    known = [d for d in (shape.as_list() if shape.rank is not None else ()) if d is not None]
    if n is not None or 0 in known or _product(known) > 1:
        raise ValueError(_ambiguous(value, what, empty=n == 0 or 0 in known))
    # Unknown number of elements: exactly one, checked when the graph runs.
    found = user_location()
    where = f"{found[0]}:{found[1]}: " if found else ""
    assert_that(equal(size(x), 1),
                f"{where}The truth value of a tensor with more than one element, or none, "
                f"is ambiguous: {what} has shape {shape} while tracing and, at this run, "
                f"not exactly one element. Use rt.reduce_any or rt.reduce_all")
    return reduce_any(x)


def _product(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _ambiguous(value, what: str, empty: bool) -> str:
    if empty:
        return (f"The truth value of an empty tensor is ambiguous: {what} is {value!r}. "
                f"Use rt.size(x) > 0 to check that a tensor is not empty")
    return (f"The truth value of a tensor with more than one element is ambiguous: {what} "
            f"is {value!r}. Use rt.reduce_any or rt.reduce_all")
