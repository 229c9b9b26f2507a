"""The XLA rules of the matrix decompositions (`runtime/ops/linalg_decompositions.py`):
jax.numpy's svd, qr and eigh with the ops' own sign convention (`canonical_*`, shared with
the numpy kernels), so both backends give one answer."""
from __future__ import annotations

import jax.numpy as jnp

from ...ops import linalg_decompositions as ld
from ..rule_tables import registrar

RULES: dict = {}
rule = registrar(RULES)


@rule(ld.SVD)
def _svd_values(lw, op, x):
    return ld.canonical_svd(jnp, jnp.asarray(x), op.attrs["full_matrices"], False)[0]


@rule(ld.SVD_UV)
def _svd(lw, op, x):
    return tuple(ld.canonical_svd(jnp, jnp.asarray(x), op.attrs["full_matrices"], True))


@rule(ld.QR)
def _qr(lw, op, x):
    return tuple(ld.canonical_qr(jnp, jnp.asarray(x), op.attrs["full_matrices"]))


@rule(ld.EIGH)
def _eigh(lw, op, x):
    return tuple(ld.canonical_eigh(jnp, jnp.asarray(x)))
