"""Bitwise ops on integer tensors, as TensorFlow's `tf.bitwise`: and, or, xor, invert, shifts.

`&`, `|`, `^` and `~` on tensors choose by dtype, as in TensorFlow and as on Python's
ints and bools: on bool tensors they are the logical ops (`^`: not equal), on integer
tensors these. No gradient flows through them (integer outputs).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..errors import InvalidArgumentError
from .core import OpDef, apply_op, convert_to_tensor
from .math_ops import (INTEGER, binary_infer, binary_operands, logical_and, logical_not,
                       logical_or, not_equal, unary_infer)



def _no_grad(inputs, outputs, grads):
    return [None] * len(inputs)


def _bitwise(name, infer, kernel):
    return OpDef(name, infer, kernel, grad=_no_grad, elementwise=True)


BITWISE_AND = _bitwise("BitwiseAnd", binary_infer("BitwiseAnd", INTEGER, None), np.bitwise_and)
BITWISE_OR = _bitwise("BitwiseOr", binary_infer("BitwiseOr", INTEGER, None), np.bitwise_or)
BITWISE_XOR = _bitwise("BitwiseXor", binary_infer("BitwiseXor", INTEGER, None), np.bitwise_xor)
INVERT = _bitwise("Invert", unary_infer("Invert", INTEGER), np.invert)


def clamped_shift(y, bits):
    """The shift count as TensorFlow's kernels take it: clamped to [0, bits - 1] (a count
    out of that range is undefined in C, and numpy's answer for it differs by platform)."""
    return np.clip(y, 0, bits - 1).astype(y.dtype, copy=False)


def _left_shift(x, y):
    x = np.asarray(x)
    bits = x.dtype.itemsize * 8
    unsigned = np.dtype(f"u{x.dtype.itemsize}")   # shifting the bits, as TensorFlow does
    shifted = np.left_shift(x.astype(unsigned), clamped_shift(np.asarray(y), bits).astype(unsigned))
    return shifted.astype(x.dtype)


def _right_shift(x, y):
    x = np.asarray(x)
    return np.right_shift(x, clamped_shift(np.asarray(y), x.dtype.itemsize * 8))


LEFT_SHIFT = _bitwise("LeftShift", binary_infer("LeftShift", INTEGER, None), _left_shift)
RIGHT_SHIFT = _bitwise("RightShift", binary_infer("RightShift", INTEGER, None), _right_shift)
OPS = [BITWISE_AND, BITWISE_OR, BITWISE_XOR, INVERT, LEFT_SHIFT, RIGHT_SHIFT]


def _binary(opdef: OpDef, public: str, which: str, example: str):
    """The public function of a binary bitwise op (one docstring for the three)."""
    def fn(x, y, name: Optional[str] = None):
        return apply_op(opdef, list(binary_operands(x, y)), name=name)
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""The bits set in {which}, elementwise (they broadcast).

    Args:
      x: an integer tensor (or what converts to one).
      y: an integer tensor of x's dtype (a Python int takes x's dtype).
      name: an optional name for the op.

    Returns:
      A tensor of x's dtype and the broadcast shape.

    >>> rt.bitwise.{public}(rt.constant([12, 10]), 6)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array({example}, dtype=int32)>
    """
    return fn


bitwise_and = _binary(BITWISE_AND, "bitwise_and", "both `x` and `y`", "[4, 2]")
bitwise_or = _binary(BITWISE_OR, "bitwise_or", "`x` or `y`", "[14, 14]")
bitwise_xor = _binary(BITWISE_XOR, "bitwise_xor", "exactly one of `x` and `y`", "[10, 12]")


def left_shift(x, y, name: Optional[str] = None):
    """`x` shifted left by `y` bits, elementwise (they broadcast), as tf.bitwise.left_shift:
    the bits shifted out are lost (a signed result wraps), and `y` is clamped to
    [0, bits of the dtype - 1], as TensorFlow's kernel does.

    Args:
      x: an integer tensor (or what converts to one).
      y: an integer tensor of x's dtype (a Python int takes x's dtype), the shift counts.
      name: an optional name for the op.

    Returns:
      A tensor of x's dtype and the broadcast shape.

    >>> rt.bitwise.left_shift(rt.constant([1, -3]), 2)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([  4, -12], dtype=int32)>
    """
    return apply_op(LEFT_SHIFT, list(binary_operands(x, y)), name=name)


def right_shift(x, y, name: Optional[str] = None):
    """`x` shifted right by `y` bits, elementwise (they broadcast), as
    tf.bitwise.right_shift: arithmetic for signed dtypes (the sign bit is copied in), and
    `y` clamped to [0, bits of the dtype - 1], as TensorFlow's kernel does.

    Args:
      x: an integer tensor (or what converts to one).
      y: an integer tensor of x's dtype (a Python int takes x's dtype), the shift counts.
      name: an optional name for the op.

    Returns:
      A tensor of x's dtype and the broadcast shape.

    >>> rt.bitwise.right_shift(rt.constant([16, -16]), 2)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([ 4, -4], dtype=int32)>
    """
    return apply_op(RIGHT_SHIFT, list(binary_operands(x, y)), name=name)


def invert(x, name: Optional[str] = None):
    """Every bit of `x` flipped, elementwise: `-x - 1` for signed integers, as Python's `~`.

    Args:
      x: an integer tensor (or what converts to one).
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> rt.bitwise.invert(rt.constant([0, 5, -1]))
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([-1, -6,  0], dtype=int32)>
    """
    return apply_op(INVERT, [convert_to_tensor(x)], name=name)


class bitwise:  # noqa: N801 - the namespace `rt.bitwise`, as TensorFlow's `tf.bitwise`
    """Bitwise ops on integer tensors: `bitwise_and`, `bitwise_or`, `bitwise_xor`,
    `invert`, `left_shift`, `right_shift` (also `&`, `|`, `^`, `~` on integer tensors). It is a namespace, not something
    to instantiate.

    >>> print(rt.constant(12) & 6, rt.constant(12) | 6, ~rt.constant(5))
    rt.Tensor(4, shape=(), dtype=int32) rt.Tensor(14, shape=(), dtype=int32) rt.Tensor(-6, shape=(), dtype=int32)
    """
    bitwise_and, bitwise_or = staticmethod(bitwise_and), staticmethod(bitwise_or)
    bitwise_xor, invert = staticmethod(bitwise_xor), staticmethod(invert)
    left_shift, right_shift = staticmethod(left_shift), staticmethod(right_shift)


# -- the Python operators, by dtype (runtime/ops/operators.py installs them) -------------

def _by_dtype(x, y, logical, integer, symbol, name):
    x, y = binary_operands(x, y)
    if x.dtype.is_bool:
        return logical(x, y, name=name)
    if x.dtype.is_integer:
        return integer(x, y, name=name)
    raise InvalidArgumentError(f"`{symbol}` takes bool or integer tensors, not "
                               f"{x.dtype.name} ones")


def and_(x, y):
    return _by_dtype(x, y, logical_and, bitwise_and, "&", "and")


def or_(x, y):
    return _by_dtype(x, y, logical_or, bitwise_or, "|", "or")


def xor(x, y):
    return _by_dtype(x, y, not_equal, bitwise_xor, "^", "xor")


def invert_(x):
    x = convert_to_tensor(x)
    if x.dtype.is_bool:     # TensorFlow's `~` on bools (Python's `~True` is -2)
        return logical_not(x, name="LogicalNot")
    if x.dtype.is_integer:
        return invert(x, name="Invert")
    raise InvalidArgumentError(f"`~` takes bool or integer tensors, not {x.dtype.name} ones")
