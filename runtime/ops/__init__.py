"""The ops. Each module defines its OpDefs beside the functions users call; `REGISTRY`
maps the name of every op here to its OpDef (used to load saved graphs, with the
control-flow ops of `runtime.control_flow`), built from the explicit lists below rather
than as a side effect of imports."""
from __future__ import annotations

from ..core import opdef
from . import (array_ops, broadcast_ops, core, io_ops, list_ops, makers, math_ops, operators,
               pad_ops, random_ops, reduce_ops, state_ops, string_ops, tensor_array)
from . import nn_ops  # rt.nn: convolution, pooling, Erf
from . import math_extra, random_extra, utility_ops  # math ops, small utilities
from . import bitwise_ops  # rt.bitwise; `& | ^ ~` on integer tensors


def _registry() -> dict:
    table = {}
    for module_ops in (core_ops(), math_ops.OPS, array_ops.OPS, io_ops.OPS, random_ops.OPS,
                       state_ops.OPS, string_ops.OPS, tensor_array.OPS,
                       broadcast_ops.OPS, reduce_ops.OPS, makers.OPS, list_ops.OPS, pad_ops.OPS,
                       nn_ops.OPS, math_extra.OPS, random_extra.OPS, utility_ops.OPS,
                       bitwise_ops.OPS):
        for op in module_ops:
            if op.name in table and table[op.name] is not op:
                raise RuntimeError(f"two ops are named {op.name}")
            table[op.name] = op
    return table


def core_ops() -> list:
    return [opdef.CONST, opdef.PLACEHOLDER, core.IDENTITY, core.STOP_GRADIENT, core.FULL_LIKE,
            core.STACK, core.UNSTACK]


REGISTRY: dict = {}


def registry() -> dict:
    if not REGISTRY:
        table = _registry()
        for op in STRUCTURE_OPS:  # the structural ops (see below)
            if op.name in table and table[op.name] is not op:
                raise RuntimeError(f"two ops are named {op.name}")
            table[op.name] = op
        REGISTRY.update(table)
    return REGISTRY


# structural ops: Tile, OneHot, Sort, ArgSort, Einsum, the rt.linalg ops
from . import einsum_ops, linalg_ops, sort_ops, structure_ops  # noqa: E402
STRUCTURE_OPS = [*structure_ops.OPS, *sort_ops.OPS, *einsum_ops.OPS, *linalg_ops.OPS]
