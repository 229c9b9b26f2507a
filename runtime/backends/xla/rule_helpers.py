"""What the XLA backend's rule modules share: the error for a node that cannot lower, the
test for a value known while tracing, rule factories, and the kernels' error messages.

A rule is `rule(lw, op, *args) -> value` (a tuple for a `multi_output` op), where `lw` is
the lowerer (`backend._Lowerer`) and `args` the lowered inputs: jax arrays, or numpy
arrays when the value is known while tracing (constants, shapes).
"""
from __future__ import annotations

import numpy as np

from ...errors import InvalidArgumentError


class Unsupported(Exception):
    """A node cannot lower to XLA (the message says why); found while tracing."""


def is_concrete(v) -> bool:
    """Whether `v` is known while tracing (a numpy value, not a tracer)."""
    return isinstance(v, (np.ndarray, np.generic))


def np_dtype(dtype):
    """The numpy dtype of one of our dtypes."""
    return dtype.np_dtype


def unary(fn):
    """The rule of an op that is `fn(x)`."""
    return lambda lw, op, x: fn(x)


def binary(fn):
    """The rule of an op that is `fn(x, y)`."""
    return lambda lw, op, x, y: fn(x, y)


def static_ints(op, value, what):
    """`value` (a shape, paddings, ...) as a tuple of ints; Unsupported when it is known
    only when the graph runs."""
    if not is_concrete(value):
        raise Unsupported(f"its {what} is known only when the graph runs (XLA needs every "
                          "shape while compiling)")
    return tuple(int(d) for d in np.asarray(value).reshape(-1))


def gather_error(n, shape):
    """The kernel's error for the index at flat `position` of indices of `shape`, not in
    [0, n)."""
    def make(position, value, *_):
        i = np.unravel_index(position, shape) if shape else ()
        return InvalidArgumentError(
            f"indices[{','.join(map(str, i))}] = {value} is not in [0, {n})")
    return make


def index_error(axis, n):
    """numpy's own error for x[i] (the numpy backend runs `x[i]` as Python); the size is
    the payload's second value when `n` is None."""
    def make(i, size=0, *_):
        return IndexError(f"index {int(i)} is out of bounds for axis {axis} with size "
                          f"{n if n is not None else int(size)}")
    return make
