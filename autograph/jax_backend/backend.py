"""JAX's side of autograph's staging protocol (docs/staging_protocol.md): `if` on a traced
value is `lax.cond`, `while` is `lax.while_loop`, `for` over a traced array or a range
with traced bounds is a `lax.while_loop` over an index, `print` is a `jax.debug`
callback. Only JAX's tracers are staged (autograph.operators.staging_backends registers
this backend for them); concrete arrays behave as Python values.
"""
from __future__ import annotations

import contextvars
import functools
import sys
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from autograph.jax_backend import carry as carry_
from autograph.jax_backend.bounded import staged_loop, static_bound
from autograph.jax_backend.layouts import Layout, cast, describe_aval, is_array, merged_avals


def truth(value: Any, what: str) -> Any:
    """Python's truth value of `value` as a traced bool scalar (a number: not zero)."""
    p = jnp.asarray(value)
    if p.size != 1:
        raise ValueError(f"{what} must have one element to have a truth value, not shape "
                         f"{p.shape}; use jnp.any(...) or jnp.all(...)")
    p = p.reshape(()) if p.shape else p
    return p if p.dtype == jnp.bool_ else p != 0


class StagedRange:
    """`range(start, limit, delta)` with a traced bound: iterated by a staged `for`."""

    __slots__ = ("start", "limit", "delta")

    def __init__(self, start: Any, limit: Any, delta: Any):
        self.start, self.limit, self.delta = start, limit, delta

    def length(self) -> Any:
        """max(ceil((limit - start) / delta), 0), the number of items (a Python delta,
        the common case, gives the few ops a JAX user writes)."""
        delta = self.delta
        if isinstance(delta, int):
            if delta == 0:
                raise ValueError("range() arg 3 must not be zero")
            span = (jnp.asarray(self.limit) - self.start) if delta > 0 else \
                (self.start - jnp.asarray(self.limit))
            span = jnp.maximum(span, 0).astype(jnp.int32)
            step = abs(delta)
            return span if step == 1 else lax.div(span + (step - 1), jnp.int32(step))
        span = jnp.asarray(self.limit) - self.start
        delta = jnp.asarray(delta)
        up = (span + delta - 1) // jnp.where(delta == 0, 1, delta)
        down = (-span - delta - 1) // jnp.where(delta == 0, 1, -delta)
        return jnp.maximum(jnp.where(delta > 0, up, down), 0).astype(jnp.int32)

    def item(self, i: Any) -> Any:
        """The i-th item, start + i * delta."""
        step = i if isinstance(self.delta, int) and self.delta == 1 else i * self.delta
        return step if isinstance(self.start, int) and self.start == 0 else self.start + step

    def __repr__(self) -> str:
        return f"range({self.start}, {self.limit}, {self.delta})"


def _trace_branch(fn: Callable[..., Sequence[Any]], *args: Any) -> tuple:
    """Traces `fn(*args)` once into a jaxpr: (closed jaxpr, the layout of each output)."""
    box: list = []

    def arrays_only(*args):
        layouts, arrays = [], []
        for value in fn(*args):
            layout, leaves = Layout.of(value)
            layouts.append(layout)
            arrays.extend(leaves)
        box.append(layouts)
        return arrays

    closed, avals = jax.make_jaxpr(arrays_only, return_shape=True)(*args)
    layouts, it = box[0], iter(avals)
    return closed, [lay.with_avals([next(it) for _ in lay.avals]) for lay in layouts]


# Set while `ag.jax.checkify` traces a converted function: `assert` is a checkify check.
_FUNCTIONAL_CHECKS = contextvars.ContextVar("autograph_jax_checkify", default=False)


def with_functional_checks(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, its `assert`s staged as `jax.experimental.checkify` checks."""
    token = _FUNCTIONAL_CHECKS.set(True)
    try:
        return fn(*args, **kwargs)
    finally:
        _FUNCTIONAL_CHECKS.reset(token)


# The conditions under which the code being traced runs: each staged branch's condition
# and each loop body's test, innermost last (values, or functions giving them when first
# needed). A check (`assert`, a read of a name some paths leave unassigned) holds where
# they do not: under `vmap`, JAX runs both sides of a `cond` and the body of a `while` for
# elements already done, and must not fail for them.
_PATH = contextvars.ContextVar("autograph_jax_path", default=())


def _on_path(condition: Any, fn: Callable[[], Any]) -> Any:
    token = _PATH.set(_PATH.get() + (condition,))
    try:
        return fn()
    finally:
        _PATH.reset(token)


class JaxBackend:
    """Stages autograph's constructs on JAX tracers."""

    def convert(self, value):
        return jnp.asarray(value)

    # -- if -----------------------------------------------------------------------------
    def cond(self, pred, true_fn, false_fn, names, is_undefined):
        p = truth(pred, _CONDITION_OF.get(names[0] if names else None,
                                          "the condition of a staged `if`"))
        t_jaxpr, t_layouts = _trace_branch(lambda: _on_path(p, true_fn))
        f_jaxpr, f_layouts = _trace_branch(lambda: _on_path(lambda: jnp.logical_not(p),
                                                            false_fn))
        plan, defined, result_layouts = [], [], []
        for name, t, f in zip(names, t_layouts, f_layouts):
            t_undef = len(t.statics) == 1 and is_undefined(t.statics[0])
            f_undef = len(f.statics) == 1 and is_undefined(f.statics[0])
            if t_undef and f_undef:
                plan.append((None, None, None))
                defined.append(None)
                result_layouts.append(t)
            elif t_undef or f_undef:
                given = f if t_undef else t
                plan.append((given.avals, not t_undef, not f_undef))
                defined.append(jnp.logical_not(p) if t_undef else p)
                result_layouts.append(given)
            else:
                avals = merged_avals(name, t, f, "in the true branch", "in the false branch",
                                     is_undefined)
                plan.append((avals, True, True))
                defined.append(None)
                result_layouts.append(t.with_avals(avals))
        branches = [_branch_fn(t_jaxpr, t_layouts, plan, 1),
                    _branch_fn(f_jaxpr, f_layouts, plan, 2)]
        staged = any(a for a, _, _ in plan) or t_jaxpr.effects or f_jaxpr.effects
        if not staged:
            leaves = []
        elif _selectable(t_jaxpr) and _selectable(f_jaxpr):
            leaves = [_select(p, t, f) for t, f in zip(branches[0](), branches[1]())]
        else:
            leaves = lax.cond(p, branches[0], branches[1])
        outs, at = [], 0
        for layout, (avals, _, _) in zip(result_layouts, plan):
            if avals is None:
                outs.append(layout.rebuild([]))
                continue
            outs.append(layout.rebuild(leaves[at:at + len(avals)]))
            at += len(avals)
        return tuple(outs), tuple(defined)

    # -- while --------------------------------------------------------------------------
    def while_loop(self, cond_fn, body_fn, init, names, is_undefined, opts=None):
        opts = opts or {}
        init = list(init)
        # A variable undefined before the loop starts as zeros of the type the body gives
        # it. (Its defined flag is autograph's: see docs/staging_protocol.md.)
        if any(is_undefined(v) for v in init):
            # (on traced values, as the loop runs it: a Python 0 before the loop is an
            # int32 there, and an `if` on it stages)
            splits = [Layout.of(value) for value in init]

            def one_iteration(*leaves):
                it = iter(leaves)
                return body_fn(*[lay.rebuild([next(it) for _ in arrays])
                                 for lay, arrays in splits])
            _, learned = _trace_branch(one_iteration,
                                       *[a for _, arrays in splits for a in arrays])
            for i, (value, layout) in enumerate(zip(init, learned)):
                if is_undefined(value) and not (len(layout.statics) == 1
                                                and is_undefined(layout.statics[0])):
                    init[i] = layout.rebuild(layout.zeros())
        layouts, leaves = [], []
        for value in init:
            layout, arrays = Layout.of(value)
            layouts.append(layout)
            leaves.append(arrays)
        limit = opts.get("maximum_iterations")

        def values(carry):
            return [lay.rebuild(arrays) for lay, arrays in zip(layouts, carry[0])]

        def test(carry):
            go = truth(cond_fn(*values(carry)), "the test of a staged loop")
            if limit is not None:
                go = jnp.logical_and(go, carry[1] < limit)
            return go

        def body(carry):
            outs = _on_path(lambda: test(carry), lambda: body_fn(*values(carry)))
            new = []
            for name, before, value in zip(names, layouts, outs):
                after, arrays = Layout.of(value)
                avals = merged_avals(name, before, after, "before the loop",
                                     "after an iteration", is_undefined)
                # (a Python number before the loop takes the body's dtype: JAX promotes it)
                new.append(cast(arrays, [b if b.dtype == a.dtype else a
                                         for a, b in zip(avals, before.avals)]))
            return (new,) if limit is None else (new, carry[1] + 1)

        # (the iteration count is carried only for maximum_iterations: the loop JAX
        # users write by hand carries nothing else)
        carry = (leaves,)
        raw = [leaf for value in init for leaf in jax.tree_util.tree_leaves(value)
               if is_array(leaf)]                 # (as given: Python constants compare)
        if limit is not None:
            carry += (jnp.int32(0),)
            raw.append(0)
        loop_test, loop_body, small, full = _once_each(test, body, carry, raw)
        bound = static_bound(limit if limit is not None else opts.get("trip_count"))
        exact = bool(opts.get("exact")) and limit is None    # (a for without break)
        final = full(staged_loop(loop_test, loop_body, small, bound, exact))
        outs = [lay.rebuild(arrays) for lay, arrays in zip(layouts, final[0])]
        return tuple(outs), (None,) * len(init)

    # -- for, range, len, in --------------------------------------------------------------
    def iterate(self, iterable):
        if isinstance(iterable, StagedRange):
            return iterable.length(), iterable.item
        x = jnp.asarray(iterable)
        if x.ndim == 0:
            raise TypeError(f"cannot iterate over a scalar ({describe_aval(jax.typeof(x))})")
        if x.shape[0] == 0:      # no item: the body is traced on a stand-in of an item's type
            return 0, (lambda i: jnp.zeros(x.shape[1:], x.dtype))
        # (lax.dynamic_slice_in_dim, not x[i] or dynamic_index_in_dim: no nested jit to
        # lower)
        return x.shape[0], (lambda i: lax.squeeze(lax.dynamic_slice_in_dim(x, i, 1, 0), (0,)))

    def range(self, start, limit, delta):
        for bound in (start, limit, delta):
            if jnp.ndim(bound) != 0:
                raise TypeError(f"range() takes scalar integers, not an array of shape "
                                f"{jnp.shape(bound)}: index it (x[0]) or reshape it")
        return StagedRange(start, limit, delta)

    def extremum(self, values, largest):
        """Python's `max(*values)` (largest) or `min`, of traced scalars, or of the
        elements of one traced vector."""
        what = "max" if largest else "min"
        if len(values) == 1:
            x = jnp.asarray(values[0])
            if x.ndim != 1:
                raise TypeError(f"{what}() of an array of shape {x.shape} compares its "
                                f"{'rows' if x.ndim else 'elements'} as Python values, "
                                f"which has no single truth value; use jnp.{what}(x) "
                                f"or jnp.{what}imum(a, b)")
            if x.shape[0] == 0:
                raise ValueError(f"{what}() arg is an empty sequence")
            if not jnp.issubdtype(x.dtype, jnp.inexact):
                return jnp.max(x) if largest else jnp.min(x)
            best = jnp.nanmax(x) if largest else jnp.nanmin(x)
            return jnp.where(jnp.isnan(x[0]), x[0], best)      # (a NaN first stays)
        result = values[0]
        for value in values[1:]:
            for v in (result, value):
                if jnp.ndim(v) != 0:
                    raise TypeError(f"{what}() of arrays compares them as Python values, "
                                    f"which has no single truth value; use "
                                    f"jnp.{what}imum(a, b) for the elementwise {what}")
            better = value > result if largest else value < result
            result = jnp.where(better, value, result)
        return result

    def minimum(self, a, b):
        return jnp.minimum(a, b)

    def len(self, value):
        if isinstance(value, StagedRange):
            return value.length()
        if jnp.ndim(value) == 0:
            raise TypeError(f"len() of a scalar is not defined: {value} has shape (); "
                            f"use jnp.size for its number of elements")
        return jnp.shape(value)[0]

    def contains(self, container, item):
        return jnp.any(jnp.asarray(container) == item)

    def logical_and(self, a, b):
        return jnp.logical_and(truth(a, "the test of a staged loop"),
                               truth(b, "the test of a staged loop"))

    def logical_not(self, x):
        return jnp.logical_not(truth(x, "the operand of `not`"))

    # -- print, assert, lists -------------------------------------------------------------
    def print(self, values, sep, end, file):
        """`print(...)` of traced values: printed at every run (a `jax.debug` callback),
        the other arguments as Python prints them."""
        staged = [i for i, v in enumerate(values) if isinstance(v, jax.Array)]
        shown = list(values)

        def show(*arrays):
            for i, a in zip(staged, arrays):
                shown[i] = np.asarray(a)
            print(*shown, sep=sep, end=end, file=file if file is not None else sys.stdout)

        jax.debug.callback(show, *[values[i] for i in staged])

    def assert_(self, pred, message: str):
        """A run-time check: the computation fails with `message` where pred is false
        (a callback raising AssertionError; under `ag.jax.checkify`, a `checkify.check`,
        whose error is a value the caller gets)."""
        ok = truth(pred, "the condition of an `assert`")
        path = _PATH.get()
        if path:       # (under vmap both branches, and done iterations, run: see _PATH)
            taken = functools.reduce(jnp.logical_and, [c() if callable(c) else c
                                                       for c in path])
            ok = jnp.logical_or(ok, jnp.logical_not(taken))
        if _FUNCTIONAL_CHECKS.get():
            from jax.experimental import checkify
            checkify.check(ok, message.replace("{", "{{").replace("}", "}}"))
            return

        def check(ok):
            if not np.all(ok):
                raise AssertionError(message)
        jax.debug.callback(check, ok)

    def new_list(self, items, element_type=None):
        raise TypeError("it is appended to (or popped) in an `if`/`while`/`for` on a traced "
                        "value, which JAX cannot stage: a list's length would depend on the "
                        "data, and JAX arrays have static shapes. Build an array of a fixed "
                        "size instead (buf = jnp.zeros(n); buf = buf.at[i].set(v)), or keep "
                        "the loop in Python (a Python bound: `for i in range(3)`)")

    def stack(self, items, element_type=None):
        return jnp.stack([jnp.asarray(v) for v in items])


def _once_each(test, body, carry, raw):
    """The loop over `carry` with variables that always hold the same value carried once
    (see carry.py): (test, body, the smaller carry, its inverse: small -> carry). `raw`:
    the carry's leaves as given (Python numbers before JAX made them arrays). The body is
    traced once, here; the loop replays its jaxpr."""
    flat, treedef = jax.tree_util.tree_flatten(carry)
    closed = jax.make_jaxpr(lambda *leaves: jax.tree_util.tree_leaves(
        body(treedef.unflatten(leaves))))(*flat)
    same = carry_.shared(raw, closed)
    kept = [i for i, j in enumerate(same) if i == j]
    at = {i: k for k, i in enumerate(kept)}
    where = [at[j] for j in same]

    def full(small):
        return treedef.unflatten([small[k] for k in where])

    def small_test(small):
        return test(full(small))

    def small_body(small):
        outs = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *[small[k] for k in where])
        return [outs[i] for i in kept]

    return small_test, small_body, [flat[i] for i in kept], full


def _branch_fn(closed, layouts, plan, side: int):
    """The function `lax.cond` traces for one branch: its jaxpr's values, an undefined
    output as zeros of the other branch's, each cast to the merged type."""
    def branch():
        values = jax.core.eval_jaxpr(closed.jaxpr, closed.consts)
        outs, at = [], 0
        for layout, (avals, t_def, f_def) in zip(layouts, plan):
            if avals is None:
                continue
            mine = t_def if side == 1 else f_def
            if not mine:
                outs.extend(jnp.zeros(a.shape, a.dtype) for a in avals)
                continue
            n = len(layout.avals)
            outs.extend(cast(values[at:at + n], avals))
            at += n
        return outs
    return branch


# Branches this small and plain are both computed and selected from (`jnp.where`), as
# JAX users write them (an XLA conditional costs more than a few scalar ops, in a loop
# at every iteration): only ops without effects or traps, on few elements, giving
# integers and bools only (flags, counters, indices): no gradient flows through them, so
# the branch not taken cannot put a NaN in one (a zero cotangent times an infinite
# derivative, as `jnp.where` of floats can).
_SELECTABLE_OPS = frozenset({
    "add", "sub", "mul", "neg", "max", "min", "abs", "sign", "convert_element_type",
    "select_n", "and", "or", "not", "xor", "eq", "ne", "lt", "le", "gt", "ge", "copy",
    "copy_p", "squeeze", "broadcast_in_dim", "reshape", "pjit", "jit"})
_SELECTABLE_EQNS = 8
_SELECTABLE_ELEMENTS = 16


def _select(p, t, f):
    """`jnp.where(p, t, f)`; a flag set to a constant on one side (`break_ = True`) as
    `p | f` (or `~p & f`, ...), which XLA fuses where it does not fuse a select."""
    if jnp.result_type(t) == jnp.bool_ and jnp.result_type(f) == jnp.bool_:
        not_p = jnp.logical_not
        if _is_constant(t):
            return jnp.logical_or(p, f) if bool(t) else jnp.logical_and(not_p(p), f)
        if _is_constant(f):
            return jnp.logical_or(not_p(p), t) if bool(f) else jnp.logical_and(p, t)
    return lax.select_n(p, f, t)      # (the branches' outputs have one type: merged)


def _is_constant(value) -> bool:
    """A scalar known while tracing (a literal a branch gives)."""
    return not isinstance(value, jax.core.Tracer) and np.ndim(value) == 0


def _selectable(closed) -> bool:
    jaxpr = closed.jaxpr
    if closed.effects or len(jaxpr.eqns) > _SELECTABLE_EQNS:
        return False
    if any(jnp.issubdtype(v.aval.dtype, jnp.inexact) for v in jaxpr.outvars):
        return False
    if sum(int(np.prod(v.aval.shape)) for v in jaxpr.outvars) > _SELECTABLE_ELEMENTS:
        return False
    for eqn in jaxpr.eqns:
        if eqn.primitive.name not in _SELECTABLE_OPS:
            return False
        if eqn.primitive.name in ("pjit", "jit"):
            inner = eqn.params.get("jaxpr")
            if inner is None or not _selectable(inner):
                return False
    return True


# What a `cond`'s condition is, by the name autograph gives its one output.
_CONDITION_OF = {"the `and` expression": "an operand of `and`",
                 "the `or` expression": "an operand of `or`",
                 "the conditional expression": "the condition of `x if c else y`"}

BACKEND = JaxBackend()
StagedRange.__autograph_backend__ = BACKEND
