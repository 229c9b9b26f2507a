"""Graph optimisation passes, run once per concrete function before it is compiled.

Each pass takes a graph and the tensors it must compute and returns a new graph (the old
one is left as it was) with the matching new tensors; each recurses into the sub-graphs
of cond and while nodes. One pass per module:

- constant_folding: pure ops of constants become constants.
- simplify: x*1, x-0, neg(neg(x)), transpose(transpose(x)), identity chains...
- cse: duplicate pure ops (and equal constants) merge.
- prune: ops that neither the outputs nor a side effect need go.

`optimize(graph, outputs)` runs them (the first three in one sweep). Every rewrite keeps
the values, the side effects and their order, and the errors (docs/architecture.md, Ops).
"""
from __future__ import annotations

from ..core.graph import Graph
from .constant_folding import fold, fold_constants, returned_ops
from .cse import CSE, eliminate_common_subexpressions
from .prune import prune
from .rewrite import count_ops, rebuild, set_captures
from .simplify import simplify, simplify_arithmetic

# Folding first: it makes the constants simplification looks for (x * (3 - 2)). CSE after
# both: it merges what they leave, folded constants included. Pruning last: every earlier
# rewrite leaves dead ops behind.
PASSES = (fold_constants, simplify_arithmetic, eliminate_common_subexpressions, prune)


def optimize(graph: Graph, outputs: list, passes=None) -> tuple:
    """(optimised graph, its tensors for `outputs`); the new graph's `inputs` match
    `graph.inputs` position by position. By default folding, simplification and CSE run
    together in one sweep (each op sees its inputs already rewritten, so the rewrites
    cascade: a simplified op may fold, a folded constant merges with an equal one), then
    pruning. `passes` runs the given passes one after the other instead."""
    outputs = list(outputs)
    if passes is None:
        graph, outputs = rewrite_ops(graph, outputs)
        graph, outputs = prune(graph, outputs)
    else:
        for p in passes:
            graph, outputs = p(graph, outputs)
    set_captures(graph)
    return graph, outputs


def rewrite_ops(graph: Graph, outputs: list) -> tuple:
    """Constant folding, arithmetic simplification and CSE in one rebuild of the graph."""
    cse = CSE()
    protected = returned_ops(outputs)

    def rule(ctx, op, inputs, attrs):
        start = len(ctx.graph.operations)
        result = fold(ctx, op, inputs, attrs, protected)
        if result is None:
            result = simplify(ctx, op, inputs, attrs)
            if result is not None and id(op) in protected and any(
                    t.op.opdef.constant for t in result):
                result = None  # a returned value stays computed (see returned_ops)
        if result is None:
            return cse.rule(ctx, op, inputs, attrs)
        added = {id(o): cse.dedupe(ctx, o) for o in ctx.graph.operations[start:]}
        return [added[id(t.op)][t.value_index] if id(t.op) in added else t for t in result]

    new, outs, _ = rebuild(graph, outputs, rule)
    return new, outs


__all__ = ["PASSES", "count_ops", "eliminate_common_subexpressions", "fold_constants",
           "optimize", "prune", "rewrite_ops", "simplify_arithmetic"]
