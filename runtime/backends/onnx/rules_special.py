"""The ONNX rules of the ops of runtime/ops/special_math_ops.py, and the reasons for those
with no faithful ONNX form."""
from __future__ import annotations

import numpy as np

from ...ops import special_math_ops as ops
from .rule_helpers import same

RULES = {ops.ATAN: same("Atan"), ops.ASIN: same("Asin"), ops.ACOS: same("Acos"),
         ops.SINH: same("Sinh"), ops.COSH: same("Cosh")}


def _float32_only(op):
    """onnxruntime implements Atan, Asin, Acos, Sinh and Cosh for float32 only."""
    if op.inputs[0].dtype.np_dtype != np.float32:
        return (f"onnxruntime has no {op.name} for {op.inputs[0].dtype.name} tensors "
                "(float32 only)")
    return None


LIMITS = {op: _float32_only for op in RULES}
NO_EQUIVALENT = {
    ops.EXPM1: "ONNX has no expm1 (Exp(x) - 1 loses every digit near 0)",
    ops.ATAN2: "ONNX has no Atan2 (Atan of y / x loses the quadrant)",
    ops.LOG_MATRIX_DETERMINANT: "ONNX has no log-determinant (Det overflows where slogdet "
                                "does not)",
}
