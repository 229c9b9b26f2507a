"""Loops that JAX can differentiate in reverse mode.

`lax.while_loop` has no reverse-mode derivative (its trip count is known only when it
runs, so JAX cannot keep each iteration's values for the backward pass). A loop with a
bound on its trip count (`maximum_iterations`, or the length of the array a `for`
iterates) is lowered instead to `lax.scan`s of that many steps, each running the body
under `lax.cond` while the loop's test holds, and skipping it after ("a scan with a
mask"): the same values, and a program `jax.grad` differentiates. The scans are nested
(a scan of at most 32 blocks, each a `cond` around a scan of the next level), so that a
loop that stops early skips whole blocks of its remaining steps, not each one.

A bounded loop stays a `lax.while_loop` for everything but reverse mode. Where its values
show that reverse mode is differentiating it (`linearized`: `jax.grad(convert(f))`,
`jax.jit(jax.grad(...))`), it is lowered to the scans at once; where they cannot show it
(`jax.grad(jax.jit(f))`: the jit traces `f` afresh), it is a `jax.custom_jvp` function
whose primal is the while_loop and whose derivative is the scans' derivative, which JAX
linearizes and transposes. A loop without a bound that a reverse-mode transformation
reaches (`linearized` values come out of it) is refused with `UNBOUNDED`, at the user's
line.
"""
from __future__ import annotations

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


def staged_loop(test: Callable[[Any], Any], body: Callable[[Any], Any], carry: list,
                bound: Optional[int], exact: bool) -> Any:
    """`lax.while_loop(test, body, carry)` (carry: a list of arrays), which reverse mode
    differentiates where `bound` is known (see the module docstring). `exact`: the loop
    runs exactly `bound` iterations (a `for` without `break`): its derivative is one scan."""
    if bound is None:
        final = lax.while_loop(test, body, carry)
        if linearized(jax.tree_util.tree_leaves(final)):
            raise ValueError(UNBOUNDED)
        return final
    test_jaxpr = jax.make_jaxpr(lambda *c: test(list(c)))(*carry)
    body_jaxpr = jax.make_jaxpr(lambda *c: body(list(c)))(*carry)
    if linearized([*carry, *test_jaxpr.consts, *body_jaxpr.consts]):
        return differentiable(test, body, carry, bound, exact)    # (being differentiated)
    if test_jaxpr.effects or body_jaxpr.effects:
        # (custom_jvp takes no effects: the scans only where a gradient comes out)
        final = lax.while_loop(test, body, carry)
        if linearized(jax.tree_util.tree_leaves(final)):
            final = differentiable(test, body, carry, bound, exact)
        return final

    def replayed(test_consts, body_consts):
        return (lambda c: jax.core.eval_jaxpr(test_jaxpr.jaxpr, test_consts, *c)[0],
                lambda c: jax.core.eval_jaxpr(body_jaxpr.jaxpr, body_consts, *c))

    @jax.custom_jvp
    def loop(test_consts, body_consts, c):
        return lax.while_loop(*replayed(test_consts, body_consts), c)

    @loop.defjvp
    def loop_jvp(primals, tangents):
        def scanned(test_consts, body_consts, c):
            return differentiable(*replayed(test_consts, body_consts), c, bound, exact)
        return jax.jvp(scanned, primals, tangents)

    return loop(list(test_jaxpr.consts), list(body_jaxpr.consts), list(carry))


def differentiable(test: Callable[[Any], Any], body: Callable[[Any], Any], carry: Any,
                   bound: int, exact: bool) -> Any:
    """The loop as `jax.grad` differentiates it: a scan of its `bound` iterations where it
    runs exactly that many, else masked scans."""
    if exact:
        return lax.scan(lambda c, _: (body(c), None), carry, None, length=bound)[0]
    return bounded_while(test, body, carry, bound)


UNBOUNDED = ("a reverse-mode gradient (jax.grad, jax.vjp) cannot go through this staged "
             "loop: the number of its iterations has no bound, and JAX differentiates "
             "`lax.while_loop` only forwards. Give it a bound: add "
             "`ag.experimental.set_loop_options(maximum_iterations=N)` as the first "
             "statement of the loop's body (it then stops after N iterations, and lowers "
             "to a lax.scan that jax.grad differentiates), or use forward mode (jax.jvp, "
             "jax.jacfwd)")
