"""Static analyses of the graphs the XLA backend lowers (`backend`): which ops cannot
lower and why (`reason`), which sub-graphs are calm (cheap, no effect: a cond may run both
branches and select, a loop test may be XLA's cond_fun), which ops have deferred run-time
checks, and which loop counters stay within a known bound (so indexing with them needs no
check).
"""
from __future__ import annotations

import numpy as np

from ... import control_flow
from ...core import dtypes
from ...core import opdef as core_opdef
from ...ops import (array_ops, broadcast_ops, core, io_ops, list_ops, makers, math_ops,
                    reduce_ops, slicing, string_ops, tensor_array)
from .rules import HOST_OPS, RULES

_B = math_ops.BINARY
_FLOOR_DIV_MOD = (_B["FloorDiv"], _B["FloorMod"])   # checked unless by a constant


# -- calm sub-graphs: both branches of a cond may run (a select), a loop test in cond_fun --

def _calm_ops():
    calm = {*math_ops.UNARY.values(), *_B.values(), *reduce_ops.REDUCE.values()}
    calm -= set(_FLOOR_DIV_MOD)  # unless by a constant (below)
    calm |= {core.IDENTITY, core.STOP_GRADIENT, core.FULL_LIKE, core.STACK, math_ops.CAST,
             math_ops.SELECT, math_ops.MATMUL, array_ops.RESHAPE, array_ops.TRANSPOSE,
             array_ops.EXPAND_DIMS, array_ops.SQUEEZE, array_ops.CONCAT, makers.FILL,
             broadcast_ops.BROADCAST_TO, broadcast_ops.SUM_TO}
    return calm


CALM = _calm_ops()


def calm_size(body, budget: int):
    """How many ops `body` runs when it is calm: no side effect, no state, no run-time
    check (so running it when it is not taken changes nothing), each op cheap; None when
    it is not, or when it runs more than `budget` ops."""
    count = 0
    for op in body.graph.operations:
        d = op.opdef
        if d.feedable or d.constant:
            continue
        if isinstance(d, control_flow.CondDef):
            inner = [calm_size(b, budget - count) for b in d.bodies(op)]
            if None in inner:
                return None
            count += sum(inner)
        elif d in CALM or (d in _FLOOR_DIV_MOD
                           and (op.inputs[1].dtype.is_floating
                                or (op.inputs[1].op.opdef.constant
                                    and np.all(op.inputs[1].op.attrs["value"])))):
            count += 1
        else:
            return None
        if count > budget or any(t.dtype is dtypes.variant for t in op.outputs):
            return None
    return count


# (a host call fails as a deferred check)
MAY_FAIL = {*_FLOOR_DIV_MOD, array_ops.GATHER, slicing.SLICE,
            slicing.SLICE_GRAD, *HOST_OPS, makers.RANGE, tensor_array.READ, tensor_array.WRITE}


def may_fail(op) -> bool:
    """Whether the lowered op may have a deferred run-time check."""
    d = op.opdef
    if d not in MAY_FAIL:
        return any(may_fail(o) for b in d.bodies(op) for o in b.graph.operations)
    if d in _FLOOR_DIV_MOD:
        y = op.inputs[1]
        return y.dtype.is_integer and not (y.op.opdef.constant and np.all(y.op.attrs["value"]))
    if d is slicing.SLICE:
        return len(op.inputs) > 1
    if d is array_ops.GATHER:
        return not op.inputs[1].op.opdef.constant
    return True


def _step(body, k, opdef):
    """The constant `c` when the loop body's output k is `loop variable k <opdef> c` (an
    add or a subtract of a constant), else None."""
    step = body.outputs[k].op
    if step.opdef is opdef and step.inputs[0] is body.params[k] and \
            step.inputs[1].op.opdef.constant:
        return step.inputs[1].op.attrs["value"]
    return None


def loop_counters(op, values) -> list:
    """The loop variables of while node `op` that count up from a known non-negative start
    while below a bound: [(k, start, bound, m)], where `bound` is an int (known while
    tracing: an input, or a constant of the test itself, as the graph optimizer leaves a
    `for i in rt.range(50)`), or None and m is the node input index of a tensor whose
    length is the bound (the test reads `rt.shape(x)[0]`, as a staged `for` over `x`
    does). In the body, such a counter is in [start, bound): indexing with it needs no
    check. `values` are the node's lowered inputs."""
    n = op.attrs["num_loop_vars"]
    cond_body, body = op.opdef.bodies(op)
    test = cond_body.outputs[0].op
    if test.opdef is not _B["Less"]:
        return []
    a, b = test.inputs
    params = cond_body.params
    k = next((i for i, p in enumerate(params[:n]) if p is a), None)
    if k is None or not isinstance(values[k], (np.ndarray, np.generic)) or \
            np.ndim(values[k]) or values[k].dtype.kind not in "iu" or values[k] < 0:
        return []
    c = _step(body, k, _B["AddV2"])
    if c is None or np.ndim(c) or c < 0:
        return []
    if b.op.opdef.constant:
        limit = b.op.attrs["value"]
        if np.ndim(limit) or np.asarray(limit).dtype.kind not in "iu":
            return []
        return [(k, int(values[k]), int(limit), None)]
    j = next((i for i, p in enumerate(params) if p is b and i >= n), None)
    if j is None:
        return []
    bound = values[j]
    if isinstance(bound, (np.ndarray, np.generic)):
        return [(k, int(values[k]), int(bound), None)]
    length = op.inputs[j].op  # rt.shape(x)[0]
    if length.opdef is not slicing.SLICE or length.attrs["spec"] != (("int", 0),) or \
            len(length.inputs) != 1 or length.inputs[0].op.opdef is not array_ops.SHAPE:
        return []
    x = length.inputs[0].op.inputs[0]
    end = len(op.inputs) - (1 if op.attrs["has_max"] else 0)
    m = next((i for i in range(n, end) if op.inputs[i] is x), None)
    return [] if m is None else [(k, int(values[k]), None, m)]


def trip_bound(op, values, known_range) -> int | None:
    """A bound on how many times while node `op` iterates, known while tracing: its
    maximum_iterations, or, when its test is `k < b` for an integer loop variable `k` of
    known start that each iteration adds a constant of at least 1 to, and `b` a
    constant, an input known while tracing or one that `known_range` says is below an
    int, the distance from the start to `b`; or, when it is `k >= c` for a constant `c`
    and a `k` that each iteration subtracts at least 1 from, starting below an int
    known while tracing (a gradient's loop counting the forward loop's iterations
    down), the distance from there to `c`. None when none is known."""
    bounds = []
    if op.attrs["has_max"] and isinstance(values[-1], (np.ndarray, np.generic)):
        bounds.append(max(int(values[-1]), 0))
    n = op.attrs["num_loop_vars"]
    cond_body, body = op.opdef.bodies(op)
    test = cond_body.outputs[0].op
    if test.opdef is _B["Less"]:
        a, b = test.inputs
        k = next((i for i, p in enumerate(cond_body.params[:n]) if p is a), None)
        j = next((i for i, p in enumerate(cond_body.params) if p is b and i >= n), None)
        start = None if k is None else values[k]
        c = None if k is None else _step(body, k, _B["AddV2"])
        if isinstance(start, (np.ndarray, np.generic)) and start.dtype.kind in "iu" and \
                c is not None and np.min(c) >= 1:
            limit = None
            if b.op.opdef.constant:
                limit = b.op.attrs["value"]
            elif j is not None and isinstance(values[j], (np.ndarray, np.generic)):
                limit = values[j]
            elif j is not None:
                known = known_range(values[j])
                if known and isinstance(known[1], int):
                    limit = known[1] - 1   # below the int: at most one less
            if limit is not None and np.ndim(limit) == 0 and np.ndim(start) == 0:
                bounds.append(max(int(np.ceil(limit)) - int(start), 0))
    elif test.opdef is _B["GreaterEqual"]:   # k >= c, k counting down (a
        a, b = test.inputs                              # backward loop of a gradient)
        k = next((i for i, p in enumerate(cond_body.params[:n]) if p is a), None)
        c = None if k is None else _step(body, k, _B["Sub"])
        if c is not None and np.min(c) >= 1 and b.op.opdef.constant and \
                np.ndim(b.op.attrs["value"]) == 0:
            start = values[k]
            top: int | None
            if isinstance(start, (np.ndarray, np.generic)) and start.dtype.kind in "iu":
                top = int(start)
            else:
                known = known_range(start)
                top = known[1] - 1 if known and isinstance(known[1], int) else None
            if top is not None:
                bounds.append(max(top - int(np.ceil(b.op.attrs["value"])) + 1, 0))
    return min(bounds) if bounds else None


def induction_ranges(op, values, trips) -> list:
    """The loop variables of while node `op` that start at an int known while tracing and
    that each iteration changes by a constant int (an index moving in step with the
    counter the test reads, as in rt.scan's loop or a gradient's loop counting down):
    [(k, lo, hi)], variable k in [lo, hi) in every iteration, for a loop of at most
    `trips` iterations (trip_bound; none known: no ranges). Indexing with such a
    variable within its range needs no check."""
    if not trips:
        return []
    n = op.attrs["num_loop_vars"]
    body = op.opdef.bodies(op)[1]
    found = []
    for k in range(n):
        start = values[k]
        if not isinstance(start, (np.ndarray, np.generic)) or np.ndim(start) or \
                start.dtype.kind not in "iu":
            continue
        step = None
        for opdef, sign in ((_B["AddV2"], 1), (_B["Sub"], -1)):
            c = _step(body, k, opdef)
            if c is not None and np.ndim(c) == 0 and np.asarray(c).dtype.kind in "iu":
                step = sign * int(c)
        if step is None:
            continue
        first, last = int(start), int(start) + step * (trips - 1)
        lo, hi = min(first, last), max(first, last) + 1
        limits = np.iinfo(start.dtype)
        if limits.min <= lo and hi - 1 <= limits.max:   # (no wrapping on the way)
            found.append((k, lo, hi))
    return found


def iteration_counters(op, values) -> list:
    """The loop variables of while node `op` that start at an int known while tracing and
    that each iteration adds exactly 1 to: [(k, start)] (after a loop of at most B
    iterations, variable k is in [start, start + B])."""
    n = op.attrs["num_loop_vars"]
    body = op.opdef.bodies(op)[1]
    found = []
    for k in range(n):
        c = _step(body, k, _B["AddV2"])
        if c is not None and np.all(c == 1) and np.ndim(values[k]) == 0 and \
                isinstance(values[k], (np.ndarray, np.generic)) and values[k].dtype.kind in "iu":
            found.append((k, int(values[k])))
    return found


# -- what cannot lower ---------------------------------------------------------------------

_WHY = {
    io_ops.PY_FUNC: "py_function runs Python with results of unknown shape",
}
for _d in list_ops.OPS:
    _WHY[_d] = ("a list that a staged construct appends to grows while the graph runs; XLA "
                "needs fixed sizes: use an rt.TensorArray of known size")
for _d in string_ops.OPS:
    _WHY[_d] = "XLA has no string type"


def reason(op):
    """Why `op` cannot lower to XLA, before tracing; None when it may."""
    d = op.opdef
    if d in _WHY:
        return _WHY[d]
    if d.feedable or d.constant or isinstance(d, (control_flow.CondDef, control_flow.WhileDef)):
        pass
    elif d not in RULES:
        return "the XLA backend has no rule for this op"
    for t in list(op.inputs) + list(op.outputs):
        if t.dtype is dtypes.string:
            return "XLA has no string type"
    return None


def check_table_covers(registry: dict) -> list:
    """The registered ops with neither a rule nor a reason (tests keep this empty)."""
    structural = (core_opdef.CONST, core_opdef.PLACEHOLDER, *control_flow.OPS)
    return sorted(name for name, d in registry.items()
                  if d not in RULES and d not in _WHY and d not in structural)


def _carried_shape(value):
    """A loop variable's shape (a TensorArray's: its buffer's, None while it has none)."""
    if hasattr(value, "buffer") and value.buffer is None:
        return None
    buffer = getattr(value, "buffer", value)
    return tuple(getattr(buffer, "shape", np.shape(buffer)))


def carry_change(op, before, after):
    """Why XLA cannot compile the while node `op` whose loop variables are `before` when
    the loop starts and `after` one iteration (values or shapes), naming the first
    variable whose shape changes; None when none does."""
    body = op.opdef.bodies(op)[1]
    for k, (a, b) in enumerate(zip(before, after)):
        sa, sb = _carried_shape(a), _carried_shape(b)
        if sa is None or sb is None or sa == sb:
            continue
        where = ""
        if op.location:
            fn, line, func = op.location
            where = f" at {fn}:{line} (in {func})"
        return (f"the loop{where} changes the shape of '{body.params[k].op.name}' from "
                f"{sa} before the loop to {sb} after one "
                "iteration. The numpy backend runs such a loop (the variable's shape is "
                "relaxed), but XLA compiles a loop only when every variable keeps its shape: "
                "write each iteration's value into an rt.TensorArray of a known size (or a "
                "tensor of the final shape), or call the function without jit_compile")
    return None
