"""The backward pass, shared by tapes, staged control flow and Functions.

`backprop` walks recorded op applications (tape entries or graph Operations: both have
`opdef`, `inputs`, `outputs`, `attrs`) in reverse and calls each op's rule. Rules are built
from the public ops, so the walk computes values eagerly or adds ops to the current graph.

`replay` copies a traced sub-graph (a branch, a loop body) into the current graph with its
parameters fed; the copies are then differentiated like any recorded ops. That is how the
gradient of a staged `cond` or `while_loop` is written: recompute the body where its
values are needed, then run its rules.
"""
from __future__ import annotations

from .core import dtypes, walk
from .core.apply import apply_op, in_graph
from .core.graph import current_graph
from .core.hooks import rule_state  # which input gradients a rule's caller uses (hooks.wanted)
from .core.opdef import CONST
from .ops.makers import zeros_like
from .ops.math_ops import add
from .ops.state_ops import READ
from .ops.tensor_array import ADD as TENSOR_ARRAY_ADD, empty_gradient


class Grads(list):
    """A rule's result: the gradients of the op's inputs (a list), plus gradients of the
    Variables its sub-graphs read: {id(Variable): (Variable, gradient)}."""

    def __init__(self, grads, variables=None):
        super().__init__(grads)
        self.variables = variables or {}


def differentiable(t) -> bool:
    """Whether a gradient can flow through tensor `t`: floats, and TensorArray handles
    (whose gradient is a handle of the elements' gradients)."""
    return t.dtype.is_floating or t.dtype is dtypes.variant


def accumulate(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a.dtype is dtypes.variant:
        return apply_op(TENSOR_ARRAY_ADD, [a, b])
    return add(a, b)


def zeros_for(t):
    """A zero gradient for `t`."""
    if t.dtype is dtypes.variant:
        return empty_gradient()
    return zeros_like(t)


def backprop(entries, seeds: dict, relevant) -> tuple:
    """Gradients of everything in `relevant` (ids of tensors derived from the sources),
    given `seeds` {id(tensor): gradient}. Returns ({id(tensor): gradient},
    {id(Variable): (Variable, gradient)})."""
    grads = dict(seeds)
    var_grads: dict = {}
    for e in reversed(entries):
        outs = e.outputs
        if len(outs) == 1:
            g = grads.get(id(outs[0]))
            if g is None:
                continue
            out_grads = [g]
        else:
            out_grads = [grads.get(id(o)) for o in outs]
            if all(g is None for g in out_grads):
                continue
            if not e.opdef.body_attrs:  # control-flow rules tell unseeded outputs apart
                out_grads = [zeros_for(o) if g is None and differentiable(o) else g
                             for g, o in zip(out_grads, outs)]
        opdef = e.opdef
        if opdef.reads_variables:
            var = e.attrs["variable"]
            old = var_grads.get(id(var))
            var_grads[id(var)] = (var, accumulate(None if old is None else old[1], out_grads[0]))
            continue
        needed = [id(x) in relevant and differentiable(x) for x in e.inputs]
        if not any(needed) and not opdef.runs_subgraphs:
            continue
        rule = opdef.grad
        if rule is None:
            where = getattr(e, "location", None)
            where = f", created at {where[0]}:{where[1]}" if where else ""
            raise LookupError(
                f"No gradient defined for operation '{getattr(e, 'name', opdef.name)}' "
                f"(op type: {opdef.name}{where}). Compute it outside the tape, or wrap it "
                "with tape.stop_recording().")
        previous, rule_state.needed = rule_state.needed, needed
        try:
            in_grads = rule(e.inputs, outs, out_grads, **e.attrs)
        finally:
            rule_state.needed = previous
        for x, g, need in zip(e.inputs, in_grads, needed):
            if need and g is not None:
                grads[id(x)] = accumulate(grads.get(id(x)), g)
        for key, (var, g) in getattr(in_grads, "variables", {}).items():
            if g is not None:
                old = var_grads.get(key)
                var_grads[key] = (var, accumulate(None if old is None else old[1], g))
    return grads, var_grads


# -- graphs -------------------------------------------------------------------------------

def graph_variables(graph, out=None) -> dict:
    """{id: Variable} read in `graph` or in the sub-graphs of its control-flow ops."""
    out = {} if out is None else out
    for op in graph.operations:
        if op.opdef.reads_variables:
            var = op.attrs["variable"]
            out.setdefault(id(var), var)
        elif op.opdef.body_attrs:
            for body in op.opdef.bodies(op):
                graph_variables(body.graph, out)
    return out


def variables_in(opdef, attrs) -> list:
    """The Variables read inside the sub-graphs (`opdef.body_attrs`) of a control-flow op
    applied with `attrs`."""
    found: dict = {}
    for a in opdef.body_attrs:
        graph_variables(attrs[a].graph, found)
    return list(found.values())


def derived(ops, source_ids) -> set:
    """ids of the float tensors of `ops` (in creation order) that depend on `source_ids` or
    on a float Variable read (directly or in a sub-graph)."""
    rel = set(source_ids)
    for op in ops:
        d = op.opdef
        if d.reads_variables:
            hit = op.attrs["variable"].dtype.is_floating
        else:
            hit = any(id(t) in rel for t in op.inputs) or (
                bool(d.body_attrs) and any(v.dtype.is_floating for v in variables_in(d, op.attrs)))
        if hit:
            rel.update(id(t) for t in op.outputs if differentiable(t))
    return rel


def graph_backprop(ops, seeds: dict, source_ids) -> tuple:
    """`backprop` over graph ops: only the ops between the sources (and Variable reads)
    and the seeded tensors are visited."""
    rel = derived(ops, source_ids)
    entries = [op for op in ops if any(id(t) in rel for t in op.outputs)]
    return backprop(entries, seeds, rel)


def ancestors(graph, outputs) -> tuple:
    """(ids of the tensors of `graph` that `outputs` depend on, {id: Variable} read on the
    way) -- which parameters and Variables a body's gradient can reach."""
    tensors, variables = set(), {}
    stack = [t for t in outputs]
    seen_ops = set()
    while stack:
        t = stack.pop()
        if id(t) in tensors:
            continue
        tensors.add(id(t))
        op = t.op
        if op.graph is not graph or id(op) in seen_ops:
            continue
        seen_ops.add(id(op))
        if op.opdef.reads_variables:
            var = op.attrs["variable"]
            variables.setdefault(id(var), var)
        elif op.opdef.body_attrs:
            for var in variables_in(op.opdef, op.attrs):
                variables.setdefault(id(var), var)
        stack.extend(op.inputs)
    return tensors, variables


def replay(graph, feeds: dict) -> tuple:
    """Copies the ops of `graph` into the current graph. `feeds` maps id(placeholder of
    `graph`) to the tensor it stands for. Returns ({id(original tensor): copy}, new ops).

    Prints and asserts (observers) are left out (they ran in the forward pass); a Variable
    write becomes a read of the Variable. The executor drops the copies nothing needs.
    """
    r = _Replay(graph, current_graph(), feeds)
    r.walk(graph)
    return r.mapping, r.new_ops


class _Replay(walk.Visitor):
    """The walk of `replay`: placeholders are fed (the default skips them)."""

    def __init__(self, graph, target, feeds: dict):
        self.graph = graph
        self.target = target
        self.mapping = {k: in_graph(target, v) for k, v in feeds.items()}
        self.new_ops: list = []

    def const(self, op):
        out = op.outputs[0]
        self.mapping[id(out)] = self.target.add_op(CONST, (), op.attrs, [(out.shape, out.dtype)],
                                                   op.name).outputs[0]

    def op(self, op):
        d, g = op.opdef, self.target
        if d.observer:
            return
        if d.writes_variables:
            var = op.attrs["variable"]
            new = g.add_op(READ, (), {"variable": var}, [(var.shape, var.dtype)],
                           READ.default_name)
        else:
            inputs = [self.mapping.get(id(t)) for t in op.inputs]
            for k, t in enumerate(op.inputs):
                if inputs[k] is None and t.op.graph is not self.graph:
                    inputs[k] = in_graph(g, t)  # a node may read an outer tensor directly
            if any(t is None for t in inputs):
                return  # fed by a placeholder the caller does not feed (unused param)
            new = g.add_op(d, inputs, op.attrs, [(o.shape, o.dtype) for o in op.outputs],
                           op.name)
        for o, n in zip(op.outputs, new.outputs):
            self.mapping[id(o)] = n
        self.new_ops.append(new)


def body_gradients(body, values, out_grads, wrt) -> tuple:
    """In the current graph: the gradients of a traced `body` (a control_flow.Body) run on
    `values` (one per `body.params`), given gradients for its outputs.

    Returns (gradients of `values[k]` for k in `wrt`, None where unconnected;
    {id(Variable): (Variable, gradient)} for the Variables the body reads).
    """
    g = current_graph()
    feeds = {}
    for p, v in zip(body.params, values):
        if p is not None:
            feeds[id(p)] = v
    mapping, ops = replay(body.graph, feeds)
    seeds = {}
    for out, og in zip(body.outputs, out_grads):
        if og is None or not differentiable(out):
            continue
        m = mapping[id(out)]
        seeds[id(m)] = accumulate(seeds.get(id(m)), in_graph(g, og))
    sources = [mapping[id(body.params[k])] for k in wrt if body.params[k] is not None
               and id(body.params[k]) in mapping]
    grads, var_grads = graph_backprop(ops, seeds, [id(s) for s in sources])
    result = []
    for k in wrt:
        p = body.params[k]
        result.append(None if p is None or id(p) not in mapping
                      else grads.get(id(mapping[id(p)])))
    return result, var_grads
