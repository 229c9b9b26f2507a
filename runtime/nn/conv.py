"""`rt.nn`'s convolution and pooling (NHWC, as TensorFlow's): `conv2d`, `max_pool2d`,
`avg_pool2d` — argument checks and layout here, the ops in `runtime/ops/nn_ops.py` — and
`bias_add`, a bias along the channel axis."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops import nn_ops
from ..ops.array_ops import reshape, transpose
from ..ops.core import apply_op, convert_to_tensor


# -- convolution and pooling ------------------------------------------------------------------

def _pair(value, what, channel_index, opname):
    """TensorFlow's int / [n] / [h, w] / [1, h, w, 1] forms as an (h, w) pair."""
    if isinstance(value, (int, np.integer)):
        value = [int(value)]
    value = [int(v) for v in value]
    if len(value) == 1:
        return value[0], value[0]
    if len(value) == 2:
        return value[0], value[1]
    if len(value) == 4:
        if value[0] != 1 or value[channel_index] != 1:
            raise InvalidArgumentError(
                f"{opname}: {what} in the batch and depth dimensions must be 1 (this "
                f"implementation does not support them), got {value}")
        spatial = [1, 2] if channel_index == 3 else [2, 3]
        return value[spatial[0]], value[spatial[1]]
    raise ValueError(f"{what} should be of length 1, 2 or 4 but was {len(value)}")


def _padding(padding, channel_index, opname, explicit_ok=True):
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"{opname}: padding must be 'SAME' or 'VALID', got {padding!r}")
        return padding.upper()
    if not explicit_ok:
        raise ValueError(f"{opname}: padding must be 'SAME' or 'VALID', got {padding!r}")
    pairs = [tuple(int(v) for v in p) for p in padding]
    if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"{opname}: explicit padding must be 4 [before, after] pairs, got "
                         f"{padding!r}")
    spatial = [1, 2] if channel_index == 3 else [2, 3]
    if any(pairs[i] != (0, 0) for i in range(4) if i not in spatial):
        raise ValueError(f"{opname}: explicit padding of the batch and depth dimensions "
                         f"must be 0, got {padding!r}")
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{opname}: explicit padding must be non-negative, got {padding!r}")
    return tuple(pairs[i] for i in spatial)


def _format(data_format, opname):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{opname}: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    return 3 if data_format == "NHWC" else 1


def _nhwc(x, channel_index, op):
    """Runs `op` on x in NHWC, transposing NCHW in and out."""
    if channel_index == 3:
        return op(x)
    return transpose(op(transpose(x, [0, 2, 3, 1])), [0, 3, 1, 2])


def conv2d(input, filters, strides, padding, data_format: str = "NHWC",  # noqa: A002
           dilations=None, name: Optional[str] = None):
    """2-D convolution (cross-correlation, as TensorFlow's).

    `padding` "SAME" gives output size ceil(in / stride) (extra padding after), "VALID" no
    padding, or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]. data_format "NCHW"
    is transposed to NHWC and back.

    Args:
      input: a tensor [batch, height, width, in_channels] (NHWC).
      filters: a tensor [height, width, in_channels, out_channels] of input's dtype.
      strides: an int or a list of 1, 2 or 4 ints.
      padding: "SAME", "VALID" or explicit pairs.
      data_format: "NHWC" (default) or "NCHW".
      dilations: an int or a list of 1, 2 or 4 ints (default 1).
      name: an optional name for the op.

    Returns:
      A tensor [batch, out_height, out_width, out_channels] of input's dtype.

    Raises:
      InvalidArgumentError: for strides or dilations < 1, or non-1 batch/depth strides.

    >>> y = rt.nn.conv2d(rt.ones([1, 3, 3, 1]), rt.ones([2, 2, 1, 1]), 1, "VALID")
    >>> y.shape
    TensorShape([1, 2, 2, 1])
    >>> print(y[0, :, :, 0])
    rt.Tensor(
    [[4. 4.]
     [4. 4.]], shape=(2, 2), dtype=float32)
    """
    ci = _format(data_format, "Conv2D")
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype) if not isinstance(filters, Tensor) else filters
    attrs = {"strides": _pair(strides, "strides", ci, "Conv2D"),
             "padding": _padding(padding, ci, "Conv2D"),
             "dilations": _pair(1 if dilations is None else dilations, "dilations", ci,
                                "Conv2D")}
    if min(attrs["strides"]) < 1 or min(attrs["dilations"]) < 1:
        raise InvalidArgumentError(f"Conv2D: strides and dilations must be >= 1, got "
                                   f"{attrs['strides']} and {attrs['dilations']}")
    return _nhwc(x, ci, lambda t: nn_ops.conv2d_op(t, w, attrs, name=name))


def _pool(opdef, opname, input, ksize, strides, padding, data_format, name):  # noqa: A002
    ci = _format(data_format, opname)
    attrs = {"ksize": _pair(ksize, "ksize", ci, opname),
             "strides": _pair(strides, "strides", ci, opname),
             "padding": _padding(padding, ci, opname, explicit_ok=False)}
    if min(attrs["ksize"]) < 1 or min(attrs["strides"]) < 1:
        raise InvalidArgumentError(f"{opname}: ksize and strides must be >= 1, got "
                                   f"{attrs['ksize']} and {attrs['strides']}")
    return _nhwc(convert_to_tensor(input), ci, lambda t: apply_op(opdef, [t], attrs, name=name))


def max_pool2d(input, ksize, strides, padding, data_format: str = "NHWC",  # noqa: A002
               name: Optional[str] = None):
    """The maximum of each ksize window of `input`, moved by `strides`.

    Padding ("SAME") never wins the maximum.

    Args:
      input: a tensor [batch, height, width, channels] (NHWC).
      ksize: the window size: an int or a list of 1, 2 or 4 ints.
      strides: an int or a list of 1, 2 or 4 ints.
      padding: "SAME" or "VALID".
      data_format: "NHWC" (default) or "NCHW".
      name: an optional name for the op.

    Returns:
      A tensor [batch, out_height, out_width, channels] of input's dtype.

    >>> x = rt.reshape(rt.range(16.0), [1, 4, 4, 1])
    >>> print(rt.nn.max_pool2d(x, 2, 2, "VALID")[0, :, :, 0])
    rt.Tensor(
    [[ 5.  7.]
     [13. 15.]], shape=(2, 2), dtype=float32)
    """
    return _pool(nn_ops.MAX_POOL, "MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format: str = "NHWC",  # noqa: A002
               name: Optional[str] = None):
    """The mean of each ksize window of `input`, moved by `strides`.

    With "SAME" padding a window's mean is over its input values only (padding is not
    counted), as in TensorFlow.

    Args:
      input: a tensor [batch, height, width, channels] (NHWC).
      ksize: the window size: an int or a list of 1, 2 or 4 ints.
      strides: an int or a list of 1, 2 or 4 ints.
      padding: "SAME" or "VALID".
      data_format: "NHWC" (default) or "NCHW".
      name: an optional name for the op.

    Returns:
      A tensor [batch, out_height, out_width, channels] of input's dtype.

    >>> x = rt.reshape(rt.range(16.0), [1, 4, 4, 1])
    >>> print(rt.nn.avg_pool2d(x, 2, 2, "VALID")[0, :, :, 0])
    rt.Tensor(
    [[ 2.5  4.5]
     [10.5 12.5]], shape=(2, 2), dtype=float32)
    >>> print(rt.nn.avg_pool2d(rt.ones([1, 3, 3, 1]), 2, 2, "SAME")[0, :, :, 0])
    rt.Tensor(
    [[1. 1.]
     [1. 1.]], shape=(2, 2), dtype=float32)
    """
    return _pool(nn_ops.AVG_POOL, "AvgPool", input, ksize, strides, padding, data_format, name)


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
