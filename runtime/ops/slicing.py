"""Indexing and slicing: `t[i]`, `t[1:-1, None, ...]`, also with tensor indices.

The index is recorded as a static spec (one entry per item of the index tuple) whose
tensor parts point at extra inputs of the op, so the kernel rebuilds the numpy index.
"""
from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from .core import OpDef, apply_op, constant_value, convert_to_tensor


def _part(v, tensors):
    """A slice bound or an int index: Python int, None, or ('t', input position)."""
    if v is None:
        return None
    if isinstance(v, Tensor) and v.dtype.is_integer and v.shape.rank == 0:
        known = constant_value(v)  # eager or a Const node: the slice stays static
        if known is not None:
            return int(known)
    if isinstance(v, Tensor):
        if not v.dtype.is_integer or v.shape.rank not in (0, None):
            raise TypeError(f"tensor indices must be integer scalars, got {v!r}")
        tensors.append(v)
        return ("t", len(tensors))
    if isinstance(v, (bool, np.bool_)):
        raise TypeError("boolean indices are not supported; use rt.where or rt.gather")
    try:
        return int(v.__index__())
    except AttributeError:
        raise TypeError(f"only integers, slices (`:`), ellipsis (`...`), None and scalar "
                        f"integer tensors are valid indices, got {v!r}") from None


def _spec(key):
    items = key if isinstance(key, tuple) else (key,)
    tensors, spec = [], []
    for item in items:
        if item is Ellipsis:
            spec.append(("ellipsis",))
        elif item is None:
            spec.append(("newaxis",))
        elif isinstance(item, slice):
            spec.append(("slice", _part(item.start, tensors), _part(item.stop, tensors),
                         _part(item.step, tensors)))
        else:
            spec.append(("int", _part(item, tensors)))
    if sum(1 for s in spec if s[0] == "ellipsis") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return tuple(spec), tensors


def expand_ellipsis(spec, rank):
    consumed = sum(1 for s in spec if s[0] in ("int", "slice"))
    out = []
    for s in spec:
        if s[0] == "ellipsis":
            out.extend([("slice", None, None, None)] * (rank - consumed))
        else:
            out.append(s)
    return out


def _slice_len(n, start, stop, step):
    if n is None or any(isinstance(v, tuple) for v in (start, stop, step)):
        return None
    return len(range(*slice(start, stop, step).indices(n)))


def _slice_infer(inputs, spec):
    x = inputs[0]
    for t in inputs[1:]:
        if not t.dtype.is_integer:
            raise InvalidArgumentError(f"tensor indices must be integers, got {t.dtype.name}")
    if x.shape.rank is None:
        return [(TensorShape(None), x.dtype)]
    dims = x.shape.as_list()
    consumed = sum(1 for s in spec if s[0] in ("int", "slice"))
    if consumed > len(dims):
        raise InvalidArgumentError(f"too many indices for a tensor of shape {x.shape}: "
                                   f"{consumed} were given")
    out, d = [], 0
    for s in expand_ellipsis(spec, len(dims)):
        if s[0] == "newaxis":
            out.append(1)
        elif s[0] == "int":
            n, k = dims[d], s[1]
            if n is not None and isinstance(k, int) and not -n <= k < n:
                raise InvalidArgumentError(f"index {k} is out of bounds for dimension {d} "
                                           f"with size {n}")
            d += 1
        else:
            step = s[3]
            if step == 0:
                raise InvalidArgumentError("slice step cannot be zero")
            out.append(_slice_len(dims[d], s[1], s[2], step))
            d += 1
    out.extend(dims[d:])
    return [(TensorShape(out), x.dtype)]


def _value(v, tensors):
    if isinstance(v, tuple):
        return int(tensors[v[1] - 1])
    return v


def _slice_kernel(x, *tensors, spec):
    index = []
    for s in spec:
        if s[0] == "ellipsis":
            index.append(Ellipsis)
        elif s[0] == "newaxis":
            index.append(None)
        elif s[0] == "int":
            index.append(_value(s[1], tensors))
        else:
            index.append(slice(_value(s[1], tensors), _value(s[2], tensors), _value(s[3], tensors)))
    try:
        return np.asarray(x)[tuple(index)]
    except IndexError as e:
        raise InvalidArgumentError(f"slice index out of bounds: {e}") from None


def _slice_grad(inputs, outputs, grads, spec):
    x, *tensors = inputs
    return [apply_op(SLICE_GRAD, [grads[0], x, *tensors], {"spec": spec})] + [None] * len(tensors)


def _slice_emit(op, args):
    """The index as Python source: `x[i, 1:-1, None, ...]`."""
    def part(v):
        if v is None:
            return ""
        # an int is bound as a value (args.const), never written as source text
        return args[v[1]] if isinstance(v, tuple) else args.const(v)
    items = []
    for s in op.attrs["spec"]:
        if s[0] == "ellipsis":
            items.append("...")
        elif s[0] == "newaxis":
            items.append("None")
        elif s[0] == "int":
            items.append(part(s[1]))
        else:
            items.append(f"{part(s[1])}:{part(s[2])}" + (f":{part(s[3])}" if s[3] is not None else ""))
    if not op.inputs[0].shape.rank:
        return None  # a scalar or unknown rank: let the kernel say what is wrong
    return f"{args[0]}[{', '.join(items)}{',' if len(items) == 1 and items[0] == '...' else ''}]"


SLICE = OpDef("StridedSlice", _slice_infer, _slice_kernel, default_name="strided_slice",
              grad=_slice_grad, emit=_slice_emit)


def _slice_grad_infer(inputs, spec):
    return [(inputs[1].shape, inputs[0].dtype)]


def _slice_grad_kernel(g, x, *tensors, spec):
    """The gradient of a slice: zeros shaped like `x` with `g` where the slice was."""
    out = np.zeros(np.shape(x), dtype=np.asarray(g).dtype)
    index = _slice_kernel(np.arange(out.size).reshape(out.shape), *tensors, spec=spec)
    out.reshape(-1)[np.asarray(index).reshape(-1)] = np.asarray(g).reshape(-1)
    return out


SLICE_GRAD = OpDef("StridedSliceGrad", _slice_grad_infer, _slice_grad_kernel,
                   grad=lambda inputs, outputs, grads, spec: [
                       apply_op(SLICE, [grads[0], *inputs[2:]], {"spec": spec}), None]
                   + [None] * (len(inputs) - 2))


def getitem(tensor, key):
    x = convert_to_tensor(tensor)
    spec, tensors = _spec(key)
    return apply_op(SLICE, [x, *tensors], {"spec": spec})
