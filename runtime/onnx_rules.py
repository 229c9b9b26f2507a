"""The ONNX rule of each op: `RULES[op type](exporter, op, input names) -> output names`,
written with the exporter's `one`/`add`/`const` helpers (see onnx_export.py), and why an
op cannot be exported (`unsupported_reason`)."""
from __future__ import annotations

from typing import Optional

import numpy as np

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min



def unsupported_reason(op) -> Optional[str]:
    t = op.type
    if t in _NO_EQUIVALENT:
        return _NO_EQUIVALENT[t]
    if t not in RULES and t not in ("Placeholder", "If", "StatelessIf", "While", "StatelessWhile"):
        return "no ONNX rule for this op yet"
    if t == "AddV2" and op.inputs[0].dtype.is_string:
        return "string concatenation has no ONNX operator in opset 17"
    if t == "Cast" and (op.inputs[0].dtype.is_string or op.attrs["dtype"].is_string):
        return "casts to and from strings are not exported"
    if t in ("RandomUniform", "RandomStandardNormal") and not op.attrs["dtype"].is_floating:
        return "ONNX draws random floats only"
    if t == "MatMul" and (op.attrs["transpose_a"] or op.attrs["transpose_b"]) and any(
            x.shape.rank is None for x in op.inputs):
        return "transposed operands need a known rank"
    if t == "StridedSlice" and op.inputs[0].shape.rank is None:
        return "slicing needs the input's rank"
    if t == "StridedSliceGrad" and op.inputs[1].shape.rank is None:
        return "slicing needs the input's rank"
    if t == "GatherGrad" and (op.inputs[0].shape.rank is None or op.inputs[1].shape.rank is None
                              or op.inputs[2].shape.rank != 1 or op.inputs[2].shape[0] is None):
        return "needs the ranks of the gradient, the indices and the params"
    if t in ("SumTo", "SumLike") and (op.inputs[0].shape.rank is None or (
            t == "SumLike" and op.inputs[1].shape.rank is None)):
        return "summing a broadcast value back needs known ranks"
    if t in ("StridedSlice", "StridedSliceGrad") and any(
            s[0] == "slice" and isinstance(s[3], tuple) for s in op.attrs["spec"]):
        return "a slice step given as a tensor is not exported"
    if t in ("PadV2", "MirrorPad", "PadGrad") and op.inputs[0].dtype.is_string:
        return "string ops are not exported"
    if t in ("MirrorPad", "PadGrad") and op.attrs["mode"] == "SYMMETRIC":
        return "ONNX Pad has no SYMMETRIC mode (it has constant, reflect and edge)"
    if t == "PadGrad" and op.attrs["mode"] != "CONSTANT":
        return "the gradient of REFLECT padding (adding mirrored values back) has no ONNX operator"
    if t == "Const" and op.outputs[0].dtype.name == "variant":
        return "a constant TensorArray is not exported"
    return None


_NO_EQUIVALENT = {
    "PrintV2": "rt.print has no ONNX equivalent (export with drop_prints=True to leave it out)",
    "Assert": "run-time assertions have no ONNX equivalent (drop_asserts=True leaves them out)",
    "EagerPyFunc": "rt.py_function calls Python",
    "AssignVariableOp": "ONNX models hold no mutable state (variable writes)",
    "StringJoin": "string ops are not exported", "StringLength": "string ops are not exported",
    "AsString": "string ops are not exported",
    "RandomUniformInt": "ONNX draws random floats only",
}


def _same(onnx_type):
    return lambda ex, op, ins: [ex.one(onnx_type, ins)]


def _not(onnx_type):
    return lambda ex, op, ins: [ex.one("Not", [ex.one(onnx_type, ins)])]


def _square(ex, op, ins):
    return [ex.one("Mul", [ins[0], ins[0]])]


def _to(ex, dtype):
    return ex.elem_type(dtype)


def _real_div(ex, op, ins):
    if op.inputs[0].dtype.is_integer:
        from .core import dtypes
        ins = [ex.one("Cast", [i], to=_to(ex, dtypes.float64)) for i in ins]
    return [ex.one("Div", ins)]


def _floor_div(ex, op, ins):
    x, y = ins
    if op.inputs[0].dtype.is_integer:  # exact: (x - x mod y) / y, with Python's mod
        return [ex.one("Div", [ex.one("Sub", [x, ex.one("Mod", [x, y], fmod=0)]), y])]
    return [ex.one("Floor", [ex.one("Div", [x, y])])]


def _floor_mod(ex, op, ins):
    x, y = ins
    if op.inputs[0].dtype.is_integer:
        return [ex.one("Mod", [x, y], fmod=0)]
    q = ex.one("Floor", [ex.one("Div", [x, y])])
    return [ex.one("Sub", [x, ex.one("Mul", [q, y])])]


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
            from .core import dtypes
            x = ex.one("Cast", [x], to=_to(ex, dtypes.int32))
        if onnx_type == "ReduceSum":  # axes is an input from opset 13
            out = ex.one(onnx_type, [x] + ([ex.ints(axes)] if axes is not None else []),
                         keepdims=keep)
        else:
            attrs = {"axes": list(axes)} if axes is not None else {}
            out = ex.one(onnx_type, [x], keepdims=keep, **attrs)
        if via_int:
            from .core import dtypes
            out = ex.one("Cast", [out], to=_to(ex, dtypes.bool_))
        return [out]
    return rule


def _arg(onnx_type):
    def rule(ex, op, ins):
        out = ex.one(onnx_type, ins, axis=int(op.attrs["axis"]), keepdims=0)
        if op.attrs["output_type"].name != "int64":
            out = ex.one("Cast", [out], to=_to(ex, op.attrs["output_type"]))
        return [out]
    return rule


def _where_indices(ex, op, ins):
    return [ex.one("Transpose", [ex.one("NonZero", ins)], perm=[1, 0])]


def _cast(ex, op, ins):
    return [ex.one("Cast", ins, to=_to(ex, op.attrs["dtype"]))]


def _reshape(ex, op, ins):
    shape = list(op.attrs["shape"])
    return [ex.one("Reshape", [ins[0], ex.ints(shape)], allowzero=int(0 in shape))]


def _as_int64(ex, name):
    return ex.one("Cast", [name], to=ex.onnx.TensorProto.INT64)


def _reshape_dynamic(ex, op, ins):
    return [ex.one("Reshape", [ins[0], _as_int64(ex, ins[1])], allowzero=1)]


def _transpose(ex, op, ins):
    perm = op.attrs["perm"]
    return [ex.one("Transpose", ins, **({"perm": list(perm)} if perm is not None else {}))]


def _expand_dims(ex, op, ins):
    return [ex.one("Unsqueeze", [ins[0], ex.ints([op.attrs["axis"]])])]


def _squeeze(ex, op, ins):
    axis = op.attrs["axis"]
    return [ex.one("Squeeze", ins + ([ex.ints(axis)] if axis is not None else []))]


def _concat(ex, op, ins):
    return [ex.one("Concat", ins, axis=int(op.attrs["axis"]))]


def _pack(ex, op, ins):
    axis = ex.ints([op.attrs["axis"]])
    return [ex.one("Concat", [ex.one("Unsqueeze", [i, axis]) for i in ins],
                   axis=int(op.attrs["axis"]))]


def _unpack(ex, op, ins):
    axis, num = int(op.attrs["axis"]), int(op.attrs["num"])
    parts = ex.add("Split", [ins[0], ex.ints([1] * num)], n_out=num, axis=axis)
    axes = ex.ints([axis])
    return [ex.one("Squeeze", [p, axes]) for p in parts]


def _gather(ex, op, ins):
    return [ex.one("Gather", ins, axis=int(op.attrs["axis"]))]


def _shape(ex, op, ins):
    return [ex.one("Cast", [ex.one("Shape", ins)], to=_to(ex, op.attrs["out_type"]))]


def _size(ex, op, ins):
    return [ex.one("Cast", [ex.one("Size", ins)], to=_to(ex, op.attrs["out_type"]))]


def _rank(ex, op, ins):
    from .core import dtypes
    return [ex.one("Cast", [ex.one("Size", [ex.one("Shape", ins)])], to=_to(ex, dtypes.int32))]


def _fill(ex, op, ins):
    return [ex.one("Expand", [ins[0], ex.ints(op.attrs["shape"])])]


def _fill_dynamic(ex, op, ins):
    return [ex.one("Expand", [ins[1], _as_int64(ex, ins[0])])]


def _full_like(ex, op, ins):
    value = np.asarray(op.attrs["fill_value"], dtype=op.attrs["dtype"].np_dtype)
    return [ex.one("Expand", [ex.const(value), ex.one("Shape", ins)])]


def _constant_of_kernel(ex, op, ins):
    return [ex.const(op.opdef.kernel(**op.attrs))]


def _const(ex, op, ins):
    return [ex.const(op.attrs["value"])]


def _read_variable(ex, op, ins):
    v = op.attrs["variable"]
    return [ex.const(np.asarray(v._value, dtype=v.dtype.np_dtype))]


def _random(onnx_type):
    def rule(ex, op, ins):
        a, b = op.attrs["params"]
        keys = ("low", "high") if onnx_type == "RandomUniform" else ("mean", "scale")
        return [ex.one(onnx_type, [], dtype=_to(ex, op.attrs["dtype"]),
                       shape=list(op.attrs["shape"]), **{keys[0]: float(a), keys[1]: float(b)})]
    return rule


def _onnx_pads(ex, paddings):
    """TensorFlow's paddings [[before, after], ...] as ONNX pads [befores..., afters...]."""
    return ex.one("Reshape", [ex.one("Transpose", [_as_int64(ex, paddings)], perm=[1, 0]),
                              ex.ints([-1])])


def _pad(ex, op, ins):
    return [ex.one("Pad", [ins[0], _onnx_pads(ex, ins[1]), ins[2]], mode="constant")]


def _mirror_pad(ex, op, ins):
    return [ex.one("Pad", [ins[0], _onnx_pads(ex, ins[1])], mode="reflect")]


def _pad_grad(ex, op, ins):
    """CONSTANT only (see unsupported_reason): the middle of the gradient, a Slice from
    the befores to the shape minus the afters."""
    g, paddings = ins[0], _as_int64(ex, ins[1])
    before = ex.one("Gather", [paddings, ex.const(np.int64(0))], axis=1)
    after = ex.one("Gather", [paddings, ex.const(np.int64(1))], axis=1)
    end = ex.one("Sub", [ex.one("Shape", [g]), after])
    return [ex.one("Slice", [g, before, end])]


def _strided_slice(ex, op, ins):
    return [_slice(ex, ins[0], ins[1:], op.attrs["spec"], op.inputs[0].shape.rank)]


def _strided_slice_grad(ex, op, ins):
    """Zeros shaped like x with g where the slice was: slice the positions 0..size-1 of x
    as the forward did, and scatter g's values to them."""
    g, x, tensors = ins[0], ins[1], ins[2:]
    shape = ex.one("Shape", [x])
    size = ex.one("Size", [x])
    positions = ex.one("Reshape", [ex.one("Range", [ex.const(np.int64(0)), size,
                                                    ex.const(np.int64(1))]), shape])
    taken = _slice(ex, positions, tensors, op.attrs["spec"], op.inputs[1].shape.rank)
    flat = ex.ints([-1])
    zeros = ex.one("Reshape", [ex.one("Expand", [ex.const(np.zeros((), op.inputs[0].dtype.np_dtype)),
                                                 shape]), flat])
    out = ex.one("ScatterElements", [zeros, ex.one("Reshape", [taken, flat]),
                                     ex.one("Reshape", [g, flat])], axis=0)
    return [ex.one("Reshape", [out, shape])]


def _slice(ex, x, tensors, spec, rank):
    """numpy basic indexing: one Slice over the sliced axes, then Squeeze for integer
    indices and Unsqueeze for `None`s."""
    from .ops.slicing import _expand_ellipsis
    spec = _expand_ellipsis(spec, rank)

    def scalar(v, default):
        if v is None:
            return ex.ints([default])
        if isinstance(v, tuple):
            return ex.one("Unsqueeze", [_as_int64(ex, tensors[v[1] - 1]), ex.ints([0])])
        return ex.ints([v])

    starts, ends, steps, axes, squeeze, newaxes = [], [], [], [], [], []
    d, out_pos = 0, 0
    for s in spec:
        if s[0] == "newaxis":
            newaxes.append(out_pos)
            out_pos += 1
            continue
        if s[0] == "int":
            k = s[1]
            start = scalar(k, 0)
            if isinstance(k, int):
                end = ex.ints([k + 1 if k != -1 else INT64_MAX])
            else:  # k + 1, except that -1 + 1 must mean "to the end"
                one = ex.ints([1])
                nxt = ex.one("Add", [start, one])
                end = ex.one("Where", [ex.one("Equal", [start, ex.ints([-1])]),
                                       ex.ints([INT64_MAX]), nxt])
            starts.append(start)
            ends.append(end)
            steps.append(ex.ints([1]))
            squeeze.append(d)
        else:
            _, b, e, st = s
            neg = isinstance(st, int) and st < 0
            starts.append(scalar(b, INT64_MAX if neg else 0))
            ends.append(scalar(e, INT64_MIN if neg else INT64_MAX))
            steps.append(ex.ints([1 if st is None else st]))
            out_pos += 1
        axes.append(d)
        d += 1
    out = x
    if axes:
        out = ex.one("Slice", [x, ex.one("Concat", starts, axis=0),
                               ex.one("Concat", ends, axis=0), ex.ints(axes),
                               ex.one("Concat", steps, axis=0)])
    if squeeze:
        out = ex.one("Squeeze", [out, ex.ints(squeeze)])
    if newaxes:
        out = ex.one("Unsqueeze", [out, ex.ints(newaxes)])
    if out is x:
        out = ex.one("Identity", [x])
    return out


# Broadcasting and its reverse (the gradient rules' helpers). Summing g back to a target
# shape t needs only the ranks: the leading axes are summed away, then each axis of g
# (size g_i, broadcast from t_i, which is g_i or 1) is split into (t_i, g_i / t_i) and the
# second part summed -- a sum over 1 element where nothing was broadcast.

def _sum_back(ex, g, g_rank, target_shape, t_rank):
    lead = g_rank - t_rank
    if lead:
        g = ex.one("ReduceSum", [g, ex.ints(range(lead))], keepdims=0)
    if t_rank == 0:
        return g
    ratio = ex.one("Div", [ex.one("Shape", [g]), ex.one("Max", [target_shape, ex.ints([1])])])
    one = ex.ints([1])
    pairs = ex.one("Concat", [ex.one("Unsqueeze", [target_shape, one]),
                              ex.one("Unsqueeze", [ratio, one])], axis=1)
    split = ex.one("Reshape", [g, ex.one("Reshape", [pairs, ex.ints([-1])])])
    return ex.one("ReduceSum", [split, ex.ints(range(1, 2 * t_rank, 2))], keepdims=0)


def _sum_to(ex, op, ins):
    target = list(op.attrs["shape"])
    return [_sum_back(ex, ins[0], op.inputs[0].shape.rank, ex.ints(target), len(target))]


def _sum_like(ex, op, ins):
    return [_sum_back(ex, ins[0], op.inputs[0].shape.rank, ex.one("Shape", [ins[1]]),
                      op.inputs[1].shape.rank)]


def _gather_grad(ex, op, ins):
    """Zeros of the params' shape (the gathered axis moved first), with each gathered
    slice of g added at its index (ScatterND, reduction add), the axis moved back."""
    g, indices, params_shape = ins
    a, k = int(op.attrs["axis"]), op.inputs[1].shape.rank
    r, rank_g = op.inputs[2].shape[0], op.inputs[0].shape.rank
    perm_g = list(range(a, a + k)) + list(range(a)) + list(range(a + k, rank_g))
    perm_p = [a] + list(range(a)) + list(range(a + 1, r))
    moved_shape = ex.one("Gather", [_as_int64(ex, params_shape), ex.ints(perm_p)], axis=0)
    zeros = ex.one("Expand", [ex.const(np.zeros((), op.inputs[0].dtype.np_dtype)), moved_shape])
    where = ex.one("Unsqueeze", [_as_int64(ex, indices), ex.ints([-1])])
    summed = ex.one("ScatterND", [zeros, where, ex.one("Transpose", [g], perm=perm_g)],
                    reduction="add")
    return [ex.one("Transpose", [summed], perm=[int(i) for i in np.argsort(perm_p)])]


def _broadcast_to(ex, op, ins):
    return [ex.one("Expand", [ins[0], ex.ints(op.attrs["shape"])])]


def _broadcast_like(ex, op, ins):
    return [ex.one("Expand", [ins[0], ex.one("Shape", [ins[1]])])]


# TensorArrays are ONNX sequences: a write at index i replaces item i when there is one,
# else inserts it (writes in order 0, 1, 2, ... as loops do; a write past the end fails).

def _ta_create(ex, op, ins):
    return [ex.one("SequenceEmpty", [], dtype=_to(ex, op.attrs["dtype"]))]


def _ta_write(ex, op, ins):
    seq, index, value = ins
    i = _as_int64(ex, index)
    n = ex.one("SequenceLength", [seq])
    elem = ex.seq[id(op.inputs[0])]
    saved_nodes, ex.nodes = ex.nodes, []
    replaced = ex.one("SequenceInsert", [ex.one("SequenceErase", [seq, i]), value, i])
    then_g = ex.helper.make_graph(ex.nodes, ex.fresh("replace"), [], [
        ex.helper.make_tensor_sequence_value_info(replaced, ex.elem_type(elem), None)])
    ex.nodes = []
    appended = ex.one("SequenceInsert", [seq, value, i])
    else_g = ex.helper.make_graph(ex.nodes, ex.fresh("insert"), [], [
        ex.helper.make_tensor_sequence_value_info(appended, ex.elem_type(elem), None)])
    ex.nodes = saved_nodes
    return [ex.one("If", [ex.one("Less", [i, n])], then_branch=then_g, else_branch=else_g)]


def _ta_read(ex, op, ins):
    return [ex.one("SequenceAt", ins)]


def _ta_stack(ex, op, ins):
    return [ex.one("ConcatFromSequence", ins, axis=0, new_axis=1)]


def _ta_size(ex, op, ins):
    from .core import dtypes
    return [ex.one("Cast", [ex.one("SequenceLength", ins)], to=_to(ex, dtypes.int32))]


def _ta_unstack(ex, op, ins):
    return [ex.one("SplitToSequence", ins, axis=0, keepdims=0)]


TENSOR_ARRAY_DTYPE = {  # the element dtype of the TensorArray an op gives
    "TensorArrayV3": lambda op: op.attrs["dtype"],
    "TensorArrayWriteV3": lambda op: op.inputs[2].dtype,
    "TensorArrayUnstack": lambda op: op.attrs["dtype_holder"],
}

RULES = {
    "Identity": _same("Identity"), "Const": _const, "ReadVariableOp": _read_variable,
    "StopGradient": _same("Identity"),
    "Neg": _same("Neg"), "Abs": _same("Abs"), "Sign": _same("Sign"), "Square": _square,
    "Sqrt": _same("Sqrt"), "Exp": _same("Exp"), "Log": _same("Log"), "Tanh": _same("Tanh"),
    "Sigmoid": _same("Sigmoid"), "Sin": _same("Sin"), "Cos": _same("Cos"),
    "LogicalNot": _same("Not"),
    "AddV2": _same("Add"), "Sub": _same("Sub"), "Mul": _same("Mul"), "RealDiv": _real_div,
    "FloorDiv": _floor_div, "FloorMod": _floor_mod, "Pow": _same("Pow"),
    "Maximum": _same("Max"), "Minimum": _same("Min"), "Equal": _same("Equal"),
    "NotEqual": _not("Equal"), "Less": _same("Less"), "LessEqual": _same("LessOrEqual"),
    "Greater": _same("Greater"), "GreaterEqual": _same("GreaterOrEqual"),
    "LogicalAnd": _same("And"), "LogicalOr": _same("Or"),
    "MatMul": _matmul,
    "Sum": _reduce("ReduceSum"), "Mean": _reduce("ReduceMean"), "Max": _reduce("ReduceMax"),
    "Min": _reduce("ReduceMin"), "Prod": _reduce("ReduceProd"),
    "Any": _reduce("ReduceMax", via_int=True), "All": _reduce("ReduceMin", via_int=True),
    "ArgMax": _arg("ArgMax"), "ArgMin": _arg("ArgMin"),
    "SelectV2": _same("Where"), "Where": _where_indices, "Cast": _cast,
    "Reshape": _reshape, "ReshapeDynamic": _reshape_dynamic, "Transpose": _transpose,
    "ExpandDims": _expand_dims, "Squeeze": _squeeze, "ConcatV2": _concat, "Pack": _pack,
    "Unpack": _unpack, "GatherV2": _gather, "Shape": _shape, "Size": _size, "Rank": _rank,
    "Fill": _fill, "FillDynamic": _fill_dynamic, "FullLike": _full_like,
    "Eye": _constant_of_kernel, "Range": _same("Range"), "StridedSlice": _strided_slice,
    "RandomUniform": _random("RandomUniform"), "RandomStandardNormal": _random("RandomNormal"),
    "TensorArrayV3": _ta_create, "TensorArrayWriteV3": _ta_write, "TensorArrayReadV3": _ta_read,
    "TensorArrayStack": _ta_stack, "TensorArraySizeV3": _ta_size,
    "TensorArrayUnstack": _ta_unstack,
    "SumTo": _sum_to, "SumLike": _sum_like, "BroadcastTo": _broadcast_to,
    "BroadcastLike": _broadcast_like, "StridedSliceGrad": _strided_slice_grad,
    "GatherGrad": _gather_grad, "PadV2": _pad, "MirrorPad": _mirror_pad, "PadGrad": _pad_grad,
}
