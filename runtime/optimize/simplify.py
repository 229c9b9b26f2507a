"""Arithmetic simplification: rewrites that give bit-for-bit the same values, cheaper.

The rules: x*1, 1*x, x/1, x-0, x+0 and 0+x become x (the ops' `unit`/`right_unit`
traits); for floats the zero's sign matters: x + 0.0 stays (-0.0 + 0.0 is +0.0) but
x + (-0.0) goes, and x - 0.0 goes but x - (-0.0) stays. A rule applies only when the
result is x exactly: same dtype (an int32 / 1 is a float64) and same shape, so the
constant must not broadcast x to a larger shape (x of shape (3,) times ones of shape
(2, 3) is not x). neg(neg(x)) is x (also for the wrap-around of the most negative
integer), transpose(transpose(x, p), q) is one transpose by the composed permutation (or
x when that is the identity), and Identity passes its input on.
"""
from __future__ import annotations

import numpy as np

from ..ops.array_ops import TRANSPOSE
from ..ops.core import IDENTITY
from ..ops.math_ops import UNARY
from .rewrite import const_value, rebuild

NEG = UNARY["Neg"]


def simplify_arithmetic(graph, outputs: list) -> tuple:
    """(new graph, new outputs) with the rewrites above applied."""
    new, outs, _ = rebuild(graph, outputs, simplify)
    return new, outs


def simplify(ctx, op, inputs, attrs):
    """The rebuild rule of this pass (runtime.optimize.rewrite)."""
    d = op.opdef
    out = op.outputs[0] if op.outputs else None
    if d is IDENTITY:
        return [inputs[0]]
    if d is NEG and inputs[0].op.opdef is NEG and not out.dtype.is_bool:
        return [inputs[0].op.inputs[0]]
    if d is TRANSPOSE:
        return _transpose(ctx, op, inputs, attrs)
    unit = d.unit  # x op u and u op x are x (OpDef traits: 1 for Mul, 0 for AddV2)
    if unit is not None:
        x, y = inputs
        if _keeps(x, y, out, unit):
            return [x]
        if _keeps(y, x, out, unit):
            return [y]
    unit = d.right_unit  # x op u is x (1 for RealDiv, 0 for Sub)
    if unit is not None:
        x, y = inputs
        if _keeps(x, y, out, unit, negative_zero=False):
            return [x]
    return None


def _keeps(x, c, out, unit, negative_zero=True) -> bool:
    """Whether `x op c` is `x` itself: `c` is a constant of `unit`s that cannot broadcast
    x to another shape, and the result has x's dtype. A float zero must be -0.0 for an
    addition (x + (-0.0) is x) and +0.0 for a subtraction (x - 0.0 is x)."""
    value = const_value(c)
    if value is None or out.dtype is not x.dtype or c.dtype is not x.dtype:
        return False
    value = np.asarray(value)
    if value.dtype.kind not in "biuf" or not np.all(value == unit):
        return False
    if unit == 0 and value.dtype.kind == "f" and np.any(np.signbit(value) != negative_zero):
        return False  # x + 0.0 and x - (-0.0) turn -0.0 into +0.0
    rank = x.shape.rank
    if rank is None or value.ndim > rank or any(d != 1 for d in value.shape):
        return False
    return True


def _transpose(ctx, op, inputs, attrs):
    (x,) = inputs
    inner = x.op
    if inner.opdef is not TRANSPOSE:
        return None
    p, q = inner.attrs.get("perm"), attrs.get("perm")
    if p is None or q is None:
        return None
    composed = tuple(p[i] for i in q)
    source = inner.inputs[0]
    if composed == tuple(range(len(composed))):
        return [source]
    return list(ctx.add(op.opdef, [source], {**attrs, "perm": composed},
                        [(t.shape, t.dtype) for t in op.outputs], op).outputs)
