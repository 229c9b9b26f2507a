"""Variables: mutable state that graphs capture by reference.

A graph reads a Variable with a `ReadVariableOp` node and writes it with an
`AssignVariableOp` node; both hold the Variable itself, so every run sees and changes its
current value. Writes are side effects (never pruned, run in program order); reads are
not pure (never folded or merged), so they see the writes before them.
"""
from __future__ import annotations

import itertools
import threading
from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import DTypeMismatchError, InvalidArgumentError
from ..core import hooks
from ..core.graph import current_graph, current_name_scope, eager_scope
from ..core.shapes import TensorShape
from ..core.tensor import EagerTensor, Tensor
from .core import OpDef, apply_op, convert_to_tensor

_ids = itertools.count()
_creation_hooks = threading.local()  # rt.function watches Variable creation while tracing


def set_creation_hook(hook) -> object:
    """Makes `hook(variable)` be called for each Variable made from now on in this thread
    (None: no call); returns the hook it replaces, for the caller to set back."""
    previous = getattr(_creation_hooks, "hook", None)
    _creation_hooks.hook = hook
    return previous


def _read_infer(inputs, variable):
    return [(variable.shape, variable.dtype)]


def _read_kernel(variable):
    return variable._value


READ = OpDef("ReadVariableOp", _read_infer, _read_kernel, pure=False,
             reads_variables=True)


def _assign_infer(inputs, variable, mode):
    v = inputs[0]
    if v.dtype is not variable.dtype:
        raise DTypeMismatchError(
            f"cannot assign a {v.dtype.name} value to the {variable.dtype.name} variable "
            f"'{variable.name}'")
    if not variable.shape.is_compatible_with(v.shape):
        raise InvalidArgumentError(
            f"cannot assign a value of shape {v.shape} to the variable '{variable.name}' of "
            f"shape {variable.shape}")
    return [(variable.shape, variable.dtype)]


def _assign_kernel(value, variable, mode):
    if mode == "add":
        value = variable._value + value
    elif mode == "sub":
        value = variable._value - value
    variable._value = np.array(value, dtype=variable.dtype.np_dtype)
    return variable._value


ASSIGN = OpDef("AssignVariableOp", _assign_infer, _assign_kernel, side_effect=True,
               writes_variables=True, effect="changes a Variable",
               grad=lambda inputs, outputs, grads, variable, mode: [None])  # TensorFlow: none
OPS = [READ, ASSIGN]


class Variable:
    """A mutable tensor value: `read_value`, `assign`, `assign_add`, `assign_sub`.

    Used as a tensor (in arithmetic, as an op input) it reads its current value. Its
    initial value is computed once, eagerly (inside rt.function too: a symbolic initial
    value raises ValueError); inside a graph, reads and assignments are ops that run, in
    program order, every time the graph runs. GradientTape watches trainable Variables.

    Args:
      initial_value: a tensor, a Python or numpy value, or a callable returning one (None
        raises ValueError).
      trainable: whether GradientTape watches it automatically and rt.Module lists it in
        trainable_variables.
      name: its name (inside rt.name_scope, prefixed with the scope); `.name` adds ":0".
      dtype: the dtype the initial value converts to (None: its own).
      shape: its static shape (None: the initial value's).

    Attributes: `dtype`, `shape`, `name`, `trainable`; `numpy()` gives its value.

    >>> v = rt.Variable([1.0, 2.0], name="w")
    >>> v
    <rt.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
    >>> v.assign_add([1.0, 1.0])
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([2., 3.], dtype=float32)>
    >>> v * 2
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([4., 6.], dtype=float32)>
    >>> @rt.function
    ... def step():
    ...     v.assign_sub([0.5, 0.5])
    ...     return v.read_value()
    >>> step()
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2.5], dtype=float32)>
    >>> v.numpy()
    array([1.5, 2.5], dtype=float32)
    """

    def __init__(self, initial_value=None, trainable: bool = True, name: Optional[str] = None,
                 dtype=None, shape=None):
        if initial_value is None:
            raise ValueError("rt.Variable needs an initial_value")
        hook = getattr(_creation_hooks, "hook", None)
        if hook is not None:
            hook(self)
        scope = current_name_scope()  # (read before eager_scope below leaves the graph)
        with eager_scope():  # the initial value is computed once, outside any graph
            if callable(initial_value):
                initial_value = initial_value()
            if isinstance(initial_value, Variable):
                initial_value = initial_value.read_value()
            if isinstance(initial_value, Tensor) and not isinstance(initial_value, EagerTensor):
                raise ValueError(
                    f"the initial value of a Variable must be computable outside the graph; got "
                    f"the symbolic tensor {initial_value!r}. Create the Variable outside the "
                    "function, or from a Python/numpy value.")
            t = convert_to_tensor(initial_value, dtype=dtype)
        self._dtype = t.dtype
        self._value = np.array(t._value, dtype=t.dtype.np_dtype)
        self._shape = TensorShape(shape) if shape is not None else TensorShape(self._value.shape)
        self.trainable = bool(trainable)
        self._unique_id = next(_ids)
        self._name = scope + (name or "Variable")  # as TF: "block/w" inside rt.name_scope("block")

    # -- the value ---------------------------------------------------------------------------
    # A numpy array (`_host`); or, after a compiled (XLA) call wrote the Variable, the
    # device array it left (`_device`), made a read-only numpy array when first read here:
    # the next call takes the device array as it is (a train step's parameters stay put).
    @property
    def _value(self) -> np.ndarray:
        value = self._host
        if value is None:
            device = self._device
            value = np.asarray(device)     # (may wait for the call writing it)
            if self._device is not device:
                # another thread's compiled call wrote the Variable meanwhile: this read
                # came first, and the new value must not be hidden by the old one kept
                return value
            if value.flags.writeable:  # a copy: from now on the value is this array alone
                value.flags.writeable = False
                self._device = None
            self._host = value
        return value

    @_value.setter
    def _value(self, value: np.ndarray):
        self._host = value
        self._device = None

    def _set_device_value(self, array):
        """A compiled call wrote the Variable: `array` (a jax array) holds its value."""
        self._host = None
        self._device = array

    # -- attributes ------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def name(self) -> str:
        return f"{self._name}:0"

    def get_shape(self):
        return self._shape

    # -- reading ---------------------------------------------------------------------------
    def read_value(self) -> Tensor:
        """The current value, as a tensor (in a graph: an op reading it when the graph runs).
        """
        g = current_graph()
        if g is None:
            if hooks.recording.tapes:  # an open GradientTape sees the read (it may watch self)
                return apply_op(READ, [], {"variable": self}, name="ReadVariableOp")
            return EagerTensor(self._value, self._dtype)
        return apply_op(READ, [], {"variable": self}, name="ReadVariableOp")

    value = read_value

    def _as_tensor(self, dtype=None):
        t = self.read_value()
        if dtype is not None and dtypes.as_dtype(dtype) is not self._dtype:
            raise TypeError(f"expected a {dtypes.as_dtype(dtype).name} value, got the "
                            f"{self._dtype.name} variable '{self.name}'")
        return t

    def numpy(self):
        """The current value as numpy (a numpy scalar for a scalar Variable).
        """
        v = self._value
        return v[()] if v.ndim == 0 else v.copy()

    # -- writing ---------------------------------------------------------------------------
    def _write(self, value, mode):
        v = convert_to_tensor(value, dtype_hint=self._dtype)
        return apply_op(ASSIGN, [v], {"variable": self, "mode": mode},
                        name={"set": "AssignVariableOp", "add": "AssignAddVariableOp",
                              "sub": "AssignSubVariableOp"}[mode])

    def assign(self, value, read_value: bool = True, name=None):
        """Sets the value to `value` (of the Variable's dtype and shape).

        Args:
          value: a tensor (or what converts to one).
          read_value: whether to return the new value.
          name: accepted for TensorFlow's signature; unused.

        Returns:
          The new value as a tensor, or None when read_value is False.
        """
        out = self._write(value, "set")
        return out if read_value else None

    def assign_add(self, delta, read_value: bool = True, name=None):
        """Adds `delta` to the value.

        Args:
          delta: a tensor (or what converts to one) of the Variable's dtype.
          read_value: whether to return the new value.
          name: accepted for TensorFlow's signature; unused.

        Returns:
          The new value as a tensor, or None when read_value is False.
        """
        out = self._write(delta, "add")
        return out if read_value else None

    def assign_sub(self, delta, read_value: bool = True, name=None):
        """Subtracts `delta` from the value.

        Args:
          delta: a tensor (or what converts to one) of the Variable's dtype.
          read_value: whether to return the new value.
          name: accepted for TensorFlow's signature; unused.

        Returns:
          The new value as a tensor, or None when read_value is False.
        """
        out = self._write(delta, "sub")
        return out if read_value else None

    # -- Python protocol -------------------------------------------------------------------
    def __bool__(self):
        return bool(self.read_value())

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __index__(self):
        return int(self._value)

    def __array__(self, dtype=None, copy=None):
        # (`np.array(v)` asks for a copy, which numpy 2 trusts this to make)
        return np.array(self._value, dtype=dtype, copy=True if copy else None)

    def __hash__(self):
        return id(self)

    def __getitem__(self, key):
        return self.read_value()[key]

    def __repr__(self):
        text = np.array_repr(self._value) if self._value.ndim else str(self.numpy())
        return (f"<rt.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}, "
                f"numpy={text}>")


def runtime_variable(initial_value, name: str, shape=None) -> Variable:
    """A non-trainable Variable holding state of the runtime's own (an rt.data iterator's
    position, say), made outside any graph and not reported to rt.function's check that a
    function makes Variables on its first call only: one is made per trace, for the
    graph that trace builds."""
    previous = set_creation_hook(None)
    try:
        with eager_scope():
            return Variable(initial_value, trainable=False, name=name, shape=shape)
    finally:
        set_creation_hook(previous)


def _delegate(name):
    def method(self, *args):
        return getattr(self.read_value(), name)(*args)
    method.__name__ = name
    return method


# A Variable in an expression behaves as its current value.
for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
              "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__or__",
              "__invert__"):
    setattr(Variable, _name, _delegate(_name))
