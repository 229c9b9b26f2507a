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
        y = ex.one(onnx_type, [_nchw(ex, ins[0])], kernel_shape=ksize,
                   strides=list(op.attrs["strides"]), **_pads_attrs(op, ksize, nn_ops.ONE),
                   **extra)
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
    return [ex.one("Transpose", [ex.one("Where", [has_nan, nan, y])], perm=TO_NHWC)]


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
