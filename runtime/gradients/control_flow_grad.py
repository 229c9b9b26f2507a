"""Gradient rules of the staged `cond` and `while_loop` nodes.

cond: a `cond` on the same predicate whose branches are the branches' gradients (each
recomputes its branch's forward values from the node's inputs, then runs their rules), so
only the branch taken contributes.

while_loop: one iteration's backward pass is built once as a template graph, whose
inputs are the loop variables' gradients and the forward values its rules read. The
forward loop runs again, pushing those values onto TensorArrays at every iteration (with
an iteration counter); then a backward loop runs the iterations in reverse, each feeding
the template with the values its iteration kept. Loop-invariant inputs are fed as they
are, and their gradients (and those of Variables read in the body) add up across
iterations. (JAX's `while_loop` has no reverse mode: it does not keep these values.)
"""
from __future__ import annotations

from ..control_flow import cond
from ..core.apply import in_graph
from ..core.control import IF, IF_STATEFUL, WHILE, WHILE_STATEFUL
from ..core.graph import Graph, current_graph
from ..core.opdef import placeholder_op
from ..ops.core import constant
from ..ops.makers import zeros
from ..ops.tensor_array import TensorArray
from ..while_staging import stage_while
from .backprop import (Grads, accumulate, ancestors, body_gradients, differentiable,
                       graph_backprop, replay, zeros_for)

# The name of the TensorArrays that keep a loop's values for its gradient (a backend that
# needs their size says the loop needs a bound, not that a TensorArray does).
GRADIENT_STACK = "gradient_stack"


def _here(t):
    """`t` as a tensor of the graph being built (a capture when it is an outer one):
    staging takes a node's direct inputs as they are."""
    return t if t is None else in_graph(current_graph(), t)


def _float_variables(variables) -> list:
    return [v for v in variables if v.dtype.is_floating]


def _connected(bodies, outputs_with_grads, wrt) -> tuple:
    """Which of the params `wrt` (indices) and which Variables some body's seeded
    outputs depend on."""
    params, variables = set(), {}
    for body in bodies:
        outs = [body.outputs[i] for i in outputs_with_grads]
        tensors, found = ancestors(body.graph, outs)
        for k in wrt:
            p = body.params[k]
            if p is not None and id(p) in tensors:
                params.add(k)
        variables.update(found)
    return [k for k in wrt if k in params], _float_variables(variables.values())


def cond_grad(inputs, outputs, grads, then_body, else_body, out_specs):
    pred, ext = inputs[0], list(inputs[1:])
    seeded = [i for i, (o, g) in enumerate(zip(outputs, grads))
              if g is not None and differentiable(o)]
    if not seeded:
        return [None] * len(inputs)
    floats = [k for k, t in enumerate(ext) if differentiable(t)]
    wrt, variables = _connected((then_body, else_body), seeded, floats)
    if not wrt and not variables:
        return [None] * len(inputs)
    seeds = [grads[i] if i in seeded else None for i in range(len(outputs))]

    def branch(body):
        def fn():
            g_params, g_vars = body_gradients(body, ext, seeds, wrt)
            out = [g if g is not None else zeros_for(ext[k]) for k, g in zip(wrt, g_params)]
            for var in variables:
                found = g_vars.get(id(var))
                out.append(found[1] if found is not None else zeros(var.shape, var.dtype))
            return out
        return fn

    results = list(cond(_here(pred), branch(then_body), branch(else_body)))
    in_grads = [None] * len(inputs)
    for k, g in zip(wrt, results):
        in_grads[1 + k] = g
    var_grads = {id(v): (v, g) for v, g in zip(variables, results[len(wrt):])}
    return Grads(in_grads, var_grads)


def _loop_connected(body, n, init, ext, seeded) -> tuple:
    """The loop variables whose gradients matter (the seeded ones and, across iterations,
    those they are computed from), and the invariant inputs and Variables they reach."""
    wanted = {k for k in seeded if differentiable(init[k])}
    while True:
        tensors, found = ancestors(body.graph, [body.outputs[k] for k in wanted])
        more = {k for k in range(n) if differentiable(init[k]) and body.params[k] is not None
                and id(body.params[k]) in tensors} - wanted
        if not more:
            break
        wanted |= more
    ext_wanted = [k for k, t in enumerate(ext) if differentiable(t)
                  and body.params[n + k] is not None and id(body.params[n + k]) in tensors]
    return sorted(wanted), ext_wanted, _float_variables(found.values())


class _Template(Graph):
    """A graph that is only a recipe (copied into loop bodies by `replay`): every tensor
    from another graph that it uses becomes a placeholder of its own, to be fed."""

    def capture(self, tensor):
        if tensor.graph is self:
            return tensor
        entry = self.captures.get(id(tensor))
        if entry is not None:
            return entry[1]
        inner = placeholder_op(self, tensor.dtype, tensor.shape, name="saved")
        self.captures[id(tensor)] = (tensor, inner)
        return inner


def _iteration_template(body, n, loop_floats, ext_floats, variables, shapes) -> tuple:
    """(template graph, its placeholders for the gradients of the loop variables in
    `loop_floats`, its results: gradients of those loop variables, of the invariant inputs
    `ext_floats` and of `variables`, zeros where unconnected)."""
    template = _Template("while_grad", outer=body.graph)
    with template.as_default():
        ys = [placeholder_op(template, body.outputs[k].dtype, shapes[k], name="grad_ys")
              for k in loop_floats]
        seeds = {}
        for k, y in zip(loop_floats, ys):
            out = body.outputs[k]
            seeds[id(out)] = accumulate(seeds.get(id(out)), y)
        params = [body.params[k] for k in loop_floats] + [body.params[n + k] for k in ext_floats]
        grads, var_grads = graph_backprop(body.graph.operations, seeds,
                                          [id(p) for p in params if p is not None])
        results = []
        for p in params:
            g = None if p is None else grads.get(id(p))
            results.append(g if g is not None else zeros_for(p))
        for var in variables:
            found = var_grads.get(id(var))
            results.append(found[1] if found is not None else zeros(var.shape, var.dtype))
    return template, ys, results


def while_grad(inputs, outputs, grads, cond_body, body, out_specs, num_loop_vars, has_max):
    n = num_loop_vars
    init, ext = list(inputs[:n]), list(inputs[n:])
    max_iter = ext.pop() if has_max else None
    seeded = [i for i, (o, g) in enumerate(zip(outputs, grads))
              if g is not None and differentiable(o)]
    if not seeded:
        return [None] * len(inputs)
    loop_floats, ext_floats, variables = _loop_connected(body, n, init, ext, seeded)
    if not loop_floats and not ext_floats and not variables:
        return [None] * len(inputs)
    shapes = [s for s, _ in out_specs]

    # The backward pass of one iteration, built once as a template graph: its inputs are
    # the loop variables' gradients and, as captures, the forward values its rules read.
    template, ys_phs, results = _iteration_template(body, n, loop_floats, ext_floats,
                                                    variables, shapes)
    invariant = {id(p): ext[k] for k, p in enumerate(body.params[n:]) if p is not None}
    saved, fixed = [], {}
    for t, ph in template.captured_inputs():
        if id(t) in invariant:
            fixed[id(ph)] = invariant[id(t)]  # a loop-invariant input: fed as it is
        elif t.graph is body.graph and not t.op.opdef.constant:
            saved.append((t, ph))   # a value of one iteration: kept for each iteration
        else:
            fixed[id(ph)] = t       # a constant, or a tensor from outside the loop

    # 1. The forward loop again, keeping what each iteration's backward pass reads.
    def feeds_for(b, values):
        return {id(p): v for p, v in zip(b.params, list(values) + ext) if p is not None}

    def fwd_cond(i, values, stacks):
        mapping, _ = replay(cond_body.graph, feeds_for(cond_body, values))
        return mapping[id(cond_body.outputs[0])]

    def fwd_body(i, values, stacks):
        mapping, _ = replay(body.graph, feeds_for(body, values))
        stacks = [ta.write(i, mapping[id(t)]) for ta, (t, _) in zip(stacks, saved)]
        return i + 1, [mapping[id(o)] for o in body.outputs], stacks

    stacks0 = [TensorArray(t.dtype, size=0, dynamic_size=True, element_shape=t.shape,
                           name=GRADIENT_STACK) for t, _ in saved]
    (count, _, stacks), _ = stage_while(fwd_cond, fwd_body, (0, [_here(t) for t in init], stacks0),
                                        maximum_iterations=_here(max_iter))

    # 2. The iterations in reverse: loop-variable gradients flow back, invariant inputs'
    # and Variables' gradients add up.
    def bwd_cond(j, ys, acc):
        return j >= 0

    def bwd_body(j, ys, acc):
        feeds = {id(ph): ta.read(j) for ta, (_, ph) in zip(stacks, saved)}
        for key, t in fixed.items():
            feeds[key] = constant(t.op.attrs["value"], t.dtype) if t.op.opdef.constant else t
        feeds.update({id(ph): y for ph, y in zip(ys_phs, ys)})
        mapping, _ = replay(template, feeds)
        grads_now = [mapping[id(r)] for r in results]
        new_ys = grads_now[:len(loop_floats)]
        new_acc = [accumulate(a, g) for a, g in zip(acc, grads_now[len(loop_floats):])]
        return j - 1, new_ys, new_acc

    ys0 = [_here(grads[k]) if k in seeded else zeros_for(outputs[k]) for k in loop_floats]
    acc0 = [zeros_for(ext[k]) for k in ext_floats] + [zeros(v.shape, v.dtype) for v in variables]
    (_, ys, acc), _ = stage_while(bwd_cond, bwd_body, (count - 1, ys0, acc0))
    in_grads = [None] * len(inputs)
    for k, y in zip(loop_floats, ys):
        in_grads[k] = y
    for k, a in zip(ext_floats, acc):
        in_grads[n + k] = a
    var_grads = {id(v): (v, a) for v, a in zip(variables, acc[len(ext_floats):])}
    return Grads(in_grads, var_grads)


# The gradient rules of the cond and while nodes (core.control): recompute the branch or
# iteration, then its ops' rules. They live here, beside backprop, because they are as
# long as the staging they undo.
IF.grad = IF_STATEFUL.grad = cond_grad
WHILE.grad = WHILE_STATEFUL.grad = while_grad
