"""How Python values become tensors (`convert_to_tensor`), and the identity ops.

(`OpDef`, `apply_op`, `constant` and `constant_value` are the core's, `runtime.core`;
they are imported here for the op modules, which define their ops with them.)
"""
from __future__ import annotations

from typing import Optional

from ..core import dtypes
from ..core.apply import apply_op, constant
from ..core.opdef import OpDef, constant_value
from ..core.tensor import Tensor

__all__ = ["OpDef", "apply_op", "constant", "constant_value", "convert_to_tensor", "identity",
           "stop_gradient", "IDENTITY", "STOP_GRADIENT"]


def convert_to_tensor(value, dtype=None, dtype_hint=None, name: Optional[str] = None) -> Tensor:
    """A tensor for `value`: tensors pass through (dtype must match), Variables are read,
    Python and numpy values become constants (of `dtype`, else `dtype_hint` when the value
    fits it, else their inferred dtype)."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise TypeError(f"expected a {dtypes.as_dtype(dtype).name} tensor, got "
                            f"{value!r} of dtype {value.dtype.name}")
        return value
    conv = getattr(value, "_as_tensor", None)
    if conv is not None:
        return conv(dtype)
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        from .array_ops import stack  # a list holding tensors is packed, as TensorFlow does
        return stack([convert_to_tensor(v, dtype, dtype_hint) for v in value], name=name)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        return constant(value, dtype, name=name)
    if dtype_hint is not None:
        try:
            return constant(value, dtypes.as_dtype(dtype_hint), name=name)
        except (TypeError, ValueError):
            pass
    return constant(value, name=name)


def _holds_tensor(value) -> bool:
    return any(isinstance(v, Tensor) or getattr(v, "_as_tensor", None) is not None
               or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in value)


def _same_infer(inputs, **attrs):
    return [(inputs[0].shape, inputs[0].dtype)]


def _identity_kernel(x):
    return x


IDENTITY = OpDef("Identity", _same_infer, _identity_kernel)
IDENTITY.grad = lambda inputs, outputs, grads: [grads[0]]
STOP_GRADIENT = OpDef("StopGradient", _same_infer, _identity_kernel)
STOP_GRADIENT.grad = lambda inputs, outputs, grads: [None]  # its whole point
IDENTITY.emit = lambda op, args: args[0]


def identity(x, name: Optional[str] = None) -> Tensor:
    return apply_op(IDENTITY, [convert_to_tensor(x)], name=name)


def stop_gradient(x, name: Optional[str] = None) -> Tensor:
    """`x` as it is, but a constant for gradients: none flows back through it."""
    return apply_op(STOP_GRADIENT, [convert_to_tensor(x)], name=name)
