"""`rt.nn`'s activations and softmax: compositions of existing ops (their shape inference,
gradients, ONNX and XLA come from those ops) in the numerically stable forms TensorFlow
uses; softplus is rt.math.softplus's op, gelu's Erf an op of `runtime/ops/nn_ops.py`."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..ops import nn_ops
from ..ops.core import apply_op, convert_to_tensor, stop_gradient, zeros_like
from ..ops.elementwise_ops import log1p, softplus as math_softplus
from ..ops.math_ops import (FLOAT, NUMERIC, cast, check_kind, exp, greater, log, maximum,
                            minimum, sigmoid, tanh, where)
from ..ops.reduce_ops import reduce_max, reduce_sum
from ..ops.shape_utils import normalize_axes
from .operands import constant_like, float_tensor

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
    x = float_tensor(features, "Relu", NUMERIC)
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
    x = float_tensor(features, "Relu6", NUMERIC)
    return minimum(constant_like(6, x), maximum(zeros_like(x), x), name=name)


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
    return where(greater(x, zeros_like(x)), x, x * constant_like(alpha, x), name=name)


def _expm1_negative(x):
    """exp(min(x, 0)) - 1: never overflows, so the unselected side of a `where` keeps
    finite gradients."""
    return exp(minimum(x, zeros_like(x))) - constant_like(1, x)


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
    x = float_tensor(features, "Elu")
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
    x = float_tensor(features, "Selu")
    neg = constant_like(_SELU_ALPHA, x) * _expm1_negative(x)
    return constant_like(_SELU_SCALE, x) * where(greater(x, zeros_like(x)), x, neg)


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
    x = float_tensor(features, "Gelu")
    half = constant_like(0.5, x)
    if approximate:
        inner = constant_like(0.7978845608028654, x) * (x + constant_like(0.044715, x) * (x * x * x))
        return half * x * (constant_like(1, x) + tanh(inner))
    erf = apply_op(nn_ops.ERF, [x / constant_like(1.4142135623730951, x)])
    return half * x * (constant_like(1, x) + erf)


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
    x = float_tensor(features, "Silu")
    return x * sigmoid(x * constant_like(beta, x) if beta != 1.0 else x)


swish = silu


def softplus_parts(x, positive):
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
    return math_softplus(float_tensor(features, "Softplus"), name=name)


# -- softmax ----------------------------------------------------------------------------------

def softmax_axis(x, axis, opname):
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
    x = float_tensor(logits, "Softmax")
    axis = softmax_axis(x, axis, "Softmax")
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
    x = float_tensor(logits, "LogSoftmax")
    axis = softmax_axis(x, axis, "LogSoftmax")
    s = _shifted(x, axis)
    return s - log(reduce_sum(exp(s), axis, keepdims=True))
