"""The ONNX rules of the structural ops (runtime/ops/shaping_ops.py, sort_ops.py,
linalg_ops.py), and the reasons for those with none (einsum's rule is rules_edges')."""
from __future__ import annotations

import numpy as np

from ...ops import linalg_ops, sort_ops, shaping_ops


def _tile(ex, op, ins):
    return [ex.one("Tile", [ins[0], ex.as_int64(ins[1])])]


def _argsort(ex, op, ins):
    """TopK over the whole axis: ONNX puts equal values lower index first, both ways, as
    the kernel's stable sort does."""
    axis = int(op.attrs["axis"])
    k = ex.one("Gather", [ex.one("Shape", ins), ex.ints([axis])], axis=0)
    _, indices = ex.add("TopK", [ins[0], k], n_out=2, axis=axis,
                        largest=int(op.attrs["descending"]), sorted=1)
    return [ex.one("Cast", [indices], to=ex.onnx.TensorProto.INT32)]


def _sort(ex, op, ins):
    axis = int(op.attrs["axis"])
    k = ex.one("Gather", [ex.one("Shape", ins), ex.ints([axis])], axis=0)
    values, _ = ex.add("TopK", [ins[0], k], n_out=2, axis=axis,
                       largest=int(op.attrs["descending"]), sorted=1)
    return [values]


def _one_hot(ex, op, ins):
    """ONNX counts negative indices from the end; TensorFlow gives them a row of
    off_value, as ONNX does for indices past the end: so they become `depth`."""
    indices, on, off = ins
    depth = op.attrs["depth"]
    idx = ex.as_int64(indices)
    idx = ex.one("Where", [ex.one("Less", [idx, ex.const(np.int64(0))]),
                           ex.const(np.int64(depth)), idx])
    values = ex.one("Concat", [ex.one("Reshape", [off, ex.ints([1])]),
                               ex.one("Reshape", [on, ex.ints([1])])], axis=0)
    return [ex.one("OneHot", [idx, ex.const(np.int64(depth)), values],
                   axis=int(op.attrs["axis"]))]


def _det(ex, op, ins):
    return [ex.one("Det", ins)]


RULES = {
    shaping_ops.TILE: _tile, sort_ops.ARGSORT: _argsort, sort_ops.SORT: _sort,
    shaping_ops.ONE_HOT: _one_hot,
    linalg_ops.MATRIX_DETERMINANT: _det,
}
NO_EQUIVALENT = {
    linalg_ops.MATRIX_INVERSE: "ONNX (opset 17) has no matrix inverse operator",
    linalg_ops.MATRIX_SOLVE: "ONNX (opset 17) has no linear-system solve operator",
    linalg_ops.CHOLESKY: "ONNX (opset 17) has no Cholesky decomposition operator",
}
