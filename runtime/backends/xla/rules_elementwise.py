"""The XLA rules of the elementwise ops (runtime/ops/math_ops.py), matmul, select and
cast. Each matches the op's numpy kernel: dtypes, numpy's floor semantics for integer
`//` and `%`, and its run-time errors (integer division by zero, an integer to a negative
power), checked when the graph runs (`lw.defer`) unless the operand is a constant."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ...errors import InvalidArgumentError
from ...ops import math_ops
from ..rule_tables import registrar
from .rule_helpers import Unsupported, binary, is_concrete, np_dtype, unary

RULES: dict = {}
rule = registrar(RULES)

_U, _B = math_ops.UNARY, math_ops.BINARY

# Each elementwise op of math_ops is the jax.numpy function of its public function's name
# (`OpDef.public_name`: jax.numpy names them as numpy and we do); the few that differ are
# set after.
for _d in _U.values():
    if hasattr(jnp, _d.public_name):
        RULES[_d] = unary(getattr(jnp, _d.public_name))
for _d in _B.values():
    if hasattr(jnp, _d.public_name):
        RULES[_d] = binary(getattr(jnp, _d.public_name))


def _sigmoid(x):
    return (1 / (1 + jnp.exp(-x))).astype(x.dtype)


def _truediv(x, y):
    if jnp.result_type(x).kind in "iu":  # TensorFlow: int / int -> float64
        x, y = jnp.asarray(x, jnp.float64), jnp.asarray(y, jnp.float64)
    shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
    if is_concrete(y) or jnp.shape(y) != shape:
        # XLA multiplies by the reciprocal of a constant or broadcast divisor (not
        # numpy's correctly rounded quotient) unless the divisor is a full opaque array
        y = lax.optimization_barrier(jnp.broadcast_to(jnp.asarray(y), shape))
    return jnp.true_divide(x, y)


def _division_by_zero(*_):
    return InvalidArgumentError("Integer division by zero")


def _integer_checked(fn):
    """numpy's kernel raises on an integer divided by zero: so does the lowered op (a
    check at run time, unless the divisor is a constant)."""
    def lower(lw, op, x, y):
        if op.inputs[1].dtype.is_integer:
            lw.defer(op, np.any(y == 0) if is_concrete(y) else jnp.any(y == 0),
                     _division_by_zero)
        return fn(x, y)
    return lower


def _negative_power(*_):
    return InvalidArgumentError("ValueError: Integers to negative integer powers are not "
                                "allowed.")


def _power(lw, op, x, y):
    """numpy's kernel raises on an integer to a negative integer power (XLA gives 0):
    so does the lowered op (a check at run time, unless the exponent is a constant)."""
    if op.inputs[1].dtype.is_integer:
        lw.defer(op, np.any(y < 0) if is_concrete(y) else jnp.any(y < 0), _negative_power)
    return jnp.power(x, y)


RULES[_B["Pow"]] = _power
RULES[_U["Sigmoid"]] = unary(_sigmoid)
RULES[_B["RealDiv"]] = binary(_truediv)
RULES[_B["FloorDiv"]] = _integer_checked(jnp.floor_divide)
RULES[_B["FloorMod"]] = _integer_checked(jnp.mod)


@rule(math_ops.MATMUL)
def _matmul(lw, op, a, b):
    if op.attrs["transpose_a"]:
        a = jnp.swapaxes(a, -1, -2)
    if op.attrs["transpose_b"]:
        b = jnp.swapaxes(b, -1, -2)
    # HIGHEST: float32 products in float32, as numpy (a GPU would otherwise use TF32)
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST,
                      preferred_element_type=np_dtype(op.outputs[0].dtype))


@rule(math_ops.SELECT)
def _select(lw, op, c, x, y):
    return jnp.where(c, x, y)


@rule(math_ops.WHERE_INDICES)
def _where_indices(lw, op, c):
    raise Unsupported("its number of results depends on the values (XLA needs every shape "
                      "while compiling)")


# What the numpy executor's cast (numpy's, TensorFlow's CPU kernel: x86's conversion)
# gives a float out of an integer's range: the lowest int32 or int64, narrower integers
# through int32 (then wrapped). XLA's convert saturates instead (NaN -> 0, 1e10 ->
# INT_MAX): written out. (uint32 and uint64 keep XLA's: numpy's own rule differs again.)
_THROUGH = {np.dtype(t): np.dtype(np.int32) for t in (np.int8, np.int16, np.int32, np.uint8,
                                                      np.uint16)}
_THROUGH[np.dtype(np.int64)] = np.dtype(np.int64)


@rule(math_ops.CAST)
def _cast(lw, op, x):
    target = np.dtype(np_dtype(op.attrs["dtype"]))
    x = jnp.asarray(x)
    wide = _THROUGH.get(target)
    if wide is None or not jnp.issubdtype(x.dtype, jnp.floating):
        return x.astype(target)
    info = np.iinfo(wide)
    bound = float(-int(info.min))
    outside = jnp.isnan(x) | (x >= bound) | (x < -bound)
    return jnp.where(outside, info.min, x.astype(wide)).astype(wide).astype(target)
