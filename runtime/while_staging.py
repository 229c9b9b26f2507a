"""Tracing a `while_loop` into a node: the test and the body become sub-graphs whose
placeholders stand for the loop variables."""
from __future__ import annotations

import re

from typing import Optional

import numpy as np

from . import nest
from .core import dtypes
from .errors import DTypeMismatchError
from .core.graph import Graph, current_graph
from .ops.core import constant, constant_value, convert_to_tensor
from .core.opdef import placeholder_op
from .core.shapes import TensorShape, as_shape
from .core.tensor import Tensor
from . import control_values as cv
from .truth import truth_value
from .core.control import WHILE, WHILE_STATEFUL, Body


def placeholder_value(template):
    """A zero value with `template`'s dtype and (known part of its) shape, made without
    referring to `template` (which may live in a sibling graph)."""
    if isinstance(template, cv.HANDLED):
        return template._empty_like()
    if isinstance(template, Tensor):
        dims = template.shape.dims
        shape = () if dims is None else tuple(d or 0 for d in dims)
        dtype = template.dtype
    else:
        dtype = dtypes.infer_dtype(template)
        shape = np.shape(template)
    fill = b"" if dtype.is_string else 0
    return constant(np.full(shape, fill, dtype=dtype.np_dtype), dtype)


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
                init[i] = nest.map_structure(placeholder_value, learned[i], expand_composites=True)
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

    fixed = _invariants(shape_invariants, init, active, labels, init_tensors, n_flags,
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
        _check_ends(cond_out, init_tensors, shapes, leaf_labels)
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


def _check_ends(cond_out, init_tensors, shapes, labels) -> None:
    """A loop whose condition is the constant True (`while rt.constant(True):` with no
    `break` or `return`) never ends when the graph runs: say so while tracing instead."""
    value = constant_value(cond_out) if isinstance(cond_out, Tensor) else cond_out
    if value is None or not bool(value):
        return
    changed = [f"'{label}' has shape {t.shape} before the loop, but shape {s} after one "
               f"iteration" for label, t, s in zip(labels, init_tensors, shapes)
               if s != t.shape]
    raise ValueError(
        "the condition of this staged loop is always true and nothing leaves it (no "
        "`break` or `return` under a tensor condition), so it would never end when the "
        "graph runs" + (f"; also, {'; '.join(changed)}" if changed else "")
        + ". Give it a condition that can become false, a `break`, or maximum_iterations")


def _invariants(shape_invariants, init, active, labels, init_tensors, n_flags, leaf_labels):
    """Per loop leaf, its shape invariant, or None where the loop may relax its shape.
    `shape_invariants` is rt.while_loop's list, or autograph's {variable name: shape}."""
    fixed = [None] * len(init_tensors)
    if isinstance(shape_invariants, dict):
        fixed = []
        for i in active:
            inv = shape_invariants.get(labels[i])
            n = len(nest.flatten(init[i], expand_composites=True))
            fixed += [None] * n if inv is None else [as_shape(s) for s in nest.flatten(inv)]
        fixed += [None] * n_flags
        if len(fixed) != len(init_tensors):
            raise ValueError("shape_invariants must have the structure of the loop variables")
    elif shape_invariants is not None:
        fixed = [as_shape(s) for s in shape_invariants] + [TensorShape(())] * n_flags
    for t, s, label in zip(init_tensors, fixed, leaf_labels):
        if s is not None and not s.is_compatible_with(t.shape):
            raise ValueError(f"'{label}' has shape {t.shape} before the loop, which does not "
                             f"fit its shape invariant {s}")
    return fixed


# Retraces with the most specific relaxation (only the dimensions that changed) before
# relaxing coarsely; see _relax.
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
        bad = [(k, t) for k, t in enumerate(body_leaves) if not _fits(t.shape, shapes[k])]
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
            shapes[k] = _relax(shapes[k], t.shape, precise=attempt < _PRECISE_RETRACES)
    raise AssertionError(f"loop variable shapes did not settle in {limit} traces")  # unreachable


def _fits(shape, loop_shape) -> bool:
    """Whether a value of static shape `shape` may be a loop variable of shape `loop_shape`:
    known wherever `loop_shape` is. Compatibility is not enough: a body giving (None,) for
    a (4,) variable would leave the next iteration a static (4,) that is not true (its
    rt.shape() folded to a constant, a loop test on it never changing)."""
    return loop_shape.most_specific_common(shape) == loop_shape


def _relax(shape, seen, precise: bool) -> TensorShape:
    """A shape that both `shape` and `seen` fit, strictly less specific than `shape` (which
    `seen` does not fit): unknown where they differ (precise), or every dimension unknown
    (coarse); unknown rank when the ranks differ."""
    if precise or shape.rank is None or seen.rank != shape.rank:
        return shape.most_specific_common(seen)
    return TensorShape([None] * shape.rank)


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
