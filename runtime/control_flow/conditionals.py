"""The staged `cond`: its node (`IF`, `IF_STATEFUL`), the tracing of both branches into
it, and its gradient rule (a `cond` of the branches' gradients)."""
from __future__ import annotations

from typing import Callable, Optional

from .. import nest
from ..core import dtypes
from ..core.graph import Graph, current_graph
from ..core.opdef import OpDef
from ..core.tensor import SymbolicTensor, Tensor
from ..errors import DTypeMismatchError
from ..backprop import Grads, ancestors, body_gradients, differentiable, zeros_for
from ..ops.core import constant, convert_to_tensor
from ..ops.makers import zeros
from ..truth import truth_value
from . import values as cv
from .body import Body


# -- the node -----------------------------------------------------------------------------

class CondDef(OpDef):
    """A two-way branch: `then_body` or `else_body` runs on the captured inputs.

    A cond node's inputs are `[pred, *captured]`; its attributes `then_body` and
    `else_body` (`Body`s fed the captured inputs) and `out_specs`."""

    __slots__ = ()

    def __init__(self, name, side_effect):
        super().__init__(name, _cond_specs, None, side_effect=side_effect, default_name="cond",
                         body_attrs=("then_body", "else_body"), grad=cond_grad)

    def visit(self, visitor, op):
        """`visitor`'s method for this node (core.walk.Visitor dispatches through it)."""
        return visitor.cond(op)


# (The inference function's parameters name the attributes: saved graphs are checked
# against them.)
def _cond_specs(inputs, then_body, else_body, out_specs):
    return out_specs


def is_cond(op) -> bool:
    return isinstance(op.opdef, CondDef)


# -- gradient -----------------------------------------------------------------------------
# A `cond` on the same predicate whose branches are the branches' gradients (each
# recomputes its branch's forward values from the node's inputs, then runs their rules),
# so only the branch taken contributes.

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
    return [k for k in wrt if k in params], cv.float_variables(variables.values())


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

    results = list(cond(cv.in_current_graph(pred), branch(then_body), branch(else_body)))
    in_grads = [None] * len(inputs)
    for k, g in zip(wrt, results):
        in_grads[1 + k] = g
    var_grads = {id(v): (v, g) for v, g in zip(variables, results[len(wrt):])}
    return Grads(in_grads, var_grads)


IF = CondDef("StatelessIf", side_effect=False)
IF_STATEFUL = CondDef("If", side_effect=True)


# -- staging ------------------------------------------------------------------------------

def cond(pred, true_fn: Callable, false_fn: Callable, name: Optional[str] = None):
    """`true_fn()` if `pred` else `false_fn()`.

    With a symbolic `pred` (in a graph) both branches are traced and the choice is made each
    time the graph runs; they must return the same structure and dtypes. Otherwise `pred`
    is read as a Python bool and only the chosen branch is called.

    Args:
      pred: a scalar bool tensor or a Python bool.
      true_fn: a callable with no arguments.
      false_fn: a callable with no arguments.
      name: an optional name for the op.

    Returns:
      What the chosen branch returns (in a graph: the Cond op's outputs in that structure).

    >>> print(rt.cond(rt.constant(True), lambda: rt.constant(1), lambda: rt.constant(2)))
    rt.Tensor(1, shape=(), dtype=int32)
    >>> f = rt.function(lambda x: rt.cond(x > 0, lambda: x * 10, lambda: -x))
    >>> print(f(rt.constant(2)), f(rt.constant(-3)))
    rt.Tensor(20, shape=(), dtype=int32) rt.Tensor(3, shape=(), dtype=int32)
    """
    if not isinstance(pred, SymbolicTensor):
        return true_fn() if bool(pred) else false_fn()
    outs, _ = stage_cond(pred, true_fn, false_fn, names=None, name=name)
    return outs


def stage_cond(pred, true_fn, false_fn, names=None, is_undefined=None, name=None):
    """Traces both branches and records the node. Returns (outputs as nested values,
    defined flags per top-level output or None) -- see the autograph protocol.

    With `names`, each branch returns a tuple of len(names) values (autograph's state);
    without, one value of any nesting (rt.cond)."""
    graph = current_graph()
    if pred.dtype is not dtypes.bool_:
        raise TypeError(f"the condition of a staged `if` must be a scalar bool tensor, got {pred!r}")
    # One element of any shape is that element, as TensorFlow squeezes the predicate;
    # more (or none) is ambiguous.
    pred = truth_value(pred, "the condition of a staged `if`")
    gt, out_t = _trace_branch("true", true_fn, graph)
    gf, out_f = _trace_branch("false", false_fn, graph)
    labels = ["output"] if names is None else list(names)
    outs_t, outs_f = ([out_t], [out_f]) if names is None else (list(out_t), list(out_f))
    flags = _fill_undefined(outs_t, outs_f, gt, gf, is_undefined)

    # Pair the branches' leaves: each becomes one output of the node.
    t_leaves, f_leaves = [], []
    layouts = [_pair_leaves(label, a, b, gt, gf, t_leaves, f_leaves, is_undefined)
               for label, a, b in zip(labels, outs_t, outs_f)]
    first_flag = len(t_leaves)
    for in_true in flags:
        if in_true is not None:  # a "was it defined" output, constant in each branch
            for g, leaves, value in ((gt, t_leaves, in_true), (gf, f_leaves, not in_true)):
                with g.as_default():
                    leaves.append(constant(value))

    out_specs = [(a.shape.most_specific_common(b.shape), a.dtype)
                 for a, b in zip(t_leaves, f_leaves)]
    ext, (pt, pf) = cv.subgraph_inputs([gt, gf])
    opdef = IF_STATEFUL if cv.has_side_effects(gt, gf) else IF
    outs = []
    if out_specs or opdef.side_effect:
        op = graph.add_op(opdef, [pred, *ext], {"then_body": Body(gt, pt, t_leaves),
                                               "else_body": Body(gf, pf, f_leaves),
                                               "out_specs": out_specs}, out_specs, name)
        outs = list(op.outputs)

    values = [_unpack_layout(layout, outs) for layout in layouts]
    flag_outputs = iter(outs[first_flag:])
    defined = [None if f is None else next(flag_outputs) for f in flags]
    if names is None:
        return values[0], None
    return tuple(values), tuple(defined)


def _trace_branch(which: str, fn: Callable, outer: Graph):
    g = Graph(f"cond_{which}", outer=outer)
    with g.as_default():
        out = fn()
    return g, out


def _fill_undefined(outs_t, outs_f, gt, gf, is_undefined) -> list:
    """Where one branch leaves an output undefined, gives it a zero of the other branch's
    type there. Returns per output None, or the value of its "defined" flag in the true
    branch."""
    flags = [None] * len(outs_t)
    if is_undefined is None:
        return flags
    for i, (a, b) in enumerate(zip(outs_t, outs_f)):
        ua, ub = is_undefined(a), is_undefined(b)
        if ua == ub:
            continue
        graph, outs, template = (gt, outs_t, b) if ua else (gf, outs_f, a)
        if template is None:         # nothing to stand in for (a branch without a value)
            outs[i] = None
            continue
        with graph.as_default():
            outs[i] = nest.map_structure(cv.placeholder_value, template, expand_composites=True)
        flags[i] = not ua
    return flags


def _pair_leaves(label, a, b, gt, gf, t_leaves, f_leaves, is_undefined):
    """Checks that the branches give `label` one structure and one dtype per leaf, appends
    the tensors each branch returns, and says how to rebuild the value from the node's
    outputs: (_UNDEFINED, marker) or (template, [("pass", object) | ("out", index)])."""
    if is_undefined is not None and is_undefined(a) and is_undefined(b):
        return (_UNDEFINED, a)
    if not nest.same_structure(a, b, expand_composites=True):
        raise TypeError(
            f"'{label}' has a different structure in the two branches: "
            f"{nest.structure_repr(a)} if the condition holds, {nest.structure_repr(b)} "
            "if not; a staged `if` must return the same nested structure in both branches.")
    la, lb = nest.flatten(a, expand_composites=True), nest.flatten(b, expand_composites=True)
    leaf_labels = [label] if len(la) == 1 else cv.path_names(a, label)
    parts = []
    for leaf_label, x, y in zip(leaf_labels, la, lb):
        both_lists = isinstance(x, cv.HANDLED) and isinstance(y, cv.HANDLED)
        if not (cv.is_tensorish(x) and cv.is_tensorish(y)) and not (both_lists and x is not y):
            if x is y:
                parts.append(("pass", x))
                continue
            if type(x) is type(y):      # two objects of one class: say so
                raise TypeError(
                    f"'{leaf_label}' is one {type(x).__name__} object if the condition holds "
                    f"and another if not: a staged `if` must give the same Python object on "
                    "both paths (only tensors and Python numbers can differ between its "
                    "branches); choose before the `if`, or keep the values in tensors.")
            raise TypeError(
                f"'{leaf_label}' is {cv.describe(x)} if the condition holds but {cv.describe(y)} "
                "if not; only tensors and Python numbers can differ between the branches of "
                "a staged `if`.")
        with gt.as_default():
            tx = _branch_tensor(x, y)
        with gf.as_default():
            ty = _branch_tensor(y, tx)
        if tx.dtype is not ty.dtype:
            raise DTypeMismatchError(
                f"'{leaf_label}' is {tx.dtype.name} if the condition holds but "
                f"{ty.dtype.name} if not; both branches must give it one dtype (use rt.cast).")
        parts.append(("out", len(t_leaves)))
        t_leaves.append(cv.in_graph_tensor(gt, tx))
        f_leaves.append(cv.in_graph_tensor(gf, ty))
    # a composite claims statically only what both branches agree on
    return (nest.common_composites(a, b), parts)


_UNDEFINED = object()  # a layout tag: undefined on both paths, passed through


def _unpack_layout(layout, outs):
    """The user's value for one output, rebuilt from the node's outputs."""
    template, parts = layout
    if template is _UNDEFINED:
        return parts
    leaves = [obj if kind == "pass" else cv.rebuild(leaf, outs[obj])
              for (kind, obj), leaf in zip(parts, nest.flatten(template, expand_composites=True))]
    if nest.is_nested(template, expand_composites=True):
        return nest.pack_sequence_as(template, leaves, expand_composites=True)
    return leaves[0]


def _branch_tensor(v, other):
    """`v` as a tensor of the current branch graph; Python numbers take the other branch's
    dtype when they fit it."""
    if isinstance(v, Tensor) or getattr(v, "_as_tensor", None) is not None:
        return cv.leaf_to_tensor(v)
    if isinstance(v, cv.HANDLED):          # two views of staged lists: their handles
        return v.handle
    hint = None
    if isinstance(other, Tensor):
        hint = other.dtype
    elif isinstance(other, (int, float)) and not isinstance(other, bool):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, float) or isinstance(other, float)):
            hint = dtypes.float32
    return convert_to_tensor(v, dtype_hint=hint)
