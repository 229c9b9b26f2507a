"""Shape and layout ops: reshape, transpose, concat/stack, gather, slicing, and the
tensor makers (fill, zeros, ones, eye, range)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from . import shape_utils
from .core import (STACK, UNSTACK, OpDef, apply_op, constant, constant_value,  # noqa: F401
                   convert_to_tensor, same_dtype, stack, stack_values, unstack, values_as_tensors)
from .shape_utils import static_axis
from .slicing import SLICE, SLICE_GRAD, getitem  # noqa: F401  (x[...] is an array op)


def static_shape_arg(shape, what="shape"):
    """A shape argument given as Python ints, a list or an eager tensor -> tuple of ints."""
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise InvalidArgumentError(f"{what} must be fully defined, got {shape}")
        return tuple(shape.as_list())
    if isinstance(shape, Tensor):
        shape = constant_value(shape)
        if shape is None:
            return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    out = []
    for d in np.asarray(shape).reshape(-1) if isinstance(shape, np.ndarray) else shape:
        if isinstance(d, Tensor):
            d = constant_value(d)
            if d is None:
                return None
        out.append(shape_utils.whole_number(d, what))
    return tuple(out)


# -- reshape ----------------------------------------------------------------------------

def _reshape_infer(inputs, shape):
    x = inputs[0]
    if -1 in shape:
        if shape.count(-1) > 1:
            raise InvalidArgumentError(f"reshape: only one dimension may be -1, got {list(shape)}")
        n = x.shape.num_elements()
        known = int(np.prod([d for d in shape if d != -1]))
        if n is None:
            return [(TensorShape([None if d == -1 else d for d in shape]), x.dtype)]
        if known == 0 or n % known:
            raise InvalidArgumentError(
                f"Input to reshape is a tensor with {n} values, but the requested shape "
                f"{list(shape)} cannot hold them")
        return [(TensorShape([n // known if d == -1 else d for d in shape]), x.dtype)]
    n = x.shape.num_elements()
    if n is not None and n != int(np.prod(shape)):
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {n} values, but the requested shape has "
            f"{int(np.prod(shape))}")
    return [(TensorShape(shape), x.dtype)]


def _reshape_kernel(x, shape):
    return np.reshape(x, shape)


RESHAPE = OpDef("Reshape", _reshape_infer, _reshape_kernel,
                grad=lambda inputs, outputs, grads, shape: [_reshape_back(grads[0], inputs[0])])


def _reshape_back(g, x):
    """`g` in the shape of `x` (known now, or read when the graph runs)."""
    if x.shape.is_fully_defined():
        return apply_op(RESHAPE, [g], {"shape": tuple(x.shape.as_list())})
    return apply_op(RESHAPE_DYNAMIC, [g, shape(x)])


def _reshape_dyn_infer(inputs):
    x, s = inputs
    n = s.shape[0] if s.shape.rank == 1 else None
    return [(TensorShape([None] * n) if n is not None else TensorShape(None), x.dtype)]


def _reshape_dyn_kernel(x, shape):
    return np.reshape(x, tuple(int(d) for d in shape))


RESHAPE_DYNAMIC = OpDef("ReshapeDynamic", _reshape_dyn_infer, _reshape_dyn_kernel,
                        default_name="Reshape", grad=lambda inputs, outputs, grads: [
                            _reshape_back(grads[0], inputs[0]), None])


def reshape(tensor, shape, name: Optional[str] = None):
    """The elements of `tensor`, in row-major order, in a new shape.

    One dimension of `shape` may be -1: it takes the length that keeps the number of
    elements. A shape that cannot hold the elements raises InvalidArgumentError. `shape`
    may hold graph tensors (the shape is then read when the graph runs).

    Args:
      tensor: a tensor (or what converts to one).
      shape: the new shape: a list or tuple of ints (or of scalar tensors), an int32
        tensor, or a TensorShape.
      name: an optional name for the op.

    Returns:
      A tensor of tensor's dtype and elements, in shape `shape`.

    >>> rt.reshape(rt.range(6), [2, 3])
    <rt.Tensor: shape=(2, 3), dtype=int32, numpy=
    array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)>
    >>> rt.reshape(rt.range(6), [-1, 2]).shape
    TensorShape([3, 2])
    """
    x = convert_to_tensor(tensor)
    static = static_shape_arg(shape)
    if static is None:
        return apply_op(RESHAPE_DYNAMIC, [x, stack_values(shape, dtypes.int32)], name=name)
    return apply_op(RESHAPE, [x], {"shape": static}, name=name)


# -- transpose, expand_dims, squeeze ------------------------------------------------------

def _transpose_infer(inputs, perm):
    x = inputs[0]
    if x.shape.rank is None:
        return [(TensorShape(None), x.dtype)]
    if perm is None:
        perm = tuple(range(x.shape.rank))[::-1]
    if sorted(perm) != list(range(x.shape.rank)):
        raise InvalidArgumentError(f"transpose: {list(perm)} is not a permutation of the "
                                   f"{x.shape.rank} dimensions of a tensor of shape {x.shape}")
    return [(TensorShape([x.shape[p] for p in perm]), x.dtype)]


def _transpose_kernel(x, perm):
    return np.transpose(x, perm)


def _transpose_grad(inputs, outputs, grads, perm):
    inverse = None if perm is None else tuple(int(i) for i in np.argsort(perm))
    return [apply_op(TRANSPOSE, [grads[0]], {"perm": inverse})]


TRANSPOSE = OpDef("Transpose", _transpose_infer, _transpose_kernel, grad=_transpose_grad)


def transpose(a, perm=None, name: Optional[str] = None):
    """Permutes the dimensions of `a`: dimension i of the result is dimension `perm[i]` of `a`.

    Args:
      a: a tensor (or what converts to one).
      perm: a permutation of `range(rank)`, known when the op is built (None: the
        dimensions reversed). Anything else raises InvalidArgumentError.
      name: an optional name for the op.

    Returns:
      A tensor of a's dtype, of shape `[a.shape[p] for p in perm]`.

    >>> rt.transpose(rt.constant([[1, 2, 3], [4, 5, 6]]))
    <rt.Tensor: shape=(3, 2), dtype=int32, numpy=
    array([[1, 4],
           [2, 5],
           [3, 6]], dtype=int32)>
    >>> rt.transpose(rt.zeros([2, 3, 4]), perm=[0, 2, 1]).shape
    TensorShape([2, 4, 3])
    """
    x = convert_to_tensor(a)
    perm = None if perm is None else tuple(static_axis(perm, "perm"))
    if perm is None and x.shape.rank is not None:
        perm = tuple(range(x.shape.rank))[::-1]
    return apply_op(TRANSPOSE, [x], {"perm": perm}, name=name)


def _expand_infer(inputs, axis):
    x = inputs[0]
    if x.shape.rank is None:
        return [(TensorShape(None), x.dtype)]
    r = x.shape.rank + 1
    if not -r <= axis < r:
        raise InvalidArgumentError(f"expand_dims: axis {axis} is out of range for rank {x.shape.rank}")
    dims = x.shape.as_list()
    dims.insert(axis % r, 1)
    return [(TensorShape(dims), x.dtype)]


def _expand_kernel(x, axis):
    return np.expand_dims(x, axis)


EXPAND_DIMS = OpDef("ExpandDims", _expand_infer, _expand_kernel,
                    grad=lambda inputs, outputs, grads, axis: [_reshape_back(grads[0], inputs[0])])


def expand_dims(input, axis, name: Optional[str] = None):  # noqa: A002
    """Inserts a dimension of length 1 at index `axis` of input's shape.

    Args:
      input: a tensor (or what converts to one).
      axis: where the new dimension goes, in `[-rank - 1, rank]` (negative counts from the
        end); out of range raises InvalidArgumentError.
      name: an optional name for the op.

    Returns:
      A tensor of input's dtype and elements, of rank one higher.

    >>> rt.expand_dims(rt.constant([1, 2]), 0)
    <rt.Tensor: shape=(1, 2), dtype=int32, numpy=array([[1, 2]], dtype=int32)>
    >>> rt.expand_dims(rt.constant([1, 2]), -1).shape
    TensorShape([2, 1])
    """
    return apply_op(EXPAND_DIMS, [convert_to_tensor(input)], {"axis": static_axis(axis)}, name=name)


def _squeeze_infer(inputs, axis):
    x = inputs[0]
    if x.shape.rank is None:
        return [(TensorShape(None), x.dtype)]
    dims = x.shape.as_list()
    if axis is None:
        if any(d is None for d in dims):
            return [(TensorShape(None), x.dtype)]
        return [(TensorShape([d for d in dims if d != 1]), x.dtype)]
    axes = shape_utils.normalize_axes(axis, len(dims))
    for a in axes:
        if dims[a] not in (1, None):
            raise InvalidArgumentError(f"Can not squeeze dim[{a}], expected a dimension of 1, "
                                       f"got {dims[a]}")
    return [(TensorShape([d for i, d in enumerate(dims) if i not in axes]), x.dtype)]


def _squeeze_kernel(x, axis):
    return np.squeeze(x, axis=axis)


SQUEEZE = OpDef("Squeeze", _squeeze_infer, _squeeze_kernel,
                grad=lambda inputs, outputs, grads, axis: [_reshape_back(grads[0], inputs[0])])


def squeeze(input, axis=None, name: Optional[str] = None):  # noqa: A002
    """Removes dimensions of length 1 from input's shape.

    Args:
      input: a tensor (or what converts to one).
      axis: an int or a list of ints, the dimensions to remove (each of length 1, else
        InvalidArgumentError); None: every dimension of length 1.
      name: an optional name for the op.

    Returns:
      A tensor of input's dtype and elements, without those dimensions.

    >>> rt.squeeze(rt.zeros([1, 2, 1, 3])).shape
    TensorShape([2, 3])
    >>> rt.squeeze(rt.zeros([1, 2, 1, 3]), axis=[2]).shape
    TensorShape([1, 2, 3])
    """
    x = convert_to_tensor(input)
    axis = static_axis(axis)
    if axis is not None:
        axis = shape_utils.normalize_axes(axis, x.shape.rank)
    return apply_op(SQUEEZE, [x], {"axis": axis}, name=name)


# -- concat, stack, unstack -------------------------------------------------------------

def _concat_infer(inputs, axis):
    d = same_dtype("ConcatV2", inputs)
    ranks = {t.shape.rank for t in inputs if t.shape.rank is not None}
    if not ranks:
        return [(TensorShape(None), d)]
    if len(ranks) > 1:
        raise InvalidArgumentError(f"ConcatV2: values have different ranks: "
                                   f"{[str(t.shape) for t in inputs]}")
    rank = ranks.pop()
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"ConcatV2: axis {axis} is out of range for rank {rank}")
    axis %= rank
    out = [None] * rank
    for i in range(rank):
        dims = [t.shape[i] for t in inputs if t.shape.rank is not None]
        if i == axis:  # an input of unknown rank adds an unknown amount
            out[i] = None if None in dims or len(dims) < len(inputs) else sum(dims)
        else:
            known = {x for x in dims if x is not None}
            if len(known) > 1:
                raise InvalidArgumentError(
                    f"ConcatV2: dimension {i} of the values differ: {[str(t.shape) for t in inputs]}")
            out[i] = known.pop() if known else None
    return [(TensorShape(out), d)]


def _concat_kernel(*xs, axis):
    return np.concatenate(xs, axis=axis)


def _concat_grad(inputs, outputs, grads, axis):
    g = grads[0]
    rank = g.shape.rank if g.shape.rank is not None else inputs[0].shape.rank
    axis = axis % rank
    out, start = [], 0
    for x in inputs:
        n = x.shape[axis]
        n = shape(x)[axis] if n is None else n
        stop = start + n
        out.append(g[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return out


CONCAT = OpDef("ConcatV2", _concat_infer, _concat_kernel, grad=_concat_grad)


def concat(values, axis, name: Optional[str] = None):
    """Joins tensors along an existing dimension.

    The values must have one dtype and one rank, and equal lengths in every dimension but
    `axis` (else InvalidArgumentError).

    Args:
      values: a list of tensors (or what converts to them).
      axis: the dimension to join along (negative counts from the end).
      name: an optional name for the op.

    Returns:
      A tensor of the values' dtype, whose `axis` dimension is the sum of theirs.

    >>> a, b = rt.constant([[1, 2]]), rt.constant([[3, 4]])
    >>> rt.concat([a, b], axis=0)
    <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
    array([[1, 2],
           [3, 4]], dtype=int32)>
    >>> rt.concat([a, b], axis=1)
    <rt.Tensor: shape=(1, 4), dtype=int32, numpy=array([[1, 2, 3, 4]], dtype=int32)>
    """
    if getattr(values, "__autograph_reference__", False):
        # a list that a staged construct changes: its elements, the rows of its stack
        return _concat_rows(convert_to_tensor(values), static_axis(axis), name)
    ts = values_as_tensors(values)
    return apply_op(CONCAT, ts, {"axis": static_axis(axis)}, name=name)


def _concat_rows(rows, axis: int, name):
    """The rows of `rows` (shape [n, d0, d1, ...]) joined along their dimension `axis`:
    what concat of them as a list gives, for a number of rows known only at run time."""
    rank = rows.shape.rank
    if rank is None or rank < 2 or not -(rank - 1) <= axis < rank - 1:
        raise InvalidArgumentError(f"ConcatV2: axis {axis} is out of range for elements of "
                                   f"shape {rows.shape[1:] if rank else 'unknown'}")
    a = axis % (rank - 1)
    perm = list(range(1, a + 1)) + [0] + list(range(a + 1, rank))
    moved = transpose(rows, perm) if a else rows       # [d0 .. d(a-1), n, da, ...]
    dims = moved.shape.as_list()
    dynamic = shape(moved) if None in dims[:a + 2] + dims[a + 2:] else None
    size = [d if d is not None else dynamic[i] for i, d in enumerate(dims)]
    return reshape(moved, size[:a] + [size[a] * size[a + 1]] + size[a + 2:], name=name)


# -- gather -----------------------------------------------------------------------------

def _gather_infer(inputs, axis):
    params, indices = inputs
    if not indices.dtype.is_integer:
        raise InvalidArgumentError(f"gather indices must be integers, got {indices.dtype.name}")
    if params.shape.rank is None or indices.shape.rank is None:
        return [(TensorShape(None), params.dtype)]
    p = params.shape.as_list()
    if not -len(p) <= axis < len(p):
        raise InvalidArgumentError(f"gather: axis {axis} is out of range for shape {params.shape}")
    axis %= len(p)
    return [(TensorShape(p[:axis] + indices.shape.as_list() + p[axis + 1:]), params.dtype)]


def _gather_kernel(params, indices, axis):
    n = np.shape(params)[axis]
    bad = (indices < 0) | (indices >= n)
    if np.any(bad):
        i = tuple(np.argwhere(bad)[0])
        raise InvalidArgumentError(
            f"indices[{','.join(map(str, i))}] = {np.asarray(indices)[i]} is not in [0, {n})")
    return np.take(params, indices, axis=axis)


def _gather_grad(inputs, outputs, grads, axis):
    params, indices = inputs
    axis %= max(params.shape.rank or 1, 1)
    out = apply_op(GATHER_GRAD, [grads[0], indices, shape(params)], {"axis": axis})
    out.set_shape(params.shape)
    return [out, None]


GATHER = OpDef("GatherV2", _gather_infer, _gather_kernel, grad=_gather_grad)


def _gather_grad_infer(inputs, axis):
    g, indices, params_shape = inputs
    known = constant_value(params_shape)
    if known is not None:
        return [(TensorShape([int(d) for d in known]), g.dtype)]
    return [(TensorShape([None] * params_shape.shape[0]) if params_shape.shape.rank == 1
             and params_shape.shape[0] is not None else TensorShape(None), g.dtype)]


def _gather_grad_kernel(g, indices, params_shape, axis):
    """The gradient of GatherV2 for its params: each gathered slice added back in place."""
    indices = np.asarray(indices)
    out = np.zeros(tuple(int(d) for d in params_shape), dtype=np.asarray(g).dtype)
    moved = np.moveaxis(out, axis, 0)
    rows = np.reshape(np.moveaxis(np.asarray(g), tuple(range(axis, axis + indices.ndim)),
                                  tuple(range(indices.ndim))),
                      (indices.size,) + moved.shape[1:])
    np.add.at(moved, indices.reshape(-1), rows)
    return out


GATHER_GRAD = OpDef("GatherGrad", _gather_grad_infer, _gather_grad_kernel,
                    grad=lambda inputs, outputs, grads, axis: [
                        gather(grads[0], inputs[1], axis), None, None])


def gather(params, indices, axis: int = 0, name: Optional[str] = None):
    """Slices of `params` along `axis`, picked by `indices`.

    An index outside `[0, params.shape[axis])` raises InvalidArgumentError when the op runs.

    Args:
      params: the tensor to pick from (or what converts to one).
      indices: an integer tensor (or what converts to one) of any shape.
      axis: the dimension of params to index (negative counts from the end).
      name: an optional name for the op.

    Returns:
      A tensor of params' dtype, of shape
      `params.shape[:axis] + indices.shape + params.shape[axis + 1:]`.

    >>> rt.gather(rt.constant([10, 20, 30]), [2, 0, 2])
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([30, 10, 30], dtype=int32)>
    >>> rt.gather(rt.constant([[1, 2], [3, 4]]), [1], axis=1)
    <rt.Tensor: shape=(2, 1), dtype=int32, numpy=
    array([[2],
           [4]], dtype=int32)>
    """
    p = convert_to_tensor(params)
    i = convert_to_tensor(indices, dtype_hint=dtypes.int32)
    return apply_op(GATHER, [p, i], {"axis": static_axis(axis)}, name=name)


# -- shape, size, rank --------------------------------------------------------------------

def _shape_infer(inputs, out_type):
    r = inputs[0].shape.rank
    return [(TensorShape([r]), out_type)]


def _shape_kernel(x, out_type):
    return np.asarray(np.shape(x), dtype=out_type.np_dtype)


SHAPE = OpDef("Shape", _shape_infer, _shape_kernel, of_shape=True)


def shape(input, out_type=dtypes.int32, name: Optional[str] = None):  # noqa: A002
    """The shape of `input`, as a 1-D integer tensor.

    When the shape is fully known while the op is built, the result is a constant; else
    (inside rt.function with unknown dimensions) it is read when the graph runs. The static
    shape is `input.shape` (a TensorShape).

    Args:
      input: a tensor (or what converts to one).
      out_type: int32 (default) or int64.
      name: an optional name for the op.

    Returns:
      A tensor of dtype out_type and shape `[rank]`.

    >>> rt.shape(rt.zeros([2, 3]))
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>
    >>> @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    ... def length(x):
    ...     return rt.shape(x)[0]
    >>> length(rt.constant([1.0, 2.0, 3.0]))
    <rt.Tensor: shape=(), dtype=int32, numpy=3>
    """
    x = convert_to_tensor(input)
    out_type = dtypes.as_dtype(out_type)
    if x.shape.is_fully_defined():
        return constant(np.asarray(x.shape.as_list(), dtype=out_type.np_dtype), name=name or "Shape")
    return apply_op(SHAPE, [x], {"out_type": out_type}, name=name)


def _size_infer(inputs, out_type):
    return [(TensorShape(()), out_type)]


def _size_kernel(x, out_type):
    return np.asarray(np.size(x), dtype=out_type.np_dtype)


SIZE = OpDef("Size", _size_infer, _size_kernel, of_shape=True)


def size(input, out_type=dtypes.int32, name: Optional[str] = None):  # noqa: A002
    """The number of elements of `input`, as a scalar integer tensor.

    When the shape is fully known while the op is built, the result is a constant; else it
    is computed when the graph runs.

    Args:
      input: a tensor (or what converts to one).
      out_type: int32 (default) or int64.
      name: an optional name for the op.

    Returns:
      A scalar tensor of dtype out_type.

    >>> rt.size(rt.zeros([2, 3]))
    <rt.Tensor: shape=(), dtype=int32, numpy=6>
    """
    x = convert_to_tensor(input)
    out_type = dtypes.as_dtype(out_type)
    n = x.shape.num_elements()
    if n is not None:
        return constant(np.asarray(n, dtype=out_type.np_dtype), name=name or "Size")
    return apply_op(SIZE, [x], {"out_type": out_type}, name=name)


def _rank_infer(inputs):
    return [(TensorShape(()), dtypes.int32)]


def _rank_kernel(x):
    return np.asarray(np.ndim(x), dtype=np.int32)


RANK = OpDef("Rank", _rank_infer, _rank_kernel, of_shape=True)


def rank(input, name: Optional[str] = None):  # noqa: A002
    """The number of dimensions of `input`, as a scalar int32 tensor.

    When the rank is known while the op is built, the result is a constant; else it is
    computed when the graph runs.

    Args:
      input: a tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A scalar int32 tensor.

    >>> rt.rank(rt.zeros([2, 3]))
    <rt.Tensor: shape=(), dtype=int32, numpy=2>
    >>> rt.rank(5)
    <rt.Tensor: shape=(), dtype=int32, numpy=0>
    """
    x = convert_to_tensor(input)
    if x.shape.rank is not None:
        return constant(np.int32(x.shape.rank), name=name or "Rank")
    return apply_op(RANK, [x], name=name)


OPS = [RESHAPE, RESHAPE_DYNAMIC, TRANSPOSE, EXPAND_DIMS, SQUEEZE, CONCAT,
       GATHER, GATHER_GRAD, SHAPE, SIZE, RANK, SLICE, SLICE_GRAD]
