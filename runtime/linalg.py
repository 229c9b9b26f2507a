"""`rt.linalg`, as TensorFlow's tf.linalg: matmul, matvec, inv, det, solve, cholesky,
norm, diag, diag_part, trace, eye, matrix_transpose / transpose, einsum.

inv, det, solve and cholesky are ops (runtime/ops/linalg_ops.py); the others are compositions of
existing ops (so their shapes, gradients, ONNX export and XLA lowering are those ops').
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .core import dtypes
from .core.shapes import TensorShape
from .core.tensor import Tensor
from .ops import array_ops, makers, math_ops, reduce_ops
from .ops.core import apply_op, constant, convert_to_tensor, identity, zeros_like
from .ops.einsum_ops import einsum
from .clipping import global_norm  # tf.linalg.global_norm
from .ops.linalg_decompositions import eigh, qr, svd
from .ops.linalg_ops import CHOLESKY, MATRIX_DETERMINANT, MATRIX_INVERSE, MATRIX_SOLVE
from .ops.shaping_ops import broadcast_to
from .ops.math_compositions import band_part  # compositions
from .ops.special_math_ops import slogdet  # an op of its own

__all__ = ["matmul", "matvec", "inv", "det", "solve", "norm", "diag", "diag_part", "trace",
           "eye", "matrix_transpose", "transpose", "einsum", "cholesky", "svd", "qr", "eigh"]
__all__ += ["global_norm"]  # from clipping.py
__all__ += ["band_part", "slogdet"]


def _named(t, name):
    return identity(t, name=name) if name else t


def matrix_transpose(a, name: Optional[str] = None, conjugate: bool = False):
    """`a` with its last two dimensions swapped (tf.linalg.matrix_transpose).

    Args:
      a: a tensor of known rank >= 2.
      name: an optional name for the op.
      conjugate: accepted for TensorFlow's signature (the runtime has no complex dtypes).

    Returns:
      A tensor of shape [..., n, m] for `a` of shape [..., m, n].

    Raises:
      ValueError: when a's rank is unknown or below 2.

    >>> rt.linalg.matrix_transpose(rt.ones([2, 3, 4])).shape
    TensorShape([2, 4, 3])
    """
    x = convert_to_tensor(a)
    rank = x.shape.rank
    if rank is None or rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received "
                         f"`a` = {x!r} with shape: {x.shape}")
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return array_ops.transpose(x, perm, name=name)


transpose = matrix_transpose


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name: Optional[str] = None):
    """The matrix product of `a` and `b` (tf.linalg.matmul), batched over leading dimensions.

    adjoint_* equal transpose_* (no complex dtypes); the *_is_sparse hints are ignored.

    Args:
      a: a tensor [..., M, K].
      b: a tensor [..., K, N] of a's dtype.
      transpose_a: transpose a's last two dimensions first.
      transpose_b: transpose b's last two dimensions first.
      adjoint_a: the same as transpose_a.
      adjoint_b: the same as transpose_b.
      a_is_sparse: ignored.
      b_is_sparse: ignored.
      output_type: when given, must be the operands' dtype.
      name: an optional name for the op.

    Returns:
      A tensor [..., M, N] of the operands' dtype.

    Raises:
      ValueError: when both transpose_x and adjoint_x are set.
      TypeError: when output_type is not the operands' dtype.

    >>> print(rt.linalg.matmul([[1., 2.]], [[3.], [4.]]))
    rt.Tensor([[11.]], shape=(1, 1), dtype=float32)
    """
    if transpose_a and adjoint_a or transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_a and adjoint_a (and of transpose_b and "
                         "adjoint_b) can be True")
    out = math_ops.matmul(a, b, transpose_a=transpose_a or adjoint_a,
                          transpose_b=transpose_b or adjoint_b, name=name)
    if output_type is not None and dtypes.as_dtype(output_type) is not out.dtype:
        raise TypeError(f"matmul: output_type {dtypes.as_dtype(output_type).name} is not the "
                        f"operands' dtype {out.dtype.name}")
    return out


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name: Optional[str] = None):
    """The matrix-vector product a @ b (tf.linalg.matvec).

    Args:
      a: a tensor [..., M, N].
      b: a tensor [..., N] of a's dtype.
      transpose_a: use a's transpose ([..., N, M]).
      adjoint_a: the same as transpose_a.
      a_is_sparse: ignored.
      b_is_sparse: ignored.
      name: an optional name for the op.

    Returns:
      A tensor [..., M].

    >>> print(rt.linalg.matvec([[1., 2.], [3., 4.]], [1., 1.]))
    rt.Tensor([3. 7.], shape=(2,), dtype=float32)
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True")
    a, b = math_ops.binary_operands(a, b)
    if b.shape.rank == 0:
        raise ValueError(f"matvec: b must be a vector (rank >= 1), got shape {b.shape}")
    out = math_ops.matmul(a, array_ops.expand_dims(b, -1), transpose_a=transpose_a or adjoint_a)
    return array_ops.squeeze(out, -1, name=name)


def inv(input, adjoint: bool = False, name: Optional[str] = None):  # noqa: A002
    """The inverse of a square matrix, or of each in a batch [..., M, M] (tf.linalg.inv).

    Args:
      input: a floating tensor [..., M, M].
      adjoint: invert the transposed matrix.
      name: an optional name for the op.

    Returns:
      A tensor of input's shape and dtype.

    Raises:
      InvalidArgumentError: for a singular matrix.

    >>> print(rt.linalg.inv([[2., 0.], [0., 4.]]))
    rt.Tensor(
    [[0.5  0.  ]
     [0.   0.25]], shape=(2, 2), dtype=float32)
    """
    x = convert_to_tensor(input)
    if adjoint:
        x = matrix_transpose(x)
    return apply_op(MATRIX_INVERSE, [x], name=name)


def det(input, name: Optional[str] = None):  # noqa: A002
    """The determinant of a square matrix, or of each in a batch (tf.linalg.det).

    Args:
      input: a floating tensor [..., M, M].
      name: an optional name for the op.

    Returns:
      A tensor of shape [...] of input's dtype.

    >>> print(rt.linalg.det([[1., 2.], [3., 4.]]))
    rt.Tensor(-2.0, shape=(), dtype=float32)
    """
    return apply_op(MATRIX_DETERMINANT, [convert_to_tensor(input)], name=name)


def solve(matrix, rhs, adjoint: bool = False, name: Optional[str] = None):
    """X with matrix @ X = rhs (tf.linalg.solve).

    Args:
      matrix: a floating tensor [..., M, M].
      rhs: a tensor [..., M, K] with the same leading dimensions.
      adjoint: solve with the transposed matrix.
      name: an optional name for the op.

    Returns:
      A tensor of rhs's shape.

    Raises:
      InvalidArgumentError: for a singular matrix.

    >>> print(rt.linalg.solve([[2., 0.], [0., 4.]], [[2.], [4.]]))
    rt.Tensor(
    [[1.]
     [1.]], shape=(2, 1), dtype=float32)
    """
    a, b = math_ops.binary_operands(matrix, rhs)
    if adjoint:
        a = matrix_transpose(a)
    return apply_op(MATRIX_SOLVE, [a, b], name=name)


def cholesky(input, name: Optional[str] = None):  # noqa: A002
    """The lower-triangular L with L @ L^T = input (tf.linalg.cholesky).

    For a symmetric positive definite matrix or a batch of them; only the lower triangle is
    read.

    Args:
      input: a floating tensor [..., M, M].
      name: an optional name for the op.

    Returns:
      A lower-triangular tensor of input's shape and dtype.

    Raises:
      InvalidArgumentError: for a matrix that is not positive definite.

    >>> print(rt.linalg.cholesky([[4., 2.], [2., 2.]]))
    rt.Tensor(
    [[2. 0.]
     [1. 1.]], shape=(2, 2), dtype=float32)
    """
    return apply_op(CHOLESKY, [convert_to_tensor(input)], name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32,
        name: Optional[str] = None):
    """An identity matrix [num_rows, num_columns] (tf.eye / tf.linalg.eye).

    Args:
      num_rows: the number of rows.
      num_columns: the number of columns (default num_rows).
      batch_shape: an optional list of leading dimensions to repeat the matrix over.
      dtype: the result's dtype (default float32).
      name: an optional name for the op.

    Returns:
      A tensor [*batch_shape, num_rows, num_columns].

    >>> print(rt.linalg.eye(2))
    rt.Tensor(
    [[1. 0.]
     [0. 1.]], shape=(2, 2), dtype=float32)
    >>> rt.linalg.eye(2, batch_shape=[3]).shape
    TensorShape([3, 2, 2])
    """
    m = makers.eye(num_rows, num_columns, dtype=dtype)
    if batch_shape is None:
        return _named(m, name)
    batch = [int(d) for d in np.asarray(batch_shape).reshape(-1)]
    return broadcast_to(m, batch + m.shape.as_list(), name=name)


def _positions(n):
    """0..n-1 as an int32 vector (a constant when n is an int)."""
    if isinstance(n, Tensor):
        return makers.range(0, n, 1, dtype=dtypes.int32)
    return constant(np.arange(n, dtype=np.int32))


def _no_band(k, what):
    if k != 0 and not (isinstance(k, (list, tuple)) and list(k) in ([0], [0, 0])):
        raise ValueError(f"rt.linalg.{what}: only the main diagonal (k=0) is supported, got "
                         f"k={k!r}")


def diag(diagonal, name: Optional[str] = None, k=0, num_rows=-1, num_cols=-1,
         padding_value=0, align="RIGHT_LEFT"):
    """A (batch of) square matrix with `diagonal` on its main diagonal and zeros elsewhere.

    As tf.linalg.diag; only k=0 and the default num_rows, num_cols and padding_value are
    supported (others raise ValueError); align does not matter for the main diagonal.

    Args:
      diagonal: a tensor [..., N].
      name: an optional name for the op.
      k: the diagonal offset (only 0).
      num_rows: only the default -1 (N).
      num_cols: only the default -1.
      padding_value: only the default 0.
      align: ignored (it matters only off the main diagonal).

    Returns:
      A tensor [..., N, N] of diagonal's dtype.

    >>> print(rt.linalg.diag([1., 2.]))
    rt.Tensor(
    [[1. 0.]
     [0. 2.]], shape=(2, 2), dtype=float32)
    """
    _no_band(k, "diag")
    if num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise ValueError("rt.linalg.diag: num_rows, num_cols and padding_value other than "
                         "their defaults are not supported")
    d = convert_to_tensor(diagonal)
    if d.shape.rank == 0:
        raise ValueError("rt.linalg.diag: diagonal must have rank >= 1, got a scalar")
    n = d.shape[-1] if d.shape.rank is not None and d.shape[-1] is not None else \
        array_ops.shape(d)[-1]
    pos = _positions(n)
    on = math_ops.equal(array_ops.expand_dims(pos, 1), array_ops.expand_dims(pos, 0))
    zero = convert_to_tensor(False if d.dtype.is_bool else 0, dtype=d.dtype)
    return math_ops.where(on, array_ops.expand_dims(d, -1), zero, name=name)


def diag_part(input, name: Optional[str] = None, k=0, padding_value=0,  # noqa: A002
              align="RIGHT_LEFT"):
    """The main diagonal of a (batch of) matrix (tf.linalg.diag_part).

    Args:
      input: a tensor [..., M, N].
      name: an optional name for the op.
      k: the diagonal offset (only 0).
      padding_value: ignored (no padding on the main diagonal).
      align: ignored (it matters only off the main diagonal).

    Returns:
      A tensor [..., min(M, N)] of input's dtype.

    >>> print(rt.linalg.diag_part([[1., 2.], [3., 4.]]))
    rt.Tensor([1. 4.], shape=(2,), dtype=float32)
    """
    _no_band(k, "diag_part")
    x = convert_to_tensor(input)
    rank = x.shape.rank
    if rank is None or rank < 2:
        raise ValueError(f"rt.linalg.diag_part: input must have rank >= 2, got shape {x.shape}")
    m, n = x.shape[-2], x.shape[-1]
    if m is not None and n is not None:
        count = min(m, n)
        if count == 0:
            return _named(reduce_ops.reduce_sum(x[..., :0, :], axis=-1), name)
        flat = array_ops.reshape(x, [-1, m * n])
        picked = array_ops.gather(flat, constant(np.arange(count, dtype=np.int32) * (n + 1)),
                                  axis=1)
        batch = x.shape.as_list()[:-2]
        if None in batch:
            shape = array_ops.concat([array_ops.shape(x)[:-2], constant(np.int32([count]))], 0)
            out = array_ops.reshape(picked, shape)
            out.set_shape(x.shape[:-2] + TensorShape([count]))
        else:
            out = array_ops.reshape(picked, batch + [count])
        return _named(out, name)
    shape = array_ops.shape(x)
    on = math_ops.equal(array_ops.expand_dims(_positions(shape[-2]), 1),
                        array_ops.expand_dims(_positions(shape[-1]), 0))
    summed = reduce_ops.reduce_sum(math_ops.where(on, x, zeros_like(x)), axis=-1)
    return _named(summed[..., :math_ops.minimum(shape[-2], shape[-1])], name)


def trace(x, name: Optional[str] = None):
    """The sum of the main diagonal of a (batch of) matrix (tf.linalg.trace).

    Args:
      x: a tensor [..., M, N].
      name: an optional name for the op.

    Returns:
      A tensor [...] of x's dtype.

    >>> print(rt.linalg.trace([[1., 2.], [3., 4.]]))
    rt.Tensor(5.0, shape=(), dtype=float32)
    """
    return reduce_ops.reduce_sum(diag_part(x), axis=-1, name=name)


_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, np.inf)


def norm(tensor, ord="euclidean", axis=None, keepdims=None,  # noqa: A002
         name: Optional[str] = None):
    """A vector or matrix norm (tf.norm / tf.linalg.norm).

    Args:
      tensor: a floating tensor.
      ord: 'euclidean' (default: the 2-norm of vectors, the Frobenius norm of matrices),
        'fro', 1, 2, np.inf, or any p > 0 for vectors.
      axis: None (the whole tensor as one vector), an int (vectors along it) or a pair of
        ints (matrices over them).
      keepdims: keep the reduced dimensions as size 1.
      name: an optional name for the op.

    Returns:
      A tensor of tensor's dtype, its shape without the reduced axes.

    >>> print(rt.norm([3., 4.]))
    rt.Tensor(5.0, shape=(), dtype=float32)
    >>> print(rt.norm([[1., 2.], [3., 4.]], ord=1, axis=[0, 1]))
    rt.Tensor(6.0, shape=(), dtype=float32)
    """
    x = convert_to_tensor(tensor)
    keepdims = bool(keepdims)
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        axis = tuple(int(a) for a in axis)
        rank = x.shape.rank
        if rank is not None and (not all(-rank <= a < rank for a in axis)
                                 or axis[0] % rank == axis[1] % rank):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if isinstance(ord, str) and ord not in _MATRIX_ORDS or not isinstance(ord, str) and \
                ord not in (1, np.inf, 2):
            raise ValueError(f"'ord' must be a supported matrix norm in {list(_MATRIX_ORDS)}, "
                             f"got {ord}")
        if not isinstance(ord, str) and ord == 2:
            raise ValueError("rt.norm: the matrix 2-norm (largest singular value) is not "
                             "supported; use ord='fro', 1 or np.inf")
    else:
        if isinstance(axis, (tuple, list)):
            if len(axis) != 1:
                raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                                 f"integers, got {axis}")
            axis = axis[0]
        if axis is not None and not isinstance(axis, (int, np.integer)):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if isinstance(ord, str) and ord != "euclidean" or not isinstance(ord, str) and (
                isinstance(ord, bool) or not isinstance(ord, (int, float, np.integer,
                                                              np.floating)) or ord <= 0):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    math_ops.check_kind("norm", x.dtype, math_ops.FLOAT)
    if axis is None:
        reduce_axis = None
    else:
        reduce_axis = list(axis) if is_matrix else [int(axis)]
    absolute = math_ops.abs(x)
    if isinstance(ord, str) or ord == 2:
        out = math_ops.sqrt(reduce_ops.reduce_sum(math_ops.square(x), reduce_axis, keepdims=True))
    elif is_matrix and ord == 1:
        out = reduce_ops.reduce_max(reduce_ops.reduce_sum(absolute, axis[0], keepdims=True),
                                    axis[1], keepdims=True)
    elif is_matrix:  # inf: the largest row sum
        out = reduce_ops.reduce_max(reduce_ops.reduce_sum(absolute, axis[1], keepdims=True),
                                    axis[0], keepdims=True)
    elif ord == 1:
        out = reduce_ops.reduce_sum(absolute, reduce_axis, keepdims=True)
    elif ord == np.inf:
        out = reduce_ops.reduce_max(absolute, reduce_axis, keepdims=True)
    else:
        p = convert_to_tensor(float(ord), dtype=x.dtype)
        out = math_ops.pow(reduce_ops.reduce_sum(math_ops.pow(absolute, p), reduce_axis,
                                                 keepdims=True), 1.0 / p)
    if not keepdims:
        out = array_ops.squeeze(out, reduce_axis) if reduce_axis is not None else \
            array_ops.reshape(out, [])
    return _named(out, name)


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
