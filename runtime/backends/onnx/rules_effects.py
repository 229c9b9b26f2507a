"""The ONNX rules of the ops with effects that a model can hold: a Variable's read (its
value at export time, a constant) and random draws (of floats); prints, assertions and
random integers have no ONNX equivalent."""
from __future__ import annotations

import numpy as np

from ...ops import io_ops, random_ops, state_ops


def _random_floats(op):
    if not op.attrs["dtype"].is_floating:
        return "ONNX draws random floats only"
    return None


def _read_variable(ex, op, ins):
    v = op.attrs["variable"]
    return [ex.const(np.asarray(v.numpy(), dtype=v.dtype.np_dtype))]


def _random(onnx_type, keys):
    """`keys`: the ONNX attributes taking the op's two `params`."""
    def rule(ex, op, ins):
        a, b = op.attrs["params"]
        return [ex.one(onnx_type, [], dtype=ex.elem_type(op.attrs["dtype"]),
                       shape=list(op.attrs["shape"]), **{keys[0]: float(a), keys[1]: float(b)})]
    return rule


RULES = {
    state_ops.READ: _read_variable,
    random_ops.UNIFORM: _random("RandomUniform", ("low", "high")),
    random_ops.NORMAL: _random("RandomNormal", ("mean", "scale")),
}
LIMITS = {random_ops.UNIFORM: _random_floats, random_ops.NORMAL: _random_floats}
NO_EQUIVALENT = {
    io_ops.PRINT: "rt.print has no ONNX equivalent (export with drop_prints=True to leave it out)",
    io_ops.ASSERT: "run-time assertions have no ONNX equivalent (drop_asserts=True leaves them out)",
    random_ops.UNIFORM_INT: "ONNX draws random floats only",
}
