"""The XLA backend's rules for the ops of the math part (runtime/ops/math_extra.py,
utility_ops.py, random_extra.py), in the form of runtime/backends/xla/lowering.py's rules; that
module adds `RULES`, `HOST_OPS` and `PREDRAWN` to its own (this module imports none of
ours above the ops, so no import cycle)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ...core.shapes import TensorShape
from ...errors import InvalidArgumentError
from ...ops import bitwise_ops, math_extra, random_extra, utility_ops

RULES: dict = {}


def _unary(fn):
    return lambda lw, op, x: fn(x)


def _softplus(x):
    x = jnp.asarray(x)
    return jnp.logaddexp(x, jnp.zeros((), x.dtype))


RULES[math_extra.FLOOR] = _unary(jnp.floor)
RULES[math_extra.CEIL] = _unary(jnp.ceil)
RULES[math_extra.ROUND] = _unary(jnp.round)  # half to even, as numpy
RULES[math_extra.LOG1P] = _unary(jnp.log1p)
RULES[math_extra.SOFTPLUS] = _unary(_softplus)
RULES[bitwise_ops.INVERT] = _unary(jnp.invert)
RULES[bitwise_ops.BITWISE_AND] = lambda lw, op, x, y: jnp.bitwise_and(x, y)
RULES[bitwise_ops.BITWISE_OR] = lambda lw, op, x, y: jnp.bitwise_or(x, y)
RULES[bitwise_ops.BITWISE_XOR] = lambda lw, op, x, y: jnp.bitwise_xor(x, y)


def _scan(fn, identity):
    """The kernel's steps: flip for `reverse`, the inclusive scan, shifted by one for
    `exclusive`."""
    def lower(lw, op, x):
        x = jnp.asarray(x)
        a = op.attrs["axis"] % x.ndim
        if op.attrs["reverse"]:
            x = jnp.flip(x, a)
        out = fn(x, axis=a, dtype=x.dtype)
        n = x.shape[a]
        if op.attrs["exclusive"] and n:
            first = jnp.full(x.shape[:a] + (1,) + x.shape[a + 1:], identity, dtype=x.dtype)
            kept = out[(slice(None),) * a + (slice(0, n - 1),)]
            out = jnp.concatenate([first, kept], axis=a)
        return jnp.flip(out, a) if op.attrs["reverse"] else out
    return lower


RULES[math_extra.CUMSUM] = _scan(jnp.cumsum, 0)
RULES[math_extra.CUMPROD] = _scan(jnp.cumprod, 1)


def _ensure_shape(lw, op, x):
    """Every shape is known while compiling: the check happens then (at the first call),
    with the kernel's error."""
    shape = tuple(jnp.shape(x))
    if not TensorShape(shape).is_compatible_with(op.attrs["shape"]):
        raise InvalidArgumentError(f"Shape of tensor x {list(shape)} is not compatible with "
                                   f"expected shape {op.attrs['shape']}.")
    return x


RULES[utility_ops.ENSURE_SHAPE] = _ensure_shape


def _permutation(lw, op):
    """Drawn by the op's numpy kernel and generator, as runtime/backends/xla/lowering.py's random
    ops: before the call at the top level, in an ordered host callback elsewhere."""
    drawn = lw.ctx.drawn.get(id(op))
    if drawn is not None:
        return drawn
    spec = jax.ShapeDtypeStruct(tuple(op.attrs["shape"]), op.outputs[0].dtype.np_dtype)
    return lw.host_draw(op, spec, ())


def _permutation_of(lw, op, x):
    """The length is known while compiling: the host is sent an empty array of that
    length (the kernel reads only its shape), not the tensor."""
    n = jnp.shape(x)[0]
    spec = jax.ShapeDtypeStruct((n,), op.outputs[0].dtype.np_dtype)
    return lw.host_draw(op, spec, (np.zeros((n, 0), np.int8),))


RULES[random_extra.PERMUTATION] = _permutation
RULES[random_extra.PERMUTATION_OF] = _permutation_of
HOST_OPS = {random_extra.PERMUTATION, random_extra.PERMUTATION_OF}  # host callbacks
PREDRAWN = {random_extra.PERMUTATION}  # no tensor input: drawn before a call at the top level
