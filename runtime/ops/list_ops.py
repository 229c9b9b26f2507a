"""Staged Python lists: what `out = []; out.append(v)` becomes in a staged loop.

autograph turns a Python list that a staged construct appends to (or pops from) into a
`StagedList` (through the backend's `new_list`). Unlike a TensorArray it is a reference,
like a Variable: the creation op makes a new storage at every run of the graph, and
`append`, `pop`, item reads and writes are ops with side effects on that storage, run in
program order. So the user's `out.append(v)` needs no rebinding, and the list passes
through `cond` and `while_loop` unchanged. Read as a tensor (`ag.stack(out)`, returned
from a function, an op's input) it is stacked. Its element dtype and shape come from
`ag.set_element_type` or from the first value appended while tracing; a value of
another dtype or shape is an error at the line that appends it.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.graph import user_location
from ..core.shapes import TensorShape, as_shape
from .array_ops import transpose
from .core import OpDef, apply_op, convert_to_tensor

_HANDLE = [(TensorShape(()), dtypes.variant)]


class _Storage:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items

    def __repr__(self):
        return f"<staged list storage of {len(self.items)} items>"


def _index(storage, index) -> int:
    i = int(index)
    n = len(storage.items)
    if not -n <= i < n:
        raise InvalidArgumentError(f"list index {i} out of range for a list of {n} items")
    return i


def _pop_kernel(storage, dtype, element_shape):
    if not storage.items:
        raise InvalidArgumentError("pop from an empty list")
    return storage.items.pop()


def _stack_kernel(storage, dtype, element_shape):
    if storage.items:
        return np.stack(storage.items)
    if not element_shape.is_fully_defined():
        raise InvalidArgumentError(
            "cannot stack an empty list whose element shape is not known; give it with "
            "ag.set_element_type(l, dtype, shape)")
    return np.zeros([0] + element_shape.as_list(), dtype=dtype.np_dtype)


def _set_kernel(storage, index, value):
    storage.items[_index(storage, index)] = value


def _stacked_shape(element_shape) -> TensorShape:
    if element_shape.rank is None:
        return TensorShape(None)
    return TensorShape([None] + list(element_shape.dims))


def _element(inputs, dtype, element_shape):
    return [(element_shape, dtype)]


def _list_op(name, infer, kernel, **traits):
    """A staged list's op: a side effect in program order (reads included: a read sees
    the writes before it); reads may run again (`repeatable`)."""
    return OpDef(name, infer, kernel, side_effect=True,
                 effect=f"changes a staged list ({name})", **traits)


NEW = _list_op("StagedListNew", lambda inputs: _HANDLE, lambda *items: _Storage(list(items)),
               default_name="StagedList")
APPEND = _list_op("StagedListAppend", lambda inputs: [],
                  lambda storage, value: storage.items.append(value), multi_output=True)
POP = _list_op("StagedListPop", _element, _pop_kernel)
GET = _list_op("StagedListGet", _element,
               lambda storage, index, dtype, element_shape: storage.items[_index(storage, index)],
               repeatable=True)
SET = _list_op("StagedListSet", lambda inputs: [], _set_kernel, multi_output=True)
LENGTH = _list_op("StagedListLength", lambda inputs: [(TensorShape(()), dtypes.int32)],
                  lambda storage: np.int32(len(storage.items)), repeatable=True)
STACK = _list_op("StagedListStack",
                 lambda inputs, dtype, element_shape: [(_stacked_shape(element_shape), dtype)],
                 _stack_kernel, repeatable=True)
OPS = [NEW, APPEND, POP, GET, SET, LENGTH, STACK]


def _where() -> str:
    found = user_location()
    return f"{found[0]}:{found[1]}: " if found else ""


_SUPPORTED = ("append, extend by a Python list, pop() of the last item, len(l), l[i] and "
              "l[i] = v for an int or int tensor i, and `for x in l` in converted code")
_LIST_METHODS = frozenset(n for n in dir(list) if not n.startswith("_"))


class StagedList:
    """A Python list inside a staged construct (see the module docstring)."""

    __autograph_reference__ = True      # passed through cond/while_loop as it is
    # (`__autograph_backend__` is set by runtime.autograph_backend: `for x in l` stages;
    # len(l) is a tensor)

    def __init__(self, items=(), dtype=None, element_shape=None):
        self.dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self.element_shape = as_shape(element_shape)
        values = [self._checked(v) for v in items]
        self.handle = apply_op(NEW, values)

    def _with_handle(self, handle) -> "StagedList":
        """The same list seen through another handle tensor (a loop variable, a `cond`
        output): one storage at run time."""
        other = StagedList.__new__(StagedList)
        other.dtype, other.element_shape, other.handle = self.dtype, self.element_shape, handle
        return other

    def _empty_like(self) -> "StagedList":
        return StagedList((), self.dtype, self.element_shape)

    def _checked(self, value):
        t = convert_to_tensor(value, dtype_hint=self.dtype)
        if self.dtype is None:
            self.dtype = t.dtype
        elif t.dtype is not self.dtype:
            raise TypeError(f"{_where()}a list whose elements are {self.dtype.name} cannot take "
                            f"a {t.dtype.name} value {t!r}: the elements of a list that a "
                            "staged construct changes share one dtype (use rt.cast)")
        if not self.element_shape.is_compatible_with(t.shape):
            raise TypeError(f"{_where()}a list whose elements have shape {self.element_shape} "
                            f"cannot take a value of shape {t.shape}: the elements of a list "
                            "that a staged construct changes share one shape")
        self.element_shape = self.element_shape.merge_with(t.shape)
        return t

    def _known(self, what: str):
        if self.dtype is None:
            raise ValueError(f"cannot {what} a list without knowing its element type; use "
                             "set_element_type to annotate it")
        return {"dtype": self.dtype, "element_shape": self.element_shape}

    def append(self, value) -> None:
        apply_op(APPEND, [self.handle, self._checked(value)])

    def pop(self, index: int = -1):
        if not (isinstance(index, int) and index == -1):
            raise TypeError("a list that a staged construct changes can only pop its last "
                            "item (`l.pop()`)")
        return apply_op(POP, [self.handle], self._known("pop from"))

    def extend(self, values) -> None:
        """`l.extend([a, b])`: an append of each (a Python list or tuple of them)."""
        if not isinstance(values, (list, tuple)):
            raise TypeError(f"{_where()}a list that a staged construct changes extends by a "
                            f"Python list or tuple of values, not a {type(values).__name__}: "
                            "append its elements in a loop")
        for v in values:
            self.append(v)

    def __getitem__(self, index):
        if isinstance(index, slice):
            raise TypeError(f"{_where()}a list that a staged construct changes is indexed by "
                            "one int or int tensor, not sliced: stack it first "
                            "(ag.stack(l)[1:] is a tensor)")
        return apply_op(GET, [self.handle, convert_to_tensor(index, dtype=dtypes.int32)],
                        self._known("read"))

    def __setitem__(self, index, value) -> None:
        apply_op(SET, [self.handle, convert_to_tensor(index, dtype=dtypes.int32),
                       self._checked(value)])

    def length(self):
        return apply_op(LENGTH, [self.handle])

    def stack(self, name: Optional[str] = None, axis: int = 0):
        """Its elements as one tensor, stacked along `axis` (rt.stack's)."""
        stacked = apply_op(STACK, [self.handle], self._known("stack"), name=name)
        rank = stacked.shape.rank
        if axis == 0:
            return stacked
        if rank is None or not -rank <= axis < rank:
            raise InvalidArgumentError(f"Pack: axis {axis} is out of range for elements of "
                                       f"shape {self.element_shape}")
        a = axis % rank      # the rows' dimension goes there
        return transpose(stacked, list(range(1, a + 1)) + [0] + list(range(a + 1, rank)))

    def __len__(self):
        raise TypeError("len() of a list that a staged construct changes is a tensor; "
                        "in a function converted by autograph `len(l)` gives it")

    def __eq__(self, other):
        raise TypeError("a list that a staged construct changes has no Python value to "
                        "compare; compare its elements as a tensor (ag.stack(l) == ...)")

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("the truth of a list that a staged construct changes is known only "
                        "when the graph runs; test len(l) > 0 instead")

    def __iter__(self):
        raise TypeError("iterating over a staged list is a staged loop: use it in a `for` "
                        "of a function converted by autograph, or stack it (ag.stack(l))")

    def __reversed__(self):
        raise TypeError(f"{_where()}a list that a staged construct changes cannot be "
                        "reversed while tracing: stack it (ag.stack(l)[::-1])")

    def _as_tensor(self, dtype=None):
        """Read as a tensor (an op's input, convert_to_tensor, rt.stack), its elements
        stacked, as a Python list of tensors converts. (Its truth, `if l:` and `not l`,
        is whether it is empty: runtime/truth.py.)"""
        wanted = dtypes.as_dtype(dtype) if dtype is not None else None
        if wanted is not None and self.dtype is not None and wanted is not self.dtype:
            raise TypeError(f"{_where()}expected a {wanted.name} value, got a "
                            f"list of {self.dtype.name} elements that a staged construct "
                            "changes")
        return self.stack()

    def _unsupported(self, *args):
        raise TypeError(f"{_where()}a list that a staged construct changes supports "
                        f"{_SUPPORTED}; stack it for its elements as a tensor (ag.stack(l))")

    __add__ = __radd__ = __iadd__ = __mul__ = __rmul__ = __imul__ = _unsupported

    def __getattr__(self, name):
        # (only for names the class has not: the methods of Python's lists it lacks)
        if name in _LIST_METHODS:
            raise AttributeError(
                f"{_where()}a list that a staged construct changes has no `{name}`: it "
                f"supports {_SUPPORTED}; stack it for its elements as a tensor "
                "(ag.stack(l))")
        raise AttributeError(f"'StagedList' object has no attribute {name!r}")

    def __repr__(self):
        dtype = self.dtype.name if self.dtype is not None else "unknown"
        return f"<staged list of {dtype} elements of shape {self.element_shape}>"
