"""The matrix ops that cannot be composed: MatrixInverse, MatrixDeterminant, MatrixSolve
and Cholesky (batched over leading dimensions, as TensorFlow's), with their gradients:

    d inv(A)      = -inv(A)^T g inv(A)^T
    d det(A)      = g det(A) inv(A)^T
    d solve(A, B) : gB = solve(A^T, g), gA = -gB X^T   (X = solve(A, B))
    d cholesky(A) = sym(L^-T Phi(L^T g) L^-1) / 2     (Phi: lower triangle, diagonal halved)

A singular matrix makes inv and solve raise InvalidArgumentError, as TensorFlow's kernels
do (when LAPACK's LU meets an exact zero pivot); cholesky raises for a matrix that is not
positive definite.
"""
from __future__ import annotations

import numpy as np

from ..core.shapes import TensorShape
from ..errors import DTypeMismatchError, InvalidArgumentError
from . import array_ops
from .core import OpDef, apply_op, constant
from .math_ops import FLOAT, check_kind, matmul


def _square(opname, x):
    check_kind(opname, x.dtype, FLOAT)
    s = x.shape
    if s.rank is not None and s.rank < 2:
        raise InvalidArgumentError(f"{opname}: input must have rank >= 2, got shape {s}")
    if s.rank is not None and None not in (s[-1], s[-2]) and s[-1] != s[-2]:
        raise InvalidArgumentError(f"{opname}: input matrix must be square, got shape {s}")
    return s


def _inverse_infer(inputs):
    x = inputs[0]
    return [(_square("MatrixInverse", x), x.dtype)]


def _check_square_run(opname, x):
    if np.ndim(x) < 2 or np.shape(x)[-1] != np.shape(x)[-2]:
        raise InvalidArgumentError(f"{opname}: input must be a square matrix (or a batch of "
                                   f"them), got shape {list(np.shape(x))}")


def _inverse_kernel(x):
    _check_square_run("MatrixInverse", x)
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("Input is not invertible.") from None


def _inverse_grad(inputs, outputs, grads):
    inv = outputs[0]
    return [-matmul(inv, matmul(grads[0], inv, transpose_b=True), transpose_a=True)]


MATRIX_INVERSE = OpDef("MatrixInverse", _inverse_infer, _inverse_kernel, allocates=True,
                       grad=_inverse_grad)


def _det_infer(inputs):
    x = inputs[0]
    s = _square("MatrixDeterminant", x)
    return [(TensorShape(None) if s.rank is None else s[:-2], x.dtype)]


def _det_kernel(x):
    _check_square_run("MatrixDeterminant", x)
    det = np.asarray(np.linalg.det(x), dtype=np.asarray(x).dtype)
    nan = np.isnan(x).any(axis=(-2, -1))
    if np.any(nan):  # LAPACK's pivoting can give 0 for a matrix with a NaN; NaN it is
        det = np.where(nan, np.asarray(np.nan, det.dtype), det)
    return det


def _det_grad(inputs, outputs, grads):
    a, det = inputs[0], outputs[0]
    scale = array_ops.expand_dims(array_ops.expand_dims(grads[0] * det, -1), -1)
    inv = apply_op(MATRIX_INVERSE, [a])
    return [scale * array_ops.transpose(inv, _swap_last(a.shape.rank))]


MATRIX_DETERMINANT = OpDef("MatrixDeterminant", _det_infer, _det_kernel, allocates=True,
                           grad=_det_grad)


def _swap_last(rank):
    if rank is None:
        raise ValueError("this gradient needs the matrix's rank to be known")
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


def _solve_infer(inputs):
    a, b = inputs
    if a.dtype is not b.dtype:
        raise DTypeMismatchError(f"MatrixSolve: matrix and rhs have different dtypes, "
                                 f"{a.dtype.name} and {b.dtype.name}")
    sa = _square("MatrixSolve", a)
    sb = b.shape
    if sb.rank is not None and sb.rank < 2:
        raise InvalidArgumentError(f"MatrixSolve: rhs must have rank >= 2, got shape {sb}")
    if sa.rank is None or sb.rank is None:
        return [(TensorShape(None), a.dtype)]
    if sa.rank != sb.rank:
        raise InvalidArgumentError(f"MatrixSolve: matrix and rhs must have the same rank, got "
                                   f"shapes {sa} and {sb}")
    if sa[-1] is not None and sb[-2] is not None and sa[-1] != sb[-2]:
        raise InvalidArgumentError(
            f"Input matrix and right-hand side must have the same number of rows: "
            f"{sa[-2]} vs. {sb[-2]}")
    batch = sa[:-2]
    if not batch.is_compatible_with(sb[:-2]):
        raise InvalidArgumentError(f"MatrixSolve: the batch dimensions differ: {sa} and {sb}")
    return [(batch.merge_with(sb[:-2]) + TensorShape([sa[-1], sb[-1]]), a.dtype)]


def _solve_kernel(a, b):
    _check_square_run("MatrixSolve", a)
    if np.shape(a)[:-2] != np.shape(b)[:-2] or np.shape(a)[-1] != np.shape(b)[-2]:
        raise InvalidArgumentError(f"MatrixSolve: matrix of shape {list(np.shape(a))} and rhs "
                                   f"of shape {list(np.shape(b))} do not fit")
    try:
        return np.linalg.solve(a, b).astype(np.asarray(a).dtype)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("Input matrix is not invertible.") from None


def _solve_grad(inputs, outputs, grads):
    a, _ = inputs
    x = outputs[0]
    perm = _swap_last(a.shape.rank)
    gb = apply_op(MATRIX_SOLVE, [array_ops.transpose(a, perm), grads[0]])
    ga = -matmul(gb, x, transpose_b=True)
    return [ga, gb]


MATRIX_SOLVE = OpDef("MatrixSolve", _solve_infer, _solve_kernel, allocates=True, grad=_solve_grad)


def _cholesky_infer(inputs):
    x = inputs[0]
    return [(_square("Cholesky", x), x.dtype)]


CHOLESKY_FAILED = "Cholesky decomposition was not successful. The input might not be valid."


def _cholesky_kernel(x):
    _check_square_run("Cholesky", x)
    try:
        return np.linalg.cholesky(x)  # reads the lower triangle, as TensorFlow's
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(CHOLESKY_FAILED) from None


def _cholesky_grad(inputs, outputs, grads):
    """Murray's formula, as TensorFlow's: with P = Phi(L^T g) (the lower triangle, the
    diagonal halved), grad A = sym(L^-T P L^-1) / 2."""
    low = outputs[0]
    low_inv = apply_op(MATRIX_INVERSE, [low])
    middle = _lower_half_diagonal(matmul(low, grads[0], transpose_a=True))
    ga = matmul(matmul(low_inv, middle, transpose_a=True), low_inv)
    return [(ga + array_ops.transpose(ga, _swap_last(low.shape.rank))) * 0.5]


CHOLESKY = OpDef("Cholesky", _cholesky_infer, _cholesky_kernel, allocates=True,
                 grad=_cholesky_grad)


def _lower_half_diagonal(m):
    """The lower triangle of `m` with its diagonal halved (TensorFlow's Cholesky grad)."""
    n = m.shape[-1]
    if n is None:
        raise ValueError("the gradient of rt.linalg.cholesky needs the matrix size known")
    mask = np.tril(np.ones((n, n), m.dtype.np_dtype)) - 0.5 * np.eye(n, dtype=m.dtype.np_dtype)
    return m * constant(mask)


OPS = [MATRIX_INVERSE, MATRIX_DETERMINANT, MATRIX_SOLVE, CHOLESKY]
