"""The ONNX rules of the ops whose nearest ONNX operator differs from ours on NaN, empty
or out-of-range inputs (max/min and arg-max/min reductions, mean, any, float floor
division and modulo, gather, padding, einsum, TensorArray stacks, softplus, log1p):
written out to give ours, or made to fail in onnxruntime exactly where our kernel raises
(`fail_where`). Each difference: docs/architecture.md, "Backends".
"""
from __future__ import annotations

import numpy as np

from ...ops import (array_ops, einsum_ops, elementwise_ops, math_ops, pad_ops, reduce_ops,
                  tensor_array)
from ...ops.tensor_array import empty_stack_shape


def _scalar(ex, value, like):
    return ex.const(np.asarray(value, dtype=like.dtype.np_dtype))


def fail_where(ex, bad, value, message):
    """`value`, made to depend on a check: where any element of the bool tensor `bad` is
    true, onnxruntime fails running a Gather named after `message` (its index then 1, out
    of range of a one-element tensor)."""
    count = ex.one("ReduceSum", [ex.as_int64(ex.one("Reshape", [bad, ex.ints([-1])]))],
                   keepdims=0)
    index = ex.as_int64(ex.one("Greater", [count, ex.const(np.int64(0))]))
    name = f"{message} ({ex.fresh('check')})"
    probe = ex.fresh("check")
    ex.nodes.append(ex.helper.make_node("Gather", [ex.const(np.zeros(1, np.int64)), index],
                                        [probe], name=name, axis=0))
    return ex.one("Where", [ex.one("Equal", [probe, ex.const(np.int64(0))]), value, value])


def _is_constant(t):
    return t.op.opdef.constant


# -- reductions and arg reductions: NaN propagates ------------------------------------------

def _axes_input(ex, axes):
    return [ex.ints(axes)] if axes is not None else []


def _sum(ex, x, axes, keep):
    return ex.one("ReduceSum", [x] + _axes_input(ex, axes), keepdims=keep)


def _any_of(ex, flags, axes, keep):
    """Whether any of the bool `flags` is true along `axes` (false where there are none)."""
    counts = _sum(ex, ex.as_int64(flags), axes, keep)
    return ex.one("Greater", [counts, ex.const(np.int64(0))])


def _reduction(build):
    """A reduction's rule: `build(ex, x, tensor, axes, keepdims)`; no axes is the identity."""
    def rule(ex, op, ins):
        axes, keep = op.attrs["axis"], int(op.attrs["keepdims"])
        if axes is not None and len(axes) == 0:
            return [ex.one("Identity", ins)]
        return [build(ex, ins[0], op.inputs[0], axes, keep)]
    return rule


def _attr_axes(axes):
    return {"axes": list(axes)} if axes is not None else {}


def _mean(ex, x, t, axes, keep):
    if not t.dtype.is_floating:
        return ex.one("ReduceMean", [x], keepdims=keep, **_attr_axes(axes))
    ones = ex.one("Expand", [_scalar(ex, 1, t), ex.one("Shape", [x])])
    return ex.one("Div", [_sum(ex, x, axes, keep), _sum(ex, ones, axes, keep)])


def _extreme(onnx_type):
    def build(ex, x, t, axes, keep):
        out = ex.one(onnx_type, [x], keepdims=keep, **_attr_axes(axes))
        if t.dtype.is_floating:
            has_nan = _any_of(ex, ex.one("IsNaN", [x]), axes, keep)
            out = ex.one("Where", [has_nan, _scalar(ex, np.nan, t), out])
        return out
    return build


def _any(ex, x, t, axes, keep):
    return _any_of(ex, x, axes, keep)


def _arg_rule(onnx_type):
    def rule(ex, op, ins):
        axis = int(op.attrs["axis"])
        out = ex.one(onnx_type, ins, axis=axis, keepdims=0)
        if op.inputs[0].dtype.is_floating:  # the first NaN, as numpy
            nan = ex.one("Cast", [ex.one("IsNaN", ins)], to=ex.onnx.TensorProto.INT32)
            first_nan = ex.one("ArgMax", [nan], axis=axis, keepdims=0)
            has_nan = _any_of(ex, ex.one("IsNaN", ins), [axis], 0)
            out = ex.one("Where", [has_nan, first_nan, out])
        if op.attrs["output_type"].name != "int64":
            out = ex.one("Cast", [out], to=ex.elem_type(op.attrs["output_type"]))
        return [out]
    return rule


# -- division, modulo and powers ------------------------------------------------------------

def _negative(ex, v, like):
    """v < 0, or v is -0.0 (the sign bit, as copysign reads it)."""
    zero = _scalar(ex, 0, like)
    return ex.one("Or", [ex.one("Less", [v, zero]),
                         ex.one("Less", [ex.one("Div", [_scalar(ex, 1, like), v]), zero])])


def _signed_zero(ex, v, like):
    """copysign(0, v)."""
    return ex.one("Where", [_negative(ex, v, like), _scalar(ex, -0.0, like),
                            _scalar(ex, 0.0, like)])


def _float_divmod(ex, t, a, b):
    """numpy's npy_divmod: (floor quotient, Python's remainder) of floats."""
    zero, one = _scalar(ex, 0, t), _scalar(ex, 1, t)
    mod = ex.one("Mod", [a, b], fmod=1)
    div = ex.one("Div", [ex.one("Sub", [a, mod]), b])
    nonzero_mod = ex.one("Not", [ex.one("Equal", [mod, zero])])
    signs_differ = ex.one("Xor", [ex.one("Less", [b, zero]), ex.one("Less", [mod, zero])])
    adjust = ex.one("And", [nonzero_mod, signs_differ])
    mod_adj = ex.one("Where", [adjust, ex.one("Add", [mod, b]), mod])
    div = ex.one("Where", [adjust, ex.one("Sub", [div, one]), div])
    mod_adj = ex.one("Where", [nonzero_mod, mod_adj, _signed_zero(ex, b, t)])
    floor = ex.one("Floor", [div])
    up = ex.one("Greater", [ex.one("Sub", [div, floor]), _scalar(ex, 0.5, t)])
    floor = ex.one("Where", [up, ex.one("Add", [floor, one]), floor])
    quotient = ex.one("Div", [a, b])
    floor = ex.one("Where", [ex.one("Equal", [div, zero]), _signed_zero(ex, quotient, t), floor])
    by_zero = ex.one("Equal", [b, zero])
    return (ex.one("Where", [by_zero, quotient, floor]),
            ex.one("Where", [by_zero, mod, mod_adj]))


def _nonzero_divisor(ex, op, y):
    """(y with 1 where it is 0, where it is 0): an integer Div or Mod by 0 is a hardware
    fault in onnxruntime (the process dies); ours raises, and so does the model."""
    by_zero = ex.one("Equal", [y, _scalar(ex, 0, op.inputs[1])])
    return ex.one("Where", [by_zero, _scalar(ex, 1, op.inputs[1]), y]), by_zero


def _floor_div(ex, op, ins):
    x, y = ins
    if op.inputs[0].dtype.is_integer:  # exact: (x - x mod y) / y, with Python's mod
        y, by_zero = _nonzero_divisor(ex, op, y)
        out = ex.one("Div", [ex.one("Sub", [x, ex.one("Mod", [x, y], fmod=0)]), y])
        return [fail_where(ex, by_zero, out, "Integer division by zero")]
    return [_float_divmod(ex, op.inputs[0], x, y)[0]]


def _floor_mod(ex, op, ins):
    x, y = ins
    if op.inputs[0].dtype.is_integer:
        y, by_zero = _nonzero_divisor(ex, op, y)
        return [fail_where(ex, by_zero, ex.one("Mod", [x, y], fmod=0), "Integer division by zero")]
    return [_float_divmod(ex, op.inputs[0], x, y)[1]]


def _pow(ex, op, ins):
    t = op.inputs[1]
    out = (_integer_pow(ex, op, ins) if op.inputs[0].dtype.is_integer
           else ex.one("Pow", ins))
    if t.dtype.is_integer and not (_is_constant(t) and np.all(t.op.attrs["value"] >= 0)):
        bad = ex.one("Less", [ins[1], _scalar(ex, 0, t)])
        out = fail_where(ex, bad, out, "Integers to negative integer powers are not allowed")
    return [out]


def _integer_pow(ex, op, ins):
    """x ** y of integers by squaring and multiplying, wrapping on overflow as ours (numpy)
    does: onnxruntime's Pow goes through floating point and saturates. A constant
    exponent takes the multiplications its bits need; another takes one step per bit of
    its dtype (a negative one fails in the check `_pow` adds)."""
    x, y = ins
    tx, ty = op.inputs
    zero_x, zero_y = _scalar(ex, 0, tx), _scalar(ex, 0, ty)
    value = ty.op.attrs["value"] if _is_constant(ty) else None
    if value is not None and np.ndim(value) == 0 and int(value) >= 0:
        e, base = int(value), x
        result = ex.one("Add", [ex.one("Mul", [x, zero_x]), _scalar(ex, 1, tx)])
        while e > 0:
            if e & 1:
                result = ex.one("Mul", [result, base])
            e >>= 1
            if e:
                base = ex.one("Mul", [base, base])
        return result
    # ones of the broadcast shape, then one step per bit of y (lowest first)
    result = ex.one("Add", [ex.one("Add", [ex.one("Mul", [x, zero_x]),
                                           ex.one("Cast", [ex.one("Mul", [y, zero_y])],
                                                  to=ex.elem_type(tx.dtype))]),
                            _scalar(ex, 1, tx)])
    base, rest, two = x, y, _scalar(ex, 2, ty)
    for _ in range(np.iinfo(ty.dtype.np_dtype).bits):
        odd = ex.one("Equal", [ex.one("Mod", [rest, two], fmod=0), _scalar(ex, 1, ty)])
        result = ex.one("Where", [odd, ex.one("Mul", [result, base]), result])
        base = ex.one("Mul", [base, base])
        rest = ex.one("Div", [rest, two])
    return result


def _softplus(ex, op, ins):
    """log(1 + e^x) as numpy's logaddexp(x, 0): max(x, 0) + log1p(e^-|x|) (onnxruntime has
    Softplus for float32 only)."""
    t = op.inputs[0]
    if t.dtype.np_dtype != np.float64:
        return [ex.one("Softplus", ins)]
    x = ins[0]
    zero = _scalar(ex, 0, t)
    tail = _log1p(ex, op, [ex.one("Exp", [ex.one("Neg", [ex.one("Abs", [x])])])])[0]
    positive = ex.one("Greater", [x, zero])
    return [ex.one("Add", [ex.one("Where", [positive, x, zero]), tail])]


def _log1p(ex, op, ins):
    """ONNX has no Log1p: x * log(u) / (u - 1) with u = 1 + x is accurate near 0 (the
    rounding of u cancels), x itself where u rounds to 1, u where u is +inf."""
    x = ins[0]
    one = _scalar(ex, 1, op.inputs[0])
    u = ex.one("Add", [x, one])
    ratio = ex.one("Div", [ex.one("Mul", [x, ex.one("Log", [u])]), ex.one("Sub", [u, one])])
    near_zero = ex.one("Where", [ex.one("Equal", [u, one]), x, ratio])
    return [ex.one("Where", [ex.one("IsInf", [u], detect_negative=0), u, near_zero])]


# -- indices and padding: raise where ours does ---------------------------------------------

def _gather(ex, op, ins):
    params, indices = ins
    axis = int(op.attrs["axis"])
    t = op.inputs[1]
    if _is_constant(t) and np.all(t.op.attrs["value"] >= 0):
        return [ex.one("Gather", ins, axis=axis)]
    # ONNX counts a negative index from the end; ours raises (onnxruntime's Gather
    # itself fails for an index too large)
    checked = fail_where(ex, ex.one("Less", [indices, _scalar(ex, 0, t)]), indices,
                         "GatherV2: a negative index is out of range [0, size) (ONNX would "
                         "count it from the end)")
    return [ex.one("Gather", [params, checked], axis=axis)]


def _checked_paddings(ex, op, x, paddings, reflect):
    t = op.inputs[1]
    if _is_constant(t) and (not reflect or op.inputs[0].shape.is_fully_defined()):
        return paddings  # checked while tracing (pad_ops)
    pads = ex.as_int64(paddings)
    bad = ex.one("Less", [pads, ex.const(np.int64(0))])
    message = "paddings must be non-negative"
    if reflect:
        limit = ex.one("Sub", [ex.one("Unsqueeze", [ex.one("Shape", [x]), ex.ints([1])]),
                               ex.const(np.int64(1))])
        bad = ex.one("Or", [bad, ex.one("Greater", [pads, limit])])
        message = "MirrorPad: REFLECT paddings must be less than the dimension size"
    return fail_where(ex, bad, paddings, message)


def _onnx_pads(ex, paddings):
    """TensorFlow's paddings [[before, after], ...] as ONNX pads [befores..., afters...]."""
    return ex.one("Reshape", [ex.one("Transpose", [ex.as_int64(paddings)], perm=[1, 0]),
                              ex.ints([-1])])


def _pad(ex, op, ins):
    paddings = _checked_paddings(ex, op, ins[0], ins[1], False)
    return [ex.one("Pad", [ins[0], _onnx_pads(ex, paddings), ins[2]], mode="constant")]


def _mirror_pad(ex, op, ins):
    paddings = _checked_paddings(ex, op, ins[0], ins[1], True)
    return [ex.one("Pad", [ins[0], _onnx_pads(ex, paddings)], mode="reflect")]


# -- what onnxruntime cannot run on no elements ---------------------------------------------

def _branch(ex, name, build, out_type):
    """A sub-graph of no inputs whose nodes `build()` adds; out_type(name) its output."""
    saved, ex.nodes = ex.nodes, []
    out = build()
    graph = ex.helper.make_graph(ex.nodes, ex.fresh(name), [], [out_type(out)])
    ex.nodes = saved
    return graph


def _einsum_labels(op):
    """Each operand's subscripts and the output's, with "..." spelt out as labels of their
    own (digits, right-aligned as numpy broadcasts them): needs the operands' ranks."""
    inputs, output = einsum_ops.parse(op.attrs["equation"], len(op.inputs))
    spelt, widest = [], 0
    for subs, t in zip(inputs, op.inputs):
        if "." in subs:
            n = t.shape.rank - (len(subs) - 1)
            widest = max(widest, n)
            subs = subs.replace(".", "".join(str(9 - i) for i in reversed(range(n))))
        spelt.append(subs)
    output = output.replace(".", "".join(str(9 - i) for i in reversed(range(widest))))
    return spelt, output


def _einsum_ranks(op):
    inputs, _ = einsum_ops.parse(op.attrs["equation"], len(op.inputs))
    if any("." in subs and t.shape.rank is None for subs, t in zip(inputs, op.inputs)):
        return "an einsum with \"...\" needs its operands' ranks to be known for export"
    return None


def _einsum(ex, op, ins):
    """An operand with no elements gives zeros (onnxruntime's Einsum stops the process
    with a division by zero there): the output's dimensions are read off the operands'
    (a dimension of 1 broadcasts, as "..." does)."""
    inputs, output = _einsum_labels(op)
    out_t = op.outputs[0]
    shapes = [ex.one("Shape", [i]) for i in ins]

    def zeros():
        dims = []
        for c in output:
            dim = None
            for k, subs in enumerate(inputs):
                if c in subs:
                    d = ex.one("Gather", [shapes[k], ex.ints([subs.index(c)])], axis=0)
                    dim = d if dim is None else ex.one(
                        "Where", [ex.one("Equal", [dim, ex.ints([1])]), d, dim])
            dims.append(dim)
        shape = ex.one("Concat", dims, axis=0) if dims else ex.ints([])
        return ex.one("Expand", [_scalar(ex, 0, out_t), shape])

    def product():
        return ex.one("Einsum", ins, equation=op.attrs["equation"])

    empty = ex.one("Equal", [ex.one("ReduceMin", [ex.one("Concat", [
        ex.one("Reshape", [ex.one("Size", [i]), ex.ints([1])]) for i in ins], axis=0)],
        keepdims=0), ex.const(np.int64(0))])
    typed = (lambda n: ex.helper.make_tensor_value_info(n, ex.elem_type(out_t.dtype), None))
    return [ex.one("If", [empty], then_branch=_branch(ex, "no_elements", zeros, typed),
                   else_branch=_branch(ex, "einsum", product, typed))]


def _ta_stack(ex, op, ins):
    """A sequence of no elements stacks to [0] + element_shape (ConcatFromSequence fails)."""
    dtype = op.attrs["dtype"]
    typed = (lambda n: ex.helper.make_tensor_value_info(n, ex.elem_type(dtype), None))
    shape = op.attrs["element_shape"]

    def no_elements():
        if shape.rank is not None and not shape.is_fully_defined():
            return fail_where(ex, ex.const(np.array(True)), ex.const(np.zeros(0, dtype.np_dtype)),
                              "Tried to stack a TensorArray with no elements written, whose "
                              "element shape is not fully known")
        return ex.const(np.zeros(empty_stack_shape(0, shape), dtype.np_dtype))

    def stacked():
        return ex.one("ConcatFromSequence", ins, axis=0, new_axis=1)

    empty = ex.one("Equal", [ex.one("SequenceLength", ins), ex.const(np.int64(0))])
    return [ex.one("If", [empty], then_branch=_branch(ex, "no_elements", no_elements, typed),
                   else_branch=_branch(ex, "stack", stacked, typed))]


_B, _R = math_ops.BINARY, reduce_ops.REDUCE
RULES = {
    _R["Mean"]: _reduction(_mean), _R["Max"]: _reduction(_extreme("ReduceMax")),
    _R["Min"]: _reduction(_extreme("ReduceMin")), _R["Any"]: _reduction(_any),
    reduce_ops.ARGMAX: _arg_rule("ArgMax"), reduce_ops.ARGMIN: _arg_rule("ArgMin"),
    _B["FloorDiv"]: _floor_div, _B["FloorMod"]: _floor_mod, _B["Pow"]: _pow,
    elementwise_ops.SOFTPLUS: _softplus, elementwise_ops.LOG1P: _log1p,
    array_ops.GATHER: _gather, pad_ops.PAD: _pad, pad_ops.MIRROR_PAD: _mirror_pad,
    einsum_ops.EINSUM: _einsum, tensor_array.STACK: _ta_stack,
}
LIMITS = {einsum_ops.EINSUM: _einsum_ranks}
