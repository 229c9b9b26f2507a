"""The ONNX rules of the ops of `runtime/ops/nn_ops.py`, their limits, and the reasons for
those with none.

ONNX convolutions and pools are NCHW (filters OIHW): the rules transpose around them.
The pads are TensorFlow's, written out when the spatial sizes are known while exporting,
else as auto_pad SAME_UPPER (the same: ceil(in / stride) outputs, the odd pad after).
TensorFlow's SAME average pooling leaves the padding out of each count:
count_include_pad=0.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...ops import nn_ops
from ...ops.nn_ops import out_and_pads
from .rules_edges import fail_where

TO_NCHW, TO_NHWC, HWIO_TO_OIHW = [0, 3, 1, 2], [0, 2, 3, 1], [3, 2, 0, 1]


def _pads_attrs(op, khw, dilations):
    """{'pads': [...]} when the input's spatial sizes are known, else auto_pad."""
    padding = op.attrs["padding"]
    hw = op.inputs[0].shape.as_list()[1:3] if op.inputs[0].shape.rank == 4 else [None, None]
    if padding == "VALID":
        return {"pads": [0, 0, 0, 0]}
    if padding != "SAME":
        (pt, pb), (pl, pr) = padding
        return {"pads": [pt, pl, pb, pr]}
    if None not in hw:
        geo = nn_ops.geometry("ONNX export", hw, khw, op.attrs["strides"], dilations, padding)
        (pt, pb), (pl, pr) = [p for _, p in geo]
        return {"pads": [pt, pl, pb, pr]}
    return {"auto_pad": "SAME_UPPER"}


def _valid_windows_only(ex, op, x, y, ksize):
    """The pool `y` (NCHW) of `x` (NCHW) with VALID or explicit padding, where a window
    larger than the padded input gives no output as ours (TensorFlow's output size
    (span + stride) / stride), not onnxruntime's one: sliced to nothing along that
    dimension; and failing where ours raises (the window larger by two strides or more)."""
    padding = op.attrs["padding"]
    if padding == "SAME":
        return y
    (pt, pb), (pl, pr) = ((0, 0), (0, 0)) if padding == "VALID" else padding
    strides = list(op.attrs["strides"])
    hw = op.inputs[0].shape.as_list()[1:3] if op.inputs[0].shape.rank == 4 else [None, None]
    if None not in hw:      # (shape inference already refused a negative size)
        outs = [out_and_pads(n, k, s, 1, pads, "ONNX export")[0]
                for n, k, s, pads in zip(hw, ksize, strides, ((pt, pb), (pl, pr)))]
        if 0 not in outs:
            return y
        return ex.one("Slice", [y, ex.ints([0, 0]), ex.ints(outs), ex.ints([2, 3])])
    padded = ex.one("Add", [ex.one("Slice", [ex.one("Shape", [x]), ex.ints([2]), ex.ints([4])]),
                            ex.ints([pt + pb, pl + pr])])
    negative = ex.one("Less", [padded, ex.ints([k - 2 * s + 1 for k, s in zip(ksize, strides)])])
    y = fail_where(ex, negative, y, f"{op.type}: computed output size would be negative")
    small = ex.one("Less", [padded, ex.ints(ksize)])
    ends = ex.one("Where", [small, ex.ints([0, 0]), ex.ints([np.iinfo(np.int64).max] * 2)])
    return ex.one("Slice", [y, ex.ints([0, 0]), ends, ex.ints([2, 3])])


def _nchw(ex, name):
    return ex.one("Transpose", [name], perm=TO_NCHW)


def _conv2d(ex, op, ins):
    khw = op.inputs[1].shape.as_list()[:2]
    w = ex.one("Transpose", [ins[1]], perm=HWIO_TO_OIHW)
    y = ex.one("Conv", [_nchw(ex, ins[0]), w], strides=list(op.attrs["strides"]),
               dilations=list(op.attrs["dilations"]),
               **_pads_attrs(op, khw, op.attrs["dilations"]))
    return [ex.one("Transpose", [y], perm=TO_NHWC)]


def _pool(onnx_type, **extra):
    def rule(ex, op, ins):
        ksize = list(op.attrs["ksize"])
        x = _nchw(ex, ins[0])
        y = ex.one(onnx_type, [x], kernel_shape=ksize,
                   strides=list(op.attrs["strides"]), **_pads_attrs(op, ksize, nn_ops.ONE),
                   **extra)
        y = _valid_windows_only(ex, op, x, y, ksize)
        return [ex.one("Transpose", [y], perm=TO_NHWC)]
    return rule


def _max_pool(ex, op, ins):
    """ONNX MaxPool, with a NaN anywhere in a window giving NaN as ours (numpy's max):
    onnxruntime's running max skips a NaN that comes first in its window. The windows
    holding a NaN are found by a MaxPool of the NaN mask (the same windows and pads)."""
    ksize = list(op.attrs["ksize"])
    attrs = dict(kernel_shape=ksize, strides=list(op.attrs["strides"]),
                 **_pads_attrs(op, ksize, nn_ops.ONE))
    x = _nchw(ex, ins[0])
    y = ex.one("MaxPool", [x], **attrs)
    mask = ex.one("Cast", [ex.one("IsNaN", [x])], to=ex.elem_type(op.inputs[0].dtype))
    has_nan = ex.one("Cast", [ex.one("MaxPool", [mask], **attrs)],
                     to=ex.elem_type(dtypes.bool_))
    nan = ex.const(np.asarray(np.nan, op.inputs[0].dtype.np_dtype))
    y = _valid_windows_only(ex, op, x, ex.one("Where", [has_nan, nan, y]), ksize)
    return [ex.one("Transpose", [y], perm=TO_NHWC)]


def _conv_filter_known(op):
    if op.inputs[1].shape.rank != 4 or None in op.inputs[1].shape.as_list()[:2]:
        return "the filters' spatial size must be known to export Conv2D"
    return None


def _max_pool_dtype(op):
    if not op.inputs[0].dtype.is_floating:
        return "ONNX MaxPool takes floating inputs here (int8/uint8 only otherwise)"
    return None


RULES = {
    nn_ops.CONV2D: _conv2d,
    nn_ops.MAX_POOL: _max_pool,
    nn_ops.AVG_POOL: _pool("AveragePool", count_include_pad=0),
    nn_ops.ERF: lambda ex, op, ins: [ex.one("Erf", ins)],
}
LIMITS = {nn_ops.CONV2D: _conv_filter_known, nn_ops.MAX_POOL: _max_pool_dtype}
_GRADIENT = ("the gradient ops of convolution and pooling are not exported (ONNX models are "
             "for inference: export the forward function)")
NO_EQUIVALENT = {d: _GRADIENT for d in (
    nn_ops.CONV2D_BACKPROP_INPUT, nn_ops.CONV2D_BACKPROP_FILTER, nn_ops.MAX_POOL_GRAD,
    nn_ops.MAX_POOL_GRAD_GRAD, nn_ops.AVG_POOL_GRAD)}
