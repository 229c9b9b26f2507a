"""The XLA rules of the reductions (runtime/ops/reduce_ops.py): sums, means, extremes,
any/all, arg-extremes and the product of the others. An empty reduction gives what the
kernel gives (TensorFlow's identity of the reduction; NaN for a float mean)."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ...errors import InvalidArgumentError
from ...ops import reduce_ops
from ..rule_tables import registrar
from .rule_helpers import np_dtype

RULES: dict = {}
rule = registrar(RULES)

_R = reduce_ops.REDUCE


def _axis(op):
    axis = op.attrs["axis"]
    return None if axis is None else tuple(axis)


def _reduced_shape(x, op):
    return np.sum(np.zeros(jnp.shape(x), np.int8), axis=_axis(op),
                  keepdims=op.attrs["keepdims"]).shape


@rule(_R["Sum"])
def _sum(lw, op, x):
    return jnp.sum(x, axis=_axis(op), keepdims=op.attrs["keepdims"], dtype=jnp.result_type(x))


@rule(_R["Prod"])
def _prod(lw, op, x):
    return jnp.prod(x, axis=_axis(op), keepdims=op.attrs["keepdims"], dtype=jnp.result_type(x))


@rule(_R["Mean"])
def _mean(lw, op, x):
    axis, keepdims, dtype = _axis(op), op.attrs["keepdims"], jnp.result_type(x)
    shape = jnp.shape(x)
    if dtype.kind in "iu":  # TensorFlow truncates the integer mean
        count = int(np.prod(shape)) if axis is None else int(np.prod([shape[a] for a in axis]))
        s = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.int64)
        return jnp.trunc(s / max(count, 1)).astype(dtype)
    if int(np.prod(shape)) == 0:
        return jnp.full(_reduced_shape(x, op), jnp.nan, dtype=dtype)
    return jnp.mean(x, axis=axis, keepdims=keepdims, dtype=dtype)


def _extreme(fn, is_max):
    def lower(lw, op, x):
        dtype = jnp.result_type(x)
        if int(np.prod(jnp.shape(x))) == 0:  # TensorFlow: the identity of the reduction
            if dtype.kind == "f":
                fill = -np.inf if is_max else np.inf
            else:
                info = np.iinfo(dtype)
                fill = info.min if is_max else info.max
            return jnp.full(_reduced_shape(x, op), fill, dtype=dtype)
        return fn(x, axis=_axis(op), keepdims=op.attrs["keepdims"])
    return lower


RULES[_R["Max"]] = _extreme(jnp.max, True)
RULES[_R["Min"]] = _extreme(jnp.min, False)


@rule(_R["Any"])
def _any(lw, op, x):
    return jnp.any(x, axis=_axis(op), keepdims=op.attrs["keepdims"])


@rule(_R["All"])
def _all(lw, op, x):
    return jnp.all(x, axis=_axis(op), keepdims=op.attrs["keepdims"])


def _arg(fn):
    def lower(lw, op, x):
        axis = op.attrs["axis"]
        if jnp.shape(x)[axis] == 0:
            raise InvalidArgumentError("Reduction axis is empty")
        return fn(x, axis=axis).astype(np_dtype(op.attrs["output_type"]))
    return lower


RULES[reduce_ops.ARGMAX] = _arg(jnp.argmax)
RULES[reduce_ops.ARGMIN] = _arg(jnp.argmin)


@rule(reduce_ops.PROD_OTHERS)
def _prod_others(lw, op, x):
    ndim = jnp.ndim(x)
    axes = tuple(range(ndim)) if op.attrs["axis"] is None else tuple(op.attrs["axis"])
    rest = tuple(a for a in range(ndim) if a not in axes)
    moved = jnp.transpose(x, rest + axes)
    lead = moved.shape[:len(rest)]
    flat = moved.reshape(lead + (-1,))
    ones = jnp.ones(lead + (1,), dtype=flat.dtype)
    left = jnp.cumprod(jnp.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = jnp.cumprod(jnp.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    out = (left * right).reshape(moved.shape)
    return jnp.transpose(out, tuple(int(i) for i in np.argsort(rest + axes))).astype(flat.dtype)
