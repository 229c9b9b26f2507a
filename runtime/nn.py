"""`rt.nn`: TensorFlow's `tf.nn` — activations, softmax, losses, dropout, moments, bias_add,
conv2d and pooling — with TensorFlow's names, arguments, defaults and results.

The activations, softmax, losses and moments are compositions of existing ops (their
shape inference, gradients, ONNX and XLA come from those ops), written in the numerically
stable forms TensorFlow uses; softplus is rt.math.softplus's op; conv2d, the pools and
Erf (for gelu) are ops of their own (`runtime/ops/nn_ops.py`).

    import runtime as rt
    rt.nn.relu(rt.constant([-1.0, 2.0]))                      # [0., 2.]
    rt.nn.softmax(rt.constant([[1.0, 2.0]]))                  # [[0.269, 0.731]]
"""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np

from .core import dtypes
from .core.tensor import Tensor
from .errors import InvalidArgumentError
from .ops import nn_ops
from .ops.array_ops import expand_dims, reshape, shape, squeeze
from .ops.core import (apply_op, constant, constant_value, convert_to_tensor, stop_gradient,
                       zeros_like)
from .ops.io_ops import assert_that
from .ops.makers import range as range_
from .ops.math_extra import log1p, softplus as math_softplus
from .ops.math_ops import (FLOAT, NUMERIC, binary_operands, cast, check_kind, equal, exp,
                           greater, greater_equal, less, log, logical_and, maximum, minimum,
                           sigmoid, sqrt, square, tanh, where)
from .ops.random_ops import uniform
from .ops.reduce_ops import reduce_all, reduce_max, reduce_mean, reduce_sum
from .ops.shape_utils import normalize_axes

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "sigmoid", "softmax",
           "log_softmax", "softplus", "dropout", "l2_loss", "moments", "bias_add",
           "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "sigmoid_cross_entropy_with_logits", "conv2d", "max_pool2d", "avg_pool2d", "silu",
           "swish", "tanh", "batch_normalization", "l2_normalize"]


def _tensor(x, opname, kind=FLOAT):
    x = convert_to_tensor(x)
    check_kind(opname, x.dtype, kind)
    return x


def _c(value, like):
    """A Python number as a constant of `like`'s dtype."""
    return constant(np.asarray(value, dtype=like.dtype.np_dtype), like.dtype)


# -- activations ------------------------------------------------------------------------------

def relu(features, name: Optional[str] = None):
    """Rectified linear unit: max(features, 0), elementwise.

    The gradient is 0 where features <= 0 (as TensorFlow's ReluGrad), and NaN stays NaN.

    Args:
      features: a numeric tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> print(rt.nn.relu([-1.0, 0.0, 2.0]))
    rt.Tensor([0. 0. 2.], shape=(3,), dtype=float32)
    """
    x = _tensor(features, "Relu", NUMERIC)
    return maximum(zeros_like(x), x, name=name)  # the zero first: at 0 its side gets the gradient


def relu6(features, name: Optional[str] = None):
    """min(max(features, 0), 6), elementwise; the gradient flows only where 0 < features < 6.

    Args:
      features: a numeric tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> print(rt.nn.relu6([-1.0, 3.0, 9.0]))
    rt.Tensor([0. 3. 6.], shape=(3,), dtype=float32)
    """
    x = _tensor(features, "Relu6", NUMERIC)
    return minimum(_c(6, x), maximum(zeros_like(x), x), name=name)


def leaky_relu(features, alpha: float = 0.2, name: Optional[str] = None):
    """features where features > 0, else alpha * features, elementwise.

    Integer features become float32, as in TensorFlow.

    Args:
      features: a numeric tensor (or what converts to one).
      alpha: the slope for negative features (a Python float, default 0.2).
      name: an optional name for the op.

    Returns:
      A floating tensor of features' shape.

    >>> print(rt.nn.leaky_relu([-1.0, 2.0]))
    rt.Tensor([-0.2  2. ], shape=(2,), dtype=float32)
    """
    x = convert_to_tensor(features)
    if x.dtype.is_integer:
        x = cast(x, dtypes.float32)
    check_kind("LeakyRelu", x.dtype, FLOAT)
    return where(greater(x, zeros_like(x)), x, x * _c(alpha, x), name=name)


def _expm1_negative(x):
    """exp(min(x, 0)) - 1: never overflows, so the unselected side of a `where` keeps
    finite gradients."""
    return exp(minimum(x, zeros_like(x))) - _c(1, x)


def elu(features, name: Optional[str] = None):
    """Exponential linear unit: features where features > 0, else exp(features) - 1.

    Args:
      features: a floating tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> print(rt.nn.elu([-1.0, 2.0]))
    rt.Tensor([-0.6321206  2.       ], shape=(2,), dtype=float32)
    """
    x = _tensor(features, "Elu")
    return where(greater(x, zeros_like(x)), x, _expm1_negative(x), name=name)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features, name: Optional[str] = None):
    """Scaled exponential linear unit: scale * (features where > 0, else alpha * (exp(features) - 1)).

    TensorFlow's constants: alpha 1.6732632 and scale 1.0507010.

    Args:
      features: a floating tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> print(rt.nn.selu([-1.0, 3.0]))
    rt.Tensor([-1.1113307  3.152103 ], shape=(2,), dtype=float32)
    """
    x = _tensor(features, "Selu")
    neg = _c(_SELU_ALPHA, x) * _expm1_negative(x)
    return _c(_SELU_SCALE, x) * where(greater(x, zeros_like(x)), x, neg)


def gelu(features, approximate: bool = False, name: Optional[str] = None):
    """Gaussian error linear unit: 0.5 * x * (1 + erf(x / sqrt(2))).

    With approximate=True: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3))).

    Args:
      features: a floating tensor (or what converts to one).
      approximate: use the tanh approximation (default False: the exact erf form).
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> print(rt.nn.gelu([-1.0, 1.0]))
    rt.Tensor([-0.15865526  0.8413447 ], shape=(2,), dtype=float32)
    >>> print(rt.nn.gelu([-1.0, 1.0], approximate=True))
    rt.Tensor([-0.158808  0.841192], shape=(2,), dtype=float32)
    """
    x = _tensor(features, "Gelu")
    half = _c(0.5, x)
    if approximate:
        inner = _c(0.7978845608028654, x) * (x + _c(0.044715, x) * (x * x * x))
        return half * x * (_c(1, x) + tanh(inner))
    erf = apply_op(nn_ops.ERF, [x / _c(1.4142135623730951, x)])
    return half * x * (_c(1, x) + erf)


def silu(features, beta: float = 1.0, name: Optional[str] = None):
    """Sigmoid linear unit (swish): features * sigmoid(beta * features).

    Args:
      features: a floating tensor (or what converts to one).
      beta: a Python float multiplying features inside the sigmoid (default 1.0).
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> print(rt.nn.silu([-1.0, 3.0]))
    rt.Tensor([-0.2689414  2.8577223], shape=(2,), dtype=float32)
    """
    x = _tensor(features, "Silu")
    return x * sigmoid(x * _c(beta, x) if beta != 1.0 else x)


swish = silu


def _softplus_parts(x, positive):
    """(max(x, 0), log1p(exp(-|x|))), TensorFlow's form in sigmoid_cross_entropy, where
    `positive` says which side of 0 counts as positive (its derivative decides the
    gradient at 0); exp never overflows, so neither side of the `where`s has inf."""
    zero = zeros_like(x)
    return where(positive, x, zero), log1p(exp(where(positive, -x, x)))


def softplus(features, name: Optional[str] = None):
    """log(exp(features) + 1), elementwise, computed stably.

    No overflow for large features nor loss of the small values of very negative ones
    (rt.math.softplus: one op); its gradient is sigmoid(features).

    Args:
      features: a floating tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor of features' shape and dtype.

    >>> print(rt.nn.softplus([-1.0, 0.0, 100.0]))
    rt.Tensor([  0.3132617   0.6931472 100.       ], shape=(3,), dtype=float32)
    """
    return math_softplus(_tensor(features, "Softplus"), name=name)


# -- softmax ----------------------------------------------------------------------------------

def _softmax_axis(x, axis, opname):
    if x.shape.rank == 0:
        raise InvalidArgumentError(f"{opname}: logits must have rank >= 1, got a scalar")
    axis = -1 if axis is None else axis
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{opname}: axis must be a Python int, got {axis!r}")
    return int(axis) if x.shape.rank is None else normalize_axes(int(axis), x.shape.rank)[0]


def _shifted(x, axis):
    """x minus its maximum along `axis` (a constant for the gradient: softmax does not
    change when every logit moves by the same amount)."""
    return x - stop_gradient(reduce_max(x, axis, keepdims=True))


def softmax(logits, axis: Optional[int] = None, name: Optional[str] = None):
    """exp(logits) / reduce_sum(exp(logits), axis), computed after subtracting the maximum.

    Subtracting the maximum first means no overflow for large logits.

    Args:
      logits: a floating tensor of rank >= 1 (or what converts to one).
      axis: the Python int axis to normalize over; None means the last axis.
      name: an optional name for the op.

    Returns:
      A tensor of logits' shape and dtype whose values along `axis` sum to 1.

    Raises:
      InvalidArgumentError: for scalar logits.

    >>> print(rt.nn.softmax([[1.0, 2.0, 3.0]]))
    rt.Tensor([[0.09003057 0.24472846 0.66524094]], shape=(1, 3), dtype=float32)
    """
    x = _tensor(logits, "Softmax")
    axis = _softmax_axis(x, axis, "Softmax")
    e = exp(_shifted(x, axis))
    return e / reduce_sum(e, axis, keepdims=True)


def log_softmax(logits, axis: Optional[int] = None, name: Optional[str] = None):
    """logits - log(reduce_sum(exp(logits), axis)), computed after subtracting the maximum.

    Args:
      logits: a floating tensor of rank >= 1 (or what converts to one).
      axis: the Python int axis to normalize over; None means the last axis.
      name: an optional name for the op.

    Returns:
      A tensor of logits' shape and dtype.

    >>> print(rt.nn.log_softmax([[0.0, 0.0]]))
    rt.Tensor([[-0.6931472 -0.6931472]], shape=(1, 2), dtype=float32)
    """
    x = _tensor(logits, "LogSoftmax")
    axis = _softmax_axis(x, axis, "LogSoftmax")
    s = _shifted(x, axis)
    return s - log(reduce_sum(exp(s), axis, keepdims=True))


# -- dropout, l2_loss, moments, bias_add ------------------------------------------------------

def _noise_shape(x, noise_shape):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if noise_shape is None:
        wanted = dims
    else:
        if isinstance(noise_shape, Tensor):
            known = constant_value(noise_shape)
            noise_shape = None if known is None else np.asarray(known).tolist()
            if noise_shape is None:
                raise ValueError("rt.nn.dropout: noise_shape must be known when the graph is "
                                 "built (random draws have static shapes here)")
        noise_shape = list(noise_shape)
        if dims is not None and len(noise_shape) != len(dims):
            raise ValueError(f"rt.nn.dropout: noise_shape {noise_shape} must have the rank of "
                             f"x, whose shape is {x.shape}")
        wanted = [d if d is not None else (dims[i] if dims is not None else None)
                  for i, d in enumerate(noise_shape)]
    if wanted is None or any(d is None for d in wanted):
        raise ValueError(
            f"rt.nn.dropout needs the shape of its random mask known when the graph is built, "
            f"got x of shape {x.shape}: random draws here have static shapes (give the "
            "function's input_signature known dimensions, or a noise_shape of known sizes)")
    return [int(d) for d in wanted]


def dropout(x, rate, noise_shape=None, seed: Optional[int] = None, name: Optional[str] = None):
    """Sets each value to 0 with probability `rate` and scales the others by 1 / (1 - rate).

    The expected sum is unchanged. `noise_shape` (broadcastable to x's shape) draws one
    decision for a whole slice; `seed` makes the draws reproducible (with
    rt.random.set_seed, as TensorFlow's op seeds). rate=0 returns x. The random mask's
    shape must be known when a graph is built.

    Args:
      x: a floating tensor.
      rate: the probability of dropping each value: a float in [0, 1) or a scalar tensor.
      noise_shape: an optional shape for the random mask, broadcast against x.
      seed: an optional Python int op seed.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    Raises:
      ValueError: for a non-floating x, a rate outside [0, 1), or a mask shape not known
        when the graph is built.

    >>> y = rt.nn.dropout(rt.ones([100]), rate=0.5, seed=1)
    >>> sorted(set(y.numpy().tolist()))
    [0.0, 2.0]
    """
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError("x has to be a floating point tensor since it's going to be scaled. "
                         f"Got a {x.dtype.name} tensor instead.")
    if isinstance(rate, numbers.Real) and not isinstance(rate, bool):
        if not 0 <= rate < 1:
            raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), "
                             f"got {rate:g}")
        if rate == 0:
            return x
        scale = _c(1.0 / (1.0 - float(rate)), x)
        rate_t = _c(rate, x)
    else:
        rate_t = convert_to_tensor(rate, dtype=x.dtype)
        if rate_t.shape.rank not in (0, None):
            raise ValueError(f"rate must be a scalar tensor, got shape {rate_t.shape}")
        scale = _c(1, x) / (_c(1, x) - rate_t)
    draws = uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
    keep = greater_equal(draws, rate_t)
    return where(keep, x * scale, zeros_like(x), name=name)


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
    x = _tensor(x, "batch_normalization")
    mean, variance = (convert_to_tensor(t, dtype=x.dtype) for t in (mean, variance))
    inv = _c(1, x) / sqrt(variance + _c(variance_epsilon, x))
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
    x = _tensor(x, "l2_normalize")
    axis = dim if axis is None else axis
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    return x / sqrt(maximum(square_sum, _c(epsilon, x)))


def l2_loss(t, name: Optional[str] = None):
    """sum(t ** 2) / 2.

    Args:
      t: a floating tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A scalar of t's dtype.

    >>> print(rt.nn.l2_loss([1.0, 2.0]))
    rt.Tensor(2.5, shape=(), dtype=float32)
    """
    x = _tensor(t, "L2Loss")
    return reduce_sum(square(x)) * _c(0.5, x)


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
    y = _tensor(x, "moments")
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    out_dtype = y.dtype
    if y.dtype is dtypes.float16:
        y = cast(y, dtypes.float32)
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(square(y - stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return cast(mean, out_dtype), cast(variance, out_dtype)


def bias_add(value, bias, data_format: Optional[str] = None, name: Optional[str] = None):
    """value + bias, with the 1-D `bias` added along the channel axis.

    The channel axis is the last one (data_format None, "NHWC", "N...C") or axis 1 ("NCHW",
    "NC...").

    Args:
      value: a tensor of rank >= 2.
      bias: a 1-D tensor of value's dtype, as long as value's channel axis.
      data_format: None, "NHWC", "N...C", "NCHW" or "NC...".
      name: an optional name for the op.

    Returns:
      A tensor of value's shape and dtype.

    Raises:
      TypeError: when the dtypes differ.
      ValueError: for a bad data_format, ranks or a channel count mismatch.

    >>> print(rt.nn.bias_add([[1.0, 2.0]], [10.0, 20.0]))
    rt.Tensor([[11. 22.]], shape=(1, 2), dtype=float32)
    """
    v = convert_to_tensor(value)
    b = convert_to_tensor(bias, dtype=v.dtype) if not isinstance(bias, Tensor) else bias
    if b.dtype is not v.dtype:
        raise TypeError(f"bias_add: bias has dtype {b.dtype.name} but value has "
                        f"{v.dtype.name}")
    if data_format not in (None, "NHWC", "N...C", "NCHW", "NC..."):
        raise ValueError(f"data_format must be None, 'NHWC', 'N...C', 'NCHW' or 'NC...', got "
                         f"{data_format!r}")
    if b.shape.rank not in (1, None):
        raise ValueError(f"bias_add: bias must be 1-D, got shape {b.shape}")
    if v.shape.rank is not None and v.shape.rank < 2:
        raise ValueError(f"bias_add: value must be at least 2-D, got shape {v.shape}")
    channels_first = data_format in ("NCHW", "NC...")
    if v.shape.rank is not None and b.shape.rank == 1:
        c = v.shape[1 if channels_first else -1]
        if c is not None and b.shape[0] is not None and c != b.shape[0]:
            raise ValueError(f"bias_add: bias has {b.shape[0]} values but value has {c} "
                             f"channels (shape {v.shape}); they must match")
    if channels_first:
        if v.shape.rank is None:
            raise ValueError("bias_add with data_format NCHW needs value's rank")
        b = reshape(b, [-1] + [1] * (v.shape.rank - 2))
    return v + b


# -- cross-entropy ----------------------------------------------------------------------------

def _same_dtype(labels, logits):
    return binary_operands(labels, logits) if not isinstance(labels, Tensor) else (
        convert_to_tensor(labels), logits)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None,
                                             name: Optional[str] = None):
    """The cross-entropy of softmax(logits) against integer class `labels`.

    logsumexp(logits) - logits[label], per example. Labels outside [0, num_classes) raise
    InvalidArgumentError when the graph runs.

    Args:
      labels: int32 or int64 class indices, of logits' shape without its last axis.
      logits: a floating tensor [..., num_classes].
      name: an optional name for the op.

    Returns:
      A tensor of labels' shape and logits' dtype.

    >>> print(rt.nn.sparse_softmax_cross_entropy_with_logits([0], [[2.0, 0.0]]))
    rt.Tensor([0.12692805], shape=(1,), dtype=float32)
    """
    x = _tensor(logits, "SparseSoftmaxCrossEntropyWithLogits")
    y = convert_to_tensor(labels)
    if y.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"labels must be int32 or int64, got {y.dtype.name}")
    if x.shape.rank == 0:
        raise ValueError(f"Logits cannot be scalars - received shape {x.shape}.")
    if x.shape.rank is not None and y.shape.rank is not None:
        if y.shape.rank != x.shape.rank - 1:
            raise ValueError(f"Rank mismatch: Rank of labels (received {y.shape.rank}) should "
                             f"equal rank of logits minus 1 (received {x.shape.rank}).")
        if not y.shape.is_compatible_with(x.shape[:-1]):
            raise ValueError(f"Shape mismatch: The shape of labels (received {y.shape}) should "
                             f"equal the shape of logits except for the last dimension "
                             f"(received {x.shape}).")
    n = x.shape[-1] if x.shape.rank is not None else None
    classes = constant(np.int64(n), dtypes.int64) if n is not None else \
        cast(shape(x, out_type=dtypes.int64)[-1], dtypes.int64)
    y64 = cast(y, dtypes.int64)
    zero = constant(np.int64(0), dtypes.int64)
    in_range = reduce_all(logical_and(greater_equal(y64, zero), less(y64, classes)))
    assert_that(in_range, "Received a label value outside the valid range of [0, "
                f"{n if n is not None else 'num_classes'}). Label values:", (y,))
    chosen = equal(expand_dims(y64, -1), range_(classes, dtype=dtypes.int64))
    lsm = log_softmax(x)
    return -reduce_sum(where(chosen, lsm, zeros_like(lsm)), -1)


def softmax_cross_entropy_with_logits(labels, logits, axis: int = -1,
                                      name: Optional[str] = None):
    """-reduce_sum(labels * log_softmax(logits), axis): cross-entropy against a distribution.

    `labels` is a probability distribution of logits' shape and dtype. Gradients flow into
    both.

    Args:
      labels: a tensor of logits' shape (each slice along `axis` a distribution).
      logits: a floating tensor.
      axis: the class axis (default -1).
      name: an optional name for the op.

    Returns:
      A tensor of logits' shape without `axis`, of logits' dtype.

    >>> print(rt.nn.softmax_cross_entropy_with_logits([[1.0, 0.0]], [[2.0, 0.0]]))
    rt.Tensor([0.12692805], shape=(1,), dtype=float32)
    """
    x = _tensor(logits, "SoftmaxCrossEntropyWithLogits")
    y, x = _same_dtype(labels, x)
    if x.shape.rank is not None and y.shape.rank is not None and \
            not y.shape.is_compatible_with(x.shape):
        raise ValueError(f"logits and labels must have the same shape, received "
                         f"({x.shape} vs {y.shape})")
    axis = _softmax_axis(x, axis, "SoftmaxCrossEntropyWithLogits")
    return -reduce_sum(y * log_softmax(x, axis), axis)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name: Optional[str] = None):
    """The elementwise cross-entropy of sigmoid(logits) against `labels` in [0, 1].

    TensorFlow's stable form: max(x, 0) - x * z + log(1 + exp(-|x|)).

    Args:
      labels: a tensor of logits' shape, values in [0, 1].
      logits: a floating tensor.
      name: an optional name for the op.

    Returns:
      A tensor of logits' shape and dtype.

    >>> print(rt.nn.sigmoid_cross_entropy_with_logits([1.0], [0.0]))
    rt.Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    x = _tensor(logits, "SigmoidCrossEntropyWithLogits")
    z, x = _same_dtype(labels, x)
    if x.shape.rank is not None and z.shape.rank is not None and \
            not z.shape.is_compatible_with(x.shape):
        raise ValueError(f"logits and labels must have the same shape ({x.shape} vs "
                         f"{z.shape})")
    relu_part, log_part = _softplus_parts(x, greater_equal(x, zeros_like(x)))
    return relu_part - x * z + log_part


from .nn_conv import avg_pool2d, conv2d, max_pool2d  # noqa: E402  (in rt.nn)


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
