"""The one way to walk a graph: which ops run, in what order, what each is (by its
traits), and when each value is last read.

Every consumer of graphs — the numpy backend, ONNX export, eager replay, backprop's
replay, the optimiser, DOT pictures, saving — walks them through this module instead of
re-deciding placeholders, constants and control flow by op name:

    class Printer(walk.Visitor):
        def placeholder(self, op): ...
        def const(self, op): ...
        def cond(self, op): ...          # op.opdef.bodies(op): its then/else Bodies
        def while_loop(self, op): ...    # control.WhileInputs.of(op): its input layout
        def op(self, op): ...            # every other op
    Printer().walk(graph, outputs)

`schedule(graph, outputs)` gives the ops that the outputs and the side effects need, in
creation order (a valid execution order, and the program order of side effects);
`last_reads(ops, keep)` says after which op each value is dead.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from .control import CondDef, WhileDef


def needed(graph, outputs: Iterable) -> set:
    """ids of the ops of `graph` that `outputs` and the graph's side effects depend on."""
    stack = [t.op for t in outputs if t.op.graph is graph]
    stack += [op for op in graph.operations if op.opdef.side_effect]
    seen: set = set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in op.inputs:
            if id(t.op) not in seen:
                stack.append(t.op)
    return seen


def schedule(graph, outputs: Optional[Iterable] = None) -> list:
    """The ops to run for `outputs` (and every side effect), in creation order; every op
    of the graph when `outputs` is None."""
    if outputs is None:
        return list(graph.operations)
    keep = needed(graph, outputs)
    return [op for op in graph.operations if id(op) in keep]


def last_reads(ops: Sequence, keep: Iterable = ()) -> dict:
    """{index in `ops`: [tensors last read by that op]}: a value may be freed after the
    op that reads it last. Values in `keep` (the outputs) never die; a value no op reads
    dies at the op that makes it. A control-flow op's sub-graphs read only what it takes
    as inputs (their captures), so its inputs cover them."""
    kept = {id(t) for t in keep}
    last: dict = {}
    made: dict = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            last[id(t)] = (i, t)
        for t in op.outputs:
            made[id(t)] = (i, t)
    dead: dict = {}
    for key, (i, t) in made.items():
        if key in kept:
            continue
        j, _ = last.get(key, (i, t))
        dead.setdefault(j, []).append(t)
    return dead


class Visitor:
    """Dispatches each op of a walk on what it is. Override what you handle; by default
    placeholders are skipped and constants, conds and loops go to `op`."""

    def walk(self, graph, outputs: Optional[Iterable] = None) -> None:
        for op in schedule(graph, outputs):
            self.visit(op)

    def visit(self, op):
        d = op.opdef
        if d.feedable:
            return self.placeholder(op)
        if d.constant:
            return self.const(op)
        if isinstance(d, CondDef):
            return self.cond(op)
        if isinstance(d, WhileDef):
            return self.while_loop(op)
        return self.op(op)

    def placeholder(self, op):
        return None

    def const(self, op):
        return self.op(op)

    def cond(self, op):
        return self.op(op)

    def while_loop(self, op):
        return self.op(op)

    def op(self, op):
        raise NotImplementedError(f"{type(self).__name__} does not handle {op.type}")
