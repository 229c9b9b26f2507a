"""The ONNX rules of the ops the gradients layer makes (runtime/gradients/): a
`CustomGradient` op exports as ONNX `Identity` of each of its last `n_out` inputs (the
results of the function whose gradient the user gave; an exported model runs forward)."""
from __future__ import annotations

from ...gradients.custom_gradient import CUSTOM_GRADIENT


def _custom_gradient(ex, op, ins):
    return [ex.one("Identity", [name]) for name in ins[len(ins) - op.attrs["n_out"]:]]


RULES = {CUSTOM_GRADIENT: _custom_gradient}
