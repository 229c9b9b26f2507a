"""Staged control flow: `cond` and `while_loop`.

Each branch (and a loop's test and body) is traced into its own sub-graph. The node in
the enclosing graph takes the predicate or the initial loop values, plus every outer
tensor a sub-graph captured; a `Body` says which placeholder of the sub-graph receives
which of those inputs, and which of its tensors are the results.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from . import dtypes, nest
from .errors import DTypeMismatchError
from .graph import Graph, current_graph
from .ops.core import OpDef, constant, convert_to_tensor, placeholder_op
from .shapes import TensorShape, as_shape
from .tensor import EagerTensor, SymbolicTensor, Tensor


class Body:
    """A traced sub-graph used as a function: `params[i]` is the placeholder fed by the
    node's i-th input (None when unused), `outputs` the tensors it returns."""

    __slots__ = ("graph", "params", "outputs")

    def __init__(self, graph: Graph, params: list, outputs: list):
        self.graph = graph
        self.params = params
        self.outputs = outputs


def _cond_infer(inputs, then_body, else_body, out_specs):
    return out_specs


def _while_infer(inputs, cond_body, body, out_specs, num_loop_vars, has_max):
    return out_specs


IF = OpDef("StatelessIf", _cond_infer, None, default_name="cond")
IF_STATEFUL = OpDef("If", _cond_infer, None, side_effect=True, default_name="cond")
WHILE = OpDef("StatelessWhile", _while_infer, None, default_name="while")
WHILE_STATEFUL = OpDef("While", _while_infer, None, side_effect=True, default_name="while")
OPS = [IF, IF_STATEFUL, WHILE, WHILE_STATEFUL]


# -- helpers ------------------------------------------------------------------------------

def _path_names(structure, prefix) -> list:
    """Names for the leaves of a nested structure: 'loop_vars[0]', "x['a']", ..."""
    if isinstance(structure, dict):
        keys = sorted(structure, key=lambda k: (type(k).__name__, k) if not isinstance(k, (int, float)) else ("", k))
        return [n for k in keys for n in _path_names(structure[k], f"{prefix}[{k!r}]")]
    if isinstance(structure, (list, tuple)):
        return [n for i, v in enumerate(structure) for n in _path_names(v, f"{prefix}[{i}]")]
    return [prefix]


def _leaf_to_tensor(v, dtype_hint=None):
    """A loop/branch value as a tensor; TensorArrays travel as their handle tensor."""
    from .ops.tensor_array import TensorArray
    if isinstance(v, TensorArray):
        return v.handle
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v, dtype_hint=dtype_hint)


def _rebuild(template, tensor):
    from .ops.tensor_array import TensorArray
    if isinstance(template, TensorArray):
        return template._with_handle(tensor)
    return tensor


def _is_tensorish(v) -> bool:
    from .ops.tensor_array import TensorArray
    if isinstance(v, (Tensor, TensorArray)) or getattr(v, "_as_tensor", None) is not None:
        return True
    try:
        dtypes.infer_dtype(v)
        return True
    except TypeError:
        return False


def _subgraph_inputs(graphs: Sequence[Graph]):
    """The outer tensors all `graphs` captured, in a stable order, and for each graph the
    placeholders fed by them (None where a graph does not use one)."""
    ext, index = [], {}
    for g in graphs:
        for outer_t, _ in g.captured_inputs():
            if id(outer_t) not in index:
                index[id(outer_t)] = len(ext)
                ext.append(outer_t)
    params = []
    for g in graphs:
        p = [None] * len(ext)
        for outer_t, inner in g.captured_inputs():
            p[index[id(outer_t)]] = inner
        params.append(p)
    return ext, params


def _has_side_effects(*graphs) -> bool:
    return any(g.has_side_effects for g in graphs)


# -- cond ---------------------------------------------------------------------------------

def cond(pred, true_fn: Callable, false_fn: Callable, name: Optional[str] = None):
    """`true_fn()` if `pred` else `false_fn()`. With a symbolic `pred` both branches are
    traced and the choice is made each time the graph runs."""
    if not isinstance(pred, SymbolicTensor):
        return true_fn() if bool(pred) else false_fn()
    outs, _ = stage_cond(pred, true_fn, false_fn, names=None, name=name)
    return outs


def stage_cond(pred, true_fn, false_fn, names=None, is_undefined=None, name=None):
    """Traces both branches and records the node. Returns (outputs as nested values,
    defined flags per top-level output or None) -- see the autograph protocol."""
    graph = current_graph()
    if pred.dtype is not dtypes.bool_ or pred.shape.rank not in (0, None):
        raise TypeError(f"the condition of a staged `if` must be a scalar bool tensor, got {pred!r}")
    branches = []
    for which, fn in (("true", true_fn), ("false", false_fn)):
        g = Graph(f"cond_{which}", outer=graph)
        with g.as_default():
            out = fn()
        branches.append((g, out))
    (gt, out_t), (gf, out_f) = branches
    if names is None:
        out_t_list, out_f_list, top = [out_t], [out_f], ["output"]
    else:
        out_t_list, out_f_list, top = list(out_t), list(out_f), list(names)

    flags = [None] * len(top)
    if is_undefined is not None:
        for i, (a, b) in enumerate(zip(out_t_list, out_f_list)):
            ua, ub = is_undefined(a), is_undefined(b)
            if ua and ub:
                continue
            if ua or ub:
                defined_g, other_g = (gf, gt) if ua else (gt, gf)
                template = b if ua else a
                from .while_staging import placeholder_value
                with other_g.as_default():
                    filler = nest.map_structure(placeholder_value, template)
                if ua:
                    out_t_list[i] = filler
                else:
                    out_f_list[i] = filler
                flags[i] = (not ua)  # the value of the flag in the true branch

    # Pair the leaves of both branches and make them tensors of one dtype.
    t_leaves, f_leaves, templates, passthrough = [], [], [], {}
    results_t, results_f = [], []
    for i, (a, b) in enumerate(zip(out_t_list, out_f_list)):
        label = top[i]
        if is_undefined is not None and is_undefined(a) and is_undefined(b):
            passthrough[i] = a
            results_t.append(None)
            results_f.append(None)
            continue
        if not nest.same_structure(a, b):
            raise TypeError(
                f"'{label}' has a different structure in the two branches: "
                f"{nest.structure_repr(a)} if the condition holds, {nest.structure_repr(b)} "
                "if not. Make both branches give it the same structure.")
        la, lb = nest.flatten(a), nest.flatten(b)
        pa, pb = [], []
        for j, (x, y) in enumerate(zip(la, lb)):
            leaf_label = label if len(la) == 1 else _path_names(a, label)[j]
            if not (_is_tensorish(x) and _is_tensorish(y)):
                if x is y or (x is None and y is None):
                    pa.append(("pass", x))
                    pb.append(("pass", y))
                    continue
                raise TypeError(
                    f"'{leaf_label}' is {_describe(x)} if the condition holds but {_describe(y)} "
                    "if not; only tensors and Python numbers can differ between the branches of "
                    "a staged `if`.")
            with gt.as_default():
                tx = _branch_tensor(x, y)
            with gf.as_default():
                ty = _branch_tensor(y, tx)
            if tx.dtype is not ty.dtype:
                raise DTypeMismatchError(
                    f"'{leaf_label}' is {tx.dtype.name} if the condition holds but "
                    f"{ty.dtype.name} if not; both branches must give it one dtype "
                    "(use rt.cast).")
            pa.append(("t", len(t_leaves)))
            pb.append(("t", len(t_leaves)))
            t_leaves.append(tx)
            f_leaves.append(ty)
            templates.append(x if not isinstance(x, (int, float, bool)) else y)
        results_t.append(pa)
        results_f.append(pb)

    flag_tensors = []
    for i, f in enumerate(flags):
        if f is not None:
            with gt.as_default():
                t_leaves.append(_in_graph_tensor(gt, constant(bool(f))))
            with gf.as_default():
                f_leaves.append(_in_graph_tensor(gf, constant(not f)))
            flag_tensors.append(i)

    t_leaves = [_in_graph_tensor(gt, t) for t in t_leaves]
    f_leaves = [_in_graph_tensor(gf, t) for t in f_leaves]
    out_specs = [(a.shape.most_specific_common(b.shape), a.dtype)
                 for a, b in zip(t_leaves, f_leaves)]
    ext, (pt, pf) = _subgraph_inputs([gt, gf])
    then_body, else_body = Body(gt, pt, t_leaves), Body(gf, pf, f_leaves)
    opdef = IF_STATEFUL if _has_side_effects(gt, gf) else IF
    if out_specs or opdef.side_effect:
        op = graph.add_op(opdef, [pred, *ext],
                          {"then_body": then_body, "else_body": else_body, "out_specs": out_specs},
                          out_specs, name)
        outs = list(op.outputs)
    else:
        outs = []

    # Rebuild the user's structures.
    values = []
    for i in range(len(top)):
        if i in passthrough:
            values.append(passthrough[i])
            continue
        template = out_t_list[i]
        leaves = nest.flatten(template)
        rebuilt = []
        for (kind, v), leaf in zip(results_t[i], leaves):
            rebuilt.append(v if kind == "pass" else _rebuild(leaf, outs[v]))
        values.append(nest.pack_sequence_as(template, rebuilt) if nest.is_nested(template)
                      else rebuilt[0])
    defined = [None] * len(top)
    base = len(t_leaves) - len(flag_tensors)
    for k, i in enumerate(flag_tensors):
        defined[i] = outs[base + k]
    if names is None:
        return values[0], None
    return tuple(values), tuple(defined)


def _describe(v) -> str:
    if v is None:
        return "None"
    return f"a {type(v).__name__}"


def _branch_tensor(v, other):
    """`v` as a tensor of the current branch graph; Python numbers take the other branch's
    dtype when they fit it."""
    if isinstance(v, Tensor) or getattr(v, "_as_tensor", None) is not None:
        return _leaf_to_tensor(v)
    from .ops.tensor_array import TensorArray
    if isinstance(v, TensorArray):
        return v.handle
    hint = None
    if isinstance(other, Tensor):
        hint = other.dtype
    elif isinstance(other, (int, float)) and not isinstance(other, bool):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, float) or isinstance(other, float)):
            hint = dtypes.float32
    return convert_to_tensor(v, dtype_hint=hint)


def _in_graph_tensor(g, t):
    """`t` as a tensor owned by `g` (so the branch returns it from inside)."""
    from .ops.core import _in_graph
    with g.as_default():
        return _in_graph(g, t)


# -- while_loop -----------------------------------------------------------------------------

def while_loop(cond: Callable, body: Callable, loop_vars, shape_invariants=None,
               maximum_iterations=None, name: Optional[str] = None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`. In a graph the body
    is traced once and runs as many times as the data says."""
    single = not isinstance(loop_vars, (list, tuple))
    vars_ = [loop_vars] if single else list(loop_vars)
    graph = current_graph()
    if graph is None:
        n = 0
        while (maximum_iterations is None or n < int(maximum_iterations)) and bool(cond(*vars_)):
            out = body(*vars_)
            vars_ = _as_var_list(out, len(vars_))
            n += 1
        return _like(loop_vars, vars_, single)
    names = _path_names(vars_, "loop_vars")
    invariants = None
    if shape_invariants is not None:
        inv = [shape_invariants] if single else list(shape_invariants)
        invariants = nest.flatten(inv) if nest.same_structure(inv, vars_) else None
        if invariants is None:
            raise ValueError("shape_invariants must have the same structure as loop_vars")
    outs, _ = stage_while(cond, body, tuple(vars_), names=None, leaf_names=names,
                          shape_invariants=invariants, maximum_iterations=maximum_iterations,
                          relax_shapes=False, name=name)
    return _like(loop_vars, list(outs), single)


def _like(loop_vars, values: list, single: bool):
    """`values` in the container type the user passed as `loop_vars`."""
    if single:
        return values[0]
    if isinstance(loop_vars, tuple):
        return type(loop_vars)(*values) if hasattr(loop_vars, "_fields") else tuple(values)
    return values


def _as_var_list(out, n):
    if n == 1 and not isinstance(out, (list, tuple)):
        return [out]
    if isinstance(out, (list, tuple)) and not hasattr(out, "_fields"):
        out = list(out)
        if len(out) != n:
            raise ValueError(f"the loop body returned {len(out)} values for {n} loop variables")
        return out
    if n == 1:
        return [out]
    return list(out)


from .while_staging import stage_while  # noqa: E402  (the loop half lives beside)
from .gradients.control_flow_grad import cond_grad, while_grad  # noqa: E402

# The gradient rules (recompute the branch or iteration, then its ops' rules) live beside,
# in gradients/control_flow_grad.py, because they are as long as the staging above.
IF.grad = IF_STATEFUL.grad = cond_grad
WHILE.grad = WHILE_STATEFUL.grad = while_grad
