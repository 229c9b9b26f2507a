"""What `rt.nn`'s functions share: their floating (or numeric) tensor operand, checked,
and a Python number as a constant of an operand's dtype."""
from __future__ import annotations

import numpy as np

from ..ops.core import constant, convert_to_tensor
from ..ops.math_ops import FLOAT, check_kind


def float_tensor(x, opname, kind=FLOAT):
    """`x` as a tensor, of a dtype of `kind` (floating by default: a TypeError naming
    `opname` otherwise)."""
    x = convert_to_tensor(x)
    check_kind(opname, x.dtype, kind)
    return x


def constant_like(value, like):
    """A Python number as a constant of `like`'s dtype."""
    return constant(np.asarray(value, dtype=like.dtype.np_dtype), like.dtype)
