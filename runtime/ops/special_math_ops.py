"""Elementwise functions TensorFlow has that no composition of our ops gives exactly:
atan, asin, acos, sinh, cosh, expm1 (`exp(x) - 1` loses every digit near 0) and atan2
(`atan(y / x)` loses the quadrant and the signed zeros), each an op of its own; and
slogdet, the sign and log of |det| of square matrices, which a determinant would overflow
or underflow long before its logarithm does. erf is nn_ops.ERF, made public here.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from . import array_ops, nn_ops
from .broadcast_ops import sum_to
from .core import OpDef, apply_op, constant, convert_to_tensor
from .linalg_ops import MATRIX_INVERSE
from .math_ops import (FLOAT, binary_infer, binary_operands, check_kind, negative,
                       sqrt, square, unary_infer)


def _unary(name, kernel, grad):
    return OpDef(name, unary_infer(name, FLOAT), kernel, grad=grad, elementwise=True)


def _one_minus_square_root(x):
    return sqrt(constant(1, x.dtype) - square(x))


ATAN = _unary("Atan", np.arctan, lambda inputs, outputs, grads: [
    grads[0] / (square(inputs[0]) + constant(1, inputs[0].dtype))])
ASIN = _unary("Asin", np.arcsin, lambda inputs, outputs, grads: [
    grads[0] / _one_minus_square_root(inputs[0])])
ACOS = _unary("Acos", np.arccos, lambda inputs, outputs, grads: [
    negative(grads[0]) / _one_minus_square_root(inputs[0])])


def _sinh_grad(inputs, outputs, grads):
    return [grads[0] * apply_op(COSH, [inputs[0]])]


def _cosh_grad(inputs, outputs, grads):
    return [grads[0] * apply_op(SINH, [inputs[0]])]


SINH = _unary("Sinh", np.sinh, _sinh_grad)
COSH = _unary("Cosh", np.cosh, _cosh_grad)
EXPM1 = _unary("Expm1", np.expm1, lambda inputs, outputs, grads: [
    grads[0] * (outputs[0] + constant(1, outputs[0].dtype))])


def _atan2_grad(inputs, outputs, grads):
    y, x = inputs
    scaled = grads[0] / (square(x) + square(y))
    return [sum_to(scaled * x, y), sum_to(negative(scaled) * y, x)]


ATAN2 = OpDef("Atan2", binary_infer("Atan2", FLOAT, None), np.arctan2, grad=_atan2_grad,
              elementwise=True)


def _function(opdef, public, formula, example, result):
    def fn(x, name: Optional[str] = None):
        return apply_op(opdef, [convert_to_tensor(x)], name=name)
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""{formula}, elementwise (float tensors; an integer one raises
    InvalidArgumentError), as TensorFlow's tf.math.{public}.

    Args:
      x: a tensor (or what converts to one) of a floating-point dtype.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> print(rt.math.{public}(rt.constant({example})))
    {result}
    """
    return fn


atan = _function(ATAN, "atan", "The arctangent of `x` (in [-pi/2, pi/2])", "[0.0, 1.0]",
                 "rt.Tensor([0.        0.7853982], shape=(2,), dtype=float32)")
asin = _function(ASIN, "asin", "The arcsine of `x` (NaN outside [-1, 1])", "[0.0, 1.0]",
                 "rt.Tensor([0.        1.5707964], shape=(2,), dtype=float32)")
acos = _function(ACOS, "acos", "The arccosine of `x` (NaN outside [-1, 1])", "[1.0, 0.0]",
                 "rt.Tensor([0.        1.5707964], shape=(2,), dtype=float32)")
sinh = _function(SINH, "sinh", "The hyperbolic sine of `x`", "[0.0, 1.0]",
                 "rt.Tensor([0.       1.1752012], shape=(2,), dtype=float32)")
cosh = _function(COSH, "cosh", "The hyperbolic cosine of `x`", "[0.0, 1.0]",
                 "rt.Tensor([1.        1.5430807], shape=(2,), dtype=float32)")
expm1 = _function(EXPM1, "expm1", "`exp(x) - 1`, accurate for `x` near 0", "[1e-10, 1.0]",
                  "rt.Tensor([1.0000000e-10 1.7182819e+00], shape=(2,), dtype=float32)")


def erf(x, name: Optional[str] = None):
    """The Gauss error function of `x`, elementwise (float tensors), as tf.math.erf.

    Args:
      x: a tensor (or what converts to one) of a floating-point dtype.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> print(rt.math.erf(rt.constant([0.0, 1.0])))
    rt.Tensor([0.        0.8427008], shape=(2,), dtype=float32)
    """
    return apply_op(nn_ops.ERF, [convert_to_tensor(x)], name=name)


def atan2(y, x, name: Optional[str] = None):
    """The angle of the point `(x, y)` from the positive x axis, in [-pi, pi], elementwise
    (they broadcast), as tf.math.atan2: the quadrant comes from the signs of both, so
    `atan2(0., -1.)` is pi and `atan2(-0., -1.)` is -pi.

    Args:
      y: a floating-point tensor (or what converts to one), the ordinates.
      x: a tensor of y's dtype (a Python number takes it), the abscissae.
      name: an optional name for the op.

    Returns:
      A tensor of y's dtype and the broadcast shape.

    >>> print(rt.math.atan2(rt.constant([1.0, 0.0]), rt.constant([0.0, -1.0])))
    rt.Tensor([1.5707964 3.1415927], shape=(2,), dtype=float32)
    """
    return apply_op(ATAN2, list(binary_operands(y, x)), name=name)


# -- slogdet --------------------------------------------------------------------------------

def _slogdet_infer(inputs):
    x = inputs[0]
    check_kind("LogMatrixDeterminant", x.dtype, FLOAT)
    s = x.shape
    if s.rank is not None:
        if s.rank < 2:
            raise InvalidArgumentError(f"slogdet needs a tensor of rank >= 2, got shape {s}")
        if s[-1] is not None and s[-2] is not None and s[-1] != s[-2]:
            raise InvalidArgumentError(f"slogdet needs square matrices, got shape {s}")
    batch = TensorShape(None) if s.rank is None else s[:-2]
    return [(batch, x.dtype), (batch, x.dtype)]


def _slogdet_kernel(x):
    if x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(f"slogdet needs square matrices, got shape {list(x.shape)}")
    with np.errstate(all="ignore"):   # a NaN input: the NaN is put right below
        sign, logdet = np.linalg.slogdet(x)
    nan = np.isnan(x).any(axis=(-2, -1))
    if np.any(nan):  # LAPACK's pivoting may step over a NaN; the answer is NaN
        sign = np.where(nan, np.nan, sign)
        logdet = np.where(nan, np.nan, logdet)
    return (np.asarray(sign, x.dtype), np.asarray(logdet, x.dtype))


def _slogdet_grad(inputs, outputs, grads):
    """d log|det A| / dA = inv(A)^T (the sign is piecewise constant: no gradient)."""
    a = inputs[0]
    if grads[1] is None:
        return [None]
    rank = a.shape.rank
    if rank is None:
        raise ValueError("slogdet's gradient needs the matrix's rank to be known")
    perm = [*range(rank - 2), rank - 1, rank - 2]
    inv_t = array_ops.transpose(apply_op(MATRIX_INVERSE, [a]), perm)
    scale = array_ops.expand_dims(array_ops.expand_dims(grads[1], -1), -1)
    return [scale * inv_t]


LOG_MATRIX_DETERMINANT = OpDef("LogMatrixDeterminant", _slogdet_infer, _slogdet_kernel,
                               allocates=True, multi_output=True, grad=_slogdet_grad)


def slogdet(input, name: Optional[str] = None):  # noqa: A002 - TensorFlow's name
    """The sign and the log of the absolute value of the determinant of each square matrix
    of `input` (its last two dimensions), as tf.linalg.slogdet: `det = sign *
    exp(log_abs_determinant)` without the overflow of the determinant itself. A singular
    matrix gives sign 0 and -inf; a matrix holding NaN gives NaN for both.

    Args:
      input: a floating-point tensor of shape `[..., n, n]`.
      name: an optional name for the op.

    Returns:
      `(sign, log_abs_determinant)`, each of shape `input.shape[:-2]` and input's dtype.
      The gradient flows through log_abs_determinant (`inv(input)` transposed).

    >>> sign, logdet = rt.linalg.slogdet(rt.constant([[2.0, 0.0], [0.0, -3.0]]))
    >>> print(sign, logdet)
    rt.Tensor(-1.0, shape=(), dtype=float32) rt.Tensor(1.7917595, shape=(), dtype=float32)
    """
    sign, logdet = apply_op(LOG_MATRIX_DETERMINANT, [convert_to_tensor(input)], name=name)
    return sign, logdet


OPS = [ATAN, ASIN, ACOS, SINH, COSH, EXPM1, ATAN2, LOG_MATRIX_DETERMINANT]
