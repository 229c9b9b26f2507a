"""TensorFlow's math helpers that are exact compositions of existing ops (so their shape
inference, gradients, XLA lowering, ONNX export and saving are those ops'): add_n,
count_nonzero, divide_no_nan, squared_difference, truncatediv, repeat, band_part and
in_top_k.

divide_no_nan divides by a 1 where the divisor is 0 (and then selects 0), so that neither
its value nor its gradient meets a division by zero. repeat gathers positions: with
repeat counts known while tracing they are a constant; otherwise they are drawn from a
sequence mask, whose length is known only when the graph runs (XLA refuses that by name).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from . import array_ops, shape_utils
from .core import constant, convert_to_tensor, identity, zeros_like
from .introspection_ops import get_static_value
from .io_ops import assert_that
from .makers import range as range_
from .math_ops import (abs as abs_, binary_operands, cast, check_kind, divide, equal, floordiv, greater,
                       greater_equal, less, less_equal, logical_and, logical_or, mod,
                       not_equal, square, subtract, where, INTEGER, FLOAT)
from .reduce_ops import reduce_all, reduce_sum
from .sequence_ops import sequence_mask
from .shaping_ops import boolean_mask, broadcast_to, tile


def _named(t, name):
    return identity(t, name=name) if name else t


def add_n(inputs, name: Optional[str] = None):
    """The elementwise sum of a list of tensors of one shape and dtype, as tf.math.add_n.

    Args:
      inputs: a non-empty list of tensors (or what converts to them), all of one dtype and
        one shape (they do not broadcast: shapes known to differ raise ValueError).
      name: an optional name for the result.

    Returns:
      A tensor of the inputs' shape and dtype.

    >>> print(rt.add_n([rt.constant([1, 2]), rt.constant([3, 4]), rt.constant([5, 6])]))
    rt.Tensor([ 9 12], shape=(2,), dtype=int32)
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("add_n needs a non-empty list of tensors")
    tensors = [convert_to_tensor(t) for t in inputs]
    first = tensors[0]
    for t in tensors[1:]:
        if t.dtype is not first.dtype:
            raise TypeError(f"add_n: the inputs have different dtypes, {first.dtype.name} and "
                            f"{t.dtype.name}")
        if not t.shape.is_compatible_with(first.shape):
            raise ValueError(f"add_n: the inputs have different shapes, {first.shape} and "
                             f"{t.shape} (add_n does not broadcast)")
    total = first
    for t in tensors[1:]:
        total = total + t
    return identity(total, name=name) if name or len(tensors) == 1 else total


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64,  # noqa: A002
                  name: Optional[str] = None):
    """How many elements of `input` are not zero (not False, not the empty string) along
    `axis`, as tf.math.count_nonzero. NaN is not zero: it counts.

    Args:
      input: a tensor of a numeric, bool or string dtype.
      axis: the dimensions to reduce (None: all).
      keepdims: keep the reduced dimensions with length 1.
      dtype: the dtype of the counts (int64 by default, as TensorFlow).
      name: an optional name for the result.

    Returns:
      A tensor of `dtype`.

    >>> print(rt.math.count_nonzero(rt.constant([[0, 1, 2], [0, 0, 3]]), axis=1))
    rt.Tensor([2 1], shape=(2,), dtype=int64)
    """
    x = convert_to_tensor(input)
    zero = "" if x.dtype.is_string else (False if x.dtype.is_bool else 0)
    nonzero = not_equal(x, convert_to_tensor(zero, dtype=x.dtype))
    counts = reduce_sum(cast(nonzero, dtypes.int64), axis=axis, keepdims=bool(keepdims))
    return cast(counts, dtypes.as_dtype(dtype), name=name) if name or dtype != dtypes.int64 \
        else counts


def divide_no_nan(x, y, name: Optional[str] = None):
    """`x / y` elementwise, but 0 where `y` is 0 (even where `x` is 0, inf or NaN), as
    tf.math.divide_no_nan; the gradient is 0 there too.

    Args:
      x: a floating-point tensor (or what converts to one).
      y: a tensor of x's dtype (a Python number takes it); they broadcast.
      name: an optional name for the result.

    Returns:
      A tensor of x's dtype and the broadcast shape.

    >>> print(rt.math.divide_no_nan(rt.constant([3.0, 1.0, np.nan]), rt.constant([2.0, 0.0, 0.0])))
    rt.Tensor([1.5 0.  0. ], shape=(3,), dtype=float32)
    """
    x, y = binary_operands(x, y)
    check_kind("DivNoNan", x.dtype, FLOAT)
    zero = zeros_like(y)
    is_zero = equal(y, zero)
    safe = where(is_zero, constant(1, y.dtype) + zero, y)
    quotient = divide(x, safe)
    return where(broadcast_to(is_zero, array_ops.shape(quotient)), zeros_like(quotient),
                 quotient, name=name)


def squared_difference(x, y, name: Optional[str] = None):
    """`(x - y) ** 2` elementwise (they broadcast), as tf.math.squared_difference.

    >>> print(rt.math.squared_difference(rt.constant([1, 5]), rt.constant([4, 2])))
    rt.Tensor([9 9], shape=(2,), dtype=int32)
    """
    return square(subtract(*binary_operands(x, y)), name=name)


def truncatediv(x, y, name: Optional[str] = None):
    """`x / y` for integers, rounded toward zero (C's division: -7 / 5 is -1), as
    tf.math.truncatediv; a divisor of 0 raises InvalidArgumentError. Floating-point
    tensors raise TypeError (TensorFlow has integer kernels only).

    >>> print(rt.math.truncatediv(rt.constant([7, -7, 7, -7]), rt.constant([5, 5, -5, -5])))
    rt.Tensor([ 1 -1 -1  1], shape=(4,), dtype=int32)
    """
    x, y = binary_operands(x, y)
    if not x.dtype.is_integer:
        raise TypeError(f"truncatediv takes integer tensors, got {x.dtype.name}")
    check_kind("TruncateDiv", x.dtype, INTEGER)
    floor_q = floordiv(x, y)
    zero = convert_to_tensor(0, dtype=x.dtype)
    # floor and truncation differ where the remainder is not 0 and the signs differ
    inexact = not_equal(mod(x, y), zero)
    signs_differ = not_equal(less(x, zero), less(y, zero))
    return floor_q + cast(logical_and(inexact, signs_differ), x.dtype, name=name)


def repeat(input, repeats, axis=None, name: Optional[str] = None):  # noqa: A002
    """Each element (each slice along `axis`) of `input` repeated, as tf.repeat:
    `repeats[i]` times for the i-th, or `repeats` times each for a scalar.

    Args:
      input: a tensor; with `axis=None` it is flattened first.
      repeats: a non-negative integer scalar, or a vector with one count per slice along
        `axis` (another length raises InvalidArgumentError).
      axis: the dimension to repeat along (None: the flattened input).
      name: an optional name for the result.

    Returns:
      A tensor of input's dtype, of input's shape but `sum(repeats)` along `axis`.

    >>> print(rt.repeat(rt.constant([[1, 2], [3, 4]]), repeats=[1, 2], axis=0))
    rt.Tensor(
    [[1 2]
     [3 4]
     [3 4]], shape=(3, 2), dtype=int32)
    """
    x = convert_to_tensor(input)
    if axis is None:
        x = array_ops.reshape(x, [-1])
        axis = 0
    rank = x.shape.rank
    if rank is None:
        raise ValueError("repeat needs a tensor of known rank")
    if rank == 0:
        raise InvalidArgumentError("repeat needs a tensor of rank >= 1 with an axis")
    axis = shape_utils.whole_number(axis, "repeat's axis")
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"repeat: axis {axis} is out of range for rank {rank}")
    axis %= rank
    n = x.shape[axis]
    known = get_static_value(repeats)
    if known is not None and (n is not None or np.ndim(known) == 0):
        counts = np.asarray(known)
        if counts.dtype.kind not in "iu":
            raise TypeError(f"repeat's repeats must be integers, got {counts.dtype}")
        if np.any(counts < 0):
            raise InvalidArgumentError("repeat's repeats must be non-negative")
        if counts.ndim > 1 or (counts.ndim == 1 and counts.shape[0] not in (1, n)):
            raise InvalidArgumentError(
                f"repeat: repeats of shape {list(counts.shape)} do not match the {n} slices "
                f"along axis {axis}")
        if counts.ndim == 0 and n is None:   # a count for every slice: tile the positions
            positions = array_ops.reshape(tile(array_ops.expand_dims(
                range_(array_ops.shape(x)[axis]), 1), [1, int(counts)]), [-1])
        else:
            positions = constant(np.repeat(np.arange(n, dtype=np.int32),
                                           np.broadcast_to(counts, (n,))))
        return _named(array_ops.gather(x, positions, axis=axis), name)
    counts = cast(convert_to_tensor(repeats), dtypes.int32)
    slices = array_ops.shape(x)[axis]
    if counts.shape.rank == 0 or counts.shape.as_list() == [1]:
        counts = broadcast_to(array_ops.reshape(counts, []), array_ops.reshape(slices, [1]))
    longest = reduce_sum(counts) if counts.shape[0] == 0 else None
    mask = sequence_mask(counts, longest)            # [slices, max count]
    width = array_ops.shape(mask)[1]
    grid = tile(array_ops.expand_dims(range_(slices), 1), array_ops.stack([1, width]))
    positions = boolean_mask(grid, mask)
    return _named(array_ops.gather(x, positions, axis=axis), name)


def band_part(input, num_lower, num_upper, name: Optional[str] = None):  # noqa: A002
    """The band of each matrix of `input` (its last two dimensions) kept, the rest zero,
    as tf.linalg.band_part: `out[..., m, n] = input[..., m, n]` where
    `(num_lower < 0 or m - n <= num_lower) and (num_upper < 0 or n - m <= num_upper)`.
    A bound past the matrix (num_lower > rows, num_upper > columns) raises
    InvalidArgumentError, as TensorFlow's kernel does.

    Args:
      input: a tensor of rank >= 2.
      num_lower: how many subdiagonals to keep (negative: all).
      num_upper: how many superdiagonals to keep (negative: all).
      name: an optional name for the result.

    Returns:
      A tensor of input's shape and dtype.

    >>> print(rt.linalg.band_part(rt.reshape(rt.range(1, 10), [3, 3]), 0, -1))
    rt.Tensor(
    [[1 2 3]
     [0 5 6]
     [0 0 9]], shape=(3, 3), dtype=int32)
    """
    x = convert_to_tensor(input)
    if x.shape.rank is not None and x.shape.rank < 2:
        raise InvalidArgumentError(f"band_part needs a tensor of rank >= 2, got shape {x.shape}")
    shape = array_ops.shape(x)
    rows = array_ops.expand_dims(range_(shape[-2]), 1)
    cols = array_ops.expand_dims(range_(shape[-1]), 0)
    lower = cast(convert_to_tensor(num_lower), dtypes.int32)
    upper = cast(convert_to_tensor(num_upper), dtypes.int32)
    _check_band(lower, shape[-2], x.shape[-2] if x.shape.rank else None, "num_lower", "rows")
    _check_band(upper, shape[-1], x.shape[-1] if x.shape.rank else None, "num_upper", "columns")
    zero = convert_to_tensor(0, dtype=dtypes.int32)
    in_band = logical_and(logical_or(less(lower, zero), less_equal(rows - cols, lower)),
                          logical_or(less(upper, zero), less_equal(cols - rows, upper)))
    kept = broadcast_to(in_band, shape)
    return where(kept, x, zeros_like(x), name=name)


def _check_band(bound, size, known_size, what, of):
    """TensorFlow's kernel refuses a bound past the matrix (`num_lower > rows`): checked
    while tracing where both are known, else when the graph runs."""
    known = get_static_value(bound)
    if known is not None and int(known) <= 0:     # within every matrix, even an empty one
        return
    if known is not None and known_size is not None:
        if int(known) > known_size:
            raise InvalidArgumentError(f"band_part: {what} must be negative or at most the "
                                       f"number of {of} ({known_size}), got {int(known)}")
        return
    assert_that(less_equal(bound, size), f"band_part: {what} must be negative or at most "
                f"the number of {of}")


def in_top_k(targets, predictions, k, name: Optional[str] = None):
    """Whether `predictions[i, targets[i]]` is among the `k` largest of `predictions[i]`,
    as tf.math.in_top_k (tf.nn.in_top_k): it is when fewer than `k` predictions of row i
    are larger, so ties at the boundary are all in. A target out of range, or a row
    holding an inf or a NaN anywhere, gives False (TensorFlow's kernel cannot say).

    Args:
      targets: an int32 or int64 vector of class indices, one per row.
      predictions: a float32 (or float64) matrix `[batch, classes]`.
      k: how many of the largest count (an int or an integer scalar tensor).
      name: an optional name for the result.

    Returns:
      A bool vector of length batch.

    >>> print(rt.math.in_top_k(rt.constant([1, 0]), rt.constant([[0.1, 0.9, 0.5], [0.2, 0.2, 0.6]]), 2))
    rt.Tensor([ True  True], shape=(2,), dtype=bool)
    """
    p = convert_to_tensor(predictions)
    t = convert_to_tensor(targets)
    if not t.dtype.is_integer:
        raise TypeError(f"in_top_k's targets must be integers, got {t.dtype.name}")
    check_kind("InTopK", p.dtype, FLOAT)
    if p.shape.rank is not None and p.shape.rank != 2:
        raise InvalidArgumentError(f"in_top_k's predictions must be a matrix, got {p.shape}")
    if t.shape.rank is not None and t.shape.rank != 1:
        raise InvalidArgumentError(f"in_top_k's targets must be a vector, got {t.shape}")
    t = cast(t, dtypes.int32)
    classes = array_ops.shape(p)[1]
    zero = convert_to_tensor(0, dtype=dtypes.int32)
    in_range = logical_and(greater_equal(t, zero), less(t, classes))
    picked = _row_picks(p, where(in_range, t, zeros_like(t)))
    # TensorFlow's kernel cannot say for a row holding any inf or NaN: False
    finite = reduce_all(less(abs_(p), convert_to_tensor(np.inf, dtype=p.dtype)), axis=1)
    larger = reduce_sum(cast(greater(p, array_ops.expand_dims(picked, 1)), dtypes.int32),
                        axis=1)
    kk = cast(convert_to_tensor(k), dtypes.int32)
    return logical_and(logical_and(in_range, finite), less(larger, kk), name=name)


def _row_picks(p, columns):
    """`p[i, columns[i]]` for each row i, as a one-hot mask summed (no index can be out of
    range: the columns are already clamped)."""
    width = array_ops.shape(p)[1]
    hit = equal(array_ops.expand_dims(columns, 1), array_ops.expand_dims(range_(width), 0))
    return reduce_sum(where(hit, p, zeros_like(p)), axis=1)
