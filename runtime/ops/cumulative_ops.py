"""Cumulative sums and products along an axis (`rt.math.cumsum`, `rt.math.cumprod`), as
TensorFlow's Cumsum and Cumprod ops: exclusive and reversed scans included."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..errors import InvalidArgumentError
from . import shape_utils
from .core import OpDef, apply_op, convert_to_tensor
from .math_ops import NUMERIC, check_kind


def _scan_infer(opname):
    def infer(inputs, axis, exclusive, reverse):
        x = inputs[0]
        check_kind(opname, x.dtype, NUMERIC)
        rank = x.shape.rank
        if rank is not None and not -rank <= axis < rank:
            raise InvalidArgumentError(f"{opname}: expected axis in the range [{-rank}, {rank}), "
                                       f"but got {axis}")
        return [(x.shape, x.dtype)]
    return infer


def _scan_kernel(fn, identity):
    def kernel(x, axis, exclusive, reverse):
        x = np.asarray(x)
        a = axis % x.ndim
        if reverse:
            x = np.flip(x, a)
        out = fn(x, axis=a, dtype=x.dtype)
        n = x.shape[a]
        if exclusive and n:  # shifted by one: the identity first, the last left out
            first = np.full(x.shape[:a] + (1,) + x.shape[a + 1:], identity, dtype=x.dtype)
            kept = out[(slice(None),) * a + (slice(0, n - 1),)]
            out = np.concatenate([first, kept], axis=a)
        return np.ascontiguousarray(np.flip(out, a) if reverse else out)
    return kernel


def _cumsum_grad(inputs, outputs, grads, axis, exclusive, reverse):
    return [cumsum(grads[0], axis, exclusive=exclusive, reverse=not reverse)]


CUMSUM = OpDef("Cumsum", _scan_infer("Cumsum"), _scan_kernel(np.cumsum, 0), allocates=True,
               grad=_cumsum_grad)


def _cumprod_grad(inputs, outputs, grads, axis, exclusive, reverse):
    # TensorFlow's rule: exact where x has no zero (a zero gives inf/nan, as in TensorFlow)
    x = inputs[0]
    prod = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = cumsum(prod * grads[0], axis, exclusive=exclusive, reverse=not reverse)
    return [out / x]


CUMPROD = OpDef("Cumprod", _scan_infer("Cumprod"), _scan_kernel(np.cumprod, 1), allocates=True,
                grad=_cumprod_grad)


def _scan(opdef, what, x, axis, exclusive, reverse, name):
    x = convert_to_tensor(x)
    axis = shape_utils.single_axis(axis, what)
    if x.shape.rank == 0:
        raise InvalidArgumentError(f"{opdef.name}: expected axis in the range [0, 0) (the "
                                   f"input is a scalar), but got {axis}")
    return apply_op(opdef, [x], {"axis": int(axis), "exclusive": bool(exclusive),
                                 "reverse": bool(reverse)}, name=name)


def cumsum(x, axis=0, exclusive: bool = False, reverse: bool = False, name: Optional[str] = None):
    """The cumulative sum of `x` along `axis`: with `exclusive` each element leaves itself
    out (the first is 0), with `reverse` the sum runs from the end.

    Args:
      x: a tensor (or what converts to one) of a numeric dtype, of rank >= 1.
      axis: the one dimension to sum along (negative counts from the end); out of range
        raises InvalidArgumentError.
      exclusive: whether each element leaves itself out.
      reverse: whether to sum from the last element.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> x = rt.constant([1, 2, 3])
    >>> rt.cumsum(x)
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([1, 3, 6], dtype=int32)>
    >>> rt.cumsum(x, exclusive=True)
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([0, 1, 3], dtype=int32)>
    >>> rt.cumsum(x, reverse=True)
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([6, 5, 3], dtype=int32)>
    """
    return _scan(CUMSUM, "rt.cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive: bool = False, reverse: bool = False, name: Optional[str] = None):
    """The cumulative product of `x` along `axis` (`exclusive` and `reverse` as in
    `rt.cumsum`; the first element of an exclusive product is 1).

    Args:
      x: a tensor (or what converts to one) of a numeric dtype, of rank >= 1.
      axis: the one dimension to multiply along (negative counts from the end); out of
        range raises InvalidArgumentError.
      exclusive: whether each element leaves itself out.
      reverse: whether to multiply from the last element.
      name: an optional name for the op.

    Returns:
      A tensor of x's shape and dtype.

    >>> rt.math.cumprod(rt.constant([1, 2, 3]))
    <rt.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 6], dtype=int32)>
    >>> rt.math.cumprod(rt.constant([[1.0, 2.0], [3.0, 4.0]]), axis=1, exclusive=True)
    <rt.Tensor: shape=(2, 2), dtype=float32, numpy=
    array([[1., 1.],
           [1., 3.]], dtype=float32)>
    """
    return _scan(CUMPROD, "rt.math.cumprod", x, axis, exclusive, reverse, name)


OPS = [CUMSUM, CUMPROD]
