"""The shapes of a staged loop's variables: their shape invariants, whether a value fits a
variable's shape, how a changed shape is relaxed, and the check that a loop can end."""
from __future__ import annotations

from .. import nest
from ..core.opdef import constant_value
from ..core.shapes import TensorShape, as_shape
from ..core.tensor import Tensor


def check_ends(cond_out, init_tensors, shapes, labels) -> None:
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


def leaf_invariants(shape_invariants, init, active, labels, init_tensors, n_flags, leaf_labels):
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


def fits(shape, loop_shape) -> bool:
    """Whether a value of static shape `shape` may be a loop variable of shape `loop_shape`:
    known wherever `loop_shape` is. Compatibility is not enough: a body giving (None,) for
    a (4,) variable would leave the next iteration a static (4,) that is not true (its
    rt.shape() folded to a constant, a loop test on it never changing)."""
    return loop_shape.most_specific_common(shape) == loop_shape


def relax(shape, seen, precise: bool) -> TensorShape:
    """A shape that both `shape` and `seen` fit, strictly less specific than `shape` (which
    `seen` does not fit): unknown where they differ (precise), or every dimension unknown
    (coarse); unknown rank when the ranks differ."""
    if precise or shape.rank is None or seen.rank != shape.rank:
        return shape.most_specific_common(seen)
    return TensorShape([None] * shape.rank)
