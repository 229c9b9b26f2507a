"""`rt.SparseTensor` (TensorFlow's `tf.SparseTensor`) and `rt.sparse`: a composite value of
three tensors, `indices` (int64 [N, rank]), `values` ([N]) and `dense_shape` (int64
[rank]), and the ops users reach for first (to_dense, from_dense, reduce_sum,
sparse_dense_matmul, `sp * dense`, `sp / dense`).

Every op here is a composition of existing ops, so shapes, gradients, ONNX and XLA come
with them; a SparseTensor is a composite (runtime/nest.py), so it can be an argument,
result or loop variable of staged code (docs/architecture.md, "SparseTensor").
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .core import dtypes
from .core.opdef import constant_value
from .core.shapes import TensorShape, TensorSpec, as_shape
from .core.tensor import Tensor
from .errors import InvalidArgumentError
from .ops import io_ops, math_ops, reduce_ops
from .ops.array_ops import GATHER_GRAD, gather, reshape, shape as _shape_of, transpose
from .ops.core import apply_op, constant, convert_to_tensor, ones_like, stack
from .ops.makers import fill

__all__ = ["SparseTensor", "SparseTensorSpec", "to_dense", "from_dense", "reduce_sum",
           "sparse_dense_matmul"]

_NAMES = ("indices", "values", "dense_shape")


def _static_shape_of(dense_shape, rank) -> TensorShape:
    known = constant_value(dense_shape) if isinstance(dense_shape, Tensor) else None
    if known is not None:
        return TensorShape([int(d) for d in np.reshape(known, (-1,))])
    return TensorShape(None if rank is None else [None] * rank)


class SparseTensor:
    """A sparse tensor: `values[i]` sits at `indices[i]` in a tensor of shape
    `dense_shape`; every other element is zero.

    Args:
      indices: int64 [N, rank], the positions of the values (row-major order).
      values: [N], any dtype.
      dense_shape: int64 [rank].

    Example:
      >>> sp = rt.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0],
      ...                      dense_shape=[3, 4])
      >>> rt.sparse.to_dense(sp).numpy()
      array([[1., 0., 0., 0.],
             [0., 0., 2., 0.],
             [0., 0., 0., 0.]], dtype=float32)
      >>> sp.shape
      TensorShape([3, 4])
    """

    _rt_component_names = _NAMES

    def __init__(self, indices, values, dense_shape):
        indices = convert_to_tensor(indices, dtype_hint=dtypes.int64)
        dense_shape = convert_to_tensor(dense_shape, dtype_hint=dtypes.int64)
        for what, t in (("indices", indices), ("dense_shape", dense_shape)):
            if t.dtype is not dtypes.int64:
                raise TypeError(f"SparseTensor: {what} must be an int64 tensor, got "
                                f"{t.dtype.name} (use rt.cast(..., rt.int64))")
        values = convert_to_tensor(values)
        ishape, vshape, dshape = indices.shape, values.shape, dense_shape.shape
        if not ishape.is_compatible_with(TensorShape([None, None])):
            raise ValueError(f"SparseTensor: indices must be a matrix [N, rank], got shape "
                             f"{ishape}")
        if not vshape.is_compatible_with(TensorShape([None])):
            raise ValueError(f"SparseTensor: values must be a vector [N], got shape {vshape}")
        if not dshape.is_compatible_with(TensorShape([None])):
            raise ValueError(f"SparseTensor: dense_shape must be a vector [rank], got shape "
                             f"{dshape}")
        n_i = ishape.dims[0] if ishape.rank else None
        r_i = ishape.dims[1] if ishape.rank else None
        n_v = vshape.dims[0] if vshape.rank else None
        r_d = dshape.dims[0] if dshape.rank else None
        if n_i is not None and n_v is not None and n_i != n_v:
            raise ValueError(f"SparseTensor: indices has {n_i} rows but values has {n_v} "
                             "elements; they must match")
        if r_i is not None and r_d is not None and r_i != r_d:
            raise ValueError(f"SparseTensor: indices has {r_i} columns but dense_shape has "
                             f"{r_d} elements (the rank); they must match")
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        self._static_shape = _static_shape_of(dense_shape, r_i if r_i is not None else r_d)

    # -- properties ----------------------------------------------------------------------
    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The static shape: known where `dense_shape` is a constant (or was when traced)."""
        return self._static_shape

    def get_shape(self) -> TensorShape:
        return self._static_shape

    def with_values(self, new_values):
        """A SparseTensor with these indices and dense_shape and `new_values`."""
        sp = SparseTensor(self._indices, new_values, self._dense_shape)
        sp._static_shape = self._static_shape.merge_with(sp._static_shape)
        return sp

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")

    # -- the composite protocol (runtime/nest.py) -------------------------------------------
    def _rt_components(self):
        return (self._indices, self._values, self._dense_shape)

    @classmethod
    def _rt_from_components(cls, template, components):
        """A SparseTensor of `components` (tensors, or in traced signatures the objects that
        stand for them), with `template`'s static shape where the components do not say
        more."""
        sp = object.__new__(cls)
        sp._indices, sp._values, sp._dense_shape = components
        static = template._static_shape
        if isinstance(sp._dense_shape, Tensor):
            own = _static_shape_of(sp._dense_shape, static.rank)
            static = own if own.is_fully_defined() else static
        sp._static_shape = static
        return sp

    def _rt_static_key(self):
        return ("SparseTensor", self._static_shape.as_tuple()
                if self._static_shape.rank is not None else None)

    def _rt_relaxed(self):
        """This value with a static shape that claims only its rank (for values rebuilt
        from staged loops and conds, whose dense_shape may change as the graph runs)."""
        rank = self._static_shape.rank
        sp = object.__new__(SparseTensor)
        sp._indices, sp._values, sp._dense_shape = self._rt_components()
        sp._static_shape = TensorShape(None if rank is None else [None] * rank)
        return sp

    def _rt_spec(self):
        """The SparseTensorSpec of this value (its values may be a traced signature's
        Placeholder, which has a `spec`)."""
        v = self._values
        dtype = v.dtype if isinstance(v, Tensor) else getattr(getattr(v, "spec", v), "dtype", None)
        return SparseTensorSpec(self._static_shape, dtype or dtypes.float32)

    def _rt_is_compatible_with(self, other) -> bool:
        return type(other) is type(self) and self._static_shape.is_compatible_with(
            other._static_shape)

    # -- what TensorFlow allows: sp * x, sp / x (x a scalar or a dense tensor) ------------
    def __mul__(self, other):
        return self.with_values(self._values * _dense_at(self, other, "*"))

    def __truediv__(self, other):
        if not self.dtype.is_floating:
            raise TypeError(f"SparseTensor {self.dtype.name} / x: only floating SparseTensors "
                            "divide here (cast the values first)")
        return self.with_values(self._values / _dense_at(self, other, "/"))

    def __array__(self, *args, **kwargs):
        raise TypeError("a SparseTensor cannot be used as a dense array: convert it with "
                        "rt.sparse.to_dense(sp) first")

    def __bool__(self):
        raise TypeError("a SparseTensor has no truth value (use rt.sparse.to_dense, or test "
                        "a tensor)")

    def _as_tensor(self, dtype=None):
        raise TypeError("a SparseTensor cannot be converted to a dense tensor implicitly: use "
                        "rt.sparse.to_dense(sp)")


def _unsupported(symbol):
    def op(self, *args):
        raise TypeError(f"unsupported operand for SparseTensor: {symbol} (TensorFlow defines "
                        "only sp * x and sp / x; use rt.sparse.to_dense for the rest)")
    return op


for _name, _symbol in (("__add__", "+"), ("__radd__", "+"), ("__sub__", "-"), ("__rsub__", "-"),
                       ("__rmul__", "x * sp"), ("__rtruediv__", "x / sp"), ("__floordiv__", "//"),
                       ("__rfloordiv__", "//"), ("__mod__", "%"), ("__pow__", "**"),
                       ("__matmul__", "@"), ("__rmatmul__", "@"), ("__neg__", "unary -"),
                       ("__abs__", "abs()"), ("__lt__", "<"), ("__le__", "<="), ("__gt__", ">"),
                       ("__ge__", ">="), ("__and__", "&"), ("__or__", "|"), ("__invert__", "~"),
                       ("__getitem__", "[]"), ("__iter__", "iteration"), ("__len__", "len()")):
    setattr(SparseTensor, _name, _unsupported(_symbol))


class _Shape:
    __slots__ = ("_static_shape",)

    def __init__(self, shape):
        self._static_shape = shape


class SparseTensorSpec:
    """The type of a SparseTensor argument in an `input_signature`: its dense `shape`
    (dimensions may be None) and the dtype of its values.

    Example:
      >>> @rt.function(input_signature=[rt.SparseTensorSpec([None, 4], rt.float32)])
      ... def f(sp):
      ...     return rt.sparse.reduce_sum(sp, axis=0)
      >>> f(rt.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [5, 4])).numpy()
      array([0., 1., 0., 2.], dtype=float32)
    """

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    def __repr__(self):
        return f"SparseTensorSpec(shape={self._shape}, dtype={self._dtype!r})"

    def __eq__(self, other):
        return (type(other) is SparseTensorSpec and self._dtype is other._dtype
                and self._shape.as_tuple() == other._shape.as_tuple())

    def __hash__(self):
        return hash((self._dtype, str(self._shape)))

    def _rt_components(self):
        rank = self._shape.rank
        return (TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], dtypes.int64))

    @classmethod
    def _rt_from_components(cls, template, components):
        return SparseTensor._rt_from_components(_Shape(template._shape), components)

    def _rt_static_key(self):
        return ("SparseTensor", self._shape.as_tuple() if self._shape.rank is not None else None)

    def is_compatible_with(self, value) -> bool:
        return (isinstance(value, SparseTensor) and value.dtype is self._dtype
                and self._shape.is_compatible_with(value.shape))


# -- helpers ------------------------------------------------------------------------------

def _check(sp, fn):
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"rt.sparse.{fn}: expected a SparseTensor, got {type(sp).__name__}")


def _rank(sp, fn) -> int:
    rank = sp.shape.rank
    if rank is None:
        rank = sp.indices.shape.dims[1] if sp.indices.shape.rank == 2 else None
    if rank is None:
        raise ValueError(f"rt.sparse.{fn} needs the rank of the SparseTensor when tracing; "
                         "its indices have an unknown number of columns")
    return int(rank)


def _shape_tensor(sp):
    """dense_shape, as a constant where the static shape is fully known (XLA needs it)."""
    if sp.shape.is_fully_defined():
        return constant(np.asarray(sp.shape.as_list(), np.int64), dtypes.int64)
    return sp.dense_shape


def _flat_index(indices, shape_t, rank, fn):
    """Row-major flat positions of `indices` in `shape_t`, checked: an Assert (an
    InvalidArgumentError at run time) when an index is out of range; the positions
    returned are clipped so no op reads out of range before the check fails."""
    valid = reduce_ops.reduce_all(math_ops.logical_and(
        math_ops.greater_equal(indices, constant(0, dtypes.int64)),
        math_ops.less(indices, reshape(shape_t, [1, rank]))))
    io_ops.assert_that(valid, f"rt.sparse.{fn}: an index of the SparseTensor is out of bounds "
                       "(need 0 <= index < dense_shape)", (indices, shape_t))
    total = reduce_ops.reduce_prod(shape_t)
    if rank == 0:
        return reduce_ops.reduce_sum(indices, axis=1), total
    strides = [reduce_ops.reduce_prod(shape_t[k + 1:])
               for k in range(rank)]
    flat = reduce_ops.reduce_sum(indices * stack(strides), axis=1)
    flat = math_ops.minimum(math_ops.maximum(flat, constant(0, dtypes.int64)),
                            math_ops.maximum(total - 1, constant(0, dtypes.int64)))
    return flat, total


def _scatter(values, flat, size_t):
    if values.dtype is dtypes.bool_:     # summed as integers (XLA adds no bools)
        counts = _scatter(math_ops.cast(values, dtypes.int32), flat, size_t)
        return math_ops.not_equal(counts, constant(0))
    return apply_op(GATHER_GRAD, [values, flat, reshape(size_t, [1])], {"axis": 0})


def _dense_at(sp, other, symbol):
    """`other` (a scalar, or dense and broadcastable to sp's shape) at sp's indices."""
    if isinstance(other, SparseTensor):
        raise TypeError(f"SparseTensor {symbol} SparseTensor is not supported (TensorFlow "
                        "has neither); use rt.sparse.to_dense on one of them")
    y = convert_to_tensor(other, dtype=sp.dtype)
    if y.shape.rank == 0:
        return y
    rank = _rank(sp, "cwise")
    what = (f"SparseTensor {symbol} dense: the dense operand broadcasts to the sparse shape "
            "only (as in TensorFlow)")
    if y.shape.rank is not None and y.shape.rank > rank:
        raise InvalidArgumentError(f"{what}; got a rank-{y.shape.rank} operand for a "
                                   f"rank-{rank} SparseTensor")
    shape_t = _shape_tensor(sp)
    full = y * _ones(shape_t, sp.dtype)
    io_ops.assert_that(reduce_ops.reduce_all(math_ops.equal(
        _shape_of(full, out_type=dtypes.int64), shape_t)), what, (_shape_of(y), shape_t))
    flat, _ = _flat_index(sp.indices, shape_t, rank, "cwise")
    return gather(reshape(full, [-1]), flat)


def _ones(shape_t, dtype):
    return fill(math_ops.cast(shape_t, dtypes.int32), math_ops.cast(constant(1), dtype))


# -- rt.sparse ------------------------------------------------------------------------------

def to_dense(sp_input, default_value=None, validate_indices=True, name: Optional[str] = None):
    """The dense tensor of `sp_input`: its values at its indices, `default_value` (0 when
    None) elsewhere.

    Args:
      sp_input: a SparseTensor.
      default_value: a scalar of the values' dtype for the missing elements.
      validate_indices: check that the indices are sorted row-major and not repeated
        (InvalidArgumentError when the graph runs otherwise). Out-of-range indices are
        always an InvalidArgumentError.

    Returns: a tensor of shape `dense_shape` and dtype `sp_input.dtype`.

    Example:
      >>> rt.sparse.to_dense(rt.SparseTensor([[1]], [5], [3])).numpy()
      array([0, 5, 0], dtype=int32)
    """
    _check(sp_input, "to_dense")
    rank = _rank(sp_input, "to_dense")
    shape_t = _shape_tensor(sp_input)
    flat, total = _flat_index(sp_input.indices, shape_t, rank, "to_dense")
    if validate_indices:
        n = _shape_of(flat, out_type=dtypes.int64)
        ordered = reduce_ops.reduce_all(math_ops.less(flat[:-1], flat[1:]))
        io_ops.assert_that(math_ops.logical_or(math_ops.less_equal(n, constant(1, dtypes.int64)),
                                               ordered),
                           "rt.sparse.to_dense: the indices of the SparseTensor are out of "
                           "order or repeated (row-major order, each once; or pass "
                           "validate_indices=False)", (sp_input.indices,))
    dense = _scatter(sp_input.values, flat, total)
    if default_value is not None:
        d = convert_to_tensor(default_value, dtype=sp_input.dtype)
        hit = _scatter(ones_like(sp_input.values, dtype=dtypes.int32), flat, total)
        dense = math_ops.where(math_ops.greater(hit, constant(0)), dense,
                               fill(reshape(math_ops.cast(total, dtypes.int32), [1]), d))
    out = reshape(dense, shape_t)
    out.set_shape(sp_input.shape)
    return out


def from_dense(tensor, name: Optional[str] = None):
    """The SparseTensor of a dense tensor's non-zero elements (row-major order).

    Args:
      tensor: a dense tensor.

    Returns: a SparseTensor of the same dtype and shape.

    Example:
      >>> rt.sparse.from_dense([[0, 3], [4, 0]]).indices.numpy()
      array([[0, 1],
             [1, 0]])
    """
    t = convert_to_tensor(tensor)
    zero = constant(np.zeros((), t.dtype.np_dtype) if not t.dtype.is_string else b"", t.dtype)
    mask = math_ops.not_equal(t, zero)
    indices = math_ops.cast(math_ops.where(mask), dtypes.int64)
    values = gather(reshape(t, [-1]), _flat_of_dense(indices, t))
    return SparseTensor(indices, values, _shape_of(t, out_type=dtypes.int64))


def _flat_of_dense(indices, t):
    rank = t.shape.rank
    if rank is None:
        raise ValueError("rt.sparse.from_dense needs a tensor of known rank when tracing")
    shape_t = _shape_of(t, out_type=dtypes.int64)
    if rank == 0:
        return reduce_ops.reduce_sum(indices, axis=1)
    strides = [reduce_ops.reduce_prod(shape_t[k + 1:])
               for k in range(rank)]
    return reduce_ops.reduce_sum(indices * stack(strides), axis=1)


def reduce_sum(sp_input, axis=None, keepdims=False, output_is_sparse=False,
               name: Optional[str] = None):
    """The sum of a SparseTensor's elements along `axis` (all of them when None), as a
    dense tensor (tf.sparse.reduce_sum).

    Example:
      >>> sp = rt.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
      >>> rt.sparse.reduce_sum(sp, axis=1).numpy()
      array([1., 2.], dtype=float32)
    """
    _check(sp_input, "reduce_sum")
    if output_is_sparse:
        raise NotImplementedError("rt.sparse.reduce_sum: output_is_sparse=True is not "
                                  "supported; take rt.sparse.from_dense of the result")
    rank = _rank(sp_input, "reduce_sum")
    if axis is None:
        total = reduce_ops.reduce_sum(sp_input.values)
        return reshape(total, [1] * rank) if keepdims else total
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    for a in axes:
        if not -rank <= int(a) < rank:
            raise ValueError(f"rt.sparse.reduce_sum: axis {a} is out of range for rank {rank}")
    axes = sorted({int(a) % rank for a in axes})
    keep = [k for k in range(rank) if k not in axes]
    shape_t = _shape_tensor(sp_input)
    _flat_index(sp_input.indices, shape_t, rank, "reduce_sum")   # the range check
    cols = [sp_input.indices[:, k] for k in keep]
    dims = [shape_t[k] for k in keep]
    if keep:
        flat = cols[0]
        for c, d in zip(cols[1:], dims[1:]):
            flat = flat * d + c
        total = reduce_ops.reduce_prod(stack(dims))
        out = reshape(_scatter(sp_input.values, flat, total), stack(dims))
    else:
        out = reduce_ops.reduce_sum(sp_input.values)
    if keepdims:
        full = [dims[keep.index(k)] if k in keep else constant(1, dtypes.int64)
                for k in range(rank)]
        out = reshape(out, stack(full))
    static = sp_input.shape.dims
    if static is not None:
        out.set_shape(TensorShape([1 if k in axes else static[k] for k in range(rank)]
                                  if keepdims else [static[k] for k in keep]))
    return out


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name: Optional[str] = None):
    """`to_dense(sp_a) @ b` without making the dense matrix (sp_a is [M, K], b [K, N]).

    Example:
      >>> sp = rt.SparseTensor([[0, 1]], [2.0], [2, 3])
      >>> rt.sparse.sparse_dense_matmul(sp, rt.ones([3, 2])).numpy()
      array([[2., 2.],
             [0., 0.]], dtype=float32)
    """
    _check(sp_a, "sparse_dense_matmul")
    if _rank(sp_a, "sparse_dense_matmul") != 2:
        raise ValueError("rt.sparse.sparse_dense_matmul: sp_a must be a matrix (rank 2)")
    b = convert_to_tensor(b, dtype=sp_a.dtype)
    if b.shape.rank not in (None, 2):
        raise ValueError(f"rt.sparse.sparse_dense_matmul: b must be a matrix, got shape {b.shape}")
    if adjoint_b:
        b = transpose(b)
    shape_t = _shape_tensor(sp_a)
    _flat_index(sp_a.indices, shape_t, 2, "sparse_dense_matmul")
    rows, cols = sp_a.indices[:, 0], sp_a.indices[:, 1]
    m, k = shape_t[0], shape_t[1]
    values = sp_a.values
    if adjoint_a:
        rows, cols, m, k = cols, rows, k, m
    bk = _shape_of(b, out_type=dtypes.int64)
    io_ops.assert_that(math_ops.equal(bk[0], k),
                       "rt.sparse.sparse_dense_matmul: the inner dimensions of sp_a and b "
                       "differ", (shape_t, bk))
    n = bk[1]
    picked = gather(b, cols) * reshape(values, [-1, 1])
    out = apply_op(GATHER_GRAD, [picked, rows, stack([m, n])], {"axis": 0})
    static = [sp_a.shape.dims[1 if adjoint_a else 0], b.shape.dims[1] if b.shape.rank else None]
    out.set_shape(TensorShape(static))
    return out

