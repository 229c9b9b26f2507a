"""Tensors. An EagerTensor holds a numpy value; a SymbolicTensor is an output of an
Operation in a Graph and carries the inferred static shape and dtype.

Python operators on either map to ops, so the same user code runs eagerly and records a
graph: the ops package fills them in (`runtime.ops.operators`), since the ops are a layer
above this one.
"""
from __future__ import annotations

import sys

import numpy as np

from ..errors import OperatorNotAllowedInGraphError
from . import dtypes, hooks
from .shapes import TensorShape

_recording = hooks.recording


class Tensor:
    """A multidimensional array of one dtype: the base of eager and symbolic tensors.

    Eagerly a tensor is an `EagerTensor` holding a value (`.numpy()`); while a graph is built
    (inside `rt.function`) it is a `SymbolicTensor`, an op's output known by its static
    shape and dtype. Both share the operators (`+`, `*`, `@`, `<`, `[...]`, ...), `shape`,
    `dtype`, `ndim`, `get_shape()`, `set_shape()` and `ref()`. Tensors compare elementwise,
    so they are not hashable: use `t.ref()` as a dict key.

    >>> t = rt.constant([[1, 2], [3, 4]])
    >>> isinstance(t, rt.Tensor), t.shape, t.dtype
    (True, TensorShape([2, 2]), rt.int32)
    >>> print(t * 10 + 1)
    rt.Tensor(
    [[11 21]
     [31 41]], shape=(2, 2), dtype=int32)
    """

    __slots__ = ()
    __array_priority__ = 100  # numpy defers `ndarray + tensor` to us

    # The arithmetic, comparison and indexing operators (`__add__`, `__lt__`,
    # `__getitem__`, ...) are set by runtime.ops.operators.

    # TensorFlow 2 tensors compare elementwise, so they cannot be hashed by value.
    __hash__ = None

    def ref(self):
        """A hashable reference to this tensor (for dict keys and sets)."""
        return _TensorRef(self)

    # shape helpers ------------------------------------------------------------------
    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    def set_shape(self, shape):
        merged = self.shape.merge_with(shape)
        if isinstance(self, SymbolicTensor):
            self._shape = merged


class _TensorRef:
    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def deref(self):
        return self._t

    def __hash__(self):
        return id(self._t)

    def __eq__(self, other):
        return isinstance(other, _TensorRef) and other._t is self._t


def _convertible(x) -> bool:
    return isinstance(x, (Tensor, int, float, bool, np.ndarray, np.generic, list, tuple, str, bytes))


class EagerTensor(Tensor):
    """A tensor with a value: a numpy array (or numpy scalar for rank 0).

    What ops return when run eagerly; `.numpy()` gives the value, and it converts to
    Python numbers, bools and numpy arrays. It has no `name` (eager ops are not named).

    Args:
      value: the numpy array (or scalar) held.
      dtype: its DType (default: from value's numpy dtype).

    >>> t = rt.constant([1.0, 2.0])
    >>> type(t).__name__
    'EagerTensor'
    >>> t.numpy()
    array([1., 2.], dtype=float32)
    >>> float(t[1])
    2.0
    """

    __slots__ = ("_value", "_dtype")

    def __init__(self, value, dtype: dtypes.DType | None = None):
        self._value = value
        self._dtype = dtype if dtype is not None else dtypes.as_dtype(value.dtype)

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return TensorShape.from_numpy(np.shape(self._value))

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    def numpy(self):
        """The value as numpy: an array, or a numpy scalar for a rank-0 tensor."""
        v = self._value
        if isinstance(v, np.ndarray) and v.ndim == 0:
            return v[()]
        return v

    def __array__(self, dtype=None, copy=None):
        # `np.array(t)` asks for a copy (copy=True) and numpy 2 trusts this to make it:
        # the tensor's own array given instead was written through by the caller
        a = np.asarray(self._value)
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def __bool__(self):
        return bool(self._value)

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __index__(self):
        if not self._dtype.is_integer:
            raise TypeError(f"only integer tensors can be used as an index, not {self._dtype.name}")
        return int(self._value)

    def __len__(self):
        shape = np.shape(self._value)
        if not shape:
            raise TypeError("len() of a scalar tensor")
        return shape[0]

    def __iter__(self):
        shape = np.shape(self._value)
        if not shape:
            raise TypeError("cannot iterate over a scalar tensor")
        if _recording.tapes:  # an open GradientTape must see each row being taken
            for i in range(shape[0]):
                yield self[i]
            return
        for row in np.asarray(self._value):
            yield EagerTensor(row, self._dtype)

    def __format__(self, spec):
        if spec:
            return format(self.numpy(), spec)
        return str(self)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return EagerTensor(np.copy(self._value), self._dtype)

    def __str__(self):
        return f"rt.Tensor({_value_text(self)}, shape={self.shape}, dtype={self._dtype.name})"

    def __repr__(self):
        text = np.array_repr(np.asarray(self._value)) if np.ndim(self._value) else _scalar_text(self)
        sep = "\n" if "\n" in text else ""
        return f"<rt.Tensor: shape={self.shape}, dtype={self._dtype.name}, numpy={sep}{text}>"


def _scalar_text(t: EagerTensor) -> str:
    v = t.numpy()
    return repr(v) if t.dtype.is_string else str(v)


def _value_text(t: EagerTensor) -> str:
    if np.ndim(t._value) == 0:
        return _scalar_text(t)
    text = str(np.asarray(t._value))
    return "\n" + text if "\n" in text else text


class SymbolicTensor(Tensor):
    """An output of an Operation: known only by its static shape and dtype until run.

    What ops return while a graph is built (inside `rt.function`, or under
    `g.as_default()`); `op` is the Operation producing it and `value_index` which of its
    outputs it is. It has no value (no `.numpy()`; Python `bool()` raises
    OperatorNotAllowedInGraphError), and autograph
    stages `if`/`while`/`for` over it as graph control flow.

    Args:
      op: the Operation producing it.
      value_index: the index of this output among op's outputs.
      shape: its static TensorShape.
      dtype: its DType.

    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = rt.placeholder(rt.float32, [None, 3], name="x")
    >>> type(x).__name__, x.name, x.shape, x.op.name
    ('SymbolicTensor', 'x:0', TensorShape([None, 3]), 'x')
    """

    __slots__ = ("op", "value_index", "_shape", "dtype", "__weakref__")
    # (`__autograph_backend__`, through which autograph stages `if`/`while`/`for` on a
    # symbolic tensor, is set by runtime.autograph_backend.)

    def __init__(self, op, value_index: int, shape: TensorShape, dtype: dtypes.DType):
        self.op = op
        self.value_index = value_index
        self._shape = shape
        self.dtype = dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        return self.op.graph

    @property
    def numpy(self):
        # The guides print exactly this for a tensor leaked out of a trace.
        raise AttributeError("'Tensor' object has no attribute 'numpy'")

    def __bool__(self):
        raise self._left_python(_python_construct()) or OperatorNotAllowedInGraphError(
            f"Using a symbolic tensor as a Python bool is not allowed: {self!r} has no value "
            "while the graph is being built. Use it in an `if`/`while` inside a function "
            "converted by autograph (rt.function does this), or use rt.cond / rt.while_loop.")

    def __len__(self):
        raise TypeError(
            f"len is not well defined for a symbolic tensor ({self.name}). "
            "Use rt.shape(t)[0] or rt.size(t) for a value computed when the graph runs.")

    def __iter__(self):
        # Python's iteration (unpacking, zip(), list(t), a `for` autograph does not stage):
        # where the first dimension is known while tracing, its rows t[0], t[1], ... as
        # eagerly; else there is no Python sequence to give.
        shape = self._shape
        if shape.rank == 0:
            raise TypeError(f"cannot iterate over a scalar tensor ({self.name})")
        if shape.rank is not None and shape[0] is not None:
            return _rows(self, shape[0])
        raise self._left_python(_python_construct()) or OperatorNotAllowedInGraphError(
            f"Iterating over a symbolic tensor ({self.name}, shape {shape}) whose length is "
            "unknown while tracing is not allowed in Python: use a `for` loop in a function "
            "converted by autograph, or rt.while_loop. (Such a loop stages `for x in t` "
            "and `for i, x in enumerate(t)`; other iteration of a tensor, zip() or "
            "unpacking among them, is Python's and needs a length known while tracing: "
            "index the tensor instead.)")

    def _left_python(self, found):
        """The error for an `if`, `while` or `for` that autograph left as Python getting
        this tensor (`found`: its location and message), or None. It counts as an error
        leaving a staged construct (Graph.left_staged): code of a traced function that
        catches it took the same path for every value."""
        if not found:
            return None
        where, message = found
        error = OperatorNotAllowedInGraphError(message)
        error.ag_left_staged = where
        self.op.graph.left_staged.append(error)
        return error

    def __index__(self):
        raise TypeError(f"a symbolic tensor ({self.name}) cannot be used as a Python int; "
                        "use it as a tensor index or convert the code with autograph")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"cannot convert a symbolic tensor ({self.name}) to a numpy array: it "
                        "has no value until the graph runs")

    def __copy__(self):
        return self             # (a symbolic tensor is a value: immutable, as eager ones)

    def __deepcopy__(self, memo):
        return self

    def __hash__(self):
        # In a function being traced, not hashable, as in TensorFlow 2 and as eager
        # tensors: `==` is elementwise, so a hash by identity would make `t in {1, 2}` and
        # `d.get(t)` silently miss. Elsewhere (a graph built by hand), by identity, so that
        # placeholders can key a feed dict.
        if self.op.graph.building_function:
            raise TypeError(f"Tensor is unhashable ({self.name}). Instead, use "
                            f"tensor.ref() as the key")
        return id(self)

    def __repr__(self):
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self.dtype.name})'

    __str__ = __repr__


def _rows(t: SymbolicTensor, n: int):
    for i in range(n):
        yield t[i]


def _python_construct():
    """When the code asking for a Python bool (or iterator) is an `if`, `while` or `for`
    that autograph left as a Python construct: ('file:line', a message naming it and
    why), else None."""
    frame = sys._getframe(2)
    errors = sys.modules.get("autograph.errors")
    found = errors.python_construct(frame.f_code.co_filename, frame.f_lineno) if errors else None
    if found is None:
        return None
    construct, line, reason = found
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    if construct == "def":          # a whole function autograph left as written
        return where, (
            f"The function at {frame.f_code.co_filename}:{line} got a symbolic tensor in "
            f"an `if`, `while` or `for`, but autograph left the function unconverted "
            f"because {reason}, so none of its constructs can be staged. Restructure it "
            f"without that, or compute the condition as a Python value.")
    return where, (
        f"The `{construct}` at {frame.f_code.co_filename}:{line} got a symbolic tensor, but "
        f"autograph left it as a Python `{construct}` because of {reason}, so it cannot be "
        f"staged. Restructure it without that (or compute the condition as a Python value)"
        f"; `ag.set_verbosity(1)` logs every such decision.")
