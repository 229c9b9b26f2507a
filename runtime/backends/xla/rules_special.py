"""The XLA rules of the ops of runtime/ops/special_math_ops.py (atan, asin, acos, sinh, cosh,
expm1, atan2, slogdet) and of the bitwise shifts, whose shift counts are clamped to the
dtype's bits as TensorFlow's kernels (and ours) clamp them."""
from __future__ import annotations

import jax.numpy as jnp

from ...ops import bitwise_ops, special_math_ops as ops
from .rule_helpers import binary, unary


def _clamped(x, y):
    bits = jnp.asarray(x).dtype.itemsize * 8
    return jnp.clip(jnp.asarray(y), 0, bits - 1).astype(jnp.asarray(y).dtype)


def _left_shift(lw, op, x, y):
    x = jnp.asarray(x)
    unsigned = jnp.dtype(f"uint{x.dtype.itemsize * 8}")
    return jnp.left_shift(x.astype(unsigned), _clamped(x, y).astype(unsigned)).astype(x.dtype)


def _right_shift(lw, op, x, y):
    return jnp.right_shift(jnp.asarray(x), _clamped(x, y))


def _slogdet(lw, op, x):
    x = jnp.asarray(x)
    sign, logdet = jnp.linalg.slogdet(x)
    nan = jnp.isnan(x).any(axis=(-2, -1))
    return (jnp.where(nan, jnp.nan, sign).astype(x.dtype),
            jnp.where(nan, jnp.nan, logdet).astype(x.dtype))


RULES: dict = {
    ops.ATAN: unary(jnp.arctan), ops.ASIN: unary(jnp.arcsin), ops.ACOS: unary(jnp.arccos),
    ops.SINH: unary(jnp.sinh), ops.COSH: unary(jnp.cosh), ops.EXPM1: unary(jnp.expm1),
    ops.ATAN2: binary(jnp.arctan2), ops.LOG_MATRIX_DETERMINANT: _slogdet,
    bitwise_ops.LEFT_SHIFT: _left_shift, bitwise_ops.RIGHT_SHIFT: _right_shift,
}
