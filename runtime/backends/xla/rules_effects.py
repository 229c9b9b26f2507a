"""The XLA rules of the ops with effects: Variables' reads and writes (through the
lowerer's state), and prints, assertions and random draws, which run their op's own numpy
kernel on the host (`HOST_OPS`; `PREDRAWN` are drawn before a call at the top level)."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from ...errors import InvalidArgumentError, OpError
from ...ops import io_ops, random_ops, state_ops
from ..rule_tables import registrar
from .rule_helpers import np_dtype, static_ints

RULES: dict = {}
rule = registrar(RULES)

# -- variables -----------------------------------------------------------------------------

@rule(state_ops.READ)
def _read_variable(lw, op):
    return lw.state[lw.ctx.variable_index(op.attrs["variable"])]


@rule(state_ops.ASSIGN)
def _assign_variable(lw, op, value):
    variable, mode = op.attrs["variable"], op.attrs["mode"]
    i = lw.ctx.variable_index(variable)
    if mode == "add":
        value = lw.state[i] + value
    elif mode == "sub":
        value = lw.state[i] - value
    value = jnp.asarray(value).astype(np_dtype(variable.dtype))
    if lw.ctx.deferred:  # a write after a failed check does not happen
        value = jnp.where(lw.ok(), value, lw.state[i])
    lw.state[i] = value
    return value


# -- effects: print, assert, random draws (host callbacks) ----------------------------------

@rule(io_ops.PRINT)
def _print(lw, op, *values):
    lw.host_call(op, op.opdef.kernel, op.attrs, values)
    return ()


@rule(io_ops.ASSERT)
def _assert(lw, op, cond, *data):
    def make(cond, *data):
        try:
            op.opdef.kernel(cond, *data, **op.attrs)
        except OpError as e:       # (InvalidArgumentError, or the op's `error`)
            return e
        return InvalidArgumentError("assertion failed")
    lw.check(op, jnp.logical_not(jnp.all(cond)), make, cond, *data)
    return ()


def _random(lw, op, *args):
    """Drawn on the host by the op's own numpy kernel and generator: the same values, in
    the same sequence, as the numpy backend gives (a graph's generator is shared by every
    plan compiled from it, as two numpy plans of one graph share it)."""
    drawn = lw.ctx.drawn.get(id(op))
    if drawn is not None:  # drawn before the call
        return drawn
    t = op.outputs[0]
    spec = jax.ShapeDtypeStruct(draw_shape(op, args), np_dtype(t.dtype))
    return lw.host_draw(op, spec, args)


def draw_shape(op, args):
    """The shape of draw `op`: its `shape` attribute, or (an op whose shape is an input,
    the first, known while compiling) that input's value, checked as its kernel checks it."""
    if "shape" in op.attrs:
        return tuple(op.attrs["shape"])
    return random_ops.draw_dims(static_ints(op, args[0], "shape"), op.opdef.default_name)


for _d in random_ops.OPS:
    RULES[_d] = _random
HOST_OPS = {io_ops.PRINT, io_ops.ASSERT, *random_ops.OPS}  # lowered to host callbacks
PREDRAWN = {random_ops.UNIFORM, random_ops.NORMAL}  # at the top level: drawn before a call
