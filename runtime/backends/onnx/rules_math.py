"""The ONNX rules of the ops of runtime/ops/elementwise_ops.py, cumulative_ops.py and
introspection_ops.py, their limits, and the reasons for those with none (bitwise ops, cumulative products, permutations)."""
from __future__ import annotations

import numpy as np

from ...ops import (bitwise_ops, cumulative_ops, elementwise_ops, introspection_ops,
                    sampling_ops)
from .rule_helpers import same


def _round(ex, op, ins):
    if op.inputs[0].dtype.is_floating:
        return [ex.one("Round", ins)]  # half to even, as numpy
    return [ex.one("Identity", ins)]


def _cumsum(ex, op, ins):
    return [ex.one("CumSum", [ins[0], ex.const(np.int64(op.attrs["axis"]))],
                   exclusive=int(op.attrs["exclusive"]), reverse=int(op.attrs["reverse"]))]


def _cumsum_types(op):
    if op.inputs[0].dtype.np_dtype not in (np.float32, np.float64, np.int32, np.int64):
        return f"ONNX CumSum does not take {op.inputs[0].dtype.name} tensors"
    return None


def _ensure_shape_limits(op):
    """The check is left out only where the static shape already proves it."""
    have, want = op.inputs[0].shape, op.attrs["shape"]
    if want.rank is None:
        return None
    if have.rank == want.rank and all(w is None or h == w for h, w in zip(have, want)):
        return None
    return ("a shape checked when the graph runs (rt.ensure_shape of a shape not known while "
            "tracing) has no ONNX equivalent")


RULES = {
    elementwise_ops.FLOOR: same("Floor"), elementwise_ops.CEIL: same("Ceil"),
    elementwise_ops.ROUND: _round, cumulative_ops.CUMSUM: _cumsum,
    introspection_ops.ENSURE_SHAPE: same("Identity"),
}
NO_EQUIVALENT = {
    cumulative_ops.CUMPROD: "ONNX opset 17 has no cumulative product",
    **{op: "ONNX opset 17 has no bitwise ops (BitwiseAnd, ... came in opset 18)"
       for op in bitwise_ops.OPS},
    sampling_ops.PERMUTATION: "ONNX has no random permutation (rt.random.shuffle)",
    sampling_ops.PERMUTATION_OF: "ONNX has no random permutation (rt.random.shuffle)",
}
LIMITS = {cumulative_ops.CUMSUM: _cumsum_types, introspection_ops.ENSURE_SHAPE: _ensure_shape_limits}
