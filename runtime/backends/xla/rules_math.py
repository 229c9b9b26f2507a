"""The XLA rules of the ops of runtime/ops/elementwise_ops.py, cumulative_ops.py,
bitwise_ops.py, introspection_ops.py and sampling_ops.py (whose draws run on the host, as rules_effects' random ops do)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ...core.shapes import TensorShape
from ...errors import InvalidArgumentError
from ...ops import (bitwise_ops, cumulative_ops, elementwise_ops, introspection_ops,
                    sampling_ops)
from .rule_helpers import unary

RULES: dict = {}

def _softplus(x):
    x = jnp.asarray(x)
    return jnp.logaddexp(x, jnp.zeros((), x.dtype))


RULES[elementwise_ops.FLOOR] = unary(jnp.floor)
RULES[elementwise_ops.CEIL] = unary(jnp.ceil)
RULES[elementwise_ops.ROUND] = unary(jnp.round)  # half to even, as numpy
RULES[elementwise_ops.LOG1P] = unary(jnp.log1p)
RULES[elementwise_ops.SOFTPLUS] = unary(_softplus)
RULES[bitwise_ops.INVERT] = unary(jnp.invert)
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


RULES[cumulative_ops.CUMSUM] = _scan(jnp.cumsum, 0)
RULES[cumulative_ops.CUMPROD] = _scan(jnp.cumprod, 1)


def _ensure_shape(lw, op, x):
    """Every shape is known while compiling: the check happens then (at the first call),
    with the kernel's error."""
    shape = tuple(jnp.shape(x))
    if not TensorShape(shape).is_compatible_with(op.attrs["shape"]):
        raise InvalidArgumentError(f"Shape of tensor x {list(shape)} is not compatible with "
                                   f"expected shape {op.attrs['shape']}.")
    return x


RULES[introspection_ops.ENSURE_SHAPE] = _ensure_shape


def _permutation(lw, op):
    """Drawn by the op's numpy kernel and generator, as rules_effects' random ops: before
    the call at the top level, in an ordered host callback elsewhere."""
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


RULES[sampling_ops.PERMUTATION] = _permutation
RULES[sampling_ops.PERMUTATION_OF] = _permutation_of
HOST_OPS = {sampling_ops.PERMUTATION, sampling_ops.PERMUTATION_OF}  # host callbacks
PREDRAWN = {sampling_ops.PERMUTATION}  # no tensor input: drawn before a call at the top level
