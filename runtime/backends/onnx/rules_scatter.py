"""The ONNX rules of the N-dimensional gathers and scatters (GatherND, ScatterND with
reduction "add" for scatter_nd and tensor_scatter_nd_add) and of unique (Unique with
sorted=0: the values in the order they first occur, as ours; integers only). ONNX counts a negative
index from the end where ours raises: a negative index is made to fail in onnxruntime
(`fail_where`); onnxruntime fails by itself for one too large. ONNX has no index tuple of
length 0 (k = 0): those are refused."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...ops import scatter_ops, sequence_ops
from .rules_edges import fail_where


def _checked(ex, op, indices_name, indices, what):
    t = indices
    if t.op.opdef.constant and np.all(np.asarray(t.op.attrs["value"]) >= 0):
        return ex.as_int64(indices_name)
    negative = ex.one("Less", [indices_name, ex.const(np.zeros((), t.dtype.np_dtype))])
    checked = fail_where(ex, negative, indices_name,
                         f"{what}: a negative index is out of range (ONNX would count it "
                         "from the end)")
    return ex.as_int64(checked)


def _depth(op, indices):
    return None if indices.shape.rank is None else indices.shape.as_list()[-1]  # or None


def _depth_limit(op):
    indices = op.inputs[1] if op.opdef is not scatter_ops.SCATTER_ND else op.inputs[0]
    k = _depth(op, indices)
    if k == 0:
        return "ONNX's GatherND/ScatterND have no index tuple of length 0"
    return None


def _gather_nd(ex, op, ins):
    params, indices = ins
    return [ex.one("GatherND", [params, _checked(ex, op, indices, op.inputs[1], "gather_nd")])]


def _scatter_nd(ex, op, ins):
    indices, updates, shape = ins
    zero = ex.const(np.zeros((), op.inputs[1].dtype.np_dtype))
    data = ex.one("Expand", [zero, ex.as_int64(shape)])
    idx = _checked(ex, op, indices, op.inputs[0], "scatter_nd")
    return [ex.one("ScatterND", [data, idx, updates], reduction="add")]


def _tensor_scatter(ex, op, ins):
    tensor, indices, updates = ins
    add = op.attrs["add"]
    what = "tensor_scatter_nd_add" if add else "tensor_scatter_nd_update"
    idx = _checked(ex, op, indices, op.inputs[1], what)
    if add:
        return [ex.one("ScatterND", [tensor, idx, updates], reduction="add")]
    return [ex.one("ScatterND", [tensor, idx, updates])]


def _unique(ex, op, ins):
    """onnxruntime's Unique takes int64 (the integers are cast there and back)."""
    dtype = op.inputs[0].dtype
    y, _, inverse, _ = ex.add("Unique", [ex.as_int64(ins[0])], n_out=4, sorted=0)
    return [ex.one("Cast", [y], to=ex.elem_type(dtype)),
            ex.one("Cast", [inverse], to=ex.elem_type(op.attrs["out_idx"]))]


def _unique_limit(op):
    if not (op.inputs[0].dtype.is_integer or op.inputs[0].dtype == dtypes.bool_):
        return ("unique of floats is not exported: onnxruntime's Unique drops NaN, where "
                "each NaN is a value of its own here")
    return None


RULES = {scatter_ops.GATHER_ND: _gather_nd, scatter_ops.SCATTER_ND: _scatter_nd,
         scatter_ops.TENSOR_SCATTER: _tensor_scatter, sequence_ops.UNIQUE: _unique}
LIMITS = {scatter_ops.GATHER_ND: _depth_limit, scatter_ops.SCATTER_ND: _depth_limit,
          scatter_ops.TENSOR_SCATTER: _depth_limit, sequence_ops.UNIQUE: _unique_limit}
