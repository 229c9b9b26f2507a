"""Dead-code pruning: keep what the outputs need and every side effect (with what they
need); drop the rest. Inside the bodies of cond and while nodes the same holds for the
body's results; a tensor captured by a body that no longer uses it stops being an input
of the node.

The placeholders of the top graph (the caller feeds them) and the loop-variable
placeholders of while bodies (the node still passes them) always stay. Ops with no side
effect that are not pure (a random draw, a variable read) are dropped when nothing uses
them, as the executor already does.
"""
from __future__ import annotations

from ..core import walk
from ..control_flow import Body, is_cond
from .rewrite import bodies, is_control_flow, rebuild


def _live(graph, outputs) -> tuple:
    """(ids of the live ops of `graph` and of its sub-graphs, ids of the placeholders that
    must stay). An op is live when the outputs or a side effect need it; the bodies of a
    live cond or while need their results and their own side effects (one walk over all
    graphs, `walk.needed_nested`, as a body may read an outer tensor directly)."""
    live = walk.needed_nested(graph, outputs)
    kept = {id(t) for t in graph.inputs}
    kept.update(id(op.outputs[0]) for op in graph.operations if op.opdef.feedable)
    _keep_body_inputs(graph, live, kept)
    return live, kept


def _keep_body_inputs(graph, live, kept) -> None:
    """Adds the inputs of the bodies of the live control-flow ops (recursively) to
    `kept`: the node still passes them."""
    for op in graph.operations:
        if id(op) in live:
            for b in bodies(op):
                kept.update(id(t) for t in b.graph.inputs)
                _keep_body_inputs(b.graph, live, kept)


def prune(graph, outputs: list) -> tuple:
    """(new graph, new outputs) without the dead ops."""
    live, kept = _live(graph, outputs)

    def rule(ctx, op, inputs, attrs):
        if op.opdef.feedable and id(op.outputs[0]) in kept:
            return None
        if id(op) not in live:
            return [None] * len(op.outputs)
        if is_control_flow(op):
            inputs, attrs = _drop_unused_inputs(op, inputs, attrs)
            return list(ctx.copy(op, inputs, attrs).outputs)
        return None

    new, outs, _ = rebuild(graph, outputs, rule)
    return new, outs


def _drop_unused_inputs(op, inputs, attrs):
    """A control-flow node's inputs and bodies without the fixed inputs (a cond's
    captures, a while's captured tensors) that no body reads any more."""
    names = op.opdef.body_attrs
    if is_cond(op):
        first, last = 1, len(inputs)
        param_offset = -1  # input i feeds params[i - 1]
    else:
        n = attrs["num_loop_vars"]
        first, last = n, len(inputs) - int(attrs["has_max"])
        param_offset = 0   # input i feeds params[i]
    drop = {i for i in range(first, last)
            if all(attrs[k].params[i + param_offset] is None for k in names)}
    if not drop:
        return inputs, attrs
    attrs = dict(attrs)
    for k in names:
        b = attrs[k]
        params = [p for j, p in enumerate(b.params) if j - param_offset not in drop]
        attrs[k] = Body(b.graph, params, b.outputs)
    return [t for i, t in enumerate(inputs) if i not in drop], attrs
