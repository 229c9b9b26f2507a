"""The ONNX rule of each op: `RULES[opdef](exporter, op, input names) -> output names`,
keyed by the ops' OpDef objects and written with the exporter's `one`/`add`/`const`
helpers (see onnx_export.py), and why an op cannot be exported (`unsupported_reason`:
ops with no ONNX equivalent, and the `LIMITS` of the ops that have one).

Placeholders, constants and control flow are not in the table: the exporter's graph
walker meets them by their traits (a constant is written by `lower_const`)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...core import dtypes
from ...control_flow import CondDef, WhileDef
from ...ops import (array_ops, broadcast_ops, core as core_ops, io_ops, makers, math_ops,
                  pad_ops, random_ops, reduce_ops, slicing, state_ops, string_ops,
                  tensor_array)
from ...ops.slicing import expand_ellipsis

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def unsupported_reason(op) -> Optional[str]:
    """Why the graph operation `op` cannot be exported to ONNX, or None when it can.

    `rt.onnx.export` checks every op of a graph with it before writing anything.

    Args:
      op: an Operation of a graph (e.g. from `concrete_fn.graph.get_operations()`).

    Returns:
      A str saying why (a Python call, a variable write, an op with no ONNX equivalent),
      or None.

    >>> g = rt.function(lambda x: rt.py_function(lambda v: v, [x], rt.float32),
    ...                 input_signature=[rt.TensorSpec([], rt.float32)])
    >>> ops = g.get_concrete_function().graph.get_operations()
    >>> [(op.name, rt.onnx.unsupported_reason(op)) for op in ops]
    [('x', None), ('EagerPyFunc', 'rt.py_function calls Python'), ('Identity', None)]
    """
    d = op.opdef
    if d in NO_EQUIVALENT:
        return NO_EQUIVALENT[d]
    if d.calls_python:
        return "rt.py_function calls Python"
    if d.writes_variables:
        return "ONNX models hold no mutable state (variable writes)"
    if d.constant:
        if op.outputs[0].dtype.name == "variant":
            return "a constant TensorArray is not exported"
        return None
    if d.feedable or isinstance(d, (CondDef, WhileDef)):
        return None
    if d not in RULES:
        return "no ONNX rule for this op yet"
    limit = LIMITS.get(d)
    return limit(op) if limit is not None else None


NO_EQUIVALENT = {
    io_ops.PRINT: "rt.print has no ONNX equivalent (export with drop_prints=True to leave it out)",
    io_ops.ASSERT: "run-time assertions have no ONNX equivalent (drop_asserts=True leaves them out)",
    string_ops.JOIN: "string ops are not exported", string_ops.LENGTH: "string ops are not exported",
    string_ops.AS_STRING: "string ops are not exported",
    random_ops.UNIFORM_INT: "ONNX draws random floats only",
}


# -- the limits of the ops that have a rule: a reason when this op cannot be exported --------

def _string_concat(op):
    if op.inputs[0].dtype.is_string:
        return "string concatenation has no ONNX operator in opset 17"
    return None


def _string_cast(op):
    if op.inputs[0].dtype.is_string or op.attrs["dtype"].is_string:
        return "casts to and from strings are not exported"
    return None


def _random_floats(op):
    if not op.attrs["dtype"].is_floating:
        return "ONNX draws random floats only"
    return None


def _matmul_ranks(op):
    if (op.attrs["transpose_a"] or op.attrs["transpose_b"]) and any(
            x.shape.rank is None for x in op.inputs):
        return "transposed operands need a known rank"
    return None


def _tensor_step(op):
    if any(s[0] == "slice" and isinstance(s[3], tuple) for s in op.attrs["spec"]):
        return "a slice step given as a tensor is not exported"
    return None


def _slice_limits(x_index):
    def limits(op):
        if op.inputs[x_index].shape.rank is None:
            return "slicing needs the input's rank"
        return _tensor_step(op)
    return limits


def _gather_grad_ranks(op):
    if (op.inputs[0].shape.rank is None or op.inputs[1].shape.rank is None
            or op.inputs[2].shape.rank != 1 or op.inputs[2].shape[0] is None):
        return "needs the ranks of the gradient, the indices and the params"
    return None


def _sum_back_ranks(n_inputs):
    def limits(op):
        if any(t.shape.rank is None for t in op.inputs[:n_inputs]):
            return "summing a broadcast value back needs known ranks"
        return None
    return limits


def _pad_limits(mirrored, gradient):
    def limits(op):
        if op.inputs[0].dtype.is_string:
            return "string ops are not exported"
        if mirrored and op.attrs["mode"] == "SYMMETRIC":
            return "ONNX Pad has no SYMMETRIC mode (it has constant, reflect and edge)"
        if gradient and op.attrs["mode"] != "CONSTANT":
            return ("the gradient of REFLECT padding (adding mirrored values back) has no "
                    "ONNX operator")
        return None
    return limits


LIMITS = {
    math_ops.BINARY["AddV2"]: _string_concat, math_ops.CAST: _string_cast,
    random_ops.UNIFORM: _random_floats, random_ops.NORMAL: _random_floats,
    math_ops.MATMUL: _matmul_ranks,
    slicing.SLICE: _slice_limits(0), slicing.SLICE_GRAD: _slice_limits(1),
    array_ops.GATHER_GRAD: _gather_grad_ranks,
    broadcast_ops.SUM_TO: _sum_back_ranks(1), broadcast_ops.SUM_LIKE: _sum_back_ranks(2),
    pad_ops.PAD: _pad_limits(False, False), pad_ops.MIRROR_PAD: _pad_limits(True, False),
    pad_ops.PAD_GRAD: _pad_limits(True, True),
}


# -- the rules ---------------------------------------------------------------------------------

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
        ins = [ex.one("Cast", [i], to=_to(ex, dtypes.float64)) for i in ins]
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
            x = ex.one("Cast", [x], to=_to(ex, dtypes.int32))
        if onnx_type == "ReduceSum":  # axes is an input from opset 13
            out = ex.one(onnx_type, [x] + ([ex.ints(axes)] if axes is not None else []),
                         keepdims=keep)
        else:
            attrs = {"axes": list(axes)} if axes is not None else {}
            out = ex.one(onnx_type, [x], keepdims=keep, **attrs)
        if via_int:
            out = ex.one("Cast", [out], to=_to(ex, dtypes.bool_))
        return [out]
    return rule


def _where_indices(ex, op, ins):
    return [ex.one("Transpose", [ex.one("NonZero", ins)], perm=[1, 0])]


def _cast(ex, op, ins):
    return [ex.one("Cast", ins, to=_to(ex, op.attrs["dtype"]))]


def _reshape(ex, op, ins):
    shape = list(op.attrs["shape"])
    return [ex.one("Reshape", [ins[0], ex.ints(shape)], allowzero=int(0 in shape))]


def _reshape_dynamic(ex, op, ins):
    return [ex.one("Reshape", [ins[0], ex.as_int64(ins[1])], allowzero=1)]


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


def _shape(ex, op, ins):
    return [ex.one("Cast", [ex.one("Shape", ins)], to=_to(ex, op.attrs["out_type"]))]


def _size(ex, op, ins):
    return [ex.one("Cast", [ex.one("Size", ins)], to=_to(ex, op.attrs["out_type"]))]


def _rank(ex, op, ins):
    return [ex.one("Cast", [ex.one("Size", [ex.one("Shape", ins)])], to=_to(ex, dtypes.int32))]


def _fill(ex, op, ins):
    return [ex.one("Expand", [ins[0], ex.ints(op.attrs["shape"])])]


def _fill_dynamic(ex, op, ins):
    return [ex.one("Expand", [ins[1], ex.as_int64(ins[0])])]


def _full_like(ex, op, ins):
    value = np.asarray(op.attrs["fill_value"], dtype=op.attrs["dtype"].np_dtype)
    return [ex.one("Expand", [ex.const(value), ex.one("Shape", ins)])]


def _constant_of_kernel(ex, op, ins):
    return [ex.const(op.opdef.kernel(**op.attrs))]


def lower_const(ex, op, ins):
    """A Const node (met by the walker's `const`, not through RULES)."""
    return [ex.const(op.attrs["value"])]


def _read_variable(ex, op, ins):
    v = op.attrs["variable"]
    return [ex.const(np.asarray(v._value, dtype=v.dtype.np_dtype))]


def _random(onnx_type, keys):
    """`keys`: the ONNX attributes taking the op's two `params`."""
    def rule(ex, op, ins):
        a, b = op.attrs["params"]
        return [ex.one(onnx_type, [], dtype=_to(ex, op.attrs["dtype"]),
                       shape=list(op.attrs["shape"]), **{keys[0]: float(a), keys[1]: float(b)})]
    return rule


def _pad_grad(ex, op, ins):
    """CONSTANT only (see unsupported_reason): the middle of the gradient, a Slice from
    the befores to the shape minus the afters."""
    g, paddings = ins[0], ex.as_int64(ins[1])
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
                                                    ex.const(np.int64(1))]), shape], allowzero=1)
    taken = _slice(ex, positions, tensors, op.attrs["spec"], op.inputs[1].shape.rank)
    flat = ex.ints([-1])
    zeros = ex.one("Reshape", [ex.one("Expand", [ex.const(np.zeros((), op.inputs[0].dtype.np_dtype)),
                                                 shape]), flat])
    out = ex.one("ScatterElements", [zeros, ex.one("Reshape", [taken, flat]),
                                     ex.one("Reshape", [g, flat])], axis=0)
    return [ex.one("Reshape", [out, shape], allowzero=1)]


def _slice(ex, x, tensors, spec, rank):
    """numpy basic indexing: one Slice over the sliced axes, then Squeeze for integer
    indices and Unsqueeze for `None`s."""
    spec = expand_ellipsis(spec, rank)

    def scalar(v, default):
        if v is None:
            return ex.ints([default])
        if isinstance(v, tuple):
            return ex.one("Unsqueeze", [ex.as_int64(tensors[v[1] - 1]), ex.ints([0])])
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
            start, end = scalar(b, INT64_MAX if neg else 0), scalar(e, INT64_MIN if neg else INT64_MAX)
            if neg and b is not None and not (isinstance(b, int) and b >= 0):
                # numpy: a start before the first element, going down, takes nothing;
                # ONNX clamps it to the first element: an end past the start then (the
                # dimension's size; onnxruntime reads INT64_MAX as "to the end" here)
                n = ex.one("Gather", [ex.one("Shape", [x]), ex.ints([d])], axis=0)
                end = ex.one("Where", [ex.one("Less", [ex.one("Add", [start, n]), ex.ints([0])]),
                                       n, end])
            starts.append(start)
            ends.append(end)
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
    split = ex.one("Reshape", [g, ex.one("Reshape", [pairs, ex.ints([-1])])], allowzero=1)
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
    moved_shape = ex.one("Gather", [ex.as_int64(params_shape), ex.ints(perm_p)], axis=0)
    zeros = ex.one("Expand", [ex.const(np.zeros((), op.inputs[0].dtype.np_dtype)), moved_shape])
    where = ex.one("Unsqueeze", [ex.as_int64(indices), ex.ints([-1])])
    summed = ex.one("ScatterND", [zeros, where, _permuted(ex, g, perm_g)], reduction="add")
    return [_permuted(ex, summed, [int(i) for i in np.argsort(perm_p)])]


def _permuted(ex, x, perm):
    """Transpose by `perm`; x itself where perm keeps the order (a scalar's perm is [],
    which ONNX's attribute cannot hold)."""
    if perm == list(range(len(perm))):
        return x
    return ex.one("Transpose", [x], perm=perm)


def _broadcast_to(ex, op, ins):
    return [ex.one("Expand", [ins[0], ex.ints(op.attrs["shape"])])]


def _broadcast_like(ex, op, ins):
    return [ex.one("Expand", [ins[0], ex.one("Shape", [ins[1]])])]


# TensorArrays are ONNX sequences: a write at index i replaces item i when there is one,
# else inserts it (writes in order 0, 1, 2, ... as loops do; a write past the end fails).

def _ta_create(ex, op, ins):
    """An empty sequence; one made with a size and a known element shape holds `size`
    zeros (ours reads and stacks an element never written as zeros: a sequence of the
    written items only would stack fewer rows)."""
    shape, dtype = op.attrs["element_shape"], op.attrs["dtype"]
    if op.attrs["dynamic_size"] or not shape.is_fully_defined():
        return [ex.one("SequenceEmpty", [], dtype=_to(ex, dtype))]
    dims = ex.one("Concat", [ex.one("Reshape", [ex.as_int64(ins[0]), ex.ints([1])]),
                             ex.ints(shape.as_list())], axis=0)
    zeros = ex.one("Expand", [ex.const(np.zeros((), dtype.np_dtype)), dims])
    return [ex.one("SplitToSequence", [zeros], axis=0, keepdims=0)]


def _ta_write(ex, op, ins):
    seq, index, value = ins
    i = ex.as_int64(index)
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


def _ta_size(ex, op, ins):
    return [ex.one("Cast", [ex.one("SequenceLength", ins)], to=_to(ex, dtypes.int32))]


def _ta_unstack(ex, op, ins):
    return [ex.one("SplitToSequence", ins, axis=0, keepdims=0)]


TENSOR_ARRAY_DTYPE = {  # the element dtype of the TensorArray an op gives
    tensor_array.CREATE: lambda op: op.attrs["dtype"],
    tensor_array.WRITE: lambda op: op.inputs[2].dtype,
    tensor_array.UNSTACK: lambda op: op.attrs["dtype_holder"],
}

_U, _B, _R = math_ops.UNARY, math_ops.BINARY, reduce_ops.REDUCE
RULES = {
    core_ops.IDENTITY: _same("Identity"), state_ops.READ: _read_variable,
    core_ops.STOP_GRADIENT: _same("Identity"),
    _U["Neg"]: _same("Neg"), _U["Abs"]: _same("Abs"), _U["Sign"]: _same("Sign"),
    _U["Square"]: _square, _U["Sqrt"]: _same("Sqrt"), _U["Exp"]: _same("Exp"),
    _U["Log"]: _same("Log"), _U["Tanh"]: _same("Tanh"), _U["Sigmoid"]: _same("Sigmoid"),
    _U["Sin"]: _same("Sin"), _U["Cos"]: _same("Cos"), _U["LogicalNot"]: _same("Not"),
    _B["AddV2"]: _same("Add"), _B["Sub"]: _same("Sub"), _B["Mul"]: _same("Mul"),
    _B["RealDiv"]: _real_div, _B["Maximum"]: _same("Max"), _B["Minimum"]: _same("Min"),
    _B["Equal"]: _same("Equal"), _B["NotEqual"]: _not("Equal"), _B["Less"]: _same("Less"),
    _B["LessEqual"]: _same("LessOrEqual"), _B["Greater"]: _same("Greater"),
    _B["GreaterEqual"]: _same("GreaterOrEqual"), _B["LogicalAnd"]: _same("And"),
    _B["LogicalOr"]: _same("Or"),
    math_ops.MATMUL: _matmul,
    _R["Sum"]: _reduce("ReduceSum"), _R["Prod"]: _reduce("ReduceProd"),
    _R["All"]: _reduce("ReduceMin", via_int=True),
    math_ops.SELECT: _same("Where"), math_ops.WHERE_INDICES: _where_indices,
    math_ops.CAST: _cast,
    array_ops.RESHAPE: _reshape, array_ops.RESHAPE_DYNAMIC: _reshape_dynamic,
    array_ops.TRANSPOSE: _transpose, array_ops.EXPAND_DIMS: _expand_dims,
    array_ops.SQUEEZE: _squeeze, array_ops.CONCAT: _concat, array_ops.STACK: _pack,
    array_ops.UNSTACK: _unpack, array_ops.SHAPE: _shape,
    array_ops.SIZE: _size, array_ops.RANK: _rank,
    makers.FILL: _fill, makers.FILL_DYNAMIC: _fill_dynamic, core_ops.FULL_LIKE: _full_like,
    makers.EYE: _constant_of_kernel, makers.RANGE: _same("Range"),
    slicing.SLICE: _strided_slice,
    random_ops.UNIFORM: _random("RandomUniform", ("low", "high")),
    random_ops.NORMAL: _random("RandomNormal", ("mean", "scale")),
    tensor_array.CREATE: _ta_create, tensor_array.WRITE: _ta_write,
    tensor_array.READ: _ta_read, tensor_array.SIZE: _ta_size,
    tensor_array.UNSTACK: _ta_unstack,
    broadcast_ops.SUM_TO: _sum_to, broadcast_ops.SUM_LIKE: _sum_like,
    broadcast_ops.BROADCAST_TO: _broadcast_to, broadcast_ops.BROADCAST_LIKE: _broadcast_like,
    slicing.SLICE_GRAD: _strided_slice_grad, array_ops.GATHER_GRAD: _gather_grad,
    pad_ops.PAD_GRAD: _pad_grad,
}
from . import rules_math as onnx_rules_math
RULES.update(onnx_rules_math.RULES)
NO_EQUIVALENT.update(onnx_rules_math.NO_EQUIVALENT)
LIMITS.update(onnx_rules_math.LIMITS)
from . import rules_nn as onnx_rules_nn
from . import rules_structure as onnx_rules_structure
RULES.update(onnx_rules_structure.RULES)
NO_EQUIVALENT.update(onnx_rules_structure.NO_EQUIVALENT)
from . import rules_edges as onnx_rules_edges
RULES.update(onnx_rules_edges.RULES)
LIMITS.update(onnx_rules_edges.LIMITS)
