"""The ops. Each module defines its OpDefs beside the functions users call; `REGISTRY`
maps the name of every op here to its OpDef (used to load saved graphs, with the
control-flow ops of `runtime.control_flow`), built from the explicit list below rather
than as a side effect of imports."""
from __future__ import annotations

from ..core import opdef
from . import (array_ops, bitwise_ops, broadcast_ops, core, cumulative_ops, einsum_ops,
               elementwise_ops, introspection_ops, io_ops, linalg_decompositions, linalg_ops,
               list_ops, makers, numerics_ops, random_more,
               math_ops, nn_ops, operators, pad_ops, random_ops, reduce_ops, sampling_ops,
               shaping_ops, sort_ops, state_ops, string_ops, summary_ops, tensor_array)
from . import scatter_ops, sequence_ops
from . import buffer_ops
from . import special_math_ops

operators.install()   # a + b, a[i], ... on tensors


def core_ops() -> list:
    return [opdef.CONST, opdef.PLACEHOLDER, core.IDENTITY, core.STOP_GRADIENT, core.FULL_LIKE,
            core.STACK, core.UNSTACK]


def _all_ops() -> list:
    """Every op of runtime.ops, module by module."""
    return [*core_ops(), *math_ops.OPS, *array_ops.OPS, *io_ops.OPS, *random_ops.OPS,
            *state_ops.OPS, *string_ops.OPS, *tensor_array.OPS, *broadcast_ops.OPS,
            *reduce_ops.OPS, *makers.OPS, *list_ops.OPS, *pad_ops.OPS, *nn_ops.OPS,
            *elementwise_ops.OPS, *cumulative_ops.OPS, *sampling_ops.OPS,
            *introspection_ops.OPS, *bitwise_ops.OPS, *shaping_ops.OPS, *sort_ops.OPS,
            *einsum_ops.OPS, *linalg_ops.OPS, *linalg_decompositions.OPS,
            *summary_ops.OPS, *scatter_ops.OPS, *sequence_ops.OPS, *random_more.OPS,
            *numerics_ops.OPS, *buffer_ops.OPS, *special_math_ops.OPS]


REGISTRY: dict = {}


def registry() -> dict:
    """{op name: OpDef} of every op of runtime.ops (two ops of one name are an error)."""
    if not REGISTRY:
        table = {}
        for op in _all_ops():
            if op.name in table and table[op.name] is not op:
                raise RuntimeError(f"two ops are named {op.name}")
            table[op.name] = op
        REGISTRY.update(table)
    return REGISTRY
