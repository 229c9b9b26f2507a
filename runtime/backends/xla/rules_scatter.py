"""The XLA rules of the N-dimensional gathers and scatters (scatter_ops: GatherNd,
ScatterNd, TensorScatterNd). An index tuple outside the shape raises the kernel's error
when the graph runs (a deferred check); XLA itself would clamp or drop it. A scatter's
shape must be known while compiling. Unique has no rule: its length depends on the
values."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ...errors import InvalidArgumentError
from ...ops import scatter_ops, sequence_ops
from ..rule_tables import registrar
from .rule_helpers import Unsupported, is_concrete, static_ints

RULES: dict = {}
rule = registrar(RULES)


def _rows(lw, op, indices, bounds, what):
    """indices as [n, k] rows, with the deferred check that each lies inside `bounds`."""
    shape = tuple(jnp.shape(indices))
    k = shape[-1]
    if k > len(bounds):
        raise InvalidArgumentError(
            f"{what}: index depth {k} is more than the rank {len(bounds)} of shape "
            f"{list(bounds)}")
    rows = jnp.reshape(indices, (int(np.prod(shape[:-1], dtype=np.int64)), k))
    if rows.shape[0] and k:
        limit = np.asarray(bounds[:k], dtype=np.int64)
        bad = jnp.any((rows < 0) | (rows >= limit), axis=1)

        def make(position, *_):
            return InvalidArgumentError(scatter_ops.index_error_text(
                what, position, shape[:-1], bounds))
        lw.defer(op, bad, make, jnp.argmax(bad))
    return rows, k


def _where(rows, k):
    return tuple(rows[:, j] for j in range(k))


@rule(scatter_ops.GATHER_ND)
def _gather_nd(lw, op, params, indices):
    bounds = tuple(jnp.shape(params))
    rows, k = _rows(lw, op, indices, bounds, "gather_nd")
    out_shape = tuple(jnp.shape(indices))[:-1] + bounds[k:]
    n = rows.shape[0]
    if k == 0:
        return jnp.reshape(jnp.broadcast_to(params, (n,) + bounds), out_shape)
    if n == 0 or any(b == 0 for b in bounds[:k]):  # nothing to take (or nothing in range)
        return jnp.zeros(out_shape, dtype=jnp.result_type(params))
    return jnp.reshape(params.at[_where(rows, k)].get(mode="clip"), out_shape)


def _scatter(lw, op, out, indices, updates, what, add):
    bounds = tuple(out.shape)
    rows, k = _rows(lw, op, indices, bounds, what)
    values = jnp.reshape(updates, (rows.shape[0],) + bounds[k:])
    if rows.shape[0] == 0:
        return out
    if k == 0:
        return out + jnp.sum(values, axis=0) if add else jnp.broadcast_to(values[-1], bounds)
    place = out.at[_where(rows, k)]
    return place.add(values, mode="drop") if add else place.set(values, mode="drop")


@rule(scatter_ops.SCATTER_ND)
def _scatter_nd(lw, op, indices, updates, shape):
    dims = static_ints(op, shape, "shape")
    out = jnp.zeros(dims, dtype=jnp.result_type(updates))
    return _scatter(lw, op, out, indices, updates, "scatter_nd", True)


@rule(scatter_ops.TENSOR_SCATTER)
def _tensor_scatter(lw, op, tensor, indices, updates):
    add = op.attrs["add"]
    what = "tensor_scatter_nd_add" if add else "tensor_scatter_nd_update"
    return _scatter(lw, op, jnp.asarray(tensor), indices, updates, what, add)


@rule(sequence_ops.UNIQUE)
def _unique(lw, op, x):
    if not is_concrete(x):
        raise Unsupported("unique's length depends on the values, which XLA sees only when "
                          "the graph runs (XLA needs every shape while compiling)")
    return tuple(op.opdef.kernel(np.asarray(x), **op.attrs))
