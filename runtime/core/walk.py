"""The one way to walk a graph: which ops run, in creation order (`schedule`, `needed`,
`needed_nested`), what each reads (`reads`), when each value is last read (`last_reads`),
and `Visitor`, which dispatches each op on its traits. Every consumer of graphs (the
backends, eager replay, backprop, the optimiser, DOT, saving) walks them here instead of
deciding placeholders, constants and control flow by op name."""
from __future__ import annotations

from typing import Iterable, Optional, Sequence


def needed(graph, outputs: Iterable) -> set:
    """ids of the ops of `graph` that `outputs` and the graph's side effects depend on
    (through the ops' inputs, and the outer values their sub-graphs read: `reads`)."""
    # (`_closure` written out: every compile runs this, and the inline loop is cheaper)
    stack = [t.op for t in outputs if t.op.graph is graph] + _effects(graph)
    seen: set = set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in (reads(op) if op.opdef.body_attrs else op.inputs):
            if id(t.op) not in seen:
                stack.append(t.op)
    return seen


def _effects(graph) -> list:
    return [op for op in graph.operations if op.opdef.side_effect]


def _closure(start: list, follow) -> set:
    """ids of the ops reached from `start` through `follow(op)` (the ops it needs)."""
    stack, seen = list(start), set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.extend(o for o in follow(op) if id(o) not in seen)
    return seen


def schedule(graph, outputs: Optional[Iterable] = None) -> list:
    """The ops to run for `outputs` (and every side effect), in creation order; every op
    of the graph when `outputs` is None."""
    if outputs is None:
        return list(graph.operations)
    keep = needed(graph, outputs)
    return [op for op in graph.operations if id(op) in keep]


def needed_nested(graph, outputs: Iterable) -> set:
    """ids of the ops that `outputs` and the side effects need, in `graph` and, through
    the control-flow ops needed, in their sub-graphs (recursively): a body needs its
    results and its own side effects. A body may read an outer tensor directly, which
    makes its op needed too."""
    def follow(op):
        found = [t.op for t in op.inputs]
        for body in op.opdef.bodies(op):
            found += [t.op for t in body.outputs] + _effects(body.graph)
        return found
    return _closure([t.op for t in outputs] + _effects(graph), follow)


def reads(op) -> list:
    """The tensors `op` reads: its inputs, and for control flow the tensors of enclosing
    graphs that its sub-graphs read directly rather than through a param (recursively).
    Such a value lives until the whole node has run."""
    if not op.opdef.body_attrs:
        return list(op.inputs)
    found = list(op.inputs)
    for body in op.opdef.bodies(op):
        found.extend(_outer_reads(body))
    return found


def _outer_reads(body) -> list:
    """The tensors of enclosing graphs that `body` reads directly (its ops, nested
    bodies included, and its results), worked out once per version of its graph."""
    inner = body.graph
    key = (inner._version, id(body.outputs), len(body.outputs))
    cached = inner.__dict__.get("_outer_reads")
    if cached is not None and cached[0] == key:
        return cached[1]
    found = []
    for sub in inner.operations:
        found.extend(t for t in (reads(sub) if sub.opdef.body_attrs else sub.inputs)
                     if t.op.graph is not inner)
    found.extend(t for t in body.outputs if t.op.graph is not inner)
    inner._outer_reads = (key, found)
    return found


def last_reads(ops: Sequence, keep: Iterable = ()) -> dict:
    """{index in `ops`: [tensors last read by that op]}: a value may be freed after the
    op that reads it last. Values in `keep` (the outputs) never die; a value no op reads
    dies at the op that makes it. A control-flow op reads its inputs and whatever outer
    value its sub-graphs read (`reads`): all of them live until the node ends."""
    kept = {id(t) for t in keep}
    last: dict = {}
    made: dict = {}
    for i, op in enumerate(ops):
        for t in reads(op):
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
    placeholders are skipped and constants, conds and loops go to `op`:

        class Printer(walk.Visitor):
            def placeholder(self, op): ...
            def const(self, op): ...
            def cond(self, op): ...          # op.opdef.bodies(op): its then/else Bodies
            def while_loop(self, op): ...    # WhileInputs.of(op): its input layout
            def op(self, op): ...            # every other op
        Printer().walk(graph, outputs)

    An op with sub-graphs (`body_attrs`) picks its method itself: `opdef.visit(visitor,
    op)` calls `cond` or `while_loop` (the control-flow ops, runtime/control_flow/, are
    defined above the core)."""

    def walk(self, graph, outputs: Optional[Iterable] = None) -> None:
        for op in schedule(graph, outputs):
            self.visit(op)

    def visit(self, op):
        d = op.opdef
        if d.feedable:
            return self.placeholder(op)
        if d.constant:
            return self.const(op)
        if d.body_attrs:
            return d.visit(self, op)
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
