"""Constant folding: a pure op whose inputs are all constants runs once, now, and becomes
a Const holding its result.

Only ops flagged `pure` with a kernel are folded: never placeholders, random draws,
variable reads or writes, TensorArray ops, prints, asserts, or control flow. A kernel that
fails (say an integer division by zero) is left in the graph so the error still happens
when the graph runs, naming the user's line. Results larger than `MAX_ELEMENTS` stay
computed at run time, so graphs do not swell. A cond whose predicate is a constant is
replaced by the branch it takes. A captured constant is inlined into the sub-graphs that
use it (a cond's branches, a while's test and body), so folding goes on inside them.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes, walk
from ..control_flow import is_cond
from ..errors import InvalidArgumentError
from ..ops.core import IDENTITY
from .rewrite import bodies, const_value, is_control_flow, rebuild

MAX_ELEMENTS = 1_000_000


def fold_constants(graph, outputs: list) -> tuple:
    """(new graph, new outputs) with every foldable op replaced by a Const."""
    protected = returned_ops(outputs)
    new, outs, _ = rebuild(graph, outputs, lambda *a: fold(*a, protected=protected))
    return new, outs


def returned_ops(outputs) -> set:
    """ids of the ops whose values the graph returns (through Identity ops). They are not
    folded: a folded value would be one array shared by the results of every call, so a
    caller changing one result's array in place would change what later calls return."""
    ids = set()
    for t in outputs:
        op = t.op
        while op.opdef is IDENTITY:
            ids.add(id(op))
            op = op.inputs[0].op
        ids.add(id(op))
    return ids


def fold(ctx, op, inputs, attrs, protected=frozenset()):
    """The rebuild rule of this pass (runtime.optimize.rewrite): `op` as a constant when
    its inputs are constants, a captured constant inlined, a constant cond's branch."""
    d = op.opdef
    if d.feedable:
        src = ctx.param_sources.get(id(op.outputs[0]))
        value = const_value(src)
        if value is not None:  # a captured constant: inline it into the body
            return [ctx.const(value, src.dtype, op)]
        return None
    if is_cond(op):
        return _inline_branch(ctx, op, inputs, attrs)
    if (d.constant or is_control_flow(op) or not d.pure or d.kernel is None
            or id(op) in protected):
        return None
    values = [const_value(t) for t in inputs]
    if any(v is None for v in values):
        return None
    if any(t.dtype is dtypes.variant for t in (*inputs, *op.outputs)):
        return None
    try:
        with np.errstate(all="ignore"):
            result = d.kernel(*values, **attrs)
    except (ArithmeticError, ValueError, IndexError, TypeError, InvalidArgumentError):
        return None  # it fails at run time too, and reports there
    results = result if d.multi_output else (result,)
    if len(results) != len(op.outputs):
        return None
    arrays = []
    for r, t in zip(results, op.outputs):
        a = np.asarray(r)
        if (a.dtype != t.dtype.np_dtype or a.size > MAX_ELEMENTS
                or not t.shape.is_compatible_with(a.shape)):
            return None
        if a is r and any(np.shares_memory(a, v) for v in values if isinstance(v, np.ndarray)):
            a = a.copy()  # a view of another constant: own its data
        arrays.append(a)
    if len(arrays) == 1:
        return [ctx.const(arrays[0], op.outputs[0].dtype, op)]
    return [ctx.const(a, t.dtype, op, name=op.name) for a, t in zip(arrays, op.outputs)]


def _inline_branch(ctx, op, inputs, attrs):
    """A cond whose predicate is a constant becomes the branch it always takes: the
    branch's (already rewritten) ops move into the enclosing graph where the node stood,
    so side effects keep their order; each placeholder becomes an Identity of the input
    that fed it (anything still referring to it keeps working)."""
    pred = const_value(inputs[0])
    if pred is None or np.shape(pred) != ():
        return None
    body = attrs["then_body" if bool(pred) else "else_body"]
    g = ctx.graph
    feeds = {id(p): t for p, t in zip(body.params, inputs[1:]) if p is not None}
    ops = walk.schedule(body.graph)
    for sub in ops:
        if sub.opdef.feedable:
            src = feeds.get(id(sub.outputs[0]))
            if src is None:  # unfed: cannot happen for a well-formed node; keep the node
                return None
    for sub in ops:
        if sub.opdef.feedable:
            sub.opdef, sub.inputs, sub.attrs = IDENTITY, (feeds[id(sub.outputs[0])],), {}
        sub.graph = g
        sub.name = g.unique_name(f"{op.name}/{sub.name}")
        for b in bodies(sub):
            b.graph.outer = g
        g.append_operation(sub)
    return list(body.outputs)
