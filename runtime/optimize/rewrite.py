"""The machinery every pass shares: rebuild a graph op by op into a new graph, letting a
rule replace ops, recursing into the sub-graphs of cond and while nodes.

`rule(ctx, op, inputs, attrs) -> None | list of tensors` is called once per op of the old
graph, in creation order, with its inputs (and bodies) already rebuilt: None copies the
op, a list gives the new-graph tensor replacing each output (docs/architecture.md, Ops).

The old graph is never changed: a ConcreteFunction keeps showing the graph it traced.
"""
from __future__ import annotations

import numpy as np

from ..core import walk
from ..control_flow import Body, WhileInputs, is_cond
from ..core.graph import Graph, Operation
from ..core.opdef import CONST, const_specs


def is_control_flow(op) -> bool:
    """Whether `op` has sub-graphs (a cond or a while loop)."""
    return bool(op.opdef.body_attrs)


def bodies(op) -> list:
    """The Body attributes of a control-flow op (empty for other ops)."""
    return op.opdef.bodies(op)


def is_pure(op) -> bool:
    """Same inputs always give the same outputs and nothing else happens. A cond or
    while is pure when every op of its bodies is (placeholders aside)."""
    if op.opdef.feedable:
        return False
    if is_control_flow(op):
        return not op.opdef.side_effect and all(
            sub.opdef.feedable or is_pure(sub)
            for b in bodies(op) for sub in b.graph.operations)
    return op.opdef.pure and op.opdef.kernel is not None


def const_value(t):
    """The value of `t` when it is the output of a Const node, else None."""
    if t is not None and t.op.opdef is CONST:
        return t.op.attrs["value"]
    return None


class Context:
    """What a rule may use: the new graph, and how to add ops to it."""

    def __init__(self, graph: Graph, param_sources: dict):
        self.graph = graph
        # id(old placeholder of a body) -> the new outer tensor that feeds it, for the
        # params whose value is the same on every run of the body (not loop variables).
        self.param_sources = param_sources

    def add(self, opdef, inputs, attrs, specs, like, name=None) -> Operation:
        """A new op in the new graph, standing where `like` stood (its location is kept,
        so run-time errors still name the user's line). Without `name` it takes the name
        of `like`, which it replaces."""
        g = self.graph
        op = Operation(g, like.name if name is None else g.unique_name(name), opdef, inputs,
                       attrs, specs, location=like.location)
        g.append_operation(op)
        return op

    def const(self, value, dtype, like, name=None):
        """A Const node holding `value` (an array of `dtype`)."""
        value = np.asarray(value) if not isinstance(value, np.ndarray) else value
        return self.add(CONST, (), {"value": value, "dtype": dtype},
                        const_specs((), value, dtype), like, name).outputs[0]

    def copy(self, op, inputs, attrs) -> Operation:
        g = self.graph
        new = Operation(g, op.name, op.opdef, inputs, attrs,
                        [(t.shape, t.dtype) for t in op.outputs], location=op.location)
        new.control_inputs = op.control_inputs
        g.append_operation(new)
        return new


class _Mapping(dict):
    """id(old tensor) -> new tensor, falling back to the enclosing graphs' mappings: a
    node in a sub-graph may read an outer tensor directly (the executor allows it)."""

    def __init__(self, parent=None):
        super().__init__()
        self.parent = parent

    def __missing__(self, key):
        if self.parent is None:
            raise KeyError(key)
        return self.parent[key]


def rebuild(graph, outputs, rule, outer=None, param_sources=None, parent=None):
    """(new graph, new outputs, mapping id(old tensor) -> new tensor) for `graph` rebuilt
    with `rule` (see the module docstring)."""
    new = Graph(graph.name, outer=outer)
    new.reserve_names_of(graph)
    new.variables = list(graph.variables)
    ctx = Context(new, param_sources or {})
    m = _Mapping(parent)
    for op in walk.schedule(graph):
        inputs = [m[id(t)] for t in op.inputs]
        attrs = op.attrs
        if is_control_flow(op):
            attrs = _rebuild_bodies(op, inputs, rule, new, m)
        result = rule(ctx, op, inputs, attrs)
        if result is None:
            result = ctx.copy(op, inputs, attrs).outputs
        for t, r in zip(op.outputs, result):
            m[id(t)] = r
    new.inputs = [m[id(t)] for t in graph.inputs if dict.get(m, id(t)) is not None]
    new.outputs = [m[id(t)] for t in graph.outputs if dict.get(m, id(t)) is not None]
    new.has_side_effects = any(op.opdef.side_effect for op in new.operations)
    return new, [m[id(t)] for t in outputs], m


def _rebuild_bodies(op, inputs, rule, new_graph, mapping) -> dict:
    """The op's attrs with every Body rebuilt into a sub-graph of `new_graph`."""
    attrs = dict(op.attrs)
    fixed = fixed_inputs(op, inputs)
    for key in op.opdef.body_attrs:
        body = op.attrs[key]
        sources = {id(p): src for p, src in zip(body.params, fixed)
                   if p is not None and src is not None}
        g, outs, m = rebuild(body.graph, body.outputs, rule, outer=new_graph,
                             param_sources=sources, parent=mapping)
        params = [_param(dict.get(m, id(p))) if p is not None else None for p in body.params]
        attrs[key] = Body(g, params, outs)
    return attrs


def _param(t):
    """A body's param as rebuilt: still a placeholder, or None when the rule dropped it or
    replaced it (by an inlined constant): the node's input then feeds nothing."""
    return t if t is not None and t.op.opdef.feedable else None


def fixed_inputs(op, inputs) -> list:
    """Per body param of a control-flow op: the input that feeds it when it is the same
    on every run of the body (a cond's inputs, a while's captured tensors), else None."""
    if is_cond(op):
        return list(inputs[1:])
    init, captured, _ = WhileInputs.of(op, inputs)
    return [None] * len(init) + captured


def set_captures(graph):
    """Refreshes the `captures` records of the sub-graphs of `graph` (recursively) from
    their nodes' inputs and bodies' params, for anyone reading them after a rewrite."""
    for op in graph.operations:
        if not is_control_flow(op):
            continue
        feeds = fixed_inputs(op, op.inputs)
        for body in bodies(op):
            body.graph.captures = {id(outer_t): (outer_t, p)
                                   for p, outer_t in zip(body.params, feeds)
                                   if p is not None and outer_t is not None}
            set_captures(body.graph)


def count_ops(graph, recursive: bool = True) -> int:
    """The number of ops in `graph`, with those of its sub-graphs when `recursive`."""
    n = len(graph.operations)
    if recursive:
        for op in graph.operations:
            for b in bodies(op):
                n += count_ops(b.graph)
    return n
