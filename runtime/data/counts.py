"""Counts of elements that may be known only when the graph runs.

A dataset's length (`_length()`) and cardinality (`_cardinality()`) are Python ints when
they are known while the dataset is built, and int64 scalar tensors when they depend on a
tensor whose first dimension is unknown then (`from_tensor_slices(x)` with `x` of shape
`[None]` inside an `rt.function` with an `input_signature`). The helpers here compute
with either, giving an int when every operand is one; `None` as a length means infinite.
"""
from __future__ import annotations

from ..core import dtypes
from ..core.tensor import Tensor
from ..ops.core import constant, convert_to_tensor
from ..ops.math_ops import (equal, floordiv, greater, greater_equal, less_equal, logical_and,
                            maximum, minimum, multiply, subtract, where)

# The length standing for "no end" where a count known only at run time may be infinite
# (a repeat() of a dataset that may be empty): far above any index an iteration reaches.
NO_END = 1 << 62


def is_dynamic(n) -> bool:
    """Whether the count `n` is known only when the graph runs (a tensor)."""
    return isinstance(n, Tensor)


def i64(n):
    """The count `n` (an int or a tensor) as an int64 tensor."""
    return convert_to_tensor(n) if is_dynamic(n) else constant(n, dtypes.int64)


def _either(py, op):
    def combined(a, b):
        if is_dynamic(a) or is_dynamic(b):
            return op(i64(a), i64(b))
        return py(a, b)
    return combined


smallest = _either(min, minimum)
largest = _either(max, maximum)
minus = _either(lambda a, b: a - b, subtract)
times = _either(lambda a, b: a * b, multiply)
quotient = _either(lambda a, b: a // b, floordiv)


def ceil_quotient(a, b):
    """ceil(a / b) of a count and a positive int."""
    if is_dynamic(a):
        return floordiv(i64(a) + (b - 1), i64(b))
    return -(-a // b)


def is_zero(n):
    """`n == 0`: a Python bool, or a bool tensor for a count known at run time."""
    return equal(n, i64(0)) if is_dynamic(n) else n == 0


def choose(pred, a, b):
    """`a if pred else b` for counts, `pred` a Python bool or a bool tensor."""
    if isinstance(pred, Tensor):
        return where(pred, i64(a), i64(b))
    return a if pred else b


def within(n, low: int, high: int):
    """`low < n <= high` of a count known at run time: a bool tensor."""
    return logical_and(greater(n, i64(low)), less_equal(n, i64(high)))


def cardinality_of(length):
    """The cardinality of a random access dataset of `length` (None or NO_END: infinite,
    rt.data.INFINITE_CARDINALITY, -1)."""
    if length is None:
        return -1
    if is_dynamic(length):
        return where(greater_equal(length, i64(NO_END)), i64(-1), length)
    return length
