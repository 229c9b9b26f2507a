"""How Python values become tensors (`convert_to_tensor`), and the identity ops.

(`OpDef`, `apply_op`, `constant` and `constant_value` are the core's, `runtime.core`;
they are imported here for the op modules, which define their ops with them.)
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.apply import apply_op, constant
from ..core.opdef import OpDef, constant_value
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from ..errors import DTypeMismatchError
from . import shape_utils
from .shape_utils import single_axis, static_axis

__all__ = ["OpDef", "apply_op", "constant", "constant_value", "convert_to_tensor", "identity",
           "stop_gradient", "zeros_like", "ones_like", "IDENTITY", "STOP_GRADIENT", "FULL_LIKE", "STACK", "UNSTACK", "stack", "unstack",
           "stack_values", "same_dtype", "values_as_tensors"]


def convert_to_tensor(value, dtype=None, dtype_hint=None, name: Optional[str] = None) -> Tensor:
    """A tensor for `value`: tensors pass through (dtype must match), Variables are read,
    Python and numpy values become constants (of `dtype`, else `dtype_hint` when the value
    fits it, else their inferred dtype).

    Python ints become int32 and floats float32 (as in TensorFlow); numpy arrays keep their
    dtype. A list holding tensors is stacked.

    Args:
      value: a tensor, a Variable, or a Python or numpy value.
      dtype: the dtype the result must have; a tensor of another dtype raises TypeError.
      dtype_hint: the dtype to use when the value fits it (else the inferred one).
      name: an optional name for a constant it makes.

    Returns:
      A tensor (eager, or a graph tensor inside rt.function).

    >>> rt.convert_to_tensor([1, 2])
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
    >>> rt.convert_to_tensor(1, dtype_hint=rt.float32)
    <rt.Tensor: shape=(), dtype=float32, numpy=1.0>
    >>> rt.convert_to_tensor(np.array([1.5]))
    <rt.Tensor: shape=(1,), dtype=float64, numpy=array([1.5])>
    >>> rt.convert_to_tensor(rt.constant(1), dtype=rt.float32)
    Traceback (most recent call last):
    ...
    TypeError: expected a float32 tensor, got <rt.Tensor: ...> of dtype int32
    """
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise TypeError(f"expected a {dtypes.as_dtype(dtype).name} tensor, got "
                            f"{value!r} of dtype {value.dtype.name}")
        return value
    conv = getattr(value, "_as_tensor", None)
    if conv is not None:
        return conv(dtype)
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return stack([convert_to_tensor(v, dtype, dtype_hint) for v in value], name=name)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        return constant(value, dtype, name=name)
    if dtype_hint is not None:
        try:
            return constant(value, dtypes.as_dtype(dtype_hint), name=name)
        except (TypeError, ValueError):
            pass
    return constant(value, name=name)


def _holds_tensor(value) -> bool:
    return any(isinstance(v, Tensor) or getattr(v, "_as_tensor", None) is not None
               or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in value)


def _same_infer(inputs, **attrs):
    return [(inputs[0].shape, inputs[0].dtype)]


def _identity_kernel(x):
    return x


IDENTITY = OpDef("Identity", _same_infer, _identity_kernel,
                 grad=lambda inputs, outputs, grads: [grads[0]], emit=lambda op, args: args[0])
STOP_GRADIENT = OpDef("StopGradient", _same_infer, _identity_kernel,
                      grad=lambda inputs, outputs, grads: [None])  # its whole point


def identity(x, name: Optional[str] = None) -> Tensor:
    """A tensor with the same value, shape and dtype as `x`.

    Args:
      x: a tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor equal to x; gradients pass through it unchanged.

    >>> rt.identity(rt.constant([1, 2]))
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
    """
    return apply_op(IDENTITY, [convert_to_tensor(x)], name=name)


def stop_gradient(x, name: Optional[str] = None) -> Tensor:
    """`x` as it is, but a constant for gradients: none flows back through it.

    Args:
      x: a tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor equal to x.

    >>> x = rt.Variable(3.0)
    >>> with rt.GradientTape() as tape:
    ...     y = x * rt.stop_gradient(x)
    >>> tape.gradient(y, x)
    <rt.Tensor: shape=(), dtype=float32, numpy=3.0>
    """
    return apply_op(STOP_GRADIENT, [convert_to_tensor(x)], name=name)


# -- zeros_like / ones_like (the gradient rules of most ops use them) ----------------------

def _like_infer(inputs, fill_value, dtype):
    return [(inputs[0].shape, dtype)]


def _like_kernel(x, fill_value, dtype):
    return np.full(np.shape(x), fill_value, dtype=dtype.np_dtype)


FULL_LIKE = OpDef("FullLike", _like_infer, _like_kernel,
                  grad=lambda inputs, outputs, grads, fill_value, dtype: [None])  # constant in x


def zeros_like(input, dtype=None, name: Optional[str] = None):  # noqa: A002
    """A tensor of zeros with the shape of `input` (and its dtype unless `dtype` is given).

    A string dtype gives empty strings.

    Args:
      input: a tensor (or what converts to one).
      dtype: the dtype of the result (None: input's).
      name: an optional name for the op.

    Returns:
      A tensor of input's shape, filled with 0.

    >>> rt.zeros_like(rt.constant([[1, 2], [3, 4]]))
    <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
    array([[0, 0],
           [0, 0]], dtype=int32)>
    >>> rt.zeros_like(rt.constant([1, 2]), dtype=rt.float32)
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>
    """
    x = convert_to_tensor(input)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
    fill_value = b"" if dtype.is_string else 0
    return apply_op(FULL_LIKE, [x], {"fill_value": fill_value, "dtype": dtype},
                    name=name or "zeros_like")


def ones_like(input, dtype=None, name: Optional[str] = None):  # noqa: A002
    """A tensor of ones with the shape of `input` (and its dtype unless `dtype` is given).

    Args:
      input: a tensor (or what converts to one).
      dtype: a numeric or bool dtype for the result (None: input's); any other raises
        InvalidArgumentError.
      name: an optional name for the op.

    Returns:
      A tensor of input's shape, filled with 1.

    >>> rt.ones_like(rt.constant([1.5, 2.5]))
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 1.], dtype=float32)>
    >>> rt.ones_like(rt.constant([1, 2]), dtype=rt.bool)
    <rt.Tensor: shape=(2,), dtype=bool, numpy=array([ True,  True])>
    """
    x = convert_to_tensor(input)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
    if not (dtype.is_numeric or dtype.is_bool):
        raise InvalidArgumentError(f"ones_like needs a numeric or bool dtype, got {dtype.name}")
    return apply_op(FULL_LIKE, [x], {"fill_value": 1, "dtype": dtype}, name=name or "ones_like")


# -- stack / unstack (a list holding tensors converts by stacking them) ----------------------

def same_dtype(opname, tensors):
    d = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not d:
            raise DTypeMismatchError(f"{opname}: all values must have one dtype, got "
                                     f"{d.name} and {t.dtype.name}")
    return d


def values_as_tensors(values):
    values = list(values)
    if not values:
        raise ValueError("expected a non-empty list of tensors")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    if first is None:
        first = convert_to_tensor(values[0])
    return [convert_to_tensor(v, dtype=first.dtype) if not isinstance(v, Tensor) else v
            for v in values]


def _stack_infer(inputs, axis):
    d = same_dtype("Pack", inputs)
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not shape.is_compatible_with(t.shape):
            raise InvalidArgumentError(f"Pack: shapes of all inputs must match: "
                                       f"{[str(t.shape) for t in inputs]}")
        shape = shape.merge_with(t.shape)
    if shape.rank is None:
        return [(TensorShape(None), d)]
    r = shape.rank + 1
    if not -r <= axis < r:
        raise InvalidArgumentError(f"Pack: axis {axis} is out of range for rank {shape.rank}")
    dims = shape.as_list()
    dims.insert(axis % r, len(inputs))
    return [(TensorShape(dims), d)]


def _stack_kernel(*xs, axis):
    return np.stack(xs, axis=axis)


STACK = OpDef("Pack", _stack_infer, _stack_kernel,
              grad=lambda inputs, outputs, grads, axis: unstack(grads[0], num=len(inputs),
                                                                axis=axis))


def stack(values, axis: int = 0, name: Optional[str] = None):
    """Stacks tensors of one shape into a tensor of rank one higher, along a new dimension.

    The values must have one dtype (Python values adopt the first tensor's) and one shape.

    Args:
      values: a non-empty list of tensors (or what converts to them).
      axis: where the new dimension goes (negative counts from the end).
      name: an optional name for the op.

    Returns:
      A tensor of the values' dtype, of shape `values[0].shape` with `len(values)` inserted
      at `axis`.

    >>> a, b = rt.constant([1, 2]), rt.constant([3, 4])
    >>> rt.stack([a, b])
    <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
    array([[1, 2],
           [3, 4]], dtype=int32)>
    >>> rt.stack([a, b], axis=1)
    <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
    array([[1, 3],
           [2, 4]], dtype=int32)>
    """
    if getattr(values, "__autograph_reference__", False):
        # a list that a staged construct changes (ops/list_ops.py): its elements stacked
        return values.stack(name=name, axis=static_axis(axis))
    return apply_op(STACK, values_as_tensors(values), {"axis": static_axis(axis)}, name=name)


def stack_values(values, dtype):
    """A Python list that may hold tensors, as one 1-D tensor (for shape arguments): int64
    where one of its tensors is (as TensorFlow packs `[n]` of an int64 `n`)."""
    if isinstance(values, Tensor):
        return values
    if any(isinstance(v, Tensor) and v.dtype is dtypes.int64 for v in values):
        dtype = dtypes.int64
    return stack([convert_to_tensor(v, dtype=dtype) for v in values])


def _unstack_infer(inputs, axis, num):
    x = inputs[0]
    dims = x.shape.as_list()
    rest = dims[:axis] + dims[axis + 1:]
    return [(TensorShape(rest), x.dtype)] * num


def _unstack_kernel(x, axis, num):
    if np.shape(x)[axis] != num:
        raise InvalidArgumentError(f"Unpack: expected {num} values along axis {axis}, "
                                   f"got {np.shape(x)[axis]}")
    return tuple(np.take(x, i, axis=axis) for i in range(num))


UNSTACK = OpDef("Unpack", _unstack_infer, _unstack_kernel, multi_output=True,
                grad=lambda inputs, outputs, grads, axis, num: [stack(grads, axis=axis)])


def unstack(value, num=None, axis: int = 0, name: Optional[str] = None):
    """Splits `value` along `axis` into a list of tensors of rank one lower (the inverse of
    rt.stack).

    Args:
      value: a tensor (or what converts to one) of known rank >= 1 (else ValueError).
      num: the length of the `axis` dimension; needed (else ValueError) when it is unknown
        while the op is built.
      axis: the dimension to split along (negative counts from the end).
      name: an optional name for the op.

    Returns:
      A list of `num` tensors of value's dtype, of value's shape without `axis`.

    >>> rt.unstack(rt.constant([[1, 2], [3, 4]]))
    [<rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>, <rt.Tensor:
      shape=(2,), dtype=int32, numpy=array([3, 4], dtype=int32)>]
    >>> rt.unstack(rt.constant([[1, 2], [3, 4]]), axis=1)
    [<rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 3], dtype=int32)>, <rt.Tensor:
      shape=(2,), dtype=int32, numpy=array([2, 4], dtype=int32)>]
    """
    x = convert_to_tensor(value)
    if not x.shape.rank:
        raise ValueError(f"rt.unstack needs a tensor of known rank >= 1, got shape {x.shape}")
    axis = shape_utils.normalize_axes(single_axis(axis, "Unpack"), x.shape.rank)[0]
    n = num if num is not None else x.shape[axis]
    if n is None:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return list(apply_op(UNSTACK, [x], {"axis": axis, "num": int(n)}, name=name))
