"""TensorFlow's segment reductions (tf.math.segment_sum / segment_mean / segment_max and
their unsorted_ forms), composed from existing ops, so that their gradients, XLA
lowering, ONNX export and saving are those ops'.

Sums are one scatter_nd into `num_segments + 1` rows, the last of which collects the
rows whose segment id is negative (TensorFlow drops them) and is then cut off; an id of
`num_segments` or more is moved past that row, so the scatter raises for it. Maxima
compare every row with every segment (a `[rows, num_segments]` mask), so they cost
`rows * num_segments` elements: fine for the sizes segment_max is used at. The sorted
forms count `max(id) + 1` segments and check, when the graph runs, that the ids are
non-negative and sorted, as TensorFlow's CPU kernels do.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from . import array_ops
from .core import constant, convert_to_tensor, identity, ones_like, zeros_like
from .io_ops import assert_that
from .makers import range as range_
from .math_ops import (cast, divide, equal, greater_equal, less, maximum, where)
from .reduce_ops import reduce_all, reduce_any, reduce_max
from .shaping_ops import broadcast_to
from .scatter_ops import scatter_nd


def _ids_and_data(data, segment_ids, what):
    x = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids)
    if not ids.dtype.is_integer:
        raise TypeError(f"{what}'s segment_ids must be integers, got {ids.dtype.name}")
    if ids.shape.rank is None or x.shape.rank is None:
        raise ValueError(f"{what} needs data and segment_ids of known rank")
    if not x.shape[:ids.shape.rank].is_compatible_with(ids.shape):
        raise InvalidArgumentError(f"{what}: segment_ids' shape {ids.shape} is not a prefix "
                                   f"of data's shape {x.shape}")
    return x, cast(ids, dtypes.int32)


def _count(num_segments):
    n = cast(convert_to_tensor(num_segments), dtypes.int32)
    if n.shape.rank not in (None, 0):
        raise InvalidArgumentError(f"num_segments must be a scalar, got shape {n.shape}")
    return array_ops.reshape(n, [])


def _rows_shape(x, ids, rows):
    """`[rows] + data.shape[ids.rank:]`, as a vector tensor."""
    rest = array_ops.shape(x)[ids.shape.rank:]
    return array_ops.concat([array_ops.reshape(rows, [1]), rest], 0)


def _segment_sum(x, ids, n):
    negative = less(ids, constant(np.int32(0)))
    # an id >= n goes past the row of the dropped ones, so the scatter raises for it
    target = where(negative, n + ones_like(ids) * 0, where(greater_equal(ids, n), ids + 1, ids))
    summed = scatter_nd(array_ops.expand_dims(target, -1), x, _rows_shape(x, ids, n + 1))
    return array_ops.gather(summed, range_(n))


def unsorted_segment_sum(data, segment_ids, num_segments, name: Optional[str] = None):
    """`out[j] = sum of data[i...] over the i with segment_ids[i] == j`, as
    tf.math.unsorted_segment_sum: ids in any order, segments with no rows 0, rows with a
    negative id dropped; an id >= num_segments raises InvalidArgumentError.

    Args:
      data: a numeric tensor.
      segment_ids: an integer tensor whose shape is a prefix of data's.
      num_segments: how many segments (an integer scalar).
      name: an optional name for the result.

    Returns:
      A tensor of data's dtype and shape `[num_segments] + data.shape[segment_ids.rank:]`.

    >>> c = rt.constant([[1, 2, 3, 4], [5, 6, 7, 8], [4, 3, 2, 1]])
    >>> print(rt.math.unsorted_segment_sum(c, rt.constant([0, 1, 0]), num_segments=2))
    rt.Tensor(
    [[5 5 5 5]
     [5 6 7 8]], shape=(2, 4), dtype=int32)
    """
    x, ids = _ids_and_data(data, segment_ids, "unsorted_segment_sum")
    out = _segment_sum(x, ids, _count(num_segments))
    return identity(out, name=name) if name else out


def _mean(x, ids, n, what):
    if not x.dtype.is_floating:
        raise TypeError(f"{what} takes floating-point data, got {x.dtype.name}")
    total = _segment_sum(x, ids, n)
    counts = _segment_sum(cast(ones_like(ids), x.dtype), ids, n)
    counts = maximum(counts, constant(1, x.dtype) + counts * 0)
    extra = (total.shape.rank or 1) - 1
    for _ in range(extra):
        counts = array_ops.expand_dims(counts, -1)
    return divide(total, counts)


def unsorted_segment_mean(data, segment_ids, num_segments, name: Optional[str] = None):
    """The mean of each segment's rows (0 for a segment with none), as
    tf.math.unsorted_segment_mean; ids as in unsorted_segment_sum. Floating-point data.

    >>> print(rt.math.unsorted_segment_mean(rt.constant([1.0, 2.0, 6.0]), rt.constant([0, 0, 2]), 3))
    rt.Tensor([1.5 0.  6. ], shape=(3,), dtype=float32)
    """
    x, ids = _ids_and_data(data, segment_ids, "unsorted_segment_mean")
    out = _mean(x, ids, _count(num_segments), "unsorted_segment_mean")
    return identity(out, name=name) if name else out


def _max(x, ids, n, empty):
    """The largest row of each segment; `empty` for a segment with none."""
    flat_ids = array_ops.reshape(ids, [-1])
    rest = array_ops.shape(x)[ids.shape.rank:]
    rows = array_ops.reshape(x, array_ops.concat([constant(np.int32([-1])), rest], 0))
    hit = equal(array_ops.expand_dims(flat_ids, 1), array_ops.expand_dims(range_(n), 0))
    found = reduce_any(hit, axis=0)                              # [n]: a segment has rows
    for _ in range(x.shape.rank - ids.shape.rank):
        hit = array_ops.expand_dims(hit, -1)
        found = array_ops.expand_dims(found, -1)
    lowest = constant(np.asarray(-np.inf if x.dtype.is_floating else x.dtype.min,
                                 x.dtype.np_dtype))
    spread = array_ops.expand_dims(rows, 1)                      # [rows, 1, ...]
    candidates = where(hit, spread, lowest + zeros_like(spread))  # [rows, n, ...]
    # a row of `lowest` first, so that no rows at all give a value, not an empty max
    first = broadcast_to(lowest, array_ops.concat([constant(np.int32([1])),
                                                   array_ops.reshape(n, [1]), rest], 0))
    largest = reduce_max(array_ops.concat([first, candidates], 0), axis=0)
    fill = constant(np.asarray(empty, x.dtype.np_dtype))
    return where(broadcast_to(found, array_ops.shape(largest)), largest,
                 fill + zeros_like(largest))


def unsorted_segment_max(data, segment_ids, num_segments, name: Optional[str] = None):
    """The largest of each segment's rows, as tf.math.unsorted_segment_max: the lowest
    value of the dtype (-inf for floats) for a segment with none; NaN propagates.

    >>> print(rt.math.unsorted_segment_max(rt.constant([1.0, 5.0, 2.0]), rt.constant([0, 0, 1]), 3))
    rt.Tensor([  5.   2. -inf], shape=(3,), dtype=float32)
    """
    x, ids = _ids_and_data(data, segment_ids, "unsorted_segment_max")
    lowest = -np.inf if x.dtype.is_floating else x.dtype.min
    out = _max(x, ids, _count(num_segments), lowest)
    return identity(out, name=name) if name else out


def _sorted_count(ids, what):
    """`max(ids) + 1` (0 for no ids), checked when the graph runs: ids non-negative and
    sorted, as TensorFlow's CPU kernels require."""
    flat = array_ops.reshape(ids, [-1])
    with_start = array_ops.concat([constant(np.int32([0])), flat], 0)
    increasing = reduce_all(greater_equal(with_start[1:], with_start[:-1]))
    assert_that(increasing, f"{what}: segment ids must be non-negative and sorted")
    return reduce_max(array_ops.concat([constant(np.int32([-1])), flat], 0)) + 1


def segment_sum(data, segment_ids, name: Optional[str] = None):
    """`out[j] = sum of data[i...] with segment_ids[i] == j` for sorted, non-negative ids
    (others raise InvalidArgumentError), as tf.math.segment_sum: `max(id) + 1` segments,
    those with no rows 0.

    >>> c = rt.constant([[1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 7, 8]])
    >>> print(rt.math.segment_sum(c, rt.constant([0, 0, 1])))
    rt.Tensor(
    [[5 5 5 5]
     [5 6 7 8]], shape=(2, 4), dtype=int32)
    """
    x, ids = _ids_and_data(data, segment_ids, "segment_sum")
    out = _segment_sum(x, ids, _sorted_count(ids, "segment_sum"))
    return identity(out, name=name) if name else out


def segment_mean(data, segment_ids, name: Optional[str] = None):
    """The mean of each segment's rows for sorted, non-negative ids, as
    tf.math.segment_mean (0 for a segment with none). Floating-point data.

    >>> print(rt.math.segment_mean(rt.constant([1.0, 2.0, 6.0]), rt.constant([0, 0, 2])))
    rt.Tensor([1.5 0.  6. ], shape=(3,), dtype=float32)
    """
    x, ids = _ids_and_data(data, segment_ids, "segment_mean")
    out = _mean(x, ids, _sorted_count(ids, "segment_mean"), "segment_mean")
    return identity(out, name=name) if name else out


def segment_max(data, segment_ids, name: Optional[str] = None):
    """The largest of each segment's rows for sorted, non-negative ids, as
    tf.math.segment_max: 0 for a segment with no rows (TensorFlow's sorted kernel; the
    unsorted one gives the lowest value).

    >>> print(rt.math.segment_max(rt.constant([1.0, 5.0, 2.0]), rt.constant([0, 0, 2])))
    rt.Tensor([5. 0. 2.], shape=(3,), dtype=float32)
    """
    x, ids = _ids_and_data(data, segment_ids, "segment_max")
    out = _max(x, ids, _sorted_count(ids, "segment_max"), 0)
    return identity(out, name=name) if name else out
