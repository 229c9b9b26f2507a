"""The Python operators of tensors (`a + b`, `a < b`, `-a`, `a[i]`, ...), set on
`core.tensor.Tensor` by `install()`: the core defines tensors without knowing the ops, and
the ops package installs the operators as it loads."""
from __future__ import annotations

import numpy as np

from ..core.tensor import SymbolicTensor, Tensor
from . import array_ops as _array
from . import bitwise_ops as _bitwise
from . import math_ops as _math


def _convertible(x) -> bool:
    return isinstance(x, (Tensor, int, float, bool, np.ndarray, np.generic, list, tuple, str, bytes))


def __add__(self, other):
    return _math.add(self, other, name="add")


def __radd__(self, other):
    return _math.add(other, self, name="add")


def __sub__(self, other):
    return _math.subtract(self, other, name="sub")


def __rsub__(self, other):
    return _math.subtract(other, self, name="sub")


def __mul__(self, other):
    _not_a_repeat(self, other)
    return _math.multiply(self, other, name="mul")


def __rmul__(self, other):
    _not_a_repeat(self, other)
    return _math.multiply(other, self, name="mul")


def _not_a_repeat(tensor, other) -> None:
    """`[0] * n` with `n` a staged integer (a Python int a staged `if` or loop made a
    tensor): Python repeats the list, a count the graph knows only when it runs; the
    elementwise product a tensor gives would silently be another value."""
    if (type(other) in (list, tuple) and isinstance(tensor, SymbolicTensor)
            and tensor.dtype.is_integer and tensor.shape.rank == 0):
        raise TypeError(
            f"a Python {type(other).__name__} times a staged integer ({tensor.name}): Python "
            f"would repeat the {type(other).__name__}, which a graph cannot do for a count "
            f"it only knows when it runs. Keep the count a Python int (decide it before any "
            f"staged `if` or loop), or build a tensor (rt.fill, rt.tile)")


def __truediv__(self, other):
    return _math.divide(self, other, name="truediv")


def __rtruediv__(self, other):
    return _math.divide(other, self, name="truediv")


def __floordiv__(self, other):
    return _math.floordiv(self, other, name="floordiv")


def __rfloordiv__(self, other):
    return _math.floordiv(other, self, name="floordiv")


def __mod__(self, other):
    return _math.mod(self, other, name="mod")


def __rmod__(self, other):
    return _math.mod(other, self, name="mod")


def __pow__(self, other):
    return _math.pow(self, other, name="pow")


def __rpow__(self, other):
    return _math.pow(other, self, name="pow")


def __matmul__(self, other):
    return _math.matmul(self, other, name="matmul")


def __rmatmul__(self, other):
    return _math.matmul(other, self, name="matmul")


def __neg__(self):
    return _math.negative(self, name="neg")


def __pos__(self):
    return self


def __abs__(self):
    return _math.abs(self, name="Abs")


# `~ & | ^`: logical on bool tensors, bitwise on integer ones (see bitwise_ops)
def __invert__(self):
    return _bitwise.invert_(self)


def __and__(self, other):
    return _bitwise.and_(self, other)


def __rand__(self, other):
    return _bitwise.and_(other, self)


def __or__(self, other):
    return _bitwise.or_(self, other)


def __ror__(self, other):
    return _bitwise.or_(other, self)


def __xor__(self, other):
    return _bitwise.xor(self, other)


def __rxor__(self, other):
    return _bitwise.xor(other, self)


def __lt__(self, other):
    return _math.less(self, other, name="Less")


def __le__(self, other):
    return _math.less_equal(self, other, name="LessEqual")


def __gt__(self, other):
    return _math.greater(self, other, name="Greater")


def __ge__(self, other):
    return _math.greater_equal(self, other, name="GreaterEqual")


def __eq__(self, other):
    if other is None or not _convertible(other):
        return False
    return _math.equal(self, other, name="Equal")


def __ne__(self, other):
    if other is None or not _convertible(other):
        return True
    return _math.not_equal(self, other, name="NotEqual")


def __getitem__(self, key):
    return _array.getitem(self, key)


def install() -> None:
    """Sets the operators above on `Tensor` (the ops package calls it once, as it loads)."""
    for name, fn in list(globals().items()):
        if name.startswith("__") and type(fn) is type(_convertible):   # the functions above
            fn.__qualname__ = f"Tensor.{name}"
            setattr(Tensor, name, fn)
