"""How an op is defined and applied, and how Python values become tensors.

An `OpDef` puts one op's pieces side by side: its name, its shape/dtype inference
(`infer`), its numpy kernel, and flags that tell the executor and the optimiser what they
may do with it. `apply_op` is the one place where an op runs: eagerly on numpy values when
no graph is being built, or recorded as a node of the current graph.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..gradients import tape as _tape
from ..executor import _quiet_numpy, _restore_numpy
from ..graph import current_graph
from ..shapes import TensorShape, as_shape
from ..tensor import EagerTensor, SymbolicTensor, Tensor

_tape_state = _tape._state


class OpDef:
    """One op: inference and kernel side by side.

    infer(inputs, **attrs) -> list of (TensorShape, DType), one per output. `inputs` are
        tensors (only `.shape` and `.dtype` may be read). Raises on bad input.
    kernel(*arrays, **attrs) -> array, or a tuple of arrays when the op has several
        outputs (`multi_output`).
    pure: same inputs always give the same outputs and nothing else happens, so the op
        may be folded, deduplicated or dropped when unused.
    side_effect: the op must run even when nothing uses its outputs (print, assert,
        variable writes), in program order.
    emit(op, args) -> a Python expression computing the op from the variables named in
        `args`, or None to call the kernel. The executor inlines it: `a % b` on numpy
        scalars costs 45 ns where the ufunc call `np.mod(a, b)` costs over 1 us.
    """

    __slots__ = ("name", "default_name", "infer", "kernel", "pure", "side_effect",
                 "multi_output", "grad", "emit")

    def __init__(self, name: str, infer: Callable, kernel: Optional[Callable], *,
                 pure: bool = True, side_effect: bool = False, multi_output: bool = False,
                 default_name: Optional[str] = None):
        self.name = name
        self.default_name = default_name or name
        self.infer = infer
        self.kernel = kernel
        self.pure = pure and not side_effect
        self.side_effect = side_effect
        self.multi_output = multi_output
        self.grad = None  # gradient rule, set beside the op by the gradient issue
        self.emit = None  # inline expression for the executor, set beside the op

    def __repr__(self):
        return f"<OpDef {self.name}>"


def apply_op(opdef: OpDef, inputs: list, attrs: Optional[dict] = None, name: Optional[str] = None):
    """Runs `opdef` eagerly, or records it in the current graph. Returns the outputs: a
    single tensor, or a tuple for multi-output ops."""
    attrs = attrs or {}
    graph = current_graph()
    if graph is None:
        for t in inputs:
            if isinstance(t, SymbolicTensor):
                from ..leaks import leaked_tensor_error
                raise leaked_tensor_error(t)
        specs = opdef.infer(inputs, **attrs)
        quiet = _quiet_numpy()  # as in graphs: inf/nan, no warnings
        try:
            result = opdef.kernel(*[t._value for t in inputs], **attrs)
        except InvalidArgumentError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError,
                OverflowError) as e:
            raise InvalidArgumentError(f"{opdef.name}: {e}") from None
        finally:
            _restore_numpy(quiet)
        if opdef.multi_output:
            out = tuple(wrap(r, d) for r, (_, d) in zip(result, specs))
        else:
            out = wrap(result, specs[0][1])
        if _tape_state.tapes:  # a GradientTape is open: it may record this op
            _tape.record_eager(opdef, inputs, out, attrs)
        return out
    inputs = [_in_graph(graph, t) for t in inputs]
    specs = opdef.infer(inputs, **attrs)
    op = graph.add_op(opdef, inputs, attrs, specs, name)
    return op.outputs if opdef.multi_output else op.outputs[0]


def _in_graph(graph, t) -> SymbolicTensor:
    """`t` as a tensor of `graph`: eager values become constants, outer tensors are captured."""
    if isinstance(t, EagerTensor):
        if t.dtype is dtypes.variant:
            return graph.add_op(CONST, (), {"value": t._value, "dtype": t.dtype},
                                [(TensorShape(()), t.dtype)], "Const").outputs[0]
        return graph.add_op(CONST, (), {"value": t._value, "dtype": t.dtype},
                            _const_infer((), t._value, t.dtype), "Const").outputs[0]
    if t.op.graph is graph:
        return t
    return graph.capture(t)


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


# -- conversion -------------------------------------------------------------------------

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


def constant_value(t):
    """The value of tensor `t` when it is known while building (an eager tensor, or the
    output of a Const node), else None. Lets shapes, axes and slice bounds given as
    constant tensors stay static."""
    if isinstance(t, EagerTensor):
        return t._value
    if isinstance(t, SymbolicTensor) and t.op.opdef is CONST:
        return t.op.attrs["value"]
    return None


def _holds_tensor(value) -> bool:
    return any(isinstance(v, Tensor) or getattr(v, "_as_tensor", None) is not None
               or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in value)


def _const_infer(inputs, value, dtype):
    return [(TensorShape(np.shape(value)), dtype)]


def _const_kernel(value, dtype):
    return value


CONST = OpDef("Const", _const_infer, _const_kernel)


def constant(value, dtype=None, shape=None, name: Optional[str] = None) -> Tensor:
    """A tensor holding `value` (broadcast to `shape` when given)."""
    if isinstance(value, Tensor):
        if isinstance(value, EagerTensor):
            value = value._value
        else:
            raise TypeError(f"rt.constant() needs a Python or numpy value, got the symbolic "
                            f"tensor {value!r}; use rt.identity to copy a tensor")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    arr = to_numpy(value, dtype)
    dtype = dtype or dtypes.as_dtype(arr.dtype)
    if shape is not None:
        shape = as_shape(shape)
        if not shape.is_fully_defined():
            raise ValueError(f"rt.constant shape must be fully defined, got {shape}")
        dims = tuple(shape.as_list())
        if arr.size == int(np.prod(dims)):
            arr = arr.reshape(dims)
        elif arr.size == 1:
            arr = np.broadcast_to(arr.reshape(()), dims).copy()
        else:
            raise TypeError(f"rt.constant: {arr.size} values do not fill a tensor of shape {shape}")
    graph = current_graph()
    if graph is None:
        return EagerTensor(arr, dtype)
    return graph.add_op(CONST, (), {"value": arr, "dtype": dtype}, _const_infer((), arr, dtype),
                        name or "Const").outputs[0]


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


def _placeholder_infer(inputs, dtype, shape):
    return [(shape, dtype)]


def _placeholder_kernel(dtype, shape):
    raise InvalidArgumentError("a placeholder was not fed")


PLACEHOLDER = OpDef("Placeholder", _placeholder_infer, _placeholder_kernel, pure=False)


def placeholder_op(graph, dtype, shape, name="Placeholder") -> SymbolicTensor:
    return graph.add_op(PLACEHOLDER, (), {"dtype": dtype, "shape": as_shape(shape)},
                        [(as_shape(shape), dtype)], name).outputs[0]


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
