"""`rt.nn`'s losses: `l2_loss` and the cross-entropies of softmax and sigmoid, in the
stable forms TensorFlow uses."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor
from ..ops.array_ops import expand_dims, shape
from ..ops.core import constant, convert_to_tensor, zeros_like
from ..ops.io_ops import assert_that
from ..ops.makers import range as range_
from ..ops.math_ops import (binary_operands, cast, equal, greater_equal, less, logical_and,
                            square, where)
from ..ops.reduce_ops import reduce_all, reduce_sum
from .activations import log_softmax, softmax_axis, softplus_parts
from .operands import constant_like, float_tensor

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
    x = float_tensor(t, "L2Loss")
    return reduce_sum(square(x)) * constant_like(0.5, x)



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
    x = float_tensor(logits, "SparseSoftmaxCrossEntropyWithLogits")
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
    x = float_tensor(logits, "SoftmaxCrossEntropyWithLogits")
    y, x = _same_dtype(labels, x)
    if x.shape.rank is not None and y.shape.rank is not None and \
            not y.shape.is_compatible_with(x.shape):
        raise ValueError(f"logits and labels must have the same shape, received "
                         f"({x.shape} vs {y.shape})")
    axis = softmax_axis(x, axis, "SoftmaxCrossEntropyWithLogits")
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
    x = float_tensor(logits, "SigmoidCrossEntropyWithLogits")
    z, x = _same_dtype(labels, x)
    if x.shape.rank is not None and z.shape.rank is not None and \
            not z.shape.is_compatible_with(x.shape):
        raise ValueError(f"logits and labels must have the same shape ({x.shape} vs "
                         f"{z.shape})")
    relu_part, log_part = softplus_parts(x, greater_equal(x, zeros_like(x)))
    return relu_part - x * z + log_part
