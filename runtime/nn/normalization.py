"""`rt.nn`'s moments and normalizations: `moments`, `batch_normalization`, `l2_normalize`,
compositions of existing ops."""
from __future__ import annotations

from typing import Optional

from ..core import dtypes
from ..ops.array_ops import squeeze
from ..ops.core import convert_to_tensor, stop_gradient
from ..ops.math_ops import cast, maximum, sqrt, square
from ..ops.reduce_ops import reduce_mean, reduce_sum
from .operands import constant_like, float_tensor

def batch_normalization(x, mean, variance, offset, scale, variance_epsilon,
                        name: Optional[str] = None):
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset, broadcasting.

    Computed as TensorFlow does: x * inv + (offset - mean * inv).

    Args:
      x: a floating tensor.
      mean: the mean (broadcastable to x).
      variance: the variance (broadcastable to x).
      offset: the shift (beta) added, or None.
      scale: the scale (gamma) multiplied, or None.
      variance_epsilon: a small float added to the variance.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> x = rt.constant([[1.0, 2.0], [3.0, 6.0]])
    >>> m, v = rt.nn.moments(x, [0])
    >>> print(rt.nn.batch_normalization(x, m, v, None, None, 0.0))
    rt.Tensor(
    [[-1. -1.]
     [ 1.  1.]], shape=(2, 2), dtype=float32)
    """
    x = float_tensor(x, "batch_normalization")
    mean, variance = (convert_to_tensor(t, dtype=x.dtype) for t in (mean, variance))
    inv = constant_like(1, x) / sqrt(variance + constant_like(variance_epsilon, x))
    if scale is not None:
        inv = inv * convert_to_tensor(scale, dtype=x.dtype)
    shift = -(mean * inv) if offset is None else \
        convert_to_tensor(offset, dtype=x.dtype) - mean * inv
    return x * inv + shift


def l2_normalize(x, axis=None, epsilon: float = 1e-12, name: Optional[str] = None, dim=None):
    """x / sqrt(max(reduce_sum(x ** 2, axis), epsilon)): unit L2 norm along `axis`.

    Args:
      x: a floating tensor (or what converts to one).
      axis: an int or list of ints to normalize over; None means all axes.
      epsilon: the lower bound of the squared norm (avoids dividing by zero).
      name: an optional name for the op.
      dim: TensorFlow's deprecated alias for axis.

    Returns:
      A tensor of x's shape and dtype.

    >>> print(rt.nn.l2_normalize([3.0, 4.0]))
    rt.Tensor([0.6 0.8], shape=(2,), dtype=float32)
    """
    x = float_tensor(x, "l2_normalize")
    axis = dim if axis is None else axis
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    return x / sqrt(maximum(square_sum, constant_like(epsilon, x)))


def moments(x, axes, shift=None, keepdims: bool = False, name: Optional[str] = None):
    """The mean and variance of x over `axes`.

    With keepdims the reduced axes stay with size 1. float16 is computed in float32, as in
    TensorFlow. (`shift` is accepted and unused, as in TensorFlow 2.)

    Args:
      x: a floating tensor (or what converts to one).
      axes: a list of ints (or one int): the axes to reduce.
      shift: unused.
      keepdims: keep the reduced axes with size 1.
      name: an optional name for the op.

    Returns:
      A tuple (mean, variance) of tensors of x's dtype.

    >>> rt.nn.moments(rt.constant([1.0, 2.0, 3.0, 4.0]), axes=[0])
    (<rt.Tensor: shape=(), dtype=float32, numpy=2.5>, <rt.Tensor: shape=(), dtype=float32, numpy=1.25>)
    """
    y = float_tensor(x, "moments")
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    out_dtype = y.dtype
    if y.dtype is dtypes.float16:
        y = cast(y, dtypes.float32)
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(square(y - stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return cast(mean, out_dtype), cast(variance, out_dtype)
