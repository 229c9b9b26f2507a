"""Reductions (sum, mean, max, min, prod, any, all) and argmax/argmin, with their
gradient rules; variance and standard deviation (compositions of them)."""
from __future__ import annotations

import textwrap
from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.shapes import TensorShape
from . import shape_utils
from .core import OpDef, apply_op, constant, convert_to_tensor, ones_like, zeros_like
from . import array_ops
from .broadcast_ops import broadcast_like
from .math_ops import (BOOL, NUMERIC, cast, check_kind, equal, sqrt, square, subtract,
                       where)
from .shape_utils import single_axis, static_axis


def _reduce_infer(opname, kind):
    def infer(inputs, axis, keepdims):
        x = inputs[0]
        check_kind(opname, x.dtype, kind)
        axes = shape_utils.normalize_axes(axis, x.shape.rank)
        return [(shape_utils.reduce(x.shape, axes, keepdims), x.dtype)]
    return infer


def _sum(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _prod(x, axis, keepdims):
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _mean(x, axis, keepdims):
    if x.dtype.kind in "iu":  # TensorFlow truncates the integer mean
        count = x.size if axis is None else int(np.prod([np.shape(x)[a] for a in axis]))
        s = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        return np.trunc(s / max(count, 1)).astype(x.dtype)
    if x.size == 0:  # TensorFlow: nan, without numpy's "Mean of empty slice" warning
        shape = np.shape(np.sum(x, axis=axis, keepdims=keepdims))
        return np.full(shape, np.nan, dtype=x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _extreme(fn):
    def kernel(x, axis, keepdims):
        if x.size == 0:  # TensorFlow: the identity of the reduction
            info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
            fill = -np.inf if fn is np.max else np.inf
            if x.dtype.kind != "f":
                fill = info.min if fn is np.max else info.max
            shape = np.sum(np.zeros(x.shape), axis=axis, keepdims=keepdims).shape
            return np.full(shape, fill, dtype=x.dtype)
        return fn(x, axis=axis, keepdims=keepdims)
    return kernel


def _any(x, axis, keepdims):
    return np.any(x, axis=axis, keepdims=keepdims)


def _all(x, axis, keepdims):
    return np.all(x, axis=axis, keepdims=keepdims)


def _keepdims_grad(g, x, axis, keepdims):
    """A reduction's output gradient with the reduced axes back as 1s (broadcastable
    against `x`)."""
    if keepdims or axis is None:  # a scalar broadcasts as it is
        return g
    for a in sorted(axis):
        g = array_ops.expand_dims(g, a)
    return g


_broadcast_like = broadcast_like


def _sum_grad(inputs, outputs, grads, axis, keepdims):
    x = inputs[0]
    return [_broadcast_like(_keepdims_grad(grads[0], x, axis, keepdims), x)]


def _mean_grad(inputs, outputs, grads, axis, keepdims):
    x, y = inputs[0], outputs[0]
    n_in, n_out = x.shape.num_elements(), y.shape.num_elements()
    if n_in is not None and n_out is not None:
        count = constant(max(n_in // max(n_out, 1), 1), x.dtype)
    else:
        count = cast(array_ops.size(x), x.dtype) / cast(array_ops.size(y), x.dtype)
    g = _keepdims_grad(grads[0], x, axis, keepdims) / count
    return [_broadcast_like(g, x)]


def _extreme_grad(inputs, outputs, grads, axis, keepdims):
    x = inputs[0]
    y = _keepdims_grad(outputs[0], x, axis, keepdims)
    g = _keepdims_grad(grads[0], x, axis, keepdims)
    hits = cast(equal(x, y), x.dtype)
    count = _make_reduce(REDUCE["Sum"])(hits, axis, keepdims=True)
    return [hits / count * g]


def _prod_grad(inputs, outputs, grads, axis, keepdims):
    x = inputs[0]
    g = _broadcast_like(_keepdims_grad(grads[0], x, axis, keepdims), x)
    return [g * apply_op(PROD_OTHERS, [x], {"axis": axis})]


def _reduce_emit(method, floats_only=False, nonempty=False):
    """The array method (`x.sum(axis)`) where it gives the kernel's result: float sums keep
    their dtype (integer sums would widen to int64), and max/min need a known non-empty
    input (the kernel gives the reduction's identity for an empty one)."""
    def emit(op, args):
        x = op.inputs[0]
        if floats_only and not x.dtype.is_floating:
            return None
        if nonempty and not (x.shape.is_fully_defined() and x.shape.num_elements()):
            return None
        axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
        # the axis is bound as a value (args.const), never written as source text
        axis = "None" if axis is None else args.const(axis)
        return f"{args[0]}.{method}(axis={axis}{', keepdims=True' if keepdims else ''})"
    return emit


_KIND_OF: dict = {}  # OpDef -> the dtypes it takes, for its docstring


def _reduction(name, public, kernel, kind, grad=None, emit=None):
    op = OpDef(name, _reduce_infer(name, kind), kernel, allocates=True, grad=grad, emit=emit,
               public_name=public)
    _KIND_OF[op] = "bool" if kind is BOOL else "numeric"
    return op


# name, public function name, kernel, accepted kind, gradient, emitter
REDUCE = {d.name: d for d in [
    _reduction("Sum", "reduce_sum", _sum, NUMERIC, _sum_grad,
               _reduce_emit("sum", floats_only=True)),
    _reduction("Mean", "reduce_mean", _mean, NUMERIC, _mean_grad),
    _reduction("Max", "reduce_max", _extreme(np.max), NUMERIC, _extreme_grad,
               _reduce_emit("max", nonempty=True)),
    _reduction("Min", "reduce_min", _extreme(np.min), NUMERIC, _extreme_grad,
               _reduce_emit("min", nonempty=True)),
    _reduction("Prod", "reduce_prod", _prod, NUMERIC, _prod_grad,
               _reduce_emit("prod", floats_only=True)),
    _reduction("Any", "reduce_any", _any, BOOL, emit=_reduce_emit("any")),
    _reduction("All", "reduce_all", _all, BOOL, emit=_reduce_emit("all")),
]}


def _prod_others_infer(inputs, axis):
    return [(inputs[0].shape, inputs[0].dtype)]


def _prod_others_kernel(x, axis):
    """For each element, the product of the other elements of its reduction (exact with
    zeros: exclusive cumulative products from both ends)."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    rest = tuple(a for a in range(x.ndim) if a not in axes)
    moved = np.transpose(x, rest + axes)
    lead = moved.shape[:len(rest)]
    flat = moved.reshape(lead + (-1,))
    ones = np.ones(lead + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    out = (left * right).reshape(moved.shape)
    return np.transpose(out, np.argsort(rest + axes)).astype(x.dtype, copy=False)


def _prod_others_grad(inputs, outputs, grads, axis):
    """d/dx_j of sum_i g_i * prod_{k != i} x_k over each reduction group: sum over i != j
    of g_i * prod_{k not in {i, j}} x_k, exact with zeros (by the group's zero count c:
    c = 0 divides by x; c = 1 and 2 name the zeros' terms; from 3 zeros on it is 0). The
    ops used have gradients of their own: higher derivatives of reduce_prod follow."""
    x, g = inputs[0], grads[0]
    total = _make_reduce(REDUCE["Sum"])
    is_zero = equal(x, constant(0, x.dtype))
    zero = cast(is_zero, x.dtype)
    count = total(zero, axis, keepdims=True)
    safe = where(is_zero, ones_like(x), x)
    inv = 1 / safe
    q = _make_reduce(REDUCE["Prod"])(safe, axis, keepdims=True)    # the non-zeros' product
    s = total(g * inv, axis, keepdims=True)
    gz = total(g * zero, axis, keepdims=True)                        # g at the zeros
    no_zero = q * inv * (s - g * inv)
    one_zero = where(is_zero, q * (s - g), gz * q * inv)
    two_zeros = where(is_zero, (gz - g) * q, zeros_like(x))
    c = lambda k: equal(count, constant(k, x.dtype))                 # noqa: E731
    return [where(c(0), no_zero, where(c(1), one_zero, where(c(2), two_zeros,
                                                            zeros_like(x))))]


PROD_OTHERS = OpDef("ProdOthers", _prod_others_infer, _prod_others_kernel,
                    grad=_prod_others_grad)


_REDUCE_DOC = """{summary}

Reduces `input_tensor` along the dimensions in `axis` (an int or a list of ints, negative
counting from the end; None: all of them), which must be known when the op is built.
{notes}
Args:
  input_tensor: a tensor (or what converts to one) of a {kind} dtype.
  axis: the dimensions to reduce (None: all).
  keepdims: whether to keep each reduced dimension, with length 1.
  name: an optional name for the op.

Returns:
  A tensor of input_tensor's dtype, of its shape without the reduced dimensions (or with
  length 1 in their place, with keepdims).

{example}
"""


def _make_reduce(opdef, public_name: str = "", summary: str = "", notes: str = "",
                 example: str = ""):
    def fn(input_tensor, axis=None, keepdims: bool = False, name: Optional[str] = None):
        x = convert_to_tensor(input_tensor)
        axes = shape_utils.normalize_axes(static_axis(axis), x.shape.rank)
        return apply_op(opdef, [x], {"axis": axes, "keepdims": bool(keepdims)}, name=name)
    if public_name:
        fn.__name__ = fn.__qualname__ = public_name
        kind = _KIND_OF[opdef]
        fn.__doc__ = _REDUCE_DOC.format(summary=summary, notes=notes, kind=kind,
                                        example=textwrap.dedent(example).strip())
    return fn


reduce_sum = _make_reduce(
    REDUCE["Sum"], "reduce_sum",
    "The sum of elements across dimensions.", "", """
    >>> x = rt.constant([[1, 2], [3, 4]])
    >>> rt.reduce_sum(x)
    <rt.Tensor: shape=(), dtype=int32, numpy=10>
    >>> rt.reduce_sum(x, axis=0)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([4, 6], dtype=int32)>
    >>> rt.reduce_sum(x, axis=1, keepdims=True)
    <rt.Tensor: shape=(2, 1), dtype=int32, numpy=
    array([[3],
           [7]], dtype=int32)>
    """)
reduce_mean = _make_reduce(
    REDUCE["Mean"], "reduce_mean",
    "The mean of elements across dimensions.", """
The mean of integers is truncated towards zero, in their dtype (as in TensorFlow); the
mean of no elements is nan.
""", """
    >>> rt.reduce_mean(rt.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([2. , 3.5], dtype=float32)>
    >>> rt.reduce_mean(rt.constant([1, 2]))
    <rt.Tensor: shape=(), dtype=int32, numpy=1>
    """)
reduce_max = _make_reduce(
    REDUCE["Max"], "reduce_max",
    "The maximum of elements across dimensions.", """
The maximum of no elements is the dtype's lowest value (-inf for floats).
""", """
    >>> rt.reduce_max(rt.constant([[1, 5], [3, 4]]), axis=1)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([5, 4], dtype=int32)>
    """)
reduce_min = _make_reduce(
    REDUCE["Min"], "reduce_min",
    "The minimum of elements across dimensions.", """
The minimum of no elements is the dtype's highest value (inf for floats).
""", """
    >>> rt.reduce_min(rt.constant([[1, 5], [3, 4]]), axis=1)
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([1, 3], dtype=int32)>
    """)
reduce_prod = _make_reduce(
    REDUCE["Prod"], "reduce_prod",
    "The product of elements across dimensions.", "", """
    >>> rt.reduce_prod(rt.constant([[1.0, 2.0], [3.0, 4.0]]), axis=0)
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([3., 8.], dtype=float32)>
    """)
reduce_any = _make_reduce(
    REDUCE["Any"], "reduce_any",
    "Logical OR of elements across dimensions.", "", """
    >>> rt.reduce_any(rt.constant([[True, False], [False, False]]), axis=1)
    <rt.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
    """)
reduce_all = _make_reduce(
    REDUCE["All"], "reduce_all",
    "Logical AND of elements across dimensions.", "", """
    >>> rt.reduce_all(rt.constant([[True, False], [True, True]]), axis=1)
    <rt.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>
    """)


def _arg_infer(opname):
    def infer(inputs, axis, output_type):
        x = inputs[0]
        check_kind(opname, x.dtype, NUMERIC)
        if x.shape.rank is None:
            return [(TensorShape(None), output_type)]
        if x.shape.rank == 0:
            raise InvalidArgumentError(f"{opname} needs a tensor of rank >= 1")
        axes = shape_utils.normalize_axes(axis, x.shape.rank)
        return [(shape_utils.reduce(x.shape, axes, False), output_type)]
    return infer


def _arg_kernel(fn):
    def kernel(x, axis, output_type):
        if np.shape(x)[axis] == 0:
            raise InvalidArgumentError("Reduction axis is empty")
        return fn(x, axis=axis).astype(output_type.np_dtype)
    return kernel


ARGMAX = OpDef("ArgMax", _arg_infer("ArgMax"), _arg_kernel(np.argmax))
ARGMIN = OpDef("ArgMin", _arg_infer("ArgMin"), _arg_kernel(np.argmin))


_ARG_DOC = """The index of the {which} value along one axis.

Ties give the first such index. An empty axis raises InvalidArgumentError.

Args:
  input: a tensor (or what converts to one) of a numeric dtype, of rank >= 1.
  axis: the one dimension to search (None: 0; negative counts from the end).
  output_type: the integer dtype of the result (int64 by default, as in TensorFlow).
  name: an optional name for the op.

Returns:
  A tensor of dtype output_type, of input's shape without `axis`.

{example}
"""


def _make_arg(opdef, public_name: str, which: str, example: str):
    def fn(input, axis=None, output_type=dtypes.int64, name: Optional[str] = None):  # noqa: A002
        x = convert_to_tensor(input)
        axis = 0 if axis is None else single_axis(axis, opdef.name)
        if x.shape.rank:  # checked, not wrapped: axis 3 of a vector is an error
            axis = shape_utils.normalize_axes(axis, x.shape.rank)[0]
        return apply_op(opdef, [x], {"axis": axis, "output_type": dtypes.as_dtype(output_type)},
                        name=name)
    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = _ARG_DOC.format(which=which, example=textwrap.dedent(example).strip())
    return fn


argmax = _make_arg(ARGMAX, "argmax", "largest", """
    >>> rt.argmax(rt.constant([[1, 9, 3], [7, 2, 7]]), axis=1)
    <rt.Tensor: shape=(2,), dtype=int64, numpy=array([1, 0])>
    """)
argmin = _make_arg(ARGMIN, "argmin", "smallest", """
    >>> rt.argmin(rt.constant([[1, 9, 3], [7, 2, 0]]), axis=0)
    <rt.Tensor: shape=(3,), dtype=int64, numpy=array([0, 1, 1])>
    """)


# -- variance and standard deviation ----------------------------------------------------

def _float_input(fn_name, input_tensor):
    x = convert_to_tensor(input_tensor)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn_name}: input must be real (floating), got a {x.dtype.name} "
                        "tensor; use rt.cast first")
    return x


def reduce_variance(input_tensor, axis=None, keepdims: bool = False, name: Optional[str] = None):
    """The variance of the elements along `axis` (all axes when None), as TensorFlow:
    the mean of the squared deviations from the mean (no Bessel correction).

    Args:
      input_tensor: a tensor (or what converts to one) of a floating-point dtype (else
        TypeError).
      axis: the dimensions to reduce (an int or a list of ints; None: all).
      keepdims: whether to keep each reduced dimension, with length 1.
      name: an optional name for the op.

    Returns:
      A tensor of input_tensor's dtype, of its shape without the reduced dimensions (or
      with length 1 in their place, with keepdims).

    >>> rt.math.reduce_variance(rt.constant([[1.0, 2.0], [3.0, 4.0]]), axis=0)
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 1.], dtype=float32)>
    """
    x = _float_input("rt.math.reduce_variance", input_tensor)
    means = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(square(subtract(x, means)), axis, keepdims=keepdims, name=name)


def reduce_std(input_tensor, axis=None, keepdims: bool = False, name: Optional[str] = None):
    """The standard deviation of the elements along `axis` (the square root of
    `reduce_variance`, no Bessel correction).

    Args:
      input_tensor: a tensor (or what converts to one) of a floating-point dtype (else
        TypeError).
      axis: the dimensions to reduce (an int or a list of ints; None: all).
      keepdims: whether to keep each reduced dimension, with length 1.
      name: an optional name for the op.

    Returns:
      A tensor of input_tensor's dtype, of its shape without the reduced dimensions (or
      with length 1 in their place, with keepdims).

    >>> rt.math.reduce_std(rt.constant([[1.0, 2.0], [3.0, 4.0]]))
    <rt.Tensor: shape=(), dtype=float32, numpy=1.118034>
    """
    x = _float_input("rt.math.reduce_std", input_tensor)
    return sqrt(reduce_variance(x, axis, keepdims=keepdims), name=name)


OPS = [*REDUCE.values(), ARGMAX, ARGMIN, PROD_OTHERS]
