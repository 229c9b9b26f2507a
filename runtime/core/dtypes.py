"""Tensor element types, and how Python and numpy values map onto them.

TensorFlow's defaults: a Python `int` becomes int32 (int64 when it does not fit), a
Python `float` becomes float32, `bool` becomes bool, `str`/`bytes` become string;
numpy arrays keep their dtype. Strings are stored as numpy object arrays of `bytes`.
"""
from __future__ import annotations

import numpy as np


class DType:
    """An element type: a name and the numpy dtype that stores it.

    The dtypes are singletons (compare with `is`): rt.bool, int8, int16, int32, int64,
    uint8, float16, float32, float64 and string.

    Args:
      name: the dtype's name.
      np_dtype: the numpy dtype that stores its values.

    >>> rt.float32, rt.float32.name, rt.float32.np_dtype
    (rt.float32, 'float32', dtype('float32'))
    >>> rt.float32.is_floating, rt.int32.is_integer, rt.int32.max
    (True, True, 2147483647)
    >>> rt.constant([1, 2]).dtype is rt.int32
    True
    """

    __slots__ = ("name", "np_dtype", "is_floating", "is_integer", "is_bool", "is_string")

    def __init__(self, name: str, np_dtype: np.dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        kind = self.np_dtype.kind
        self.is_floating = kind == "f"
        self.is_integer = kind in "iu"
        self.is_bool = kind == "b"
        self.is_string = kind == "O"

    @property
    def is_numeric(self) -> bool:
        return self.is_floating or self.is_integer

    @property
    def as_numpy_dtype(self):
        return self.np_dtype.type

    @property
    def min(self):
        return np.finfo(self.np_dtype).min if self.is_floating else np.iinfo(self.np_dtype).min

    @property
    def max(self):
        return np.finfo(self.np_dtype).max if self.is_floating else np.iinfo(self.np_dtype).max

    def __repr__(self) -> str:
        return f"rt.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return (as_dtype, (self.name,))


bool_ = DType("bool", np.bool_)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
string = DType("string", np.object_)
# Internal: values that are not arrays (TensorArray storage, resource handles).
variant = DType("variant", np.object_)

ALL = (bool_, int8, int16, int32, int64, uint8, float16, float32, float64, string)
_BY_NAME = {d.name: d for d in ALL + (variant,)}
_BY_NP = {d.np_dtype: d for d in ALL if d is not string}
_BY_NAME.update({"half": float16, "float": float32, "double": float64})


def as_dtype(value) -> DType:
    """The DType for a DType, its name, a numpy dtype or a Python type.

    Python's int is int32, float float32, bool bool and str/bytes string; numpy string and
    object dtypes are string.

    Args:
      value: a DType, a name ("float32", also "half", "float", "double"), a numpy dtype or
        a Python type.

    Returns:
      A DType.

    Raises:
      TypeError: for a value that names no dtype.

    >>> rt.as_dtype("int64"), rt.as_dtype(np.float64), rt.as_dtype(float)
    (rt.int64, rt.float64, rt.float32)
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        try:
            return _BY_NAME[value]
        except KeyError:
            raise TypeError(f"unknown dtype name {value!r}; expected one of "
                            f"{sorted(d.name for d in ALL)}") from None
    if value is bool:
        return bool_
    if value is int:
        return int32
    if value is float:
        return float32
    if value in (str, bytes):
        return string
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        raise TypeError(f"cannot interpret {value!r} as a dtype") from None
    if np_dtype.kind in "OSU":
        return string
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        raise TypeError(f"numpy dtype {np_dtype} has no tensor dtype") from None


_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def infer_dtype(value) -> DType:
    """The dtype TensorFlow gives a Python or numpy value that is not yet a tensor."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (np.ndarray, np.generic)):     # (np.float64 is a Python float too)
        return as_dtype(value.dtype)
    if isinstance(value, int):
        return int32 if _INT32_MIN <= value <= _INT32_MAX else int64
    if isinstance(value, float):
        return float32
    if isinstance(value, (str, bytes)):
        return string
    if isinstance(value, (list, tuple)):
        if not value:
            return float32
        found = [infer_dtype(v) for v in value]
        if any(d.is_string for d in found):
            return string
        if any(d.is_floating for d in found):
            floats = [d for d in found if d.is_floating]
            return max(floats, key=lambda d: d.np_dtype.itemsize)
        if any(d is int64 for d in found):
            return int64
        if all(d is bool_ for d in found):
            return bool_
        return found[0] if found[0].is_integer else int32
    if hasattr(type(value), "__array__") and hasattr(value, "dtype"):
        return as_dtype(np.dtype(value.dtype))      # an array of another library (JAX's)
    why = getattr(value, "_not_a_tensor", None)     # an object that says why it is not one
    if why is not None:
        raise TypeError(why())
    raise TypeError(f"cannot convert a value of type {type(value).__name__} to a tensor: {value!r}")
