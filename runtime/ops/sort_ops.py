"""`rt.argsort` (the ArgSort op) and `rt.sort` (the Sort op: numpy's fast unstable sort
gives the same values as a stable one).

TensorFlow sorts with top_k, which puts equal values in the order of their positions in
both directions: ArgSort is a stable sort ascending and descending alike (so `stable=True`
and `stable=False` give the same result, as TensorFlow's top_k based argsort does).
The gradient of `sort` is a gather of the output's gradient by the inverse of the
argsort: each sorted position's gradient goes back to where the value came from.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from . import array_ops, makers, shape_utils
from .core import OpDef, apply_op, constant, convert_to_tensor

DIRECTIONS = ("ASCENDING", "DESCENDING")


def _argsort_infer(inputs, axis, descending):
    x = inputs[0]
    if not (x.dtype.is_integer or x.dtype.is_floating):
        raise InvalidArgumentError(f"sort/argsort needs real-valued tensors, got {x.dtype.name}")
    if x.shape.rank is not None and not 0 <= axis < max(x.shape.rank, 1):
        raise InvalidArgumentError(f"sort: axis {axis} is out of range for shape {x.shape}")
    return [(x.shape, dtypes.int32)]


def _sort_infer(inputs, axis, descending):
    _argsort_infer(inputs, axis, descending)  # the same checks
    return [(inputs[0].shape, inputs[0].dtype)]


def stable_argsort(xp, x, axis, descending):
    """The stable argsort of `x` along `axis` with `xp` (numpy or jax.numpy); descending
    keeps equal values in the order of their positions too."""
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable") if xp is np else \
            xp.argsort(x, axis=axis, stable=True)
    n = x.shape[axis]
    flipped = xp.flip(x, axis=axis)
    order = xp.argsort(flipped, axis=axis, kind="stable") if xp is np else \
        xp.argsort(flipped, axis=axis, stable=True)
    return (n - 1) - xp.flip(order, axis=axis)


def _argsort_kernel(x, axis, descending):
    x = np.asarray(x)
    if x.ndim == 0:
        raise InvalidArgumentError("sort/argsort needs a tensor of rank >= 1, got a scalar")
    return stable_argsort(np, x, axis, descending).astype(np.int32)


ARGSORT = OpDef("ArgSort", _argsort_infer, _argsort_kernel, allocates=True,
                grad=lambda inputs, outputs, grads, axis, descending: [None])  # integer positions


def _sort_kernel(x, axis, descending):
    x = np.asarray(x)
    if x.ndim == 0:
        raise InvalidArgumentError("sort/argsort needs a tensor of rank >= 1, got a scalar")
    out = np.sort(x, axis=axis)
    return np.flip(out, axis=axis) if descending else out


def _sort_grad(inputs, outputs, grads, axis, descending):
    """g[j] belongs to x[idx[j]]: x's gradient is g gathered by the inverse permutation."""
    x = inputs[0]
    idx = apply_op(ARGSORT, [x], {"axis": axis, "descending": descending})
    inverse = apply_op(ARGSORT, [idx], {"axis": axis, "descending": False})
    return [take_along_axis(grads[0], inverse, axis)]


SORT = OpDef("Sort", _sort_infer, _sort_kernel, grad=_sort_grad)


OPS = [ARGSORT, SORT]


def _direction(direction) -> bool:
    if direction not in DIRECTIONS:
        raise ValueError(f"Unknown direction: {direction!r}; use 'ASCENDING' or 'DESCENDING'")
    return direction == "DESCENDING"


def _axis(x, axis):
    rank = x.shape.rank
    if rank is None:
        raise ValueError("sort/argsort needs a tensor of known rank")
    if rank == 0:
        raise InvalidArgumentError("sort/argsort needs a tensor of rank >= 1, got a scalar")
    return shape_utils.normalize_axes(shape_utils.single_axis(axis, "sort"), rank)[0]


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name: Optional[str] = None):
    """The positions that sort `values` along `axis` (TensorFlow's tf.argsort).

    Equal values always keep the order of their positions (in both directions).

    Args:
      values: a real-valued tensor (or what converts to one) of known rank >= 1.
      axis: the dimension to sort along (default -1, the last).
      direction: 'ASCENDING' or 'DESCENDING'.
      stable: accepted for TensorFlow's signature (the sort is always stable).
      name: an optional name for the op.

    Returns:
      An int32 tensor of the input's shape.

    >>> rt.argsort(rt.constant([3.0, 1.0, 2.0]))
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 0], dtype=int32)>
    >>> rt.argsort(rt.constant([[1, 5, 5], [4, 0, 2]]), direction="DESCENDING")
    <rt.Tensor: shape=(2, 3), dtype=int32, numpy=
    array([[1, 2, 0],
           [0, 2, 1]], dtype=int32)>
    """
    descending = _direction(direction)
    x = convert_to_tensor(values)
    return apply_op(ARGSORT, [x], {"axis": _axis(x, axis), "descending": descending},
                    name=name)


def take_along_last(x, idx):
    """x[..., idx[..., j]] for each leading position: `x` and `idx` of one shape [..., n],
    as one gather on the flattened `x` (so the gather's gradient serves)."""
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        n = dims[-1]
        rows = int(np.prod(dims[:-1], dtype=np.int64))
        if n == 0 or rows == 0:
            return x
        offsets = constant((np.arange(rows, dtype=np.int32) * n).reshape(-1, 1))
        flat = array_ops.reshape(idx, [rows, n]) + offsets
        out = array_ops.gather(array_ops.reshape(x, [-1]), array_ops.reshape(flat, [-1]))
        return array_ops.reshape(out, dims)
    shape = array_ops.shape(x)
    n = shape[-1]
    from_rows = array_ops.reshape(idx, array_ops.stack([-1, n]))
    rows = array_ops.shape(from_rows)[0]
    offsets = array_ops.expand_dims(makers.range(0, rows, dtype=dtypes.int32) * n, 1)
    flat = array_ops.reshape(from_rows + offsets, [-1])
    out = array_ops.gather(array_ops.reshape(x, [-1]), flat)
    out = array_ops.reshape(out, shape)
    out.set_shape(x.shape)
    return out


def sort(values, axis=-1, direction="ASCENDING", name: Optional[str] = None):
    """`values` sorted along `axis` (TensorFlow's tf.sort).

    Its gradient goes back to each value's original position.

    Args:
      values: a real-valued tensor (or what converts to one) of known rank >= 1.
      axis: the dimension to sort along (default -1, the last).
      direction: 'ASCENDING' or 'DESCENDING'.
      name: an optional name for the op.

    Returns:
      A tensor of the input's dtype and shape.

    >>> rt.sort(rt.constant([3.0, 1.0, 2.0]), direction="DESCENDING")
    <rt.Tensor: shape=(3,), dtype=float32, numpy=array([3., 2., 1.], dtype=float32)>
    >>> rt.sort(rt.constant([[3, 1], [0, 2]]), axis=0)
    <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
    array([[0, 1],
           [3, 2]], dtype=int32)>
    """
    descending = _direction(direction)
    x = convert_to_tensor(values)
    return apply_op(SORT, [x], {"axis": _axis(x, axis), "descending": descending}, name=name)


def take_along_axis(x, idx, axis):
    """numpy's take_along_axis for `idx` of x's shape, as transposes and one gather."""
    rank = x.shape.rank
    if axis == rank - 1:
        out = take_along_last(x, idx)
    else:
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        out = array_ops.transpose(take_along_last(array_ops.transpose(x, perm),
                                                  array_ops.transpose(idx, perm)), perm)
    out.set_shape(x.shape)
    return out
