"""Small utilities of TensorFlow's top level: `is_tensor`, `executing_eagerly`,
`get_static_value` (a value known while tracing) and `ensure_shape` (a shape checked where
it is known, when the graph runs otherwise: the `EnsureShape` op).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..core.graph import current_graph
from ..core.opdef import CONST, quiet_numpy, restore_numpy
from ..core.shapes import TensorShape, as_shape
from ..core.tensor import EagerTensor, SymbolicTensor, Tensor
from ..errors import InvalidArgumentError
from . import array_ops
from .core import OpDef, apply_op, convert_to_tensor
from .state_ops import Variable

MAX_FOLDED_ELEMENTS = 1_000_000  # larger values are not computed while tracing


def is_tensor(x) -> bool:
    """Whether `x` is a tensor (eager or symbolic), a Variable, or a tensor-like value
    (one whose `is_tensor_like` is True); a numpy array or Python number is not.

    Args:
      x: any Python value.

    Returns:
      A Python bool.

    >>> rt.is_tensor(rt.constant(1.0))
    True
    >>> rt.is_tensor(rt.Variable(1.0))
    True
    >>> rt.is_tensor(np.ones(2))
    False
    """
    return isinstance(x, (Tensor, Variable)) or getattr(x, "is_tensor_like", False) is True


def executing_eagerly() -> bool:
    """False while ops are being recorded into a graph (tracing an `rt.function`, inside
    a `Graph.as_default()`, a staged branch or loop body), True otherwise (also inside
    `rt.init_scope()`).

    Returns:
      A Python bool.

    >>> rt.executing_eagerly()
    True
    >>> @rt.function
    ... def f():
    ...     return rt.constant(rt.executing_eagerly())
    >>> f()
    <rt.Tensor: shape=(), dtype=bool, numpy=False>
    """
    return current_graph() is None


# -- get_static_value ------------------------------------------------------------------

def _foldable(d) -> bool:
    return (d.pure and d.kernel is not None and not d.body_attrs and not d.feedable
            and not d.reads_variables and not d.calls_python)


def _from_shape(op):
    """Shape, Size or Rank of an input whose static shape is fully known, else None."""
    shape = op.inputs[0].shape
    if op.opdef is array_ops.RANK:
        return None if shape.rank is None else np.asarray(shape.rank, np.int32)
    if not shape.is_fully_defined():
        return None
    out_type = op.attrs["out_type"].np_dtype
    if op.opdef is array_ops.SHAPE:
        return np.asarray(shape.as_list(), out_type)
    return np.asarray(shape.num_elements(), out_type)


def _fold(t: SymbolicTensor):
    """The value of symbolic `t` computed from constants while tracing, or None."""
    known: dict = {}

    def value_of(op):
        if op.opdef is CONST:
            return (op.attrs["value"],)
        if op.opdef.of_shape:
            v = _from_shape(op)
            if v is not None:
                return (v,)
        return None

    stack = [t.op]
    while stack:
        op = stack[-1]
        if id(op) in known:
            stack.pop()
            continue
        direct = value_of(op)
        if direct is not None or not _foldable(op.opdef) or any(
                o.dtype is dtypes.variant for o in op.outputs):
            known[id(op)] = direct
            stack.pop()
            continue
        pending = [i.op for i in op.inputs if id(i.op) not in known]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        args = [known[id(i.op)] for i in op.inputs]
        if any(a is None for a in args):
            known[id(op)] = None
            continue
        known[id(op)] = _run(op, [a[i.value_index] for a, i in zip(args, op.inputs)])
    result = known[id(t.op)]
    return None if result is None else result[t.value_index]


def _run(op, arrays):
    quiet = quiet_numpy()
    try:
        out = op.opdef.kernel(*arrays, **op.attrs)
    except Exception:  # noqa: BLE001 - the error happens when the graph runs
        return None
    finally:
        restore_numpy(quiet)
    outs = tuple(out) if op.opdef.multi_output else (out,)
    values = []
    for v, t in zip(outs, op.outputs):
        v = np.asarray(v, dtype=t.dtype.np_dtype)
        if v.size > MAX_FOLDED_ELEMENTS:
            return None
        values.append(v)
    return tuple(values)


def get_static_value(tensor, partial: bool = False):
    """The value of `tensor` as numpy when it is known now: an eager tensor's value; while
    tracing, a constant's or what is computed from constants and known static shapes
    alone (no placeholder, variable or random draw); None when it is known only when the
    graph runs. A value that is not a tensor is returned as it is.

    Args:
      tensor: a tensor, or any value.
      partial: accepted for TensorFlow's signature; partially known values give None.

    Returns:
      A numpy array or scalar, the value itself for a non-tensor, or None.

    >>> rt.get_static_value(rt.constant([1, 2]))
    array([1, 2], dtype=int32)
    >>> @rt.function
    ... def f(x):
    ...     print(rt.get_static_value(rt.constant(2) * 3), rt.get_static_value(x))
    ...     return x
    >>> _ = f(rt.constant(1))
    6 None
    """
    if isinstance(tensor, EagerTensor):
        return tensor.numpy().copy() if isinstance(tensor.numpy(), np.ndarray) \
            else tensor.numpy()
    if isinstance(tensor, Variable) or not isinstance(tensor, SymbolicTensor):
        return None if is_tensor(tensor) else tensor
    value = _fold(tensor)
    if value is None:
        return None
    value = np.array(value, dtype=tensor.dtype.np_dtype)
    return value[()] if value.ndim == 0 else value


# -- ensure_shape ----------------------------------------------------------------------

def _shape_error(actual, expected, name) -> InvalidArgumentError:
    return InvalidArgumentError(f"Shape of tensor {name} {list(actual)} is not compatible "
                                f"with expected shape {expected}.")


def _ensure_shape_infer(inputs, shape):
    x = inputs[0]
    if not x.shape.is_compatible_with(shape):
        raise ValueError(f"rt.ensure_shape: the shape of {getattr(x, 'name', 'x')}, {x.shape}, "
                         f"is not compatible with the expected shape {shape}")
    return [(x.shape.merge_with(shape), x.dtype)]


def _ensure_shape_kernel(x, shape):
    if not TensorShape(np.shape(x)).is_compatible_with(shape):
        raise _shape_error(np.shape(x), shape, "x")
    return x


ENSURE_SHAPE = OpDef("EnsureShape", _ensure_shape_infer, _ensure_shape_kernel,
                     grad=lambda inputs, outputs, grads, shape: [grads[0]])


def ensure_shape(x, shape, name: Optional[str] = None):
    """`x`, checked to have `shape` (a list or TensorShape; None for a dimension of any
    size, `TensorShape(None)` for any shape).

    Eagerly a mismatch raises InvalidArgumentError; while tracing, a mismatch with the
    static shape raises ValueError, and the check otherwise runs with the graph
    (InvalidArgumentError). The result's static shape is the more specific of the two.

    Args:
      x: a tensor (or what converts to one).
      shape: the expected shape (a list, a tuple or a TensorShape).
      name: an optional name for the op.

    Returns:
      `x`, with the merged static shape.

    >>> rt.ensure_shape(rt.constant([1, 2, 3]), [None])
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>
    >>> @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    ... def f(x):
    ...     print(rt.ensure_shape(x, [3]).shape)
    ...     return x
    >>> _ = f(rt.constant([1.0, 2.0, 3.0]))
    (3,)
    >>> rt.ensure_shape(rt.constant([1, 2]), [3])
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: Shape of tensor x [2] is not compatible with expected
    shape (3,).
    """
    x = convert_to_tensor(x)
    shape = as_shape(shape)
    if isinstance(x, EagerTensor):
        if not x.shape.is_compatible_with(shape):
            raise _shape_error(x.shape.as_list(), shape, name or "x")
        return x
    return apply_op(ENSURE_SHAPE, [x], {"shape": shape}, name=name)


OPS = [ENSURE_SHAPE]
