"""Matrix decompositions, as TensorFlow's ops: Svd (`rt.linalg.svd`), Qr (`rt.linalg.qr`)
and SelfAdjointEigV2 (`rt.linalg.eigh`), over the last two dimensions of a batch.

A decomposition's vectors are unique only up to sign (and, for repeated values, a
rotation); so that every backend gives one answer, each kernel fixes the signs the same
way (`canonical_*`, written once for numpy and jax.numpy): an eigenvector or left singular
vector has its largest-magnitude entry positive (the right singular vector follows it),
and R of QR has a non-negative diagonal. A matrix holding NaN or Inf gives NaN everywhere
(as LAPACK would, on every backend). The gradient rules are TensorFlow's (real inputs).
"""
from __future__ import annotations

import numpy as np

from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from . import array_ops, math_ops
from .core import OpDef, apply_op, convert_to_tensor
from .linalg_ops import MATRIX_SOLVE
from .makers import range as rt_range


def _check(opname, x, square=False):
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"{opname} takes floating tensors, got {x.dtype.name}")
    if x.shape.rank is None:
        raise ValueError(f"{opname}: the input's rank must be known")
    if x.shape.rank < 2:
        raise ValueError(f"{opname}: the input must have rank >= 2, got shape {x.shape}")
    dims = x.shape.as_list()
    if square and None not in dims[-2:] and dims[-1] != dims[-2]:
        raise InvalidArgumentError(f"{opname}: the input must be square matrices, got shape "
                                   f"{x.shape}")
    return dims[:-2], dims[-2], dims[-1]


def _kmin(m, n):
    return None if m is None or n is None else min(m, n)


# -- the sign conventions, for numpy and jax.numpy alike ---------------------------------------

def _column_signs(xp, v):
    """+1/-1 per column of v [..., m, k]: the sign of its largest-magnitude entry."""
    if v.shape[-2] == 0:
        return xp.ones(v.shape[:-2] + (1, v.shape[-1]), v.dtype)
    idx = xp.argmax(xp.abs(v), axis=-2)[..., None, :]
    s = xp.sign(xp.take_along_axis(v, idx, axis=-2))
    return xp.where(s == 0, xp.ones_like(s), s)


def _bad(xp, x):
    """[..., 1, 1]: whether a matrix holds NaN or Inf."""
    return xp.logical_not(xp.all(xp.isfinite(x), axis=(-2, -1), keepdims=True))


def _nan_where(xp, bad, *values):
    out = []
    for v in values:
        b = bad if v.ndim == bad.ndim else bad[..., 0]
        out.append(xp.where(b, xp.asarray(np.nan, v.dtype), v))
    return out


def canonical_svd(xp, x, full_matrices, compute_uv):
    """(s, u, v) of x (v, not its adjoint), with the sign convention above."""
    bad = _bad(xp, x)
    clean = xp.where(bad, xp.zeros_like(x), x)
    if not compute_uv:
        s = xp.linalg.svd(clean, compute_uv=False)
        return _nan_where(xp, bad, s)
    u, s, vh = xp.linalg.svd(clean, full_matrices=full_matrices)
    v = xp.swapaxes(vh, -1, -2)
    k = s.shape[-1]
    sign = _column_signs(xp, u[..., :k])
    u = xp.concatenate([u[..., :k] * sign, u[..., k:] * _column_signs(xp, u[..., k:])], -1)
    v = xp.concatenate([v[..., :k] * sign, v[..., k:] * _column_signs(xp, v[..., k:])], -1)
    return _nan_where(xp, bad, s, u, v)


def canonical_qr(xp, x, full_matrices):
    bad = _bad(xp, x)
    clean = xp.where(bad, xp.zeros_like(x), x)
    q, r = xp.linalg.qr(clean, mode="complete" if full_matrices else "reduced")
    k = min(x.shape[-2], x.shape[-1])
    d = xp.sign(xp.diagonal(r[..., :k, :k], axis1=-2, axis2=-1))
    d = xp.where(d == 0, xp.ones_like(d), d)
    q = xp.concatenate([q[..., :k] * d[..., None, :], q[..., k:]], -1)
    r = xp.concatenate([r[..., :k, :] * d[..., :, None], r[..., k:, :]], -2)
    return _nan_where(xp, bad, q, r)


def canonical_eigh(xp, x):
    bad = _bad(xp, x)
    clean = xp.where(bad, xp.zeros_like(x), x)
    # the lower triangle, as TensorFlow reads it
    n = x.shape[-1]
    lower = xp.tril(clean)
    sym = lower + xp.swapaxes(xp.tril(clean, -1), -1, -2)
    e, v = xp.linalg.eigh(sym) if n else (xp.zeros(x.shape[:-1], x.dtype), clean)
    v = v * _column_signs(xp, v)
    return _nan_where(xp, bad, e, v)


# -- rt helpers for the gradient rules ----------------------------------------------------------

def _mt(x):
    r = x.shape.rank
    return array_ops.transpose(x, [*range(r - 2), r - 1, r - 2])


def _mm(a, b):
    return math_ops.matmul(a, b)


def _index_grid(n):
    i = rt_range(n)
    return array_ops.expand_dims(i, 1), array_ops.expand_dims(i, 0)


def _last(x, axis=-1):
    return array_ops.shape(x)[axis]


def _diag(v):
    """[..., n] -> [..., n, n] with v on the diagonal."""
    rows, cols = _index_grid(_last(v))
    eye = math_ops.cast(math_ops.equal(rows, cols), v.dtype)
    return math_ops.multiply(array_ops.expand_dims(v, -1), eye)


def _lower(x, strict=False):
    rows, cols = _index_grid(_last(x))
    keep = math_ops.greater(rows, cols) if strict else math_ops.greater_equal(rows, cols)
    return math_ops.multiply(x, math_ops.cast(keep, x.dtype))


def _off_diagonal_reciprocal(e_col, e_row):
    """F_ij = 1 / (e_row_j - e_col_i) off the diagonal, 0 on it."""
    diff = math_ops.subtract(array_ops.expand_dims(e_row, -2), array_ops.expand_dims(e_col, -1))
    rows, cols = _index_grid(_last(e_row))
    off = math_ops.not_equal(rows, cols)
    safe = math_ops.where(off, diff, math_ops.ones_like(diff))
    return math_ops.where(off, math_ops.divide(math_ops.ones_like(diff), safe),
                          math_ops.zeros_like(diff))


# -- Svd ------------------------------------------------------------------------------------------

def _svd_infer(inputs, full_matrices, compute_uv):
    x = inputs[0]
    batch, m, n = _check("Svd", x)
    k = _kmin(m, n)
    s = (TensorShape([*batch, k]), x.dtype)
    if not compute_uv:
        return [s]
    uc, vc = (m, n) if full_matrices else (k, k)
    return [s, (TensorShape([*batch, m, uc]), x.dtype), (TensorShape([*batch, n, vc]), x.dtype)]


def _svd_kernel(x, full_matrices, compute_uv):
    out = canonical_svd(np, x, full_matrices, compute_uv)
    return tuple(out) if compute_uv else out[0]


def _svd_grad(inputs, outputs, grads, full_matrices, compute_uv):
    x = inputs[0]
    if not compute_uv:
        s, u, v = svd_op(x, False, True)
        return [_mm(math_ops.multiply(u, array_ops.expand_dims(grads[0], -2)), _mt(v))]
    s, u, v = outputs
    gs, gu, gv = grads
    m, n = x.shape.as_list()[-2:]
    if full_matrices and (m is None or n is None or m != n):
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unequal dimensions and full_matrices=True")
    s2 = math_ops.multiply(s, s)
    f = _off_diagonal_reciprocal(s2, s2)
    s_row = array_ops.expand_dims(s, -2)
    s_col = array_ops.expand_dims(s, -1)
    utgu = _mm(_mt(u), gu)
    vtgv = _mm(_mt(v), gv)
    inner = math_ops.add(math_ops.add(
        math_ops.multiply(math_ops.multiply(f, math_ops.subtract(utgu, _mt(utgu))), s_row),
        _diag(gs)),
        math_ops.multiply(s_col, math_ops.multiply(f, math_ops.subtract(vtgv, _mt(vtgv)))))
    grad = _mm(_mm(u, inner), _mt(v))
    inv_row = math_ops.divide(math_ops.ones_like(s_row), s_row)
    if m is None or n is None or m > n:
        left = math_ops.subtract(gu, _mm(u, utgu))
        grad = math_ops.add(grad, _mm(math_ops.multiply(left, inv_row), _mt(v)))
    if m is None or n is None or n > m:
        right = math_ops.subtract(gv, _mm(v, vtgv))
        grad = math_ops.add(grad, _mm(math_ops.multiply(u, inv_row), _mt(right)))
    return [grad]


SVD = OpDef("Svd", _svd_infer, _svd_kernel, allocates=True, grad=_svd_grad)
SVD_UV = OpDef("SvdUV", _svd_infer, _svd_kernel, allocates=True, multi_output=True,
               grad=_svd_grad)


def svd_op(x, full_matrices, compute_uv, name=None):
    attrs = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    return apply_op(SVD_UV if compute_uv else SVD, [x], attrs, name=name)


# -- Qr -------------------------------------------------------------------------------------------

def _qr_infer(inputs, full_matrices):
    x = inputs[0]
    batch, m, n = _check("Qr", x)
    k = m if full_matrices else _kmin(m, n)
    return [(TensorShape([*batch, m, k]), x.dtype), (TensorShape([*batch, k, n]), x.dtype)]


def _qr_kernel(x, full_matrices):
    return tuple(canonical_qr(np, x, full_matrices))


def _qr_grad(inputs, outputs, grads, full_matrices):
    x = inputs[0]
    q, r = outputs
    gq, gr = grads
    m, n = x.shape.as_list()[-2:]
    if m is None or n is None or m < n or (full_matrices and m != n):
        raise NotImplementedError("QR gradient is implemented for matrices of known shape "
                                  "with rows >= columns (and full_matrices=False unless square)")
    mm = math_ops.subtract(_mm(r, _mt(gr)), _mm(_mt(gq), q))
    copyltu = math_ops.add(_lower(mm), _mt(_lower(mm, strict=True)))
    b = math_ops.add(gq, _mm(q, copyltu))
    return [_mt(apply_op(MATRIX_SOLVE, [r, _mt(b)]))]


QR = OpDef("Qr", _qr_infer, _qr_kernel, allocates=True, multi_output=True, grad=_qr_grad)


# -- SelfAdjointEigV2 -------------------------------------------------------------------------------

def _eigh_infer(inputs):
    x = inputs[0]
    batch, m, n = _check("SelfAdjointEigV2", x, square=True)
    k = m if m is not None else n
    return [(TensorShape([*batch, k]), x.dtype), (TensorShape([*batch, k, k]), x.dtype)]


def _eigh_kernel(x):
    if x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(f"SelfAdjointEigV2: the input must be square matrices, got "
                                   f"shape {x.shape}")
    return tuple(canonical_eigh(np, x))


def _eigh_grad(inputs, outputs, grads):
    e, v = outputs
    ge, gv = grads
    f = _off_diagonal_reciprocal(e, e)
    inner = math_ops.add(_diag(ge), math_ops.multiply(f, _mm(_mt(v), gv)))
    g = _mm(_mm(v, inner), _mt(v))
    g = _lower(math_ops.add(g, _mt(g)))
    # halve the diagonal: the lower triangle is what the op reads
    rows, cols = _index_grid(_last(g))
    half = math_ops.add(math_ops.ones_like(g), math_ops.multiply(
        math_ops.cast(math_ops.equal(rows, cols), g.dtype), -0.5))
    return [math_ops.multiply(g, half)]


EIGH = OpDef("SelfAdjointEigV2", _eigh_infer, _eigh_kernel, allocates=True,
             multi_output=True, grad=_eigh_grad)

OPS = [SVD, SVD_UV, QR, EIGH]


# -- the functions users call ---------------------------------------------------------------------

def svd(tensor, full_matrices: bool = False, compute_uv: bool = True, name=None):
    """Singular value decomposition `tensor = u @ diag(s) @ adjoint(v)` of each matrix of a
    batch, as TensorFlow's: the singular values descending, and `v` (not its adjoint).

    Signs: each column of u has its largest-magnitude entry positive (v's columns follow).

    Args:
      tensor: a float tensor [..., M, N].
      full_matrices: u is [..., M, M] and v [..., N, N] when True; else [..., M, K] and
        [..., N, K] with K = min(M, N).
      compute_uv: False returns s alone.
      name: an optional name for the op.

    Returns:
      s [..., K], or (s, u, v) with compute_uv.

    >>> s, u, v = rt.linalg.svd(rt.constant([[3.0, 0.0], [0.0, -2.0]]))
    >>> print(s)
    rt.Tensor([3. 2.], shape=(2,), dtype=float32)
    >>> print(rt.linalg.matmul(u * s, v, transpose_b=True))
    rt.Tensor(
    [[ 3.  0.]
     [ 0. -2.]], shape=(2, 2), dtype=float32)
    """
    return svd_op(convert_to_tensor(tensor), full_matrices, compute_uv, name=name)


def qr(input, full_matrices: bool = False, name=None):  # noqa: A002
    """QR decomposition `input = q @ r` of each matrix of a batch: q with orthonormal
    columns, r upper triangular with a non-negative diagonal.

    Args:
      input: a float tensor [..., M, N].
      full_matrices: q is [..., M, M] and r [..., M, N] when True; else [..., M, K] and
        [..., K, N] with K = min(M, N).
      name: an optional name for the op.

    Returns:
      (q, r).

    >>> q, r = rt.linalg.qr(rt.constant([[3.0, 1.0], [4.0, 2.0]]))
    >>> print(r)
    rt.Tensor(
    [[5.  2.2]
     [0.  0.4]], shape=(2, 2), dtype=float32)
    """
    return apply_op(QR, [convert_to_tensor(input)], {"full_matrices": bool(full_matrices)},
                    name=name)


def eigh(tensor, name=None):
    """Eigen-decomposition of each self-adjoint matrix of a batch (its lower triangle is
    read): `tensor @ v = v * e`, the eigenvalues `e` ascending, `v` orthonormal (each
    eigenvector's largest-magnitude entry positive).

    Args:
      tensor: a float tensor [..., N, N].
      name: an optional name for the op.

    Returns:
      (e [..., N], v [..., N, N]).

    >>> e, v = rt.linalg.eigh(rt.constant([[2.0, 1.0], [1.0, 2.0]]))
    >>> print(e)
    rt.Tensor([1. 3.], shape=(2,), dtype=float32)
    """
    return apply_op(EIGH, [convert_to_tensor(tensor)], {}, name=name)

