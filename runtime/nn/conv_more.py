"""`rt.nn`'s embedding_lookup, conv1d, conv2d_transpose and depthwise_conv2d, as
TensorFlow's — compositions of existing ops (their shapes, gradients, XLA lowering, ONNX
export and saving are those ops'):

- embedding_lookup is a gather along axis 0 (and, with max_norm, clip_by_norm's formula on
  each looked-up row);
- conv1d is conv2d over a height of 1;
- conv2d_transpose is conv2d's gradient with respect to its input (TensorFlow's
  Conv2DBackpropInput op);
- depthwise_conv2d is conv2d with a block-diagonal filter (input channel c feeds only the
  output channels c * multiplier ... c * multiplier + multiplier - 1).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops import math_ops, nn_ops, reduce_ops
from ..ops.array_ops import expand_dims, gather, reshape, squeeze, transpose
from ..ops.core import apply_op, constant_value, convert_to_tensor, identity, stack
from ..ops.makers import eye
from .conv import conv2d


def _tensor_like(value, x):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=x.dtype)


# -- embedding_lookup ---------------------------------------------------------------------------

def embedding_lookup(params, ids, max_norm=None, name: Optional[str] = None):
    """The rows of `params` that `ids` names: `result[i..., :] = params[ids[i...], :]`.

    With `max_norm`, each looked-up row `e` whose L2 norm exceeds it is scaled to norm
    `max_norm` (TensorFlow's clip_by_norm: `e * max_norm / max(||e||, max_norm)`). A list
    of tensors is sharded as TensorFlow's "mod" strategy: id `i` is row `i // n` of shard
    `i % n` (all shards of one size here).

    Args:
      params: a tensor [vocabulary, ...], or a list of such shards.
      ids: an int32 or int64 tensor of any shape, each in [0, vocabulary).
      max_norm: None, or a positive number.
      name: an optional name for the result.

    Returns:
      A tensor of shape ids.shape + params.shape[1:], of params' dtype.

    Raises:
      InvalidArgumentError: an id out of range (when the lookup runs).

    >>> table = rt.constant([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]])
    >>> print(rt.nn.embedding_lookup(table, rt.constant([1, 2, 1])))
    rt.Tensor(
    [[3. 4.]
     [1. 1.]
     [3. 4.]], shape=(3, 2), dtype=float32)
    >>> print(rt.nn.embedding_lookup(table, rt.constant([1]), max_norm=1.0))
    rt.Tensor([[0.6 0.8]], shape=(1, 2), dtype=float32)
    """
    if isinstance(params, (list, tuple)):
        shards = [convert_to_tensor(p) for p in params]
        if not shards:
            raise ValueError("embedding_lookup: params is an empty list")
        if len(shards) == 1:
            table = shards[0]
        else:
            sizes = {p.shape[0] for p in shards}
            if len(sizes) != 1 or None in sizes:
                raise NotImplementedError(
                    "embedding_lookup: sharded params must be shards of one known size here")
            # the "mod" strategy: row r of shard s is id r * n + s
            stacked = stack(shards, axis=1)
            table = reshape(stacked, [-1, *[d if d is not None else -1
                                            for d in shards[0].shape.as_list()[1:]]])
    else:
        table = convert_to_tensor(params)
    ids_t = convert_to_tensor(ids)
    if not ids_t.dtype.is_integer:
        raise TypeError(f"embedding_lookup: ids must be integers, got {ids_t.dtype.name}")
    rows = gather(table, ids_t, axis=0)
    if max_norm is not None:
        rows = _clip_rows(rows, ids_t, max_norm)
    return identity(rows, name=name) if name else rows


def _clip_rows(rows, ids, max_norm):
    rank = rows.shape.rank
    ids_rank = ids.shape.rank
    if rank is None or ids_rank is None:
        raise ValueError("embedding_lookup with max_norm needs params and ids of known rank")
    axes = list(range(ids_rank, rank))
    if not axes:
        return rows
    clip = _tensor_like(max_norm, rows)
    l2sum = reduce_ops.reduce_sum(math_ops.multiply(rows, rows), axes, keepdims=True)
    positive = math_ops.greater(l2sum, math_ops.zeros_like(l2sum))
    safe = math_ops.where(positive, l2sum, math_ops.ones_like(l2sum))
    l2norm = math_ops.where(positive, math_ops.sqrt(safe), l2sum)
    return math_ops.divide(math_ops.multiply(rows, clip), math_ops.maximum(l2norm, clip))


# -- conv1d ---------------------------------------------------------------------------------

def _one(value, what, channel_index):
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = [int(v) for v in value]
    if len(value) == 1:
        return value[0]
    if len(value) == 3:
        if value[0] != 1 or value[channel_index] != 1:
            raise InvalidArgumentError(f"conv1d: {what} in the batch and depth dimensions must "
                                       f"be 1, got {value}")
        return value[1 if channel_index == 2 else 2]
    raise ValueError(f"conv1d: {what} should be of length 1 or 3 but was {len(value)}")


def conv1d(input, filters, stride, padding, data_format: str = "NWC",  # noqa: A002
           dilations=None, name: Optional[str] = None):
    """1-D convolution (cross-correlation): conv2d over a height of 1.

    `out[b, i, o] = sum_{k, c} x[b, i * stride + k * dilation - pad, c] * filters[k, c, o]`
    with padding "SAME" (output size ceil(width / stride)) or "VALID".

    Args:
      input: a tensor [batch, width, in_channels] ("NWC"), or [batch, in_channels, width]
        with data_format "NCW".
      filters: a tensor [filter_width, in_channels, out_channels].
      stride: an int or a list of 1 or 3 ints.
      padding: "SAME", "VALID", or explicit [[0, 0], [left, right], [0, 0]] pairs.
      data_format: "NWC" (default) or "NCW".
      dilations: an int or a list of 1 or 3 ints (default 1).
      name: an optional name for the result.

    Returns:
      A tensor [batch, out_width, out_channels] (NWC) of input's dtype.

    >>> y = rt.nn.conv1d(rt.ones([1, 4, 1]), rt.ones([2, 1, 1]), 1, "VALID")
    >>> print(y[0, :, 0])
    rt.Tensor([2. 2. 2.], shape=(3,), dtype=float32)
    """
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"conv1d: data_format must be 'NWC' or 'NCW', got {data_format!r}")
    ci = 2 if data_format == "NWC" else 1
    x = convert_to_tensor(input)
    w = _tensor_like(filters, x)
    if x.shape.rank not in (None, 3):
        raise ValueError(f"conv1d: input must have rank 3, got shape {x.shape}")
    if w.shape.rank not in (None, 3):
        raise ValueError(f"conv1d: filters must have rank 3, got shape {w.shape}")
    if ci == 1:
        x = transpose(x, [0, 2, 1])
    s = _one(stride, "stride", ci)
    d = _one(1 if dilations is None else dilations, "dilations", ci)
    if not isinstance(padding, str):
        pairs = [tuple(int(v) for v in p) for p in padding]
        if len(pairs) != 3:
            raise ValueError(f"conv1d: explicit padding must be 3 pairs, got {padding!r}")
        spatial = pairs[1] if ci == 2 else pairs[2]
        padding = [[0, 0], [0, 0], list(spatial), [0, 0]]
    y = conv2d(expand_dims(x, 1), expand_dims(w, 0), [1, s], padding, dilations=[1, d])
    y = squeeze(y, [1])
    if ci == 1:
        y = transpose(y, [0, 2, 1])
    return identity(y, name=name) if name else y


# -- conv2d_transpose ---------------------------------------------------------------------------

def _shape_arg(output_shape):
    if isinstance(output_shape, Tensor):
        return math_ops.cast(output_shape, "int32") if output_shape.dtype.name != "int32" \
            else output_shape
    values = list(output_shape)
    if any(isinstance(v, Tensor) for v in values):
        return stack([math_ops.cast(convert_to_tensor(v), "int32") for v in values])
    return convert_to_tensor(np.asarray([int(v) for v in values], np.int32))


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format: str = "NHWC", dilations=None, name: Optional[str] = None):
    """The transpose of conv2d (its gradient with respect to its input, TensorFlow's
    Conv2DBackpropInput): for `y = conv2d(x, filters, strides, padding)` with x of shape
    `output_shape`, `conv2d_transpose(g, filters, output_shape, ...)` is `d<y, g>/dx`.

    Args:
      input: a tensor [batch, height, width, in_channels] (NHWC), in_channels being the
        filters' last dimension.
      filters: a tensor [height, width, out_channels, in_channels].
      output_shape: the result's shape [batch, out_height, out_width, out_channels] (a list
        or a 1-D int tensor); conv2d of that shape with these arguments must give input's
        spatial size.
      strides: an int or a list of 1, 2 or 4 ints.
      padding: "SAME", "VALID" or explicit pairs.
      data_format: "NHWC" (default) or "NCHW" (then output_shape is NCHW too).
      dilations: an int or a list of 1, 2 or 4 ints.
      name: an optional name for the op.

    Returns:
      A tensor of shape output_shape and input's dtype.

    >>> y = rt.nn.conv2d_transpose(rt.ones([1, 2, 2, 1]), rt.ones([2, 2, 1, 1]),
    ...                            [1, 3, 3, 1], 1, "VALID")
    >>> print(y[0, :, :, 0])
    rt.Tensor(
    [[1. 2. 1.]
     [2. 4. 2.]
     [1. 2. 1.]], shape=(3, 3), dtype=float32)
    """
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"conv2d_transpose: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    ci = 3 if data_format == "NHWC" else 1
    g = convert_to_tensor(input)
    w = _tensor_like(filters, g)
    sizes = _shape_arg(output_shape)
    if ci == 1:
        g = transpose(g, [0, 2, 3, 1])
        sizes = gather(sizes, convert_to_tensor(np.asarray([0, 2, 3, 1], np.int32)))
    attrs = _conv_attrs("conv2d_transpose", strides, padding, dilations, ci)
    for t, what in ((g, "input"), (w, "filters")):
        if t.shape.rank not in (None, 4):
            raise ValueError(f"conv2d_transpose: {what} must have rank 4, got shape {t.shape}")
    gs, ws = g.shape, w.shape
    if gs.rank == 4 and ws.rank == 4 and None not in (gs[3], ws[3]) and gs[3] != ws[3]:
        raise ValueError(f"conv2d_transpose: input depth {gs[3]} must equal the filters' last "
                         f"dimension {ws[3]} (filters are [h, w, out_channels, in_channels])")
    _check_sizes(sizes, g, w, attrs)
    y = apply_op(nn_ops.CONV2D_BACKPROP_INPUT, [sizes, w, g], attrs,
                 name=name or "conv2d_transpose")
    return transpose(y, [0, 3, 1, 2]) if ci == 1 else y


def _conv_pair(value, what, ci, opname):
    if isinstance(value, (int, np.integer)):
        value = [int(value)]
    value = [int(v) for v in value]
    if len(value) == 1:
        value = value * 2
    elif len(value) == 4:
        if value[0] != 1 or value[ci] != 1:
            raise InvalidArgumentError(f"{opname}: {what} in the batch and depth dimensions "
                                       f"must be 1, got {value}")
        value = [value[1], value[2]] if ci == 3 else [value[2], value[3]]
    elif len(value) != 2:
        raise ValueError(f"{opname}: {what} should be of length 1, 2 or 4 but was {len(value)}")
    if min(value) < 1:
        raise InvalidArgumentError(f"{opname}: {what} must be >= 1, got {value}")
    return tuple(value)


def _conv_attrs(opname, strides, padding, dilations, ci):
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"{opname}: padding must be 'SAME' or 'VALID', got {padding!r}")
        pad = padding.upper()
    else:
        pairs = [tuple(int(v) for v in p) for p in padding]
        spatial = [1, 2] if ci == 3 else [2, 3]
        if len(pairs) != 4 or any(len(p) != 2 for p in pairs) or any(
                pairs[i] != (0, 0) for i in range(4) if i not in spatial) or any(
                v < 0 for p in pairs for v in p):
            raise ValueError(f"{opname}: explicit padding must be 4 non-negative [before, "
                             f"after] pairs, zero in the batch and depth dimensions, got "
                             f"{padding!r}")
        pad = tuple(pairs[i] for i in spatial)
    return {"strides": _conv_pair(strides, "strides", ci, opname), "padding": pad,
            "dilations": _conv_pair(1 if dilations is None else dilations, "dilations", ci,
                                    opname)}


def _check_sizes(sizes, g, w, attrs):
    """conv2d of output_shape must give input's spatial size (when both are known)."""
    known = constant_value(sizes)
    if known is None or g.shape.rank != 4 or w.shape.rank != 4:
        return
    known = [int(v) for v in np.asarray(known).reshape(-1)]
    if len(known) != 4:
        raise ValueError(f"conv2d_transpose: output_shape must have 4 values, got {known}")
    khw = w.shape.as_list()[:2]
    if None in khw:
        return
    geo = nn_ops.geometry("conv2d_transpose", known[1:3], khw, attrs["strides"],
                          attrs["dilations"], attrs["padding"])
    for i, (out, _) in enumerate(geo):
        have = g.shape[1 + i]
        if have is not None and have != out:
            raise ValueError(f"conv2d_transpose: output_shape {known} does not fit: conv2d of it "
                             f"would have spatial size {[o for o, _ in geo]}, the input has "
                             f"{g.shape.as_list()[1:3]}")
    if w.shape[2] is not None and known[3] != w.shape[2]:
        raise ValueError(f"conv2d_transpose: output_shape's depth {known[3]} must equal the "
                         f"filters' third dimension {w.shape[2]}")


# -- depthwise_conv2d ---------------------------------------------------------------------------

def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name: Optional[str] = None):
    """Depthwise 2-D convolution: each input channel is convolved with its own
    `channel_multiplier` filters,
    `out[b, i, j, c * M + m] = sum_{di, dj} x[b, s*i + d*di - pt, s*j + d*dj - pl, c] *
    filter[di, dj, c, m]`.

    Composed as conv2d with the block-diagonal filter [h, w, C, C * M] that feeds input
    channel c only to its own M output channels.

    Args:
      input: a tensor [batch, height, width, in_channels] (NHWC; "NCHW" with data_format).
      filter: a tensor [height, width, in_channels, channel_multiplier].
      strides: a list of 4 ints [1, s_h, s_w, 1] (or 1 or 2 ints).
      padding: "SAME", "VALID" or explicit pairs.
      data_format: None or "NHWC" (default), or "NCHW".
      dilations: a list of 2 ints (the rate), default 1.
      name: an optional name for the result.

    Returns:
      A tensor [batch, out_height, out_width, in_channels * channel_multiplier].

    >>> x = rt.reshape(rt.range(8.0), [1, 2, 2, 2])
    >>> y = rt.nn.depthwise_conv2d(x, rt.ones([2, 2, 2, 1]), [1, 1, 1, 1], "VALID")
    >>> print(y)
    rt.Tensor([[[[12. 16.]]]], shape=(1, 1, 1, 2), dtype=float32)
    """
    data_format = data_format or "NHWC"
    x = convert_to_tensor(input)
    w = _tensor_like(filter, x)
    if w.shape.rank not in (None, 4):
        raise ValueError(f"depthwise_conv2d: filter must have rank 4, got shape {w.shape}")
    if w.shape.rank is None or w.shape[2] is None:
        raise ValueError("depthwise_conv2d: the filter's in_channels must be known")
    kh, kw, c, m = w.shape.as_list()
    mask = eye(c, dtype=x.dtype)                                  # [C, C]
    block = math_ops.multiply(expand_dims(w, 3), reshape(mask, [1, 1, c, c, 1]))
    full = reshape(block, [-1 if kh is None else kh, -1 if kw is None else kw, c,
                           c * m if m is not None else -1])
    y = conv2d(x, full, strides, padding, data_format=data_format, dilations=dilations)
    return identity(y, name=name) if name else y


__all__ = ["embedding_lookup", "conv1d", "conv2d_transpose", "depthwise_conv2d"]
