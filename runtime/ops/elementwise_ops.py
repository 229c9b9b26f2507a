"""Elementwise math as TensorFlow has it beside the operators: floor, ceil, round (half to
even), log1p and softplus are ops of their own (a composition would lose precision or
speed); rsqrt and clip_by_value are compositions of existing ops (their gradients, XLA and
ONNX forms come with them).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .core import OpDef, apply_op, convert_to_tensor
from .math_ops import (FLOAT, NUMERIC, binary_operands, check_kind, divide, maximum, minimum,
                       sigmoid, sqrt, unary_infer)


# -- elementwise -------------------------------------------------------------------------

def _round(x):
    return np.round(x) if x.dtype.kind == "f" else np.array(x, copy=True)  # half to even


def _softplus(x):
    return np.logaddexp(x, np.zeros((), x.dtype))  # log(1 + e^x) without overflow


# As TensorFlow: floor, ceil and round are piecewise constant, no gradient flows through.
FLOOR = OpDef("Floor", unary_infer("Floor", FLOAT), np.floor, elementwise=True,
              grad=lambda inputs, outputs, grads: [None])
CEIL = OpDef("Ceil", unary_infer("Ceil", FLOAT), np.ceil, elementwise=True,
             grad=lambda inputs, outputs, grads: [None])
ROUND = OpDef("Round", unary_infer("Round", NUMERIC), _round, allocates=True, elementwise=True,
              grad=lambda inputs, outputs, grads: [None])
LOG1P = OpDef("Log1p", unary_infer("Log1p", FLOAT), np.log1p, elementwise=True,
              grad=lambda inputs, outputs, grads: [grads[0] / (inputs[0] + 1)])
SOFTPLUS = OpDef("Softplus", unary_infer("Softplus", FLOAT), _softplus, allocates=True,
                 elementwise=True,
                 grad=lambda inputs, outputs, grads: [grads[0] * sigmoid(inputs[0])])


def floor(x, name: Optional[str] = None):
    """The largest integer not greater than each element of the float tensor `x`.

    No gradient flows through it.

    Args:
      x: a tensor (or what converts to one) of a floating-point dtype.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> rt.floor(rt.constant([-1.5, 0.5, 2.0]))
    <rt.Tensor: shape=(3,), dtype=float32, numpy=array([-2.,  0.,  2.], dtype=float32)>
    """
    return apply_op(FLOOR, [convert_to_tensor(x)], name=name)


def ceil(x, name: Optional[str] = None):
    """The smallest integer not less than each element of the float tensor `x`.

    No gradient flows through it.

    Args:
      x: a tensor (or what converts to one) of a floating-point dtype.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> rt.math.ceil(rt.constant([-1.5, 0.5, 2.0]))
    <rt.Tensor: shape=(3,), dtype=float32, numpy=array([-1.,  1.,  2.], dtype=float32)>
    """
    return apply_op(CEIL, [convert_to_tensor(x)], name=name)


def round(x, name: Optional[str] = None):  # noqa: A001 - TensorFlow's name
    """Each element rounded to the nearest integer, halves to the even one (banker's
    rounding, as TensorFlow and numpy); integer tensors come back unchanged.

    No gradient flows through it.

    Args:
      x: a tensor (or what converts to one) of a numeric dtype.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> rt.round(rt.constant([0.5, 1.5, 2.5, -0.5]))
    <rt.Tensor: shape=(4,), dtype=float32, numpy=array([ 0.,  2.,  2., -0.], dtype=float32)>
    """
    return apply_op(ROUND, [convert_to_tensor(x)], name=name)


def log1p(x, name: Optional[str] = None):
    """`log(1 + x)` elementwise, accurate for `x` near 0 (float tensors).

    Args:
      x: a tensor (or what converts to one) of a floating-point dtype.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> rt.math.log1p(rt.constant([1e-10, 1.0]))
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1.000000e-10, 6.931472e-01],
      dtype=float32)>
    >>> rt.math.log(1 + rt.constant([1e-10]))  # 1 + 1e-10 rounds to 1 in float32
    <rt.Tensor: shape=(1,), dtype=float32, numpy=array([0.], dtype=float32)>
    """
    return apply_op(LOG1P, [convert_to_tensor(x)], name=name)


def softplus(features, name: Optional[str] = None):
    """`log(exp(features) + 1)` elementwise, without overflow for large features (float
    tensors); its gradient is `sigmoid(features)`.

    Args:
      features: a tensor (or what converts to one) of a floating-point dtype.
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> rt.math.softplus(rt.constant([-1.0, 0.0, 100.0]))
    <rt.Tensor: shape=(3,), dtype=float32,
      numpy=array([  0.3132617,   0.6931472, 100.       ], dtype=float32)>
    """
    return apply_op(SOFTPLUS, [convert_to_tensor(features)], name=name)


def rsqrt(x, name: Optional[str] = None):
    """`1 / sqrt(x)` elementwise (float tensors; an integer one raises InvalidArgumentError).

    Args:
      x: a tensor (or what converts to one) of a floating-point dtype.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> rt.math.rsqrt(rt.constant([4.0, 0.25]))
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.5, 2. ], dtype=float32)>
    """
    x = convert_to_tensor(x)
    check_kind("Rsqrt", x.dtype, FLOAT)
    return divide(1, sqrt(x), name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name: Optional[str] = None):
    """`t` with values below `clip_value_min` set to it and values above
    `clip_value_max` set to it (the bounds are scalars, or tensors that broadcast to
    `t`'s shape without changing it). The gradient flows to `t` where it is within the
    bounds (bounds included), to a bound where `t` was clipped to it.

    Args:
      t: a tensor (or what converts to one) of a numeric dtype.
      clip_value_min: the lower bound, of t's dtype (a Python number adopts it).
      clip_value_max: the upper bound, of t's dtype.
      name: an optional name for the op.

    Returns:
      A tensor of t's shape and dtype. Bounds that would change t's shape raise ValueError.

    >>> rt.clip_by_value(rt.constant([-2.0, 0.5, 3.0]), 0.0, 1.0)
    <rt.Tensor: shape=(3,), dtype=float32, numpy=array([0. , 0.5, 1. ], dtype=float32)>
    >>> rt.clip_by_value(rt.constant([[1, 5], [7, 9]]), 2, rt.constant([4, 8]))
    <rt.Tensor: shape=(2, 2), dtype=int32, numpy=
    array([[2, 5],
           [4, 8]], dtype=int32)>
    """
    values = convert_to_tensor(t)
    t_min = minimum(*binary_operands(values, clip_value_max))
    _same_shape(values, t_min)
    return _same_shape(values, maximum(*binary_operands(t_min, clip_value_min), name=name))


def _same_shape(values, clipped):
    if not values.shape.is_compatible_with(clipped.shape):
        raise ValueError(f"rt.clip_by_value: the bounds would change the shape of t from "
                         f"{values.shape} to {clipped.shape}; they must broadcast to t's shape")
    return clipped


OPS = [FLOOR, CEIL, ROUND, LOG1P, SOFTPLUS]
