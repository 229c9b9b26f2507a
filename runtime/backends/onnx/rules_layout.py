"""The ONNX rules of the ops that make, reshape, slice, pad and broadcast arrays
(runtime/ops/core.py, array_ops.py, slicing.py, makers.py, broadcast_ops.py, pad_ops.py)
and of TensorArrays (ONNX sequences), with their limits; `lower_const` writes a Const
node, which the exporter's walker meets by its trait."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...ops import (array_ops, broadcast_ops, core as core_ops, makers, pad_ops, slicing,
                    tensor_array)
from ...ops.slicing import expand_ellipsis
from .rule_helpers import same

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


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
    return [ex.one("Cast", [ex.one("Shape", ins)], to=ex.elem_type(op.attrs["out_type"]))]


def _size(ex, op, ins):
    return [ex.one("Cast", [ex.one("Size", ins)], to=ex.elem_type(op.attrs["out_type"]))]


def _rank(ex, op, ins):
    return [ex.one("Cast", [ex.one("Size", [ex.one("Shape", ins)])], to=ex.elem_type(dtypes.int32))]


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
        return [ex.one("SequenceEmpty", [], dtype=ex.elem_type(dtype))]
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
    return [ex.one("Cast", [ex.one("SequenceLength", ins)], to=ex.elem_type(dtypes.int32))]


def _ta_unstack(ex, op, ins):
    return [ex.one("SplitToSequence", ins, axis=0, keepdims=0)]


TENSOR_ARRAY_DTYPE = {  # the element dtype of the TensorArray an op gives
    tensor_array.CREATE: lambda op: op.attrs["dtype"],
    tensor_array.WRITE: lambda op: op.inputs[2].dtype,
    tensor_array.UNSTACK: lambda op: op.attrs["dtype_holder"],
}

RULES = {
    core_ops.IDENTITY: same("Identity"), core_ops.STOP_GRADIENT: same("Identity"),
    array_ops.RESHAPE: _reshape, array_ops.RESHAPE_DYNAMIC: _reshape_dynamic,
    array_ops.TRANSPOSE: _transpose, array_ops.EXPAND_DIMS: _expand_dims,
    array_ops.SQUEEZE: _squeeze, array_ops.CONCAT: _concat, array_ops.STACK: _pack,
    array_ops.UNSTACK: _unpack, array_ops.SHAPE: _shape,
    array_ops.SIZE: _size, array_ops.RANK: _rank,
    makers.FILL: _fill, makers.FILL_DYNAMIC: _fill_dynamic, core_ops.FULL_LIKE: _full_like,
    makers.EYE: _constant_of_kernel, makers.RANGE: same("Range"),
    slicing.SLICE: _strided_slice,
    tensor_array.CREATE: _ta_create, tensor_array.WRITE: _ta_write,
    tensor_array.READ: _ta_read, tensor_array.SIZE: _ta_size,
    tensor_array.UNSTACK: _ta_unstack,
    broadcast_ops.SUM_TO: _sum_to, broadcast_ops.SUM_LIKE: _sum_like,
    broadcast_ops.BROADCAST_TO: _broadcast_to, broadcast_ops.BROADCAST_LIKE: _broadcast_like,
    slicing.SLICE_GRAD: _strided_slice_grad, array_ops.GATHER_GRAD: _gather_grad,
    pad_ops.PAD_GRAD: _pad_grad,
}
LIMITS = {
    slicing.SLICE: _slice_limits(0), slicing.SLICE_GRAD: _slice_limits(1),
    array_ops.GATHER_GRAD: _gather_grad_ranks,
    broadcast_ops.SUM_TO: _sum_back_ranks(1), broadcast_ops.SUM_LIKE: _sum_back_ranks(2),
    pad_ops.PAD: _pad_limits(False, False), pad_ops.MIRROR_PAD: _pad_limits(True, False),
    pad_ops.PAD_GRAD: _pad_limits(True, True),
}
