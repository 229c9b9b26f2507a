"""`apply_op`, the one place where an op runs: eagerly on numpy values when no graph is
being built, or recorded as a node of the current graph; and `constant`."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..errors import InvalidArgumentError
from . import dtypes, hooks
from .graph import current_graph
from .leaks import leaked_tensor_error
from .opdef import CONST, OpDef, const_specs, quiet_numpy, restore_numpy, to_numpy, wrap
from .shapes import as_shape
from .tensor import EagerTensor, SymbolicTensor, Tensor

_recording = hooks.recording


def apply_op(opdef: OpDef, inputs: list, attrs: Optional[dict] = None, name: Optional[str] = None):
    """Runs `opdef` eagerly, or records it in the current graph. Returns the outputs: a
    single tensor, or a tuple for multi-output ops."""
    attrs = attrs or {}
    graph = current_graph()
    if graph is None:
        for t in inputs:
            if isinstance(t, SymbolicTensor):
                raise leaked_tensor_error(t)
        specs = opdef.infer(inputs, **attrs)
        quiet = quiet_numpy()  # as in graphs: inf/nan, no warnings
        try:
            result = opdef.kernel(*[t._value for t in inputs], **attrs)
        except InvalidArgumentError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError,
                OverflowError) as e:
            raise InvalidArgumentError(f"{opdef.name}: {e}") from None
        finally:
            restore_numpy(quiet)
        if opdef.multi_output:
            out = tuple(wrap(r, d) for r, (_, d) in zip(result, specs))
        else:
            out = wrap(result, specs[0][1])
        if _recording.tapes:  # a GradientTape is open: it may record this op
            hooks.record_eager(opdef, inputs, out, attrs)
        return hooks.after_op(opdef, inputs, out, None) if hooks.op_callbacks else out
    inputs = [in_graph(graph, t) for t in inputs]
    specs = opdef.infer(inputs, **attrs)
    op = graph.add_op(opdef, inputs, attrs, specs, name)
    out = op.outputs if opdef.multi_output else op.outputs[0]
    return hooks.after_op(opdef, inputs, out, op) if hooks.op_callbacks else out


def in_graph(graph, t) -> SymbolicTensor:
    """`t` as a tensor of `graph`: eager values become constants, outer tensors are captured."""
    if isinstance(t, EagerTensor):
        return graph.eager_constant(t)
    if t.op.graph is graph:
        return t
    return graph.capture(t)


def constant(value, dtype=None, shape=None, name: Optional[str] = None) -> Tensor:
    """A tensor holding `value` (broadcast to `shape` when given).

    Python ints become int32 (int64 when they do not fit), floats float32, strings string;
    numpy arrays keep their dtype. Eagerly it returns a tensor with the value; in a graph, a
    Const op's output.

    Args:
      value: a Python number, bool, str or nested list of them, a numpy array, or an eager
        tensor.
      dtype: the result's dtype (default: inferred from value).
      shape: an optional fully defined shape: value is reshaped to it when it has as many
        elements, or broadcast when it is one value.
      name: an optional name for the op.

    Returns:
      A tensor of `dtype` and the value's (or `shape`'s) shape.

    Raises:
      TypeError: for a symbolic tensor, or values that do not fill `shape`.
      ValueError: for a shape that is not fully defined.

    >>> print(rt.constant([1, 2, 3]))
    rt.Tensor([1 2 3], shape=(3,), dtype=int32)
    >>> print(rt.constant([1, 2], dtype=rt.float64))
    rt.Tensor([1. 2.], shape=(2,), dtype=float64)
    >>> print(rt.constant(0, shape=[2, 3]))
    rt.Tensor(
    [[0 0 0]
     [0 0 0]], shape=(2, 3), dtype=int32)
    """
    if isinstance(value, Tensor):
        if isinstance(value, EagerTensor):
            value = value._value
        else:
            raise TypeError(f"rt.constant() needs a Python or numpy value, got the symbolic "
                            f"tensor {value!r}; use rt.identity to copy a tensor")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    try:
        arr = to_numpy(value, dtype)
    except TypeError:
        if not isinstance(value, (list, tuple)):
            raise
        arr = to_numpy(_tensor_values(value), dtype)     # a list of eager tensors: packed
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
    return graph.add_op(CONST, (), {"value": arr, "dtype": dtype}, const_specs((), arr, dtype),
                        name or "Const").outputs[0]


def _tensor_values(value):
    """A nested list with its eager tensors' values in their place (TensorFlow's
    `tf.constant([t1, t2])` packs them); a symbolic tensor has no value to put there."""
    if isinstance(value, EagerTensor):
        return value._value
    if isinstance(value, SymbolicTensor):
        raise TypeError(f"rt.constant() needs Python or numpy values, or eager tensors, got the "
                        f"symbolic tensor {value!r} in a list; use rt.stack (or "
                        f"rt.convert_to_tensor) to make a tensor of tensors")
    if isinstance(value, (list, tuple)):
        return [_tensor_values(v) for v in value]
    return value
