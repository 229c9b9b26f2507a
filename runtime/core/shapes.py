"""Static shapes: TensorShape (dims may be unknown, rank may be unknown) and TensorSpec."""
from __future__ import annotations

from typing import Iterable, Optional

from . import dtypes


class TensorShape:
    """A possibly partial shape: the rank may be unknown (None), and each dimension too.

    Args:
      dims: None (unknown rank), an int (a 1-D shape), or an iterable of ints and None
        (-1 is read as None), or another TensorShape.

    Raises:
      ValueError: for a negative dimension.

    >>> s = rt.TensorShape([2, None])
    >>> s, s.rank, s.as_list(), s.is_fully_defined()
    (TensorShape([2, None]), 2, [2, None], False)
    >>> s.merge_with([None, 3])
    TensorShape([2, 3])
    >>> s.is_compatible_with([2, 5]), rt.TensorShape(None).rank
    (True, None)
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Optional[Iterable[Optional[int]]] = None):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        else:
            if isinstance(dims, int):  # TensorShape(3) is (3,); checked like a list
                dims = (dims,)
            out = []
            for d in dims:
                if d is None or d == -1:
                    out.append(None)
                else:
                    d = int(d)
                    if d < 0:
                        raise ValueError(f"shape dimensions must be >= 0 or None, got {d}")
                    out.append(d)
            self._dims = tuple(out)

    @classmethod
    def from_numpy(cls, dims: tuple) -> "TensorShape":
        """A fully known shape from a numpy shape tuple (already valid: no checks)."""
        shape = cls.__new__(cls)
        shape._dims = dims
        return shape

    @property
    def rank(self) -> Optional[int]:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape")
        return list(self._dims)

    def as_tuple(self):
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> Optional[int]:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other) -> "TensorShape":
        """The most specific shape compatible with both; ValueError when they conflict."""
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape(a if a is not None else b for a, b in zip(self._dims, other._dims))

    def most_specific_common(self, other) -> "TensorShape":
        """The most specific shape that both shapes fit (unknown where they differ)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape(a if a == b else None for a, b in zip(self._dims, other._dims))

    def __len__(self):
        if self._dims is None:
            raise ValueError("cannot take the length of a shape with unknown rank")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("cannot iterate over a shape with unknown rank")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)

    def __add__(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __bool__(self):
        return self._dims is not None

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"


def as_shape(value) -> TensorShape:
    return value if isinstance(value, TensorShape) else TensorShape(value)


class TensorSpec:
    """Describes a tensor: shape (possibly partial), dtype and an optional name.

    Used in `rt.function(input_signature=[...])`, `get_concrete_function` and `map_fn`'s
    fn_output_signature.

    Args:
      shape: a TensorShape or what converts to one (None: unknown rank).
      dtype: a DType or what `rt.as_dtype` takes (default float32).
      name: an optional name (the argument's name in a signature).

    >>> spec = rt.TensorSpec([None, 3], rt.float32, name="x")
    >>> spec
    TensorSpec(shape=(None, 3), dtype=rt.float32, name='x')
    >>> spec.is_compatible_with(rt.ones([2, 3])), spec.is_compatible_with(rt.ones([2, 4]))
    (True, False)
    >>> rt.TensorSpec.from_tensor(rt.constant([1, 2]))
    TensorSpec(shape=(2,), dtype=rt.int32, name=None)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape=None, dtype=dtypes.float32, name: Optional[str] = None):
        self.shape = as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None) -> "TensorSpec":
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, value) -> bool:
        """True when `value` (a tensor or spec) has this dtype and a fitting shape."""
        return value.dtype is self.dtype and self.shape.is_compatible_with(value.shape)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype is other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        name = "None" if self.name is None else repr(self.name)
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={name})"
