"""Numeric helpers TensorFlow keeps in tf.math: reduce_logsumexp, top_k, is_nan, is_inf and
is_finite, each composed from existing ops (so gradients, XLA, ONNX and saving come with
them).

reduce_logsumexp shifts by the maximum, as TensorFlow does: `log(sum(exp(x - m))) + m`
with `m = max(x)` where that is finite and 0 where it is not (a row of -inf gives -inf,
one holding +inf gives +inf, and NaN propagates); `m` is held constant for the gradient.
top_k is a descending stable sort cut to k: equal values come in the order of their
positions (the lower index first), and NaN counts as the largest value, as in rt.sort.
"""
from __future__ import annotations

import collections
from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from . import array_ops, shape_utils, sort_ops
from .core import constant, convert_to_tensor, identity, stop_gradient, zeros_like
from .introspection_ops import get_static_value
from .math_ops import abs as abs_, cast, equal, exp, less, log, not_equal, where
from .reduce_ops import reduce_max, reduce_sum


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])  # top_k's result, as TF's


def _floating(x, what):
    if not x.dtype.is_floating:
        raise TypeError(f"{what} needs a floating-point tensor, got {x.dtype.name}")
    return x


def reduce_logsumexp(input_tensor, axis=None, keepdims: bool = False,
                     name: Optional[str] = None):
    """`log(sum(exp(input_tensor), axis))`, computed without overflow.

    `log(sum(exp(x - m))) + m` with `m = max(x, axis)` where finite, else 0: a reduction of
    only -inf (or of nothing) is -inf, one holding +inf is +inf, NaN gives NaN.

    Args:
      input_tensor: a floating-point tensor.
      axis: the dimensions to reduce (None: all).
      keepdims: keep the reduced dimensions with length 1.
      name: an optional name for the result.

    Returns:
      A tensor of the input's dtype.

    >>> x = rt.constant([[0.0, 0.0], [1000.0, 1000.0]], rt.float64)   # exp(1000) overflows
    >>> print(rt.reduce_logsumexp(x, axis=1) - [0.0, 1000.0])
    rt.Tensor([0.69314718 0.69314718], shape=(2,), dtype=float64)
    >>> print(rt.reduce_logsumexp(rt.constant([-np.inf, -np.inf])))
    rt.Tensor(-inf, shape=(), dtype=float32)
    """
    x = _floating(convert_to_tensor(input_tensor), "reduce_logsumexp")
    raw_max = reduce_max(x, axis=axis, keepdims=True)
    shift = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like(raw_max)))
    result = log(reduce_sum(exp(x - shift), axis=axis, keepdims=keepdims))
    if not keepdims:
        shift = array_ops.reshape(shift, array_ops.shape(result))
    out = identity(result + shift, name=name) if name else result + shift
    return out


def is_nan(x, name: Optional[str] = None):
    """True where `x` is NaN (`x != x`).

    >>> print(rt.math.is_nan(rt.constant([1.0, np.nan, np.inf])))
    rt.Tensor([False  True False], shape=(3,), dtype=bool)
    """
    x = _floating(convert_to_tensor(x), "is_nan")
    return not_equal(x, x, name=name)


def is_inf(x, name: Optional[str] = None):
    """True where `x` is +inf or -inf (`|x| == inf`).

    >>> print(rt.math.is_inf(rt.constant([1.0, np.nan, -np.inf])))
    rt.Tensor([False False  True], shape=(3,), dtype=bool)
    """
    x = _floating(convert_to_tensor(x), "is_inf")
    return equal(abs_(x), convert_to_tensor(np.inf, x.dtype), name=name)


def is_finite(x, name: Optional[str] = None):
    """True where `x` is neither NaN nor infinite (`|x| < inf`).

    >>> print(rt.math.is_finite(rt.constant([1.0, np.nan, -np.inf])))
    rt.Tensor([ True False False], shape=(3,), dtype=bool)
    """
    x = _floating(convert_to_tensor(x), "is_finite")
    return less(abs_(x), convert_to_tensor(np.inf, x.dtype), name=name)


def top_k(input, k=1, sorted: bool = True, index_type=dtypes.int32,  # noqa: A002
          name: Optional[str] = None):
    """The k largest entries of the last dimension of `input`, and their positions.

    `values[..., j]` is the j-th largest of `input[..., :]` and `indices[..., j]` its
    position; equal values come lower position first; NaN counts as the largest.

    Args:
      input: a real-valued tensor of known rank >= 1, with at least k entries in its last
        dimension (InvalidArgumentError otherwise).
      k: how many (an int, or a scalar tensor whose value is known while tracing).
      sorted: accepted for TensorFlow's signature (the result is always sorted).
      index_type: the dtype of the indices (int32 or int64).
      name: an optional name.

    Returns:
      `(values, indices)`, a namedtuple as TensorFlow's (`.values`, `.indices`), each of
      shape `input.shape[:-1] + [k]`.

    >>> values, indices = rt.math.top_k(rt.constant([1.0, 3.0, 2.0, 3.0]), k=2)
    >>> print(values, indices)
    rt.Tensor([3. 3.], shape=(2,), dtype=float32) rt.Tensor([1 3], shape=(2,), dtype=int32)
    """
    x = convert_to_tensor(input)
    if x.shape.rank is None:
        raise ValueError("top_k needs a tensor of known rank")
    if x.shape.rank == 0:
        raise InvalidArgumentError("top_k needs a tensor of rank >= 1, got a scalar")
    known = get_static_value(k)
    if known is None:
        raise ValueError("top_k needs k known while tracing (a Python int or a constant)")
    k = shape_utils.whole_number(known, "top_k's k")
    if k < 0:
        raise InvalidArgumentError(f"top_k: k must be non-negative, got {k}")
    n = x.shape[-1]
    if n is not None and n < k:
        raise InvalidArgumentError(f"top_k: input must have at least k={k} columns, got {n}")
    # a gather of the first k (not a slice): where the length is known only when the graph
    # runs, too few columns raise on every backend
    first = constant(np.arange(k, dtype=np.int32))
    values = array_ops.gather(sort_ops.sort(x, direction="DESCENDING"), first, axis=-1)
    indices = array_ops.gather(sort_ops.argsort(x, direction="DESCENDING"), first, axis=-1)
    if index_type != dtypes.int32:
        indices = cast(indices, index_type)
    if name:
        values = identity(values, name=name)
    return TopKV2(values, indices)
