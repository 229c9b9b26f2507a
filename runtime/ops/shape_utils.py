"""Static shape arithmetic shared by the ops' inference rules (None = unknown), and
axis arguments as Python ints."""
from __future__ import annotations

import numpy as np

from ..core.opdef import constant_value
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError


def broadcast(a: TensorShape, b: TensorShape, what: str = "operands") -> TensorShape:
    """numpy/TensorFlow broadcasting of two static shapes."""
    da, db = a.as_tuple(), b.as_tuple()
    if da is None or db is None:
        return TensorShape(None)
    if da == db and None not in da:  # the common case: nothing to broadcast
        return a
    n = max(len(da), len(db))
    da = (1,) * (n - len(da)) + da
    db = (1,) * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise InvalidArgumentError(
                f"Incompatible shapes: {a} and {b} cannot be broadcast together ({what})")
    return TensorShape(out)


def normalize_axes(axis, rank, what="axis"):
    """Axis arguments as a sorted tuple of non-negative ints, or None for all axes."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(int(a) for a in axis)
    if rank is None:
        return axes
    out = []
    for a in axes:
        if not -rank <= a < max(rank, 1):
            raise InvalidArgumentError(f"{what} {a} is out of range for a tensor of rank {rank}")
        out.append(a % rank if rank else 0)
    return tuple(sorted(set(out)))


def reduce(shape: TensorShape, axes, keepdims: bool) -> TensorShape:
    if shape.rank is None:
        return TensorShape(None)
    if axes is None:
        return TensorShape([1] * shape.rank) if keepdims else TensorShape(())
    if any(a < 0 for a in axes):
        return TensorShape(None)
    dims = shape.as_list()
    if keepdims:
        return TensorShape(1 if i in axes else d for i, d in enumerate(dims))
    return TensorShape(d for i, d in enumerate(dims) if i not in axes)


def static_axis(axis, what="axis"):
    """An axis argument as Python ints: tensors must have a value at trace time."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if value is None:
            raise InvalidArgumentError(f"{what} must be known when the graph is built; got the "
                                       f"symbolic tensor {axis!r}")
        axis = value
    if isinstance(axis, (list, tuple, np.ndarray)):
        return tuple(whole_number(a, what) for a in np.asarray(axis).reshape(-1))
    return whole_number(axis, what)


def whole_number(value, what: str) -> int:
    """`value` as an int; a number with a fraction (2.5) is a TypeError, not truncated
    (TensorFlow refuses floats where a shape or an axis goes)."""
    number = int(value)
    if isinstance(value, (float, np.floating)) and number != value:
        raise TypeError(f"{what} must hold integers, got {value!r}")
    return number


def single_axis(axis, what: str) -> int:
    """An axis argument that must be one integer (a 1-element list is accepted)."""
    axis = static_axis(axis)
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise InvalidArgumentError(f"{what}: axis must be one integer, got {list(axis)}")
        axis = axis[0]
    return axis
