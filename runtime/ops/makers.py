"""Tensor makers: fill, zeros, ones, zeros_like, ones_like, eye, range."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.graph import current_graph
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from . import limits
from .shape_utils import whole_number
from .array_ops import expand_dims, static_shape_arg, stack_values
from .core import (OpDef, apply_op, constant, constant_value, convert_to_tensor,  # noqa: F401
                   ones_like, zeros_like)
from .math_ops import cast, equal
from .reduce_ops import reduce_sum


# -- makers -----------------------------------------------------------------------------

def _fill_infer(inputs, shape):
    return [(TensorShape(shape), inputs[0].dtype)]


def _fill_kernel(value, shape):
    limits.check_elements("Fill", shape)
    return np.full(shape, value, dtype=np.asarray(value).dtype)


FILL = OpDef("Fill", _fill_infer, _fill_kernel,
             grad=lambda inputs, outputs, grads, shape: [reduce_sum(grads[0])])


def _fill_dyn_infer(inputs):
    dims, value = inputs
    n = dims.shape[0] if dims.shape.rank == 1 else None
    return [(TensorShape([None] * n) if n is not None else TensorShape(None), value.dtype)]


def _fill_dyn_kernel(dims, value):
    if np.any(np.asarray(dims) < 0):
        raise InvalidArgumentError(f"Fill dimensions must be >= 0, got {list(dims)}")
    limits.check_elements("Fill", np.reshape(dims, -1))
    return np.full(tuple(int(d) for d in dims), value, dtype=np.asarray(value).dtype)


FILL_DYNAMIC = OpDef("FillDynamic", _fill_dyn_infer, _fill_dyn_kernel, default_name="Fill",
                     grad=lambda inputs, outputs, grads: [None, reduce_sum(grads[0])])


def fill(dims, value, name: Optional[str] = None):
    """A tensor of shape `dims` with every element `value`.

    `dims` may hold graph tensors (the shape is then read when the graph runs, and the
    dimensions given as ints stay known). A negative dimension raises InvalidArgumentError.

    Args:
      dims: the shape: a list or tuple of ints (or of scalar tensors), or a 1-D int32
        tensor.
      value: a scalar (a tensor or what converts to one), whose dtype the result takes.
      name: an optional name for the op.

    Returns:
      A tensor of shape `dims` and value's dtype.

    >>> rt.fill([2, 3], 7)
    <rt.Tensor: shape=(2, 3), dtype=int32, numpy=
    array([[7, 7, 7],
           [7, 7, 7]], dtype=int32)>
    >>> rt.fill([2], 0.5)
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.5, 0.5], dtype=float32)>
    """
    v = convert_to_tensor(value)
    static = static_shape_arg(dims, "dims")
    if static is None:
        out = apply_op(FILL_DYNAMIC, [stack_values(dims, dtypes.int32), v], name=name)
        if isinstance(dims, (list, tuple)):  # keep the dims known now: zeros([n, 2])
            out.set_shape([d if isinstance(d, (int, np.integer)) else None for d in dims])
        return out
    if any(d < 0 for d in static):
        raise InvalidArgumentError(f"Fill dimensions must be >= 0, got {list(static)}")
    return apply_op(FILL, [v], {"shape": static}, name=name)


def zeros(shape, dtype=dtypes.float32, name: Optional[str] = None):
    """A tensor of shape `shape` filled with zeros (empty strings for a string dtype).

    Args:
      shape: the shape: a list or tuple of ints (or of scalar tensors), or a 1-D int32
        tensor.
      dtype: the dtype of the result (float32 by default).
      name: an optional name for the op.

    Returns:
      A tensor of shape `shape` and dtype `dtype`.

    >>> rt.zeros([2, 2])
    <rt.Tensor: shape=(2, 2), dtype=float32, numpy=
    array([[0., 0.],
           [0., 0.]], dtype=float32)>
    >>> rt.zeros([3], dtype=rt.int64)
    <rt.Tensor: shape=(3,), dtype=int64, numpy=array([0, 0, 0])>
    """
    dtype = dtypes.as_dtype(dtype)
    return fill(shape, constant(np.zeros((), dtype.np_dtype) if not dtype.is_string else b"",
                                dtype), name=name or "zeros")


def ones(shape, dtype=dtypes.float32, name: Optional[str] = None):
    """A tensor of shape `shape` filled with ones.

    Args:
      shape: the shape: a list or tuple of ints (or of scalar tensors), or a 1-D int32
        tensor.
      dtype: a numeric or bool dtype for the result (float32 by default).
      name: an optional name for the op.

    Returns:
      A tensor of shape `shape` and dtype `dtype`.

    >>> rt.ones([2, 3], dtype=rt.int32)
    <rt.Tensor: shape=(2, 3), dtype=int32, numpy=
    array([[1, 1, 1],
           [1, 1, 1]], dtype=int32)>
    """
    dtype = dtypes.as_dtype(dtype)
    return fill(shape, constant(np.ones((), dtype.np_dtype), dtype), name=name or "ones")


def _eye_infer(inputs, num_rows, num_columns, dtype):
    return [(TensorShape([num_rows, num_columns]), dtype)]


def _eye_kernel(num_rows, num_columns, dtype):
    return np.eye(num_rows, num_columns, dtype=dtype.np_dtype)


EYE = OpDef("Eye", _eye_infer, _eye_kernel)


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name: Optional[str] = None):
    """An identity matrix: ones on the main diagonal, zeros elsewhere.

    Args:
      num_rows: the number of rows: an int, or a scalar int tensor (inside rt.function,
        one whose value is known only when the graph runs, as `rt.shape(a)[0]`).
      num_columns: the number of columns, as num_rows (None: num_rows).
      dtype: the dtype of the result (float32 by default).
      name: an optional name for the op.

    Returns:
      A tensor of shape `[num_rows, num_columns]` and dtype `dtype`.

    >>> rt.eye(2)
    <rt.Tensor: shape=(2, 2), dtype=float32, numpy=
    array([[1., 0.],
           [0., 1.]], dtype=float32)>
    >>> rt.eye(2, 3, dtype=rt.int32)
    <rt.Tensor: shape=(2, 3), dtype=int32, numpy=
    array([[1, 0, 0],
           [0, 1, 0]], dtype=int32)>
    """
    rows = _static_count(num_rows)
    columns = rows if num_columns is None else _static_count(num_columns)
    if rows is None or columns is None:
        return _eye_dynamic(num_rows, num_rows if num_columns is None else num_columns,
                            dtypes.as_dtype(dtype), name)
    return apply_op(EYE, [], {"num_rows": rows, "num_columns": columns,
                              "dtype": dtypes.as_dtype(dtype)}, name=name)


def _static_count(n) -> Optional[int]:
    """`n` as an int, or None for a graph tensor whose value is known only when it runs."""
    if isinstance(n, Tensor):
        n = constant_value(n)
        if n is None:
            return None
    return whole_number(n, "eye's size")


def _eye_dynamic(num_rows, num_columns, dtype, name):
    """An identity matrix whose size a graph tensor gives (tf.eye(tf.shape(a)[0])): the
    positions where row == column, on a fill whose shape check refuses a negative size."""
    rows = range(0, num_rows, 1, dtype=dtypes.int32)
    columns = range(0, num_columns, 1, dtype=dtypes.int32)
    on_diagonal = cast(equal(expand_dims(rows, 1), expand_dims(columns, 0)), dtypes.int32)
    zeros_checked = fill([num_rows, num_columns], constant(0, dtypes.int32))
    return cast(zeros_checked + on_diagonal, dtype, name=name)


def _range_infer(inputs, dtype):
    start, limit, delta = inputs
    for t in inputs:
        if t.shape.rank not in (0, None):
            raise InvalidArgumentError(f"range arguments must be scalars, got shape {t.shape}")
    return [(TensorShape([None]), dtype)]


def _range_kernel(start, limit, delta, dtype):
    if delta == 0:
        raise InvalidArgumentError("Requires delta != 0")
    if not (np.isfinite(start) and np.isfinite(limit) and np.isfinite(delta)):
        raise InvalidArgumentError(f"Range needs finite start, limit and delta, got {start}, "
                                   f"{limit}, {delta}")
    if limits.current() is not None:
        limits.check_count("Range", limits.range_length(start, limit, delta))
    return np.arange(start, limit, delta, dtype=dtype.np_dtype)


RANGE = OpDef("Range", _range_infer, _range_kernel,
              grad=lambda inputs, outputs, grads, dtype: [None, None, None])


def range(start, limit=None, delta=1, dtype=None, name: Optional[str] = None):  # noqa: A001
    """Like Python's range, as a 1-D tensor: rt.range(5), rt.range(1, n + 1).

    The numbers start at `start` and step by `delta` up to, not including, `limit`.
    Without `dtype` the result takes the widest dtype of the arguments (int32 < int64 <
    float32 < float64; Python ints are int32 and floats float32). A delta of 0 raises
    InvalidArgumentError. Any argument may be a scalar tensor (the length is then known
    when the graph runs).

    Args:
      start: the first number (with no `limit`: the limit, starting at 0).
      limit: the end, not included.
      delta: the step (may be negative).
      dtype: the dtype of the result.
      name: an optional name for the op.

    Returns:
      A 1-D tensor.

    >>> rt.range(5)
    <rt.Tensor: shape=(5,), dtype=int32, numpy=array([0, 1, 2, 3, 4], dtype=int32)>
    >>> rt.range(1, 2, 0.25)
    <rt.Tensor: shape=(4,), dtype=float32, numpy=array([1.  , 1.25, 1.5 , 1.75],
      dtype=float32)>
    >>> rt.range(5, 0, -2, dtype=rt.int64)
    <rt.Tensor: shape=(3,), dtype=int64, numpy=array([5, 3, 1])>
    """
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is None:
        found = [a.dtype for a in args if isinstance(a, Tensor)]
        found += [dtypes.infer_dtype(a) for a in args if not isinstance(a, Tensor)]
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        dtype = max((d for d in found if d in order), key=order.index, default=dtypes.int32)
    dtype = dtypes.as_dtype(dtype)
    ts = [cast(convert_to_tensor(a), dtype) if isinstance(a, Tensor) else constant(a, dtype)
          for a in args]
    out = apply_op(RANGE, ts, {"dtype": dtype}, name=name)
    if current_graph() is not None and all(isinstance(a, (int, float, np.integer, np.floating)) for a in args):
        n = len(np.arange(start, limit, delta))
        out.set_shape([n])
    return out


OPS = [FILL, FILL_DYNAMIC, EYE, RANGE]
