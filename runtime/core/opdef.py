"""How an op is defined: `OpDef` holds one op whole — its name, shape/dtype inference,
numpy kernel, gradient and inlined expression, and the traits every pass and backend asks
instead of knowing ops by name. The two ops every graph has (`CONST`, `PLACEHOLDER`) are
defined here; the others beside the functions users call (`runtime.ops`, `runtime.control_flow`).
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..errors import InvalidArgumentError
from . import dtypes
from .shapes import TensorShape, as_shape
from .tensor import EagerTensor


class OpDef:
    """One op: inference, kernel, gradient and emitter side by side, and its traits.

    infer(inputs, **attrs) -> list of (TensorShape, DType), one per output. `inputs` are
        tensors (only `.shape` and `.dtype` may be read). Raises on bad input.
    kernel(*arrays, **attrs) -> array, or a tuple of arrays when the op has several
        outputs (`multi_output`).
    grad(inputs, outputs, grads, **attrs) -> a gradient per input (None: no gradient rule).
    emit(op, args) -> a Python expression computing the op from the variables named in
        `args`, or None to call the kernel (the numpy backend inlines it: `a % b` on
        numpy scalars costs 45 ns where the ufunc call `np.mod(a, b)` costs over 1 us).

    Traits (keyword arguments, all optional):
    - effects: `pure` (same inputs, same outputs, nothing else happens: may be folded,
      deduplicated, dropped when unused) and `side_effect` (must run even when unused, in
      program order: print, assert, variable writes);
    - `observer`: a side effect that only looks (print, assert): replaying or
      differentiating a graph may leave it out;
    - `repeatable`: a side effect that running once more would not show (an assert, a
      staged list read), so tracing a function twice may run it twice;
    - `effect`: what the side effect does, in words, for messages ("prints");
    - `allocates`: its result is a new array that shares no memory with its inputs (the
      numpy backend may then write into a dead input's buffer);
    - `reads_variables` / `writes_variables`: it reads or writes a Variable's state;
    - `calls_python`: it runs a Python function (`py_function`): it cannot be saved or
      exported, only run where that function lives;
    - `elementwise`: each output element comes from the inputs' elements at its position
      (inputs broadcast), with no attributes;
    - `unit`: the value u with `x op u == u op x == x` (1 for Mul, 0 for AddV2), and
      `right_unit` the u with `x op u == x` only (1 for RealDiv, 0 for Sub);
    - `of_shape`: its value follows from its input's static shape alone (Shape, Size, Rank);
    - `public_name`: the function users call for it, where tables make both (`add`);
    - `body_attrs`: the attributes holding its sub-graphs (`Body`s), for control flow (see
      `runtime.control_flow`), which also describes its input layout;
    - `runs_subgraphs`: it runs sub-graphs whose Variable reads its inputs do not show
      (true with `body_attrs`; a Function call recorded on a tape says so itself), so its
      gradient rule runs even when no input needs a gradient;
    - `feedable` (placeholders) and `constant` (the Const op): the two ops every graph
      walker meets first.
    """

    __slots__ = ("name", "default_name", "infer", "kernel", "pure", "side_effect",
                 "multi_output", "grad", "emit", "allocates", "reads_variables",
                 "writes_variables", "observer", "calls_python", "body_attrs", "feedable",
                 "constant", "elementwise", "unit", "right_unit", "repeatable", "effect",
                 "of_shape", "public_name", "runs_subgraphs")

    def __init__(self, name: str, infer: Callable, kernel: Optional[Callable], *,
                 pure: bool = True, side_effect: bool = False, multi_output: bool = False,
                 default_name: Optional[str] = None, allocates: Optional[bool] = None,
                 reads_variables: bool = False, writes_variables: bool = False,
                 observer: bool = False, calls_python: bool = False,
                 grad: Optional[Callable] = None, emit: Optional[Callable] = None,
                 body_attrs: tuple = (), feedable: bool = False, constant: bool = False,
                 elementwise: bool = False, unit=None, right_unit=None,
                 repeatable: bool = False, effect: Optional[str] = None,
                 of_shape: bool = False, public_name: Optional[str] = None,
                 runs_subgraphs: bool = False):
        self.name = name
        self.default_name = default_name or name
        self.infer = infer
        self.kernel = kernel
        self.pure = pure and not side_effect
        self.side_effect = side_effect
        self.multi_output = multi_output
        # A pure ufunc makes a new array; other kernels may return views unless they say.
        self.allocates = (self.pure and isinstance(kernel, np.ufunc)) if allocates is None \
            else allocates
        self.reads_variables = reads_variables
        self.writes_variables = writes_variables
        self.observer = observer
        self.calls_python = calls_python
        self.body_attrs = tuple(body_attrs)
        self.feedable = feedable
        self.constant = constant
        self.grad = grad
        self.emit = emit
        self.elementwise = elementwise
        self.unit = unit
        self.right_unit = right_unit
        self.repeatable = repeatable
        self.effect = effect
        self.of_shape = of_shape
        self.public_name = public_name
        self.runs_subgraphs = runs_subgraphs or bool(self.body_attrs)

    def bodies(self, op) -> list:
        """The op's sub-graphs (`Body`s), in attribute order; [] for a plain op."""
        return [op.attrs[a] for a in self.body_attrs]

    def __repr__(self):
        return f"<OpDef {self.name}>"


# -- numpy as graphs run it ---------------------------------------------------------------

def _numpy_error_state():
    """Functions that silence numpy's floating-point warnings for a run (TensorFlow gives
    inf/nan silently). `np.errstate` costs ~1 us per use; setting numpy's context variable
    directly costs ~0.1 us, so use it when this numpy has it."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
        quiet = _make_extobj(all="ignore")
        return (lambda: _extobj_contextvar.set(quiet)), _extobj_contextvar.reset
    except (ImportError, AttributeError, TypeError):
        def enter():
            state = np.errstate(all="ignore")
            state.__enter__()
            return state
        return enter, (lambda state: state.__exit__(None, None, None))


quiet_numpy, restore_numpy = _numpy_error_state()


def wrap(value, dtype) -> EagerTensor:
    """A kernel's result as an EagerTensor of `dtype`."""
    if getattr(value, "dtype", None) is dtype.np_dtype:  # the common case, checked cheaply
        return EagerTensor(value, dtype)
    if dtype is dtypes.variant:
        return EagerTensor(value, dtype)
    if not isinstance(value, (np.ndarray, np.generic)):
        value = np.asarray(value, dtype=dtype.np_dtype)
    elif value.dtype != dtype.np_dtype:
        value = value.astype(dtype.np_dtype)
    return EagerTensor(value, dtype)


def to_numpy(value, dtype: Optional[dtypes.DType] = None) -> np.ndarray:
    """A Python or numpy value as an array of `dtype` (inferred when None), following
    TensorFlow's rules: no silent loss (2.5 does not become an int32)."""
    if isinstance(value, EagerTensor):
        if dtype is not None and value.dtype is not dtype:
            raise TypeError(f"expected a {dtype.name} tensor, got a {value.dtype.name} tensor")
        return value._value
    inferred = dtypes.infer_dtype(value)
    target = dtype or inferred
    if target.is_string:
        return _string_array(value)
    if inferred.is_string:
        raise TypeError(f"cannot convert {value!r} to a {target.name} tensor")
    try:
        # A user's array is copied: the tensor must not change when the array does.
        arr = np.array(value) if isinstance(value, np.ndarray) else np.asarray(value)
    except ValueError:
        raise ValueError(f"cannot convert {value!r} to a tensor: the nested lists are ragged "
                         "(rows of different lengths); a tensor must be rectangular") from None
    if arr.dtype == object:
        raise ValueError(f"cannot convert {value!r} to a tensor: the nested lists are ragged, "
                         "hold non-numeric values, or hold integers too large for int64")
    if arr.dtype != target.np_dtype:
        if target.is_integer and arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.trunc(arr)):
                raise TypeError(f"cannot convert {value!r} to a {target.name} tensor: it is not "
                                "an integer")
        if target.is_bool and arr.dtype.kind != "b":
            raise TypeError(f"cannot convert {value!r} to a bool tensor")
        if arr.dtype.kind == "b" and not target.is_bool and not isinstance(value, np.ndarray):
            raise TypeError(f"cannot convert {value!r} to a {target.name} tensor")
        if target.is_integer and arr.dtype.kind in "iu":
            info = np.iinfo(target.np_dtype)
            if arr.size and (arr.min() < info.min or arr.max() > info.max):
                raise TypeError(f"cannot convert {value!r} to a {target.name} tensor: out of range")
        arr = arr.astype(target.np_dtype)
    return arr


def _string_array(value) -> np.ndarray:
    def enc(v):
        if isinstance(v, str):
            return v.encode("utf-8")
        if isinstance(v, (bytes, np.bytes_)):
            return bytes(v)
        if isinstance(v, np.str_):
            return str(v).encode("utf-8")
        raise TypeError(f"cannot convert {v!r} to a string tensor")
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        out = np.empty((), dtype=object)
        out[()] = enc(value)
        return out
    arr = np.asarray(value, dtype=object)
    flat = [enc(v) for v in arr.reshape(-1)]
    out = np.empty(arr.shape, dtype=object)
    out.reshape(-1)[:] = flat if flat else []
    return out


def to_array_for(value, placeholder) -> np.ndarray:
    """A fed value as an array fitting `placeholder` (InvalidArgumentError when not)."""
    try:
        arr = to_numpy(value, placeholder.dtype)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"cannot feed {value!r} to '{placeholder.name}': {e}") from None
    if not placeholder.shape.is_compatible_with(np.shape(arr)):
        raise InvalidArgumentError(
            f"cannot feed a value of shape {TensorShape(np.shape(arr))} to '{placeholder.name}', "
            f"which has shape {placeholder.shape}")
    return arr


# -- the two ops every graph has ----------------------------------------------------------

def const_specs(inputs, value, dtype):
    """The Const op's inference: the value's shape, the given dtype."""
    return [(TensorShape(np.shape(value)), dtype)]


def _const_kernel(value, dtype):
    return value


CONST = OpDef("Const", const_specs, _const_kernel, constant=True)


def constant_value(t):
    """The value of tensor `t` when it is known while building (an eager tensor, or the
    output of a Const node), else None. Lets shapes, axes and slice bounds given as
    constant tensors stay static."""
    if isinstance(t, EagerTensor):
        return t._value
    op = getattr(t, "op", None)
    if op is not None and op.opdef is CONST:
        return op.attrs["value"]
    return None


def _placeholder_infer(inputs, dtype, shape):
    return [(shape, dtype)]


def _placeholder_kernel(dtype, shape):
    raise InvalidArgumentError("a placeholder was not fed")


PLACEHOLDER = OpDef("Placeholder", _placeholder_infer, _placeholder_kernel, pure=False,
                    feedable=True)


def placeholder_op(graph, dtype, shape, name="Placeholder"):
    """A new placeholder of `graph` (an input fed when the graph runs)."""
    return graph.add_op(PLACEHOLDER, (), {"dtype": dtype, "shape": as_shape(shape)},
                        [(as_shape(shape), dtype)], name).outputs[0]
