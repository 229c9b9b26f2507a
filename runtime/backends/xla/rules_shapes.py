"""The XLA rules of the ops that make, reshape, pad and broadcast arrays (runtime/ops/core.py,
array_ops.py, pad_ops.py, broadcast_ops.py, makers.py). A shape is known while compiling:
one given by a tensor must be known while tracing (`static_ints`), and a kernel's shape
errors are raised then, with its message."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ...errors import InvalidArgumentError
from ...ops import array_ops, broadcast_ops, core, makers, pad_ops
from ..rule_tables import registrar
from .rule_helpers import is_concrete, np_dtype, static_ints

RULES: dict = {}
rule = registrar(RULES)

# -- identity, fills -----------------------------------------------------------------------

@rule(core.IDENTITY)
def _identity(lw, op, x):
    return x


@rule(core.STOP_GRADIENT)
def _stop_gradient(lw, op, x):
    return x if is_concrete(x) else lax.stop_gradient(x)


@rule(core.FULL_LIKE)
def _full_like(lw, op, x):
    return jnp.full(jnp.shape(x), op.attrs["fill_value"], dtype=np_dtype(op.attrs["dtype"]))


@rule(core.STACK)
def _pack(lw, op, *xs):
    return jnp.stack(xs, axis=op.attrs["axis"])


@rule(core.UNSTACK)
def _unpack(lw, op, x):
    axis, num = op.attrs["axis"], op.attrs["num"]
    if jnp.shape(x)[axis] != num:
        raise InvalidArgumentError(f"Unpack: expected {num} values along axis {axis}, "
                                   f"got {jnp.shape(x)[axis]}")
    return tuple(jnp.take(x, i, axis=axis) for i in range(num))


# -- shapes and layout --------------------------------------------------------------------

@rule(array_ops.RESHAPE)
def _reshape(lw, op, x):
    return jnp.reshape(x, op.attrs["shape"])


@rule(array_ops.RESHAPE_DYNAMIC)
def _reshape_dynamic(lw, op, x, shape):
    return jnp.reshape(x, static_ints(op, shape, "shape"))


@rule(array_ops.TRANSPOSE)
def _transpose(lw, op, x):
    return jnp.transpose(x, op.attrs["perm"])


@rule(array_ops.EXPAND_DIMS)
def _expand_dims(lw, op, x):
    return jnp.expand_dims(x, op.attrs["axis"])


@rule(array_ops.SQUEEZE)
def _squeeze(lw, op, x):
    axis = op.attrs["axis"]
    return jnp.squeeze(x, axis=None if axis is None else tuple(axis))


@rule(array_ops.CONCAT)
def _concat(lw, op, *xs):
    return jnp.concatenate(xs, axis=op.attrs["axis"])


@rule(array_ops.SHAPE)
def _shape(lw, op, x):
    return np.asarray(jnp.shape(x), dtype=np_dtype(op.attrs["out_type"]))


@rule(array_ops.SIZE)
def _size(lw, op, x):
    return np.asarray(int(np.prod(jnp.shape(x))), dtype=np_dtype(op.attrs["out_type"]))


@rule(array_ops.RANK)
def _rank(lw, op, x):
    return np.asarray(jnp.ndim(x), dtype=np.int32)


# -- padding, broadcasting -----------------------------------------------------------------

def _widths(op, opname, x, paddings, mode):
    value = np.asarray(static_ints(op, paddings, "paddings")).reshape(np.shape(paddings))
    # the kernel's own checks and messages, run on zeros of the input's shape
    zeros = np.zeros(jnp.shape(x), np.int8)
    if mode == "CONSTANT":
        op.opdef.kernel(zeros, value, np.int8(0))
    else:
        op.opdef.kernel(zeros, value, mode=mode)
    return [(int(b), int(a)) for b, a in value.tolist()]


@rule(pad_ops.PAD)
def _pad(lw, op, x, paddings, value):
    widths = _widths(op, "PadV2", x, paddings, "CONSTANT")
    return jnp.pad(x, widths, mode="constant", constant_values=value)


@rule(pad_ops.MIRROR_PAD)
def _mirror_pad(lw, op, x, paddings):
    mode = op.attrs["mode"]
    widths = _widths(op, "MirrorPad", x, paddings, mode)
    return jnp.pad(x, widths, mode=mode.lower())


@rule(pad_ops.PAD_GRAD)
def _pad_grad(lw, op, g, paddings):
    mode = op.attrs["mode"]
    widths = [(int(b), int(a)) for b, a in
              np.asarray(static_ints(op, paddings, "paddings")).reshape(-1, 2).tolist()]
    shape = tuple(n - b - a for n, (b, a) in zip(jnp.shape(g), widths))
    if mode == "CONSTANT":
        return g[tuple(slice(b, b + n) for n, (b, _) in zip(shape, widths))]
    size = int(np.prod(shape))
    source = np.pad(np.arange(size).reshape(shape), widths, mode=mode.lower())
    out = jnp.zeros(size, dtype=jnp.result_type(g)).at[source.reshape(-1)].add(
        jnp.reshape(g, (-1,)))
    return out.reshape(shape)


def _sum_to_shape(g, shape):
    shape = tuple(shape)
    gs = jnp.shape(g)
    if gs == shape:
        return g
    axes = broadcast_ops.summed_axes(gs, shape)
    out = jnp.sum(g, axis=axes, dtype=jnp.result_type(g)) if axes else g
    return jnp.reshape(out, shape)


@rule(broadcast_ops.SUM_TO)
def _sum_to(lw, op, g):
    return _sum_to_shape(g, op.attrs["shape"])


@rule(broadcast_ops.SUM_LIKE)
def _sum_like(lw, op, g, x):
    return _sum_to_shape(g, jnp.shape(x))


@rule(broadcast_ops.BROADCAST_TO)
def _broadcast_to(lw, op, g):
    return jnp.broadcast_to(g, tuple(op.attrs["shape"]))


@rule(broadcast_ops.BROADCAST_LIKE)
def _broadcast_like(lw, op, g, x):
    return jnp.broadcast_to(g, jnp.shape(x))


# -- makers ------------------------------------------------------------------------------

@rule(makers.FILL)
def _fill(lw, op, value):
    return jnp.full(op.attrs["shape"], value, dtype=jnp.result_type(value))


@rule(makers.FILL_DYNAMIC)
def _fill_dynamic(lw, op, dims, value):
    shape = static_ints(op, dims, "shape")
    if any(d < 0 for d in shape):
        raise InvalidArgumentError(f"Fill dimensions must be >= 0, got {list(shape)}")
    return jnp.full(shape, value, dtype=jnp.result_type(value))


@rule(makers.EYE)
def _eye(lw, op):
    a = op.attrs
    return np.eye(a["num_rows"], a["num_columns"], dtype=np_dtype(a["dtype"]))
