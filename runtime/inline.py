"""A traced graph called from inside another graph being built: its ops copied into the
graph being built (inlined), as TensorFlow inlines a function called from a function.

Each copy goes through `Graph.add_op` (tapes record it; backends and export see ordinary
ops), in creation order (side effects keep their order), with cond/while bodies rebuilt
as sub-graphs of the caller's graph, the callee's source lines kept and names scoped
under the callee's (docs/architecture.md, "Inlining a traced graph").
"""
from __future__ import annotations

import re

from .core import walk
from .control_flow import Body
from .core.graph import current_graph, name_scope
from .errors import InvalidArgumentError
from .optimize.rewrite import rebuild

_NOT_IN_SCOPE = re.compile(r"[^A-Za-z0-9_.\-]")


def inline_graph(graph, feeds: dict, outputs: list, name: str) -> list:
    """Copies the ops of `graph` that `outputs` need, and all its side effects, into the
    graph being built. `feeds` maps id(placeholder of `graph`) to the tensor it stands for
    (a tensor of the graph being built). Returns the copies of `outputs`, in order."""
    target = current_graph()
    inliner = _Inliner(graph, target, feeds)
    scope = _NOT_IN_SCOPE.sub("_", name).lstrip("-") or "call"
    with name_scope(scope):
        inliner.walk(graph, outputs)
    return [inliner.mapping[id(t)] for t in outputs]


def _no_rewrite(ctx, op, inputs, attrs):
    return None     # every op of a body copied as it is


class _Inliner(walk.Visitor):
    """The walk of `inline_graph`: placeholders are fed, every other op is added again."""

    def __init__(self, graph, target, feeds: dict):
        self.graph = graph
        self.target = target
        self.mapping = dict(feeds)

    def placeholder(self, op):
        if id(op.outputs[0]) not in self.mapping:
            raise InvalidArgumentError(
                f"cannot call {self.graph.name} here: its graph needs the placeholder "
                f"'{op.name}', which is not one of its inputs")

    def const(self, op):
        self._add(op, [], op.attrs, [(t.shape, t.dtype) for t in op.outputs])

    def cond(self, op):
        self._control_flow(op)

    def while_loop(self, op):
        self._control_flow(op)

    def op(self, op):
        inputs = self._inputs(op)
        self._add(op, inputs, op.attrs, op.opdef.infer(inputs, **op.attrs))

    def _control_flow(self, op):
        inputs = self._inputs(op)
        attrs = dict(op.attrs)
        for key in op.opdef.body_attrs:
            body = op.attrs[key]
            g, outs, m = rebuild(body.graph, body.outputs, _no_rewrite, outer=self.target,
                                 parent=self.mapping)
            params = [None if p is None else dict.get(m, id(p)) for p in body.params]
            attrs[key] = Body(g, params, outs)
        self._add(op, inputs, attrs, [(t.shape, t.dtype) for t in op.outputs])

    def _inputs(self, op) -> list:
        return [self.mapping[id(t)] for t in op.inputs]

    def _add(self, op, inputs, attrs, specs):
        new = self.target.add_op(op.opdef, inputs, attrs, specs, op.name)
        if op.location is not None:
            new.location = op.location  # errors name the callee's line
        for old, t in zip(op.outputs, new.outputs):
            self.mapping[id(old)] = t
