"""`rt.pad`: a tensor padded with a constant (PadV2) or with its own mirror image
(MirrorPad, modes REFLECT and SYMMETRIC), and the gradient of both (PadGrad).

`paddings` is an integer tensor of shape [rank, 2]: row i says how many values go before
and after dimension i. It is an input of the op, as in TensorFlow, so it may be computed
when the graph runs; when its value is known while building (a Python list, an eager
tensor, a constant) the output's shape is known too.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..core.tensor import Tensor
from . import limits
from .core import OpDef, apply_op, constant_value, convert_to_tensor

MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def _check_paddings(opname, x_shape, paddings, mode):
    """Checks a padding tensor's dtype and shape, and its values when they are known.
    Returns the known values (an int array of shape [rank, 2]) or None."""
    if not paddings.dtype.is_integer:
        raise InvalidArgumentError(f"{opname}: paddings must be integers, got {paddings.dtype.name}")
    ps = paddings.shape
    if ps.rank is not None and (ps.rank != 2 or ps[1] not in (2, None)):
        raise InvalidArgumentError(f"{opname}: paddings must be a matrix with 2 columns "
                                   f"(one row per dimension), got shape {ps}")
    if ps.rank == 2 and ps[0] is not None and x_shape.rank is not None and ps[0] != x_shape.rank:
        raise InvalidArgumentError(
            f"{opname}: paddings has {ps[0]} rows but the input has rank {x_shape.rank} "
            f"(shape {x_shape}); give one [before, after] pair per dimension")
    known = constant_value(paddings)
    if known is None:
        return None
    known = np.asarray(known).astype(np.int64)
    dims = x_shape.as_list() if x_shape.rank is not None else [None] * known.shape[0]
    _check_values(opname, known, dims, mode)
    return known


def _check_values(opname, paddings, dims, mode):
    if np.any(paddings < 0):
        raise InvalidArgumentError(f"{opname}: paddings must be non-negative, got "
                                   f"{paddings.tolist()}")
    if mode == "CONSTANT":
        return
    limit = 1 if mode == "REFLECT" else 0  # REFLECT leaves out the edge value itself
    for i, (n, (before, after)) in enumerate(zip(dims, paddings.tolist())):
        if n is not None and max(before, after) > n - limit:
            most = "less than" if mode == "REFLECT" else "at most"
            raise InvalidArgumentError(
                f"{opname}: {mode} paddings must be {most} the dimension size: dimension {i} "
                f"has size {n} but paddings [{before}, {after}]")


def _out_shape(x_shape, paddings, known):
    if known is None:
        rank = x_shape.rank
        if rank is None and paddings.shape.rank == 2:
            rank = paddings.shape[0]
        return TensorShape(None if rank is None else [None] * rank)
    dims = x_shape.as_list() if x_shape.rank is not None else [None] * known.shape[0]
    return TensorShape([None if n is None else n + int(b) + int(a)
                        for n, (b, a) in zip(dims, known.tolist())])


def _pad_infer(inputs):
    x, paddings, value = inputs
    if value.dtype is not x.dtype:
        raise InvalidArgumentError(f"PadV2: constant_values must have the input's dtype "
                                   f"{x.dtype.name}, got {value.dtype.name}")
    if value.shape.rank not in (0, None):
        raise InvalidArgumentError(f"PadV2: constant_values must be a scalar, got shape "
                                   f"{value.shape}")
    known = _check_paddings("PadV2", x.shape, paddings, "CONSTANT")
    return [(_out_shape(x.shape, paddings, known), x.dtype)]


def _run_check(opname, x, paddings, mode):
    paddings = np.asarray(paddings)
    if paddings.shape != (np.ndim(x), 2):
        raise InvalidArgumentError(f"{opname}: paddings must have shape [{np.ndim(x)}, 2] for "
                                   f"an input of shape {np.shape(x)}, got {list(paddings.shape)}")
    _check_values(opname, paddings.astype(np.int64), list(np.shape(x)), mode)
    return [(int(b), int(a)) for b, a in paddings.tolist()]


def _pad_kernel(x, paddings, value):
    widths = _run_check("PadV2", x, paddings, "CONSTANT")
    limits.check_elements("PadV2", [n + b + a for n, (b, a) in zip(np.shape(x), widths)])
    x = np.asarray(x)
    if x.dtype == object:  # strings: np.pad's constant fill needs the object itself
        out = np.full(tuple(n + b + a for n, (b, a) in zip(x.shape, widths)), value, dtype=object)
        out[tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, widths))] = x
        return out
    return np.pad(x, widths, mode="constant", constant_values=value)


PAD = OpDef("PadV2", _pad_infer, _pad_kernel, default_name="Pad",
            grad=lambda inputs, outputs, grads: [
                _input_grad(grads[0], inputs[0], inputs[1], "CONSTANT"), None, None])


def _mirror_infer(inputs, mode):
    x, paddings = inputs
    known = _check_paddings("MirrorPad", x.shape, paddings, mode)
    return [(_out_shape(x.shape, paddings, known), x.dtype)]


def _mirror_kernel(x, paddings, mode):
    widths = _run_check("MirrorPad", x, paddings, mode)
    limits.check_elements("MirrorPad", [n + b + a for n, (b, a) in zip(np.shape(x), widths)])
    return np.pad(np.asarray(x), widths, mode=mode.lower())


MIRROR_PAD = OpDef("MirrorPad", _mirror_infer, _mirror_kernel,
                   grad=lambda inputs, outputs, grads, mode: [
                       _input_grad(grads[0], inputs[0], inputs[1], mode), None])


# -- gradients ----------------------------------------------------------------------------

def _grad_infer(inputs, mode):
    g, paddings = inputs
    known = constant_value(paddings)
    if known is None or g.shape.rank is None:
        rank = g.shape.rank
        return [(TensorShape(None if rank is None else [None] * rank), g.dtype)]
    return [(TensorShape([None if n is None else n - int(b) - int(a)
                          for n, (b, a) in zip(g.shape.as_list(), np.asarray(known).tolist())]),
             g.dtype)]


def _grad_kernel(g, paddings, mode):
    """The gradient of a padding for its input: for CONSTANT the middle of `g`; for a
    mirror, every value of `g` added to the input value it copies."""
    g = np.asarray(g)
    widths = [(int(b), int(a)) for b, a in np.asarray(paddings).tolist()]
    shape = tuple(n - b - a for n, (b, a) in zip(g.shape, widths))
    if mode == "CONSTANT":
        return g[tuple(slice(b, b + n) for n, (b, _) in zip(shape, widths))]
    size = int(np.prod(shape))
    source = np.pad(np.arange(size).reshape(shape), widths, mode=mode.lower())
    out = np.zeros(size, dtype=g.dtype)
    np.add.at(out, source.reshape(-1), g.reshape(-1))
    return out.reshape(shape)


PAD_GRAD = OpDef("PadGrad", _grad_infer, _grad_kernel,
                 grad=lambda inputs, outputs, grads, mode: [
                     _forward(grads[0], inputs[1], mode), None])


def _forward(g, paddings, mode):
    if mode == "CONSTANT":
        return apply_op(PAD, [g, paddings, convert_to_tensor(0, dtype=g.dtype)])
    return apply_op(MIRROR_PAD, [g, paddings], {"mode": mode})


def _input_grad(g, x, paddings, mode):
    out = apply_op(PAD_GRAD, [g, paddings], {"mode": mode})
    out.set_shape(x.shape)
    return out


OPS = [PAD, MIRROR_PAD, PAD_GRAD]


def _mode(mode) -> str:
    m = mode.upper() if isinstance(mode, str) else mode
    if m not in MODES:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC" (in any case). Received `mode` = {mode!r}')
    return m


def pad(tensor, paddings, mode: str = "CONSTANT", constant_values=0, name: Optional[str] = None):
    """`tensor` with paddings[i] = [before, after] values added around dimension i.

    CONSTANT fills them with `constant_values`; REFLECT mirrors the tensor without its
    edge value ([1, 2, 3] padded by 2 gives [3, 2, 1, 2, 3, 2, 1]), SYMMETRIC with it
    ([2, 1, 1, 2, 3, 3, 2]). `mode` is case-insensitive, as in TensorFlow.

    Negative paddings raise InvalidArgumentError; so do REFLECT paddings not smaller than
    the dimension (SYMMETRIC: larger than it).

    Args:
      tensor: a tensor (or what converts to one).
      paddings: an integer tensor (or nested list) of shape [rank, 2].
      mode: "CONSTANT", "REFLECT" or "SYMMETRIC" (another raises ValueError).
      constant_values: the fill value for CONSTANT, of tensor's dtype (default 0; for bool
        and string tensors, False and "").
      name: an optional name for the op.

    Returns:
      A tensor of tensor's dtype whose dimension i is
      `paddings[i][0] + tensor.shape[i] + paddings[i][1]`.

    >>> rt.pad(rt.constant([[1, 2], [3, 4]]), [[1, 0], [0, 2]])
    <rt.Tensor: shape=(3, 4), dtype=int32, numpy=
    array([[0, 0, 0, 0],
           [1, 2, 0, 0],
           [3, 4, 0, 0]], dtype=int32)>
    >>> rt.pad(rt.constant([1, 2, 3]), [[2, 2]], mode="REFLECT")
    <rt.Tensor: shape=(7,), dtype=int32, numpy=array([3, 2, 1, 2, 3, 2, 1], dtype=int32)>
    >>> rt.pad(rt.constant([1, 2, 3]), [[2, 2]], mode="symmetric")
    <rt.Tensor: shape=(7,), dtype=int32, numpy=array([2, 1, 1, 2, 3, 3, 2], dtype=int32)>
    """
    mode = _mode(mode)
    x = convert_to_tensor(tensor)
    p = convert_to_tensor(paddings, dtype_hint=dtypes.int32)
    if mode != "CONSTANT":
        return apply_op(MIRROR_PAD, [x, p], {"mode": mode}, name=name)
    if not isinstance(constant_values, Tensor) and isinstance(constant_values, int) and \
            constant_values == 0 and (x.dtype.is_string or x.dtype.is_bool):
        constant_values = b"" if x.dtype.is_string else False  # the dtype's zero
    try:
        value = convert_to_tensor(constant_values, dtype=x.dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"rt.pad: constant_values must fit the input's dtype {x.dtype.name}: "
                        f"{e}") from None
    return apply_op(PAD, [x, p, value], name=name)
