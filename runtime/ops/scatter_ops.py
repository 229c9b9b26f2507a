"""N-dimensional gathers and scatters (TensorFlow's gather_nd, scatter_nd,
tensor_scatter_nd_update and tensor_scatter_nd_add).

The last dimension of `indices` (k of them) indexes the first k dimensions of the tensor:
`gather_nd(params, indices)[i] = params[indices[i]]`, a slice of shape `params.shape[k:]`
per index tuple. An index outside `[0, dim)` (negative ones too) raises
InvalidArgumentError when the op runs, as TensorFlow's CPU kernels do.

Gradients (TensorFlow's): gather_nd's is a scatter_nd of the output's gradient (repeated
indices add); scatter_nd's is a gather_nd of it; tensor_scatter_nd_update's tensor gets
the gradient with the updated places zeroed, and its updates gather theirs.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from . import array_ops, makers
from .core import OpDef, apply_op, constant_value, convert_to_tensor, ones_like, zeros_like
from .math_ops import cast
from .reduce_ops import reduce_prod


def _check_indices(indices, what):
    if not indices.dtype.is_integer:
        raise InvalidArgumentError(f"{what}: indices must be integers, got {indices.dtype.name}")
    if indices.shape.rank == 0:
        raise InvalidArgumentError(f"{what}: indices must have rank >= 1, got a scalar")


def _index_depth(indices) -> Optional[int]:
    return None if indices.shape.rank is None else indices.shape.as_list()[-1]


def _result_shape(indices, inner: TensorShape, what) -> TensorShape:
    """indices.shape[:-1] + inner.shape[k:]."""
    k = _index_depth(indices)
    if indices.shape.rank is None or k is None or inner.rank is None:
        return TensorShape(None)
    if k > inner.rank:
        raise InvalidArgumentError(
            f"{what}: index depth {k} is more than the rank {inner.rank} of shape {inner}")
    return TensorShape(indices.shape.as_list()[:-1] + inner.as_list()[k:])


def _check_updates(updates, indices, shape: TensorShape, what) -> None:
    want = _result_shape(indices, shape, what)
    if not want.is_compatible_with(updates.shape):
        raise InvalidArgumentError(
            f"{what}: updates must have shape indices.shape[:-1] + shape[k:] = {want}, got "
            f"{updates.shape}")


def _rows(indices, bounds, what):
    """The index tuples as an [n, k] array, each checked to lie inside `bounds`."""
    idx = np.asarray(indices)
    k = idx.shape[-1]
    if k > len(bounds):
        raise InvalidArgumentError(
            f"{what}: index depth {k} is more than the rank {len(bounds)} of shape "
            f"{list(bounds)}")
    rows = idx.reshape(int(np.prod(idx.shape[:-1], dtype=np.int64)), k)
    bad = np.any((rows < 0) | (rows >= np.asarray(bounds[:k], dtype=np.int64)), axis=1)
    if np.any(bad):
        position = int(np.argmax(bad))
        raise InvalidArgumentError(index_error_text(what, position, idx.shape[:-1], bounds))
    return rows


def index_error_text(what, position, shape, bounds) -> str:
    """The error for the index tuple at flat `position` (of indices.shape[:-1] = `shape`)."""
    i = np.unravel_index(position, shape) if len(shape) else ()
    return (f"{what}: indices[{','.join(map(str, i))}] does not index into shape "
            f"{list(int(b) for b in bounds)}")


# -- gather_nd --------------------------------------------------------------------------

def _gather_nd_infer(inputs):
    params, indices = inputs
    _check_indices(indices, "gather_nd")
    return [(_result_shape(indices, params.shape, "gather_nd"), params.dtype)]


def _gather_nd_kernel(params, indices):
    params = np.asarray(params)
    rows = _rows(indices, params.shape, "gather_nd")
    k = rows.shape[1]
    out_shape = np.shape(indices)[:-1] + params.shape[k:]
    if k == 0:
        return np.array(np.broadcast_to(params, (len(rows),) + params.shape)).reshape(out_shape)
    return params[tuple(rows.T)].reshape(out_shape)


def _gather_nd_grad(inputs, outputs, grads):
    params, indices = inputs
    out = apply_op(SCATTER_ND, [indices, grads[0], array_ops.shape(params)])
    out.set_shape(params.shape)
    return [out, None]


GATHER_ND = OpDef("GatherNd", _gather_nd_infer, _gather_nd_kernel, grad=_gather_nd_grad,
                  allocates=True)


# -- scatter_nd -------------------------------------------------------------------------

def _shape_of(shape_tensor) -> TensorShape:
    known = constant_value(shape_tensor)
    if known is not None:
        return TensorShape([int(d) for d in np.asarray(known).reshape(-1)])
    n = shape_tensor.shape[0] if shape_tensor.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)


def _scatter_nd_infer(inputs):
    indices, updates, shape = inputs
    _check_indices(indices, "scatter_nd")
    if not shape.dtype.is_integer or shape.shape.rank not in (None, 1):
        raise InvalidArgumentError("scatter_nd: shape must be a vector of integers")
    out = _shape_of(shape)
    _check_updates(updates, indices, out, "scatter_nd")
    return [(out, updates.dtype)]


def _scatter_into(out, indices, updates, what, add):
    rows = _rows(indices, out.shape, what)
    k = rows.shape[1]
    values = np.asarray(updates).reshape((len(rows),) + out.shape[k:])
    if k == 0:
        if add:
            out += values.sum(axis=0, dtype=out.dtype) if len(rows) else 0
        elif len(rows):
            out[...] = values[-1]
        return out
    if add:
        np.add.at(out, tuple(rows.T), values)
    else:
        out[tuple(rows.T)] = values
    return out


def _scatter_nd_kernel(indices, updates, shape):
    updates = np.asarray(updates)
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"scatter_nd: shape must be non-negative, got {list(dims)}")
    want = np.shape(indices)[:-1] + dims[np.shape(indices)[-1]:]
    if updates.shape != want:
        raise InvalidArgumentError(
            f"scatter_nd: updates must have shape {list(want)}, got {list(updates.shape)}")
    return _scatter_into(np.zeros(dims, updates.dtype), indices, updates, "scatter_nd", True)


SCATTER_ND = OpDef("ScatterNd", _scatter_nd_infer, _scatter_nd_kernel, allocates=True,
                   grad=lambda inputs, outputs, grads: [
                       None, gather_nd(grads[0], inputs[0]), None])


# -- tensor_scatter_nd_update / add ----------------------------------------------------

def _tensor_scatter_infer(inputs, add):
    tensor, indices, updates = inputs
    what = "tensor_scatter_nd_add" if add else "tensor_scatter_nd_update"
    _check_indices(indices, what)
    if updates.dtype != tensor.dtype:
        raise InvalidArgumentError(
            f"{what}: updates must have the tensor's dtype {tensor.dtype.name}, got "
            f"{updates.dtype.name}")
    _check_updates(updates, indices, tensor.shape, what)
    return [(tensor.shape, tensor.dtype)]


def _tensor_scatter_kernel(tensor, indices, updates, add):
    what = "tensor_scatter_nd_add" if add else "tensor_scatter_nd_update"
    out = np.array(tensor, copy=True)
    want = np.shape(indices)[:-1] + out.shape[np.shape(indices)[-1]:]
    if np.shape(updates) != want:
        raise InvalidArgumentError(
            f"{what}: updates must have shape {list(want)}, got {list(np.shape(updates))}")
    return _scatter_into(out, indices, updates, what, add)


def _tensor_scatter_grad(inputs, outputs, grads, add):
    tensor, indices, updates = inputs
    g = grads[0]
    if add:
        return [g, None, gather_nd(g, indices)]
    cleared = apply_op(TENSOR_SCATTER, [g, indices, zeros_like(updates)], {"add": False})
    return [cleared, None, gather_nd(g, indices)]


TENSOR_SCATTER = OpDef("TensorScatterNd", _tensor_scatter_infer, _tensor_scatter_kernel,
                       grad=_tensor_scatter_grad, allocates=True)

OPS = [GATHER_ND, SCATTER_ND, TENSOR_SCATTER]


# -- the functions users call -------------------------------------------------------------

def _indices(indices):
    return convert_to_tensor(indices, dtype_hint=dtypes.int32)


def gather_nd(params, indices, batch_dims: int = 0, name: Optional[str] = None):
    """Slices of `params` picked by the index tuples in the last dimension of `indices`.

    `out[i0, ..., im-1] = params[indices[i0, ..., im-1, :]]`: with `k = indices.shape[-1]`,
    each tuple indexes the first k dimensions, and the result has shape
    `indices.shape[:-1] + params.shape[k:]`. With `batch_dims = b`, the first b dimensions
    of params and indices are batch dimensions both share, and the tuples index
    `params[b0, ..., bb-1]`. An index outside `[0, dim)` raises InvalidArgumentError.

    Args:
      params: the tensor to gather from.
      indices: an integer tensor whose last dimension holds the index tuples.
      batch_dims: the number of leading batch dimensions (a Python int >= 0).
      name: an optional name for the op.

    Returns:
      A tensor of params' dtype.

    >>> print(rt.gather_nd(rt.constant([[1, 2], [3, 4]]), [[1, 0], [0, 1]]))
    rt.Tensor([3 2], shape=(2,), dtype=int32)
    >>> print(rt.gather_nd(rt.constant([[1, 2], [3, 4]]), [[1]]))
    rt.Tensor([[3 4]], shape=(1, 2), dtype=int32)
    """
    p = convert_to_tensor(params)
    i = _indices(indices)
    if not isinstance(batch_dims, (int, np.integer)) or batch_dims < 0:
        raise ValueError(f"gather_nd: batch_dims must be a non-negative int, got {batch_dims!r}")
    if batch_dims:
        return _batched_gather_nd(p, i, int(batch_dims), name)
    return apply_op(GATHER_ND, [p, i], name=name)


def _batched_gather_nd(p, i, b, name):
    """The batch coordinates are put in front of each index tuple, over params with its b
    batch dimensions folded into one."""
    if p.shape.rank is None or i.shape.rank is None:
        raise ValueError("gather_nd with batch_dims needs params and indices of known rank")
    if b >= i.shape.rank or b > p.shape.rank:
        raise ValueError(f"gather_nd: batch_dims {b} must be less than the rank of indices "
                         f"({i.shape.rank}) and at most the rank of params ({p.shape.rank})")
    p_shape, i_shape = array_ops.shape(p), array_ops.shape(i)
    batch = p_shape[:b]
    n = cast(makers.range(0, reduce_prod(batch)), i.dtype)
    folded_p = array_ops.reshape(p, array_ops.concat([[-1], p_shape[b:]], 0))
    folded_i = array_ops.reshape(i, array_ops.concat([[-1], i_shape[b:]], 0))
    middle = i.shape.rank - b - 1   # the index dimensions between batch and tuple
    coords = array_ops.reshape(n, [-1] + [1] * (middle + 1))
    coords = coords * ones_like(folded_i[..., :1])
    out = apply_op(GATHER_ND, [folded_p, array_ops.concat([coords, folded_i], -1)], name=name)
    result = array_ops.reshape(out, array_ops.concat(
        [batch, array_ops.shape(out)[1:]], 0))
    k = i.shape.as_list()[-1]
    if k is not None:
        result.set_shape(TensorShape(i.shape.as_list()[:-1] + p.shape.as_list()[b + k:]))
    return result


def scatter_nd(indices, updates, shape, name: Optional[str] = None):
    """A tensor of zeros of `shape` with `updates` added at `indices` (repeated ones add).

    `out[indices[i]] += updates[i]`: with `k = indices.shape[-1]`, updates has shape
    `indices.shape[:-1] + shape[k:]`. An index outside `[0, dim)` raises
    InvalidArgumentError.

    Args:
      indices: an integer tensor whose last dimension holds the index tuples.
      updates: the values to add.
      shape: the result's shape (a list or an integer vector tensor).
      name: an optional name for the op.

    Returns:
      A tensor of updates' dtype and of `shape`.

    >>> print(rt.scatter_nd([[1], [3], [1]], rt.constant([5, 6, 7]), [4]))
    rt.Tensor([ 0 12  0  6], shape=(4,), dtype=int32)
    """
    i = _indices(indices)
    u = convert_to_tensor(updates)
    s = convert_to_tensor(shape, dtype_hint=i.dtype)
    return apply_op(SCATTER_ND, [i, u, s], name=name)


def tensor_scatter_nd_update(tensor, indices, updates, name: Optional[str] = None):
    """A copy of `tensor` with `out[indices[i]] = updates[i]`.

    With `k = indices.shape[-1]`, updates has shape `indices.shape[:-1] +
    tensor.shape[k:]`. Which of several updates to one place wins is not defined (as in
    TensorFlow). An index outside `[0, dim)` raises InvalidArgumentError.

    >>> print(rt.tensor_scatter_nd_update(rt.constant([1, 2, 3, 4]), [[0], [2]], [9, 8]))
    rt.Tensor([9 2 8 4], shape=(4,), dtype=int32)
    """
    t = convert_to_tensor(tensor)
    return apply_op(TENSOR_SCATTER, [t, _indices(indices), convert_to_tensor(updates, t.dtype)],
                    {"add": False}, name=name)


def tensor_scatter_nd_add(tensor, indices, updates, name: Optional[str] = None):
    """A copy of `tensor` with `out[indices[i]] += updates[i]` (repeated indices add).

    With `k = indices.shape[-1]`, updates has shape `indices.shape[:-1] +
    tensor.shape[k:]`. An index outside `[0, dim)` raises InvalidArgumentError.

    >>> print(rt.tensor_scatter_nd_add(rt.constant([1, 2, 3, 4]), [[0], [0]], [9, 8]))
    rt.Tensor([18  2  3  4], shape=(4,), dtype=int32)
    """
    t = convert_to_tensor(tensor)
    return apply_op(TENSOR_SCATTER, [t, _indices(indices), convert_to_tensor(updates, t.dtype)],
                    {"add": True}, name=name)
