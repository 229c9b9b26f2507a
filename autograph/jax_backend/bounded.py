"""Loops that JAX can differentiate in reverse mode.

`lax.while_loop` has no reverse-mode derivative (its trip count is known only when it
runs, so JAX cannot keep each iteration's values for the backward pass). A loop with a
bound on its trip count (`maximum_iterations`, or the length of the array a `for`
iterates) is lowered instead to `lax.scan`s of that many steps, each running the body
under `lax.cond` while the loop's test holds, and skipping it after ("a scan with a
mask"): the same values, and a program `jax.grad` differentiates. The scans are nested
(a scan of at most 32 blocks, each a `cond` around a scan of the next level), so that a
loop that stops early skips whole blocks of its remaining steps, not each one.

A loop is lowered so only where the gradient needs it: when its state carries values
that a reverse-mode transformation (`jax.grad`, `jax.vjp`, `jax.value_and_grad`)
differentiates, which `reverse_mode` tells from the values themselves.
"""
from __future__ import annotations

import contextvars
import math
import operator
from typing import Any, Callable, Iterable, Optional

import jax
import jax.numpy as jnp
from jax import lax

# Tracers that show a reverse-mode transformation: JAX's linearize trace (its default
# way of computing `grad`), and the older JVP-then-partial-evaluation one.
try:
    from jax._src.interpreters.ad import JVPTracer, LinearizeTracer
    from jax._src.interpreters.partial_eval import JaxprTracer
except ImportError:                         # (a JAX that moved them: detected by name)
    LinearizeTracer = JVPTracer = JaxprTracer = None

_BLOCKS = 32                               # steps (or blocks) per scan level

# Set while a converted function runs under a reverse-mode transformation that JAX
# hides from its values (`jax.grad(ag.jax.jit(f))`: the jit traces `f` afresh).
_REVERSE = contextvars.ContextVar("autograph_jax_reverse_mode", default=False)


def _linearized(value: Any, depth: int = 0) -> bool:
    """Whether `value` (a JAX value, a tracer of any transformation) has a tangent that a
    reverse-mode transformation will transpose."""
    if depth > 8 or not isinstance(value, jax.core.Tracer):
        return False
    kind = type(value)
    if LinearizeTracer is None:
        if kind.__name__ == "LinearizeTracer":
            return True
    elif kind is LinearizeTracer:
        return True
    elif kind is JVPTracer and isinstance(value.tangent, JaxprTracer):
        return True
    for inner in ("val", "primal"):             # (vmap's and jvp's tracers wrap values)
        wrapped = getattr(value, inner, None)
        if wrapped is not None and _linearized(wrapped, depth + 1):
            return True
    return False


def linearized(leaves: Iterable[Any]) -> bool:
    """Whether any of `leaves` is being differentiated in reverse mode."""
    return any(_linearized(leaf) for leaf in leaves)


def reverse_mode(leaves: Iterable[Any]) -> bool:
    """Whether a loop of these values may be differentiated in reverse mode: they say so,
    or the converted function runs under `under_reverse_mode`."""
    return _REVERSE.get() or linearized(leaves)


def under_reverse_mode(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, its loops lowered for reverse mode where they have a bound."""
    token = _REVERSE.set(True)
    try:
        return fn(*args, **kwargs)
    finally:
        _REVERSE.reset(token)


def static_bound(value: Any) -> Optional[int]:
    """`value` as a Python int where it is known while tracing, else None."""
    if value is None:
        return None
    try:
        return max(operator.index(value), 0)
    except (TypeError, jax.errors.ConcretizationTypeError):
        try:
            return max(int(value), 0)
        except (TypeError, jax.errors.ConcretizationTypeError):
            return None


def _levels(bound: int) -> list:
    """Steps per scan level: their product is at least `bound`."""
    if bound <= _BLOCKS * 2:
        return [bound]
    depth = math.ceil(math.log(bound) / math.log(_BLOCKS))
    size = math.ceil(bound ** (1.0 / depth))
    while (size - 1) ** depth >= bound:                 # (float roots can overshoot)
        size -= 1
    return [size] * depth


def bounded_while(test: Callable[[Any], Any], body: Callable[[Any], Any], carry: Any,
                  bound: int) -> Any:
    """`while test(carry): carry = body(carry)`, at most `bound` iterations, as nested
    masked scans (see the module docstring)."""
    def skip(state):
        return state[0], jnp.bool_(False)

    def step(state):
        new = body(state[0])
        return new, test(new)

    def one(state, _):
        return lax.cond(state[1], step, skip, state), None

    def level(state, sizes):
        if len(sizes) == 1:
            return lax.scan(one, state, None, length=sizes[0])[0]

        def block(state, _):
            return lax.cond(state[1], lambda s: level(s, sizes[1:]), lambda s: s, state), None
        return lax.scan(block, state, None, length=sizes[0])[0]

    if bound == 0:
        return carry
    final, _ = level((carry, test(carry)), _levels(bound))
    return final


UNBOUNDED = ("a reverse-mode gradient (jax.grad, jax.vjp) cannot go through this staged "
             "loop: the number of its iterations has no bound, and JAX differentiates "
             "`lax.while_loop` only forwards. Give it a bound: add "
             "`ag.experimental.set_loop_options(maximum_iterations=N)` as the first "
             "statement of the loop's body (it then stops after N iterations, and lowers "
             "to a lax.scan that jax.grad differentiates), or use forward mode (jax.jvp, "
             "jax.jacfwd)")
