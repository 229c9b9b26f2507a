"""The XLA rule of the input pipelines' op (runtime/ops/buffer_ops.py): a shuffle
buffer's last draws, a `fori_loop` over the held items (the numpy kernel where the
inputs are known while compiling)."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ...ops import buffer_ops
from ..rule_tables import registrar
from .rule_helpers import is_concrete

RULES: dict = {}
rule = registrar(RULES)


@rule(buffer_ops.BUFFER_DRAIN)
def _drain(lw, op, held, slots):
    if is_concrete(held) and is_concrete(slots):
        return buffer_ops.drain(np.asarray(held), np.asarray(slots))
    held, slots = jnp.asarray(held), jnp.asarray(slots)
    m = held.shape[0]
    if m == 0:
        return held

    def step(t, carry):
        cur, out = carry
        j = slots[t]
        out = out.at[t].set(cur[j])
        return cur.at[j].set(cur[m - 1 - t]), out
    return lax.fori_loop(0, m, step, (held, jnp.zeros_like(held)))[1]
