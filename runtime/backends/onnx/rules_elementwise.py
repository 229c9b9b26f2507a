"""The ONNX rules of the elementwise ops (runtime/ops/math_ops.py), matmul, the
reductions ONNX computes as we do (sum, product, all), select, where and cast; their
limits, and the string ops, which are not exported. The reductions whose ONNX operator
differs on NaN or empty inputs are rules_edges'."""
from __future__ import annotations

from ...core import dtypes
from ...ops import math_ops, reduce_ops, string_ops
from .rule_helpers import same


def _string_concat(op):
    if op.inputs[0].dtype.is_string:
        return "string concatenation has no ONNX operator in opset 17"
    return None


def _string_compare(op):
    if op.inputs[0].dtype.is_string:
        return "ONNX Equal compares strings from opset 19 only; this export writes opset 17"
    return None


def _string_cast(op):
    if op.inputs[0].dtype.is_string or op.attrs["dtype"].is_string:
        return "casts to and from strings are not exported"
    return None


def _matmul_ranks(op):
    if (op.attrs["transpose_a"] or op.attrs["transpose_b"]) and any(
            x.shape.rank is None for x in op.inputs):
        return "transposed operands need a known rank"
    return None


def _not(onnx_type):
    return lambda ex, op, ins: [ex.one("Not", [ex.one(onnx_type, ins)])]


def _square(ex, op, ins):
    return [ex.one("Mul", [ins[0], ins[0]])]


def _real_div(ex, op, ins):
    if op.inputs[0].dtype.is_integer:
        ins = [ex.one("Cast", [i], to=ex.elem_type(dtypes.float64)) for i in ins]
    return [ex.one("Div", ins)]


def _matmul(ex, op, ins):
    a, b = ins
    for k, flag in enumerate(("transpose_a", "transpose_b")):
        if op.attrs[flag]:
            r = op.inputs[k].shape.rank
            perm = list(range(r - 2)) + [r - 1, r - 2]
            ins[k] = ex.one("Transpose", [ins[k]], perm=perm)
    return [ex.one("MatMul", ins)]


def _reduce(onnx_type, via_int=False):
    def rule(ex, op, ins):
        axes, keep = op.attrs["axis"], int(op.attrs["keepdims"])
        if axes is not None and len(axes) == 0:
            return [ex.one("Identity", ins)]
        x = ins[0]
        if via_int:
            x = ex.one("Cast", [x], to=ex.elem_type(dtypes.int32))
        if onnx_type == "ReduceSum":  # axes is an input from opset 13
            out = ex.one(onnx_type, [x] + ([ex.ints(axes)] if axes is not None else []),
                         keepdims=keep)
        else:
            attrs = {"axes": list(axes)} if axes is not None else {}
            out = ex.one(onnx_type, [x], keepdims=keep, **attrs)
        if via_int:
            out = ex.one("Cast", [out], to=ex.elem_type(dtypes.bool_))
        return [out]
    return rule


def _where_indices(ex, op, ins):
    return [ex.one("Transpose", [ex.one("NonZero", ins)], perm=[1, 0])]


def _cast(ex, op, ins):
    return [ex.one("Cast", ins, to=ex.elem_type(op.attrs["dtype"]))]


_U, _B, _R = math_ops.UNARY, math_ops.BINARY, reduce_ops.REDUCE
RULES = {
    _U["Neg"]: same("Neg"), _U["Abs"]: same("Abs"), _U["Sign"]: same("Sign"),
    _U["Square"]: _square, _U["Sqrt"]: same("Sqrt"), _U["Exp"]: same("Exp"),
    _U["Log"]: same("Log"), _U["Tanh"]: same("Tanh"), _U["Sigmoid"]: same("Sigmoid"),
    _U["Sin"]: same("Sin"), _U["Cos"]: same("Cos"), _U["LogicalNot"]: same("Not"),
    _B["AddV2"]: same("Add"), _B["Sub"]: same("Sub"), _B["Mul"]: same("Mul"),
    _B["RealDiv"]: _real_div, _B["Maximum"]: same("Max"), _B["Minimum"]: same("Min"),
    _B["Equal"]: same("Equal"), _B["NotEqual"]: _not("Equal"), _B["Less"]: same("Less"),
    _B["LessEqual"]: same("LessOrEqual"), _B["Greater"]: same("Greater"),
    _B["GreaterEqual"]: same("GreaterOrEqual"), _B["LogicalAnd"]: same("And"),
    _B["LogicalOr"]: same("Or"),
    math_ops.MATMUL: _matmul,
    _R["Sum"]: _reduce("ReduceSum"), _R["Prod"]: _reduce("ReduceProd"),
    _R["All"]: _reduce("ReduceMin", via_int=True),
    math_ops.SELECT: same("Where"), math_ops.WHERE_INDICES: _where_indices,
    math_ops.CAST: _cast,
}
LIMITS = {_B["AddV2"]: _string_concat, math_ops.CAST: _string_cast,
          _B["Equal"]: _string_compare, _B["NotEqual"]: _string_compare,
          math_ops.MATMUL: _matmul_ranks}
NO_EQUIVALENT = {d: "string ops are not exported"
                 for d in (string_ops.JOIN, string_ops.LENGTH, string_ops.AS_STRING)}
