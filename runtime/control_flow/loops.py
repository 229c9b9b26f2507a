"""The staged `while_loop`: its node (`WHILE`, `WHILE_STATEFUL`) and the layout of its
inputs, the tracing of the test and the body into sub-graphs whose placeholders stand for
the loop variables, and its gradient rule (the iterations run again, then in reverse)."""
from __future__ import annotations

import re
from typing import Callable, NamedTuple, Optional

from .. import nest
from ..core import dtypes
from ..core.graph import Graph, current_graph
from ..core.opdef import OpDef, placeholder_op
from ..core.tensor import Tensor
from ..errors import DTypeMismatchError
from ..backprop import (Grads, accumulate, ancestors, differentiable,
                                  graph_backprop, replay, zeros_for)
from ..ops.core import constant, convert_to_tensor
from ..ops.makers import zeros
from ..ops.tensor_array import TensorArray
from ..truth import truth_value
from . import values as cv
from .body import Body
from .loop_shapes import check_ends, fits, leaf_invariants, relax


# -- the node -----------------------------------------------------------------------------

class WhileDef(OpDef):
    """A loop: `body` runs while `cond_body` gives true (at most `maximum_iterations`).

    A while node's inputs are `[*loop_vars, *captured, (maximum_iterations)]`
    (`WhileInputs.of(op)` decodes them); its attributes `cond_body` and `body` (`Body`s
    fed the loop variables then the captured inputs), `out_specs`, `num_loop_vars` and
    `has_max`."""

    __slots__ = ()

    def __init__(self, name, side_effect):
        super().__init__(name, _while_specs, None, side_effect=side_effect,
                         default_name="while", body_attrs=("cond_body", "body"),
                         grad=while_grad)

    def visit(self, visitor, op):
        """`visitor`'s method for this node (core.walk.Visitor dispatches through it)."""
        return visitor.while_loop(op)


# (The inference function's parameters name the attributes: saved graphs are checked
# against them.)
def _while_specs(inputs, cond_body, body, out_specs, num_loop_vars, has_max):
    return out_specs


class WhileInputs(NamedTuple):
    """A while node's inputs by role: the initial loop values, the captured tensors, and
    the maximum number of iterations (None when unbounded)."""
    init: list
    captured: list
    maximum_iterations: Optional[object]

    @staticmethod
    def of(op, values=None) -> "WhileInputs":
        """`op`'s inputs (or `values`, one per input: names, arrays...) by role."""
        values = list(op.inputs if values is None else values)
        n = op.attrs["num_loop_vars"]
        limit = values.pop() if op.attrs["has_max"] else None
        return WhileInputs(values[:n], values[n:], limit)


def is_while(op) -> bool:
    return isinstance(op.opdef, WhileDef)


# -- gradient -----------------------------------------------------------------------------
# One iteration's backward pass is built once as a template graph, whose inputs are the
# loop variables' gradients and the forward values its rules read. The forward loop runs
# again, pushing those values onto TensorArrays at every iteration; a backward loop then
# runs the iterations in reverse, each feeding the template with the values its iteration
# kept (docs/architecture.md, "Control flow").

# The name of the TensorArrays that keep a loop's values for its gradient (a backend that
# needs their size says the loop needs a bound, not that a TensorArray does).
GRADIENT_STACK = "gradient_stack"


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
    return sorted(wanted), ext_wanted, cv.float_variables(found.values())


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
    init_here = [cv.in_current_graph(t) for t in init]
    (count, _, stacks), _ = stage_while(fwd_cond, fwd_body, (0, init_here, stacks0),
                                        maximum_iterations=cv.in_current_graph(max_iter))

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

    ys0 = [cv.in_current_graph(grads[k]) if k in seeded else zeros_for(outputs[k])
           for k in loop_floats]
    acc0 = [zeros_for(ext[k]) for k in ext_floats] + [zeros(v.shape, v.dtype) for v in variables]
    (_, ys, acc), _ = stage_while(bwd_cond, bwd_body, (count - 1, ys0, acc0))
    in_grads = [None] * len(inputs)
    for k, y in zip(loop_floats, ys):
        in_grads[k] = y
    for k, a in zip(ext_floats, acc):
        in_grads[n + k] = a
    var_grads = {id(v): (v, a) for v, a in zip(variables, acc[len(ext_floats):])}
    return Grads(in_grads, var_grads)


WHILE = WhileDef("StatelessWhile", side_effect=False)
WHILE_STATEFUL = WhileDef("While", side_effect=True)


# -- staging ------------------------------------------------------------------------------

def while_loop(cond: Callable, body: Callable, loop_vars, shape_invariants=None,
               maximum_iterations=None, name: Optional[str] = None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`.

    In a graph the body is traced once and runs as many times as the data says; eagerly it
    is a Python loop.

    Args:
      cond: a callable taking the loop variables, returning a scalar bool.
      body: a callable taking the loop variables, returning new ones (same structure).
      loop_vars: a tensor, or a list/tuple (nest) of them.
      shape_invariants: optional TensorShapes (structured like loop_vars) the variables may
        take as the loop runs.
      maximum_iterations: an optional cap on the number of iterations.
      name: an optional name for the op.

    Returns:
      The final loop variables, structured like loop_vars.

    Raises:
      ValueError: when shape_invariants is not structured like loop_vars.

    >>> i, s = rt.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i),
    ...                      (rt.constant(0), rt.constant(0)))
    >>> print(i, s)
    rt.Tensor(5, shape=(), dtype=int32) rt.Tensor(10, shape=(), dtype=int32)
    >>> g = rt.function(lambda n: rt.while_loop(lambda i: i < n, lambda i: i * 2, [1]))
    >>> print(g(rt.constant(100))[0])
    rt.Tensor(128, shape=(), dtype=int32)
    """
    single = not isinstance(loop_vars, (list, tuple))
    vars_ = [loop_vars] if single else list(loop_vars)
    graph = current_graph()
    if graph is None:
        n = 0
        while (maximum_iterations is None or n < int(maximum_iterations)) and bool(cond(*vars_)):
            out = body(*vars_)
            vars_ = cv.as_var_list(out, len(vars_))
            n += 1
        return cv.like(loop_vars, vars_, single)
    names = cv.path_names(vars_, "loop_vars")
    invariants = None
    if shape_invariants is not None:
        if any(nest.is_composite(v) for v in nest.flatten(vars_)):
            raise NotImplementedError("rt.while_loop: shape_invariants with SparseTensor loop "
                                      "variables are not supported")
        inv = [shape_invariants] if single else list(shape_invariants)
        invariants = nest.flatten(inv) if nest.same_structure(inv, vars_) else None
        if invariants is None:
            raise ValueError("shape_invariants must have the same structure as loop_vars")
    outs, _ = stage_while(cond, body, tuple(vars_), names=None, leaf_names=names,
                          shape_invariants=invariants, maximum_iterations=maximum_iterations,
                          relax_shapes=False, name=name)
    return cv.like(loop_vars, list(outs), single)


def _flatten_vars(values, labels):
    """Top-level values -> (leaves, per-leaf labels, structures)."""
    leaves, leaf_labels = [], []
    for v, label in zip(values, labels):
        flat = nest.flatten(v, expand_composites=True)
        names = cv.path_names(v, label) if nest.is_nested(v, expand_composites=True) else [label]
        leaves.extend(flat)
        leaf_labels.extend(names)
    return leaves, leaf_labels


def stage_while(cond_fn, body_fn, init: tuple, names=None, leaf_names=None, shape_invariants=None,
                maximum_iterations=None, relax_shapes: bool = True, is_undefined=None,
                name: Optional[str] = None):
    """Records a while node. Returns (final values as a tuple shaped like `init`, defined
    flags per top-level value or None); see the autograph protocol."""
    graph = current_graph()
    init = list(init)
    labels = list(names) if names is not None else [f"loop_vars[{i}]" for i in range(len(init))]
    undefined = [i for i, v in enumerate(init) if is_undefined is not None and is_undefined(v)]
    flag_slots = []
    if undefined:
        learned = _learn_undefined(cond_fn, body_fn, init, undefined, is_undefined)
        for i in undefined:
            if learned[i] is not None:
                init[i] = nest.map_structure(cv.placeholder_value, learned[i], expand_composites=True)
                flag_slots.append(i)
    active = [i for i in range(len(init)) if not (is_undefined and is_undefined(init[i]))]
    if len(active) < len(init):
        # Values that stay undefined (the body never assigns them) are not loop variables,
        # but the test and the body still take every value: give them the marker.
        cond_fn, body_fn = _over_active(cond_fn, body_fn, init, active)

    structures = [init[i] for i in active]
    for i in active:
        for leaf, label in zip(*_flatten_vars([init[i]], [labels[i]])):
            if not (cv.is_tensorish(leaf) or _is_ta(leaf)):
                raise TypeError(
                    f"'{label}' is {cv.describe(leaf)} when the staged loop starts; a variable "
                    "that a staged loop changes must be a tensor or a Python number.")
    init_leaves, leaf_labels = _flatten_vars(structures, [labels[i] for i in active])
    if leaf_names is not None and names is None:
        leaf_labels = list(leaf_names)
    init_tensors = [cv.leaf_to_tensor(v) for v in init_leaves]
    n_flags = len(flag_slots)
    init_tensors += [constant(False) for _ in flag_slots]
    leaf_labels += [f"{labels[i]} (defined)" for i in flag_slots]

    fixed = leaf_invariants(shape_invariants, init, active, labels, init_tensors, n_flags,
                        leaf_labels)
    shapes = [t.shape if s is None else s for t, s in zip(init_tensors, fixed)]

    traced = _trace_until_stable(
        cond_fn, body_fn, graph, structures, init_leaves, init_tensors, shapes, fixed, n_flags,
        leaf_labels, is_undefined, [labels[i] for i in active], relax_shapes)
    if not nest.same_composite_statics(structures, traced[4]):
        # A composite (rt.SparseTensor) whose static shape one iteration does not keep:
        # trace again claiming in the loop only what holds whatever it does (its rank).
        structures = [nest.relax_composites(s) for s in structures]
        traced = _trace_until_stable(
            cond_fn, body_fn, graph, structures, init_leaves, init_tensors, traced[5], fixed,
            n_flags, leaf_labels, is_undefined, [labels[i] for i in active], relax_shapes)
    cond_g, body_g, cond_out, body_leaves, body_templates, shapes = traced

    if maximum_iterations is None:
        check_ends(cond_out, init_tensors, shapes, leaf_labels)
    ext, (cond_params, body_params) = cv.subgraph_inputs([cond_g, body_g])
    n = len(init_tensors)
    cond_body = Body(cond_g, list(cond_g.inputs) + cond_params, [cond_out])
    loop_body = Body(body_g, list(body_g.inputs) + body_params, body_leaves)
    inputs = [*init_tensors, *ext]
    has_max = maximum_iterations is not None
    if has_max:
        inputs.append(convert_to_tensor(maximum_iterations, dtype=dtypes.int32))
    out_specs = [(s, t.dtype) for s, t in zip(shapes, init_tensors)]
    opdef = WHILE_STATEFUL if cv.has_side_effects(cond_g, body_g) else WHILE
    op = graph.add_op(opdef, inputs, {"cond_body": cond_body, "body": loop_body,
                                      "out_specs": out_specs, "num_loop_vars": n,
                                      "has_max": has_max}, out_specs, name)
    outs = list(op.outputs)

    result, k = list(init), 0
    for template, s, i in zip(body_templates, structures, active):
        template = nest.common_composites(template, s)
        leaves = nest.flatten(template, expand_composites=True)
        rebuilt = [cv.rebuild(leaf, outs[k + j]) for j, leaf in enumerate(leaves)]
        k += len(leaves)
        result[i] = nest.pack_sequence_as(template, rebuilt, expand_composites=True)
    defined = [None] * len(init)
    for j, i in enumerate(flag_slots):
        defined[i] = outs[k + j]
    return tuple(result), tuple(defined)


# Retraces with the most specific relaxation (only the dimensions that changed) before
# relaxing coarsely; see loop_shapes.relax.
_PRECISE_RETRACES = 2


def _trace_until_stable(cond_fn, body_fn, graph, structures, init_leaves, init_tensors, shapes,
                        fixed, n_flags, leaf_labels, is_undefined, top_labels, relax_shapes):
    """Traces test and body with loop variables of `shapes`; where an iteration changes a
    shape, relaxes it and traces again, unless its shape is fixed (a shape invariant, or
    rt.while_loop without one: a ValueError naming the variable). Returns the traced
    graphs, the body's results and the settled shapes.

    Always ends: every retrace makes at least one variable's shape strictly less specific.
    The first retraces make unknown only the dimensions that changed; later ones make a
    changed variable's every dimension unknown, or its rank when that changed, so a
    variable is relaxed at most twice more and the number of traces is bounded by
    _PRECISE_RETRACES + 2 * (number of loop variables) + 1, even when relaxing one
    variable changes another's shape in the next trace (x = rt.reshape(y, rt.shape(y)))."""
    limit = _PRECISE_RETRACES + 2 * len(shapes) + 1
    for attempt in range(limit):
        cond_g, body_g, cond_out, body_leaves, body_templates = _trace(
            cond_fn, body_fn, graph, structures, init_leaves, init_tensors, shapes, n_flags,
            leaf_labels, is_undefined, top_labels)
        bad = [(k, t) for k, t in enumerate(body_leaves) if not fits(t.shape, shapes[k])]
        if not bad:
            return cond_g, body_g, cond_out, body_leaves, body_templates, shapes
        stuck = [(k, t) for k, t in bad if fixed[k] is not None or not relax_shapes]
        if stuck:
            k, t = stuck[0]
            hint = ("its shape invariant" if fixed[k] is not None
                    else "the `shape_invariants` argument of rt.while_loop")
            if fixed[k] is not None:
                what = (f"'{leaf_labels[k]}' has shape {t.shape} after one iteration, which "
                        f"does not conform to the shape invariant {shapes[k]}")
            else:
                what = (f"'{leaf_labels[k]}' has shape {shapes[k]} before the loop, but shape "
                        f"{t.shape} after one iteration")
            raise ValueError(
                f"{what}. To let the shape vary across iterations, relax it with {hint} "
                f"(None for a dimension that changes).")
        shapes = list(shapes)
        for k, t in bad:
            shapes[k] = relax(shapes[k], t.shape, precise=attempt < _PRECISE_RETRACES)
    raise AssertionError(f"loop variable shapes did not settle in {limit} traces")  # unreachable


def _over_active(cond_fn, body_fn, init, active):
    """`cond_fn`/`body_fn` taking and giving only the values at positions `active`."""
    def full(values):
        args = list(init)
        for pos, i in enumerate(active):
            args[i] = values[pos]
        return args

    def cond(*values):
        return cond_fn(*full(values))

    def body(*values):
        out = cv.as_var_list(body_fn(*full(values)), len(init))
        return [out[i] for i in active]
    return cond, body


def _op_name(label: str) -> str:
    """A loop variable's placeholder name: its Python name (`n`, `state_h`, `x_a` for
    `x['a']`), so that the graph reads like the code."""
    name = _NOT_IN_NAMES.sub("_", label.replace(" (defined)", "_defined")).strip("_")
    return name if name and not name[0].isdigit() else "loop_var"


_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_.]+")


def _trace(cond_fn, body_fn, graph, structures, init_leaves, init_tensors, shapes, n_flags,
           leaf_labels, is_undefined, top_labels):
    n_user = len(init_tensors) - n_flags

    def make_args(g):
        phs = [placeholder_op(g, t.dtype, s, name=_op_name(label))
               for t, s, label in zip(init_tensors, shapes, leaf_labels)]
        g.inputs = phs
        user = [cv.rebuild(leaf, ph) for leaf, ph in zip(init_leaves, phs[:n_user])]
        packed, k = [], 0
        for s in structures:
            m = len(nest.flatten(s, expand_composites=True))
            packed.append(nest.pack_sequence_as(s, user[k:k + m], expand_composites=True)
                          if nest.is_nested(s, expand_composites=True) else user[k])
            k += m
        return packed, phs

    cond_g = Graph("while_cond", outer=graph)
    with cond_g.as_default():
        args, _ = make_args(cond_g)
        c = cond_fn(*args)
        c = convert_to_tensor(c) if not isinstance(c, Tensor) else c
        if c.dtype is not dtypes.bool_:
            raise TypeError(f"the test of a staged loop must be a scalar bool, got {c!r}")
        c = truth_value(c, "the test of a staged loop")     # (one element of any shape)
        c = cv.in_graph_tensor(cond_g, c)

    body_g = Graph("while_body", outer=graph)
    with body_g.as_default():
        args, phs = make_args(body_g)
        out = body_fn(*args)
        out = cv.as_var_list(out, len(structures))
        leaves = []
        for s, o, label in zip(structures, out, top_labels):
            if not nest.same_structure(s, o, expand_composites=True):
                raise TypeError(
                    f"'{label}' does not have the same nested structure after one iteration: "
                    f"{nest.structure_repr(s)} before the loop, {nest.structure_repr(o)} after. "
                    f"Keep its structure fixed.")
        flat_out, _ = _flatten_vars(out, leaf_labels)
        for k, (v, t) in enumerate(zip(flat_out, init_tensors)):
            if not (cv.is_tensorish(v) or _is_ta(v)):
                raise TypeError(f"'{leaf_labels[k]}' becomes {cv.describe(v)} in the loop; a "
                                "staged loop variable must stay a tensor.")
            tv = cv.leaf_to_tensor(v, dtype_hint=t.dtype)
            if tv.dtype is not t.dtype:
                raise DTypeMismatchError(
                    f"'{leaf_labels[k]}' has dtype {t.dtype.name} before the loop, but dtype "
                    f"{tv.dtype.name} after one iteration; a loop variable must keep its dtype "
                    f"(use rt.cast).")
            leaves.append(cv.in_graph_tensor(body_g, tv))
        for _ in range(n_flags):
            leaves.append(cv.in_graph_tensor(body_g, constant(True)))
    return cond_g, body_g, c, leaves, out


def _learn_undefined(cond_fn, body_fn, init, undefined, is_undefined):
    """Traces the body once in a scratch graph to learn what the loop gives the variables
    that are undefined before it. Returns {index: value or None}."""
    scratch = Graph("scratch", outer=current_graph())

    def stand_in(x):
        """A placeholder like loop value `x` (TensorArrays and Python objects as they are)."""
        if _is_ta(x) or not cv.is_tensorish(x):
            return x
        t = cv.leaf_to_tensor(x)
        return placeholder_op(scratch, t.dtype, t.shape)

    with scratch.as_default():
        args = [v if i in undefined else nest.map_structure(stand_in, v, expand_composites=True)
                for i, v in enumerate(init)]
        out = cv.as_var_list(body_fn(*args), len(init))
    return {i: None if is_undefined(out[i]) else out[i] for i in undefined}


def _is_ta(x):
    return isinstance(x, cv.HANDLED)
