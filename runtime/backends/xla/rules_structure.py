"""The XLA rules of the structural ops (runtime/ops/shaping_ops.py, sort_ops.py,
einsum_ops.py, linalg_ops.py).

A singular matrix: numpy's LAPACK raises where LU meets an exact zero pivot, and so does
the kernel (InvalidArgumentError); XLA returns inf/nan instead, so the lowered inverse
and solve check the pivots of their own LU and raise the kernel's error after the call.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ...errors import InvalidArgumentError
from ...ops import einsum_ops, linalg_ops, sort_ops, shaping_ops
from .rule_helpers import static_ints

RULES: dict = {}


def _tile(lw, op, x, multiples):
    m = shaping_ops.tile_check(np.zeros(jnp.shape(x), np.int8),
                                 static_ints(op, multiples, "multiples"))
    return jnp.tile(x, m)


def _argsort(lw, op, x):
    if jnp.ndim(x) == 0:
        raise InvalidArgumentError("sort/argsort needs a tensor of rank >= 1, got a scalar")
    return sort_ops.stable_argsort(jnp, jnp.asarray(x), op.attrs["axis"],
                                   op.attrs["descending"]).astype(np.int32)


def _einsum(lw, op, *xs):
    dtype = op.outputs[0].dtype.np_dtype
    try:
        return jnp.einsum(op.attrs["equation"], *xs, preferred_element_type=dtype,
                          precision=lax.Precision.HIGHEST).astype(dtype)
    except ValueError as e:
        raise InvalidArgumentError(f"einsum {op.attrs['equation']!r}: {e}") from None


def _square(opname, x):
    shape = jnp.shape(x)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise InvalidArgumentError(f"{opname}: input must be a square matrix (or a batch of "
                                   f"them), got shape {list(shape)}")


def _singular_check(lw, op, a, message):
    """The kernel's error where LU meets an exact zero pivot (deferred to after the call)."""
    if jnp.shape(a)[-1] == 0:
        return
    lu, _, _ = lax.linalg.lu(jnp.asarray(a))
    pivots = jnp.diagonal(lu, axis1=-2, axis2=-1)
    lw.defer(op, jnp.any(pivots == 0), lambda *_: InvalidArgumentError(message))


def _inverse(lw, op, x):
    _square("MatrixInverse", x)
    _singular_check(lw, op, x, "Input is not invertible.")
    return jnp.linalg.inv(x)


def _determinant(lw, op, x):
    _square("MatrixDeterminant", x)
    return jnp.linalg.det(x)


def _solve(lw, op, a, b):
    _square("MatrixSolve", a)
    if jnp.shape(a)[:-2] != jnp.shape(b)[:-2] or jnp.shape(a)[-1] != jnp.shape(b)[-2]:
        raise InvalidArgumentError(f"MatrixSolve: matrix of shape {list(jnp.shape(a))} and "
                                   f"rhs of shape {list(jnp.shape(b))} do not fit")
    _singular_check(lw, op, a, "Input matrix is not invertible.")
    return jnp.linalg.solve(a, b)


RULES[shaping_ops.TILE] = _tile
RULES[sort_ops.ARGSORT] = _argsort
RULES[einsum_ops.EINSUM] = _einsum
RULES[linalg_ops.MATRIX_INVERSE] = _inverse
RULES[linalg_ops.MATRIX_DETERMINANT] = _determinant
RULES[linalg_ops.MATRIX_SOLVE] = _solve


def _sort(lw, op, x):
    if jnp.ndim(x) == 0:
        raise InvalidArgumentError("sort/argsort needs a tensor of rank >= 1, got a scalar")
    out = jnp.sort(x, axis=op.attrs["axis"])
    return jnp.flip(out, axis=op.attrs["axis"]) if op.attrs["descending"] else out


RULES[sort_ops.SORT] = _sort


def _one_hot(lw, op, indices, on, off):
    depth, axis = op.attrs["depth"], op.attrs["axis"]
    hot = jnp.expand_dims(jnp.asarray(indices).astype(jnp.int64), -1) == \
        jnp.arange(depth, dtype=jnp.int64)
    out = jnp.where(hot, on, off).astype(op.outputs[0].dtype.np_dtype)
    return out if axis == jnp.ndim(indices) else jnp.moveaxis(out, -1, axis)


RULES[shaping_ops.ONE_HOT] = _one_hot


def _cholesky(lw, op, x):
    _square("Cholesky", x)
    # the lower triangle only, as numpy (jnp.linalg.cholesky would symmetrize the input);
    # NaN where numpy's LAPACK fails: the kernel's error then
    low = lax.linalg.cholesky(jnp.asarray(x), symmetrize_input=False)
    bad = jnp.logical_and(jnp.any(jnp.isnan(low)), jnp.all(jnp.isfinite(x)))
    lw.defer(op, bad, lambda *_: InvalidArgumentError(linalg_ops.CHOLESKY_FAILED))
    return low


RULES[linalg_ops.CHOLESKY] = _cholesky
