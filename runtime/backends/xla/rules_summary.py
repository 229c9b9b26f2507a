"""The XLA rule of the op writing a TensorBoard summary (`rt.summary`): a host callback
running the op's own numpy kernel, in program order, at every call (as rt.print's).
Text known while tracing is the op's attribute (XLA has no strings); text computed in the
graph cannot lower."""
from __future__ import annotations

import jax.numpy as jnp

from ...ops import summary_ops
from ..rule_tables import registrar

RULES: dict = {}
rule = registrar(RULES)


@rule(summary_ops.WRITE)
def _write_summary(lw, op, record, step, data):
    lw.host_call(op, op.opdef.kernel, op.attrs, (record, step, data))
    return jnp.asarray(record, dtype=bool)


HOST_OPS = {summary_ops.WRITE}  # lowered to host callbacks
