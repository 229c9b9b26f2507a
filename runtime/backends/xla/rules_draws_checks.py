"""The XLA rules of TruncatedNormal and StatelessRandom (`runtime/ops/random_more.py`; their
variants whose shape is an input read it while compiling, where it is known) and
CheckNumerics (`runtime/ops/numerics_ops.py`). Draws run the op's own numpy kernel on the
host, so both backends give the same numbers (TruncatedNormal with the generator of its
op, as the other random ops; StatelessRandom is a function of its key); CheckNumerics is a
run-time check whose error is the numpy kernel's."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ...ops import numerics_ops, random_more
from ..rule_tables import registrar
from .rule_helpers import np_dtype, static_ints
from .rules_effects import draw_shape

RULES: dict = {}
rule = registrar(RULES)


@rule(random_more.TRUNCATED_NORMAL, random_more.TRUNCATED_NORMAL_DYNAMIC)
def _truncated_normal(lw, op, *shape):
    drawn = lw.ctx.drawn.get(id(op))
    if drawn is not None:  # drawn before the call
        return drawn
    spec = jax.ShapeDtypeStruct(draw_shape(op, shape), np_dtype(op.outputs[0].dtype))
    return lw.host_draw(op, spec, shape)


@rule(random_more.STATELESS_RANDOM)
def _stateless(lw, op, key):
    spec = jax.ShapeDtypeStruct(tuple(op.attrs["shape"]), np_dtype(op.outputs[0].dtype))
    kernel, attrs = op.opdef.kernel, op.attrs
    return jax.pure_callback(lambda k: np.asarray(kernel(np.asarray(k), **attrs), spec.dtype),
                             spec, key)


@rule(random_more.STATELESS_RANDOM_DYNAMIC)
def _stateless_dynamic(lw, op, key, shape):
    """The shape is known while compiling (a value, not a tracer): the kernel gets it."""
    dims = np.asarray(static_ints(op, shape, "shape"), np.int64)
    spec = jax.ShapeDtypeStruct(draw_shape(op, [dims]), np_dtype(op.outputs[0].dtype))
    kernel, attrs = op.opdef.kernel, op.attrs
    return jax.pure_callback(
        lambda k: np.asarray(kernel(np.asarray(k), dims, **attrs), spec.dtype), spec, key)


@rule(numerics_ops.CHECK_NUMERICS)
def _check_numerics(lw, op, x):
    message = op.attrs["message"]
    lw.check(op, jnp.logical_not(jnp.all(jnp.isfinite(x))),
             lambda v: numerics_ops.error_for(v, message), x)
    return x


HOST_OPS = {random_more.TRUNCATED_NORMAL, random_more.TRUNCATED_NORMAL_DYNAMIC,
            numerics_ops.CHECK_NUMERICS}
PREDRAWN = {random_more.TRUNCATED_NORMAL}
