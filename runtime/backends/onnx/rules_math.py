"""The ONNX rules of the ops of runtime/ops/math_extra.py and utility_ops.py, their limits,
and the reasons for those with none (bitwise ops, cumulative products, permutations)."""
from __future__ import annotations

import numpy as np

from ...ops import bitwise_ops, math_extra, random_extra, utility_ops
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
    math_extra.FLOOR: same("Floor"), math_extra.CEIL: same("Ceil"),
    math_extra.ROUND: _round, math_extra.CUMSUM: _cumsum,
    utility_ops.ENSURE_SHAPE: same("Identity"),
}
NO_EQUIVALENT = {
    math_extra.CUMPROD: "ONNX opset 17 has no cumulative product",
    **{op: "ONNX opset 17 has no bitwise ops (BitwiseAnd, ... came in opset 18)"
       for op in bitwise_ops.OPS},
    random_extra.PERMUTATION: "ONNX has no random permutation (rt.random.shuffle)",
    random_extra.PERMUTATION_OF: "ONNX has no random permutation (rt.random.shuffle)",
}
LIMITS = {math_extra.CUMSUM: _cumsum_types, utility_ops.ENSURE_SHAPE: _ensure_shape_limits}
