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
        out.append(int(d))
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


RESHAPE = OpDef("Reshape", _reshape_infer, _reshape_kernel)


def _reshape_back(g, x):
    """`g` in the shape of `x` (known now, or read when the graph runs)."""
    if x.shape.is_fully_defined():
        return apply_op(RESHAPE, [g], {"shape": tuple(x.shape.as_list())})
    return apply_op(RESHAPE_DYNAMIC, [g, shape(x)])


RESHAPE.grad = lambda inputs, outputs, grads, shape: [_reshape_back(grads[0], inputs[0])]


def _reshape_dyn_infer(inputs):
    x, s = inputs
    n = s.shape[0] if s.shape.rank == 1 else None
    return [(TensorShape([None] * n) if n is not None else TensorShape(None), x.dtype)]


def _reshape_dyn_kernel(x, shape):
    return np.reshape(x, tuple(int(d) for d in shape))


RESHAPE_DYNAMIC = OpDef("ReshapeDynamic", _reshape_dyn_infer, _reshape_dyn_kernel,
                        default_name="Reshape")
RESHAPE_DYNAMIC.grad = lambda inputs, outputs, grads: [_reshape_back(grads[0], inputs[0]), None]


def reshape(tensor, shape, name: Optional[str] = None):
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


TRANSPOSE = OpDef("Transpose", _transpose_infer, _transpose_kernel)


def _transpose_grad(inputs, outputs, grads, perm):
    inverse = None if perm is None else tuple(int(i) for i in np.argsort(perm))
    return [apply_op(TRANSPOSE, [grads[0]], {"perm": inverse})]


TRANSPOSE.grad = _transpose_grad


def transpose(a, perm=None, name: Optional[str] = None):
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


EXPAND_DIMS = OpDef("ExpandDims", _expand_infer, _expand_kernel)
EXPAND_DIMS.grad = lambda inputs, outputs, grads, axis: [_reshape_back(grads[0], inputs[0])]


def expand_dims(input, axis, name: Optional[str] = None):  # noqa: A002
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


SQUEEZE = OpDef("Squeeze", _squeeze_infer, _squeeze_kernel)
SQUEEZE.grad = lambda inputs, outputs, grads, axis: [_reshape_back(grads[0], inputs[0])]


def squeeze(input, axis=None, name: Optional[str] = None):  # noqa: A002
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


CONCAT = OpDef("ConcatV2", _concat_infer, _concat_kernel)


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


CONCAT.grad = _concat_grad


def concat(values, axis, name: Optional[str] = None):
    ts = values_as_tensors(values)
    return apply_op(CONCAT, ts, {"axis": static_axis(axis)}, name=name)


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


GATHER = OpDef("GatherV2", _gather_infer, _gather_kernel)


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


GATHER_GRAD = OpDef("GatherGrad", _gather_grad_infer, _gather_grad_kernel)


def _gather_grad(inputs, outputs, grads, axis):
    params, indices = inputs
    axis %= max(params.shape.rank or 1, 1)
    out = apply_op(GATHER_GRAD, [grads[0], indices, shape(params)], {"axis": axis})
    out.set_shape(params.shape)
    return [out, None]


GATHER.grad = _gather_grad
GATHER_GRAD.grad = lambda inputs, outputs, grads, axis: [gather(grads[0], inputs[1], axis), None,
                                                         None]


def gather(params, indices, axis: int = 0, name: Optional[str] = None):
    p = convert_to_tensor(params)
    i = convert_to_tensor(indices, dtype_hint=dtypes.int32)
    return apply_op(GATHER, [p, i], {"axis": static_axis(axis)}, name=name)


# -- shape, size, rank --------------------------------------------------------------------

def _shape_infer(inputs, out_type):
    r = inputs[0].shape.rank
    return [(TensorShape([r]), out_type)]


def _shape_kernel(x, out_type):
    return np.asarray(np.shape(x), dtype=out_type.np_dtype)


SHAPE = OpDef("Shape", _shape_infer, _shape_kernel)


def shape(input, out_type=dtypes.int32, name: Optional[str] = None):  # noqa: A002
    x = convert_to_tensor(input)
    out_type = dtypes.as_dtype(out_type)
    if x.shape.is_fully_defined():
        return constant(np.asarray(x.shape.as_list(), dtype=out_type.np_dtype), name=name or "Shape")
    return apply_op(SHAPE, [x], {"out_type": out_type}, name=name)


def _size_infer(inputs, out_type):
    return [(TensorShape(()), out_type)]


def _size_kernel(x, out_type):
    return np.asarray(np.size(x), dtype=out_type.np_dtype)


SIZE = OpDef("Size", _size_infer, _size_kernel)


def size(input, out_type=dtypes.int32, name: Optional[str] = None):  # noqa: A002
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


RANK = OpDef("Rank", _rank_infer, _rank_kernel)


def rank(input, name: Optional[str] = None):  # noqa: A002
    x = convert_to_tensor(input)
    if x.shape.rank is not None:
        return constant(np.int32(x.shape.rank), name=name or "Rank")
    return apply_op(RANK, [x], name=name)



OPS = [RESHAPE, RESHAPE_DYNAMIC, TRANSPOSE, EXPAND_DIMS, SQUEEZE, CONCAT,
       GATHER, GATHER_GRAD, SHAPE, SIZE, RANK, SLICE, SLICE_GRAD]
