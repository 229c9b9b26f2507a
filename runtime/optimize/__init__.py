"""Graph optimisation passes, run once per concrete function before it is compiled.

Each pass takes a graph and the tensors it must compute and returns a new graph (the old
one is left as it was) with the matching new tensors; each recurses into the sub-graphs
of cond and while nodes. One pass per module:

- constant_folding: pure ops of constants become constants.
- simplify: x*1, x-0, neg(neg(x)), transpose(transpose(x)), identity chains...
- cse: duplicate pure ops (and equal constants) merge.
- prune: ops that neither the outputs nor a side effect need go.

`optimize(graph, outputs)` runs them in that order. Every rewrite keeps the values the
graph computes bit for bit, the side effects and their order, and the errors it raises
(a kernel that would fail is not folded away).
"""
from __future__ import annotations

from .constant_folding import fold_constants
from .cse import eliminate_common_subexpressions
from .prune import prune
from .rewrite import count_ops, set_captures
from .simplify import simplify_arithmetic

PASSES = (fold_constants, simplify_arithmetic, eliminate_common_subexpressions, prune)


def optimize(graph, outputs, passes=PASSES):
    """(optimised graph, its tensors for `outputs`). `graph.inputs` maps position by
    position to the new graph's `inputs`."""
    outputs = list(outputs)
    for p in passes:
        graph, outputs = p(graph, outputs)
    set_captures(graph)
    return graph, outputs


__all__ = ["PASSES", "count_ops", "eliminate_common_subexpressions", "fold_constants",
           "optimize", "prune", "simplify_arithmetic"]
