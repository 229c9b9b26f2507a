"""Static shape arithmetic shared by the ops' inference rules (None = unknown)."""
from __future__ import annotations

from ..errors import InvalidArgumentError
from ..core.shapes import TensorShape


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
