"""Broadcasting and its reverse, for gradient rules: `broadcast_like(g, x)` spreads a
reduced gradient back over `x`'s shape; `sum_to(g, x)` sums a broadcast gradient down to
`x`'s shape. Each is the other's gradient. The target shape is an attribute when it is
known while building, else read from `x` when the graph runs."""
from __future__ import annotations

import numpy as np

from ..core.shapes import TensorShape
from . import limits
from .core import OpDef, apply_op


def _static(shape: TensorShape):
    return tuple(shape.as_list()) if shape.is_fully_defined() else None


def summed_axes(from_shape: tuple, to_shape: tuple) -> tuple:
    """The axes a value of `from_shape`, broadcast from `to_shape`, is summed over to get
    back to `to_shape` (then reshaped to it): the leading ones, and those `to_shape` has
    as 1."""
    lead = len(from_shape) - len(to_shape)
    return tuple(range(lead)) + tuple(i + lead for i, d in enumerate(to_shape)
                                      if d == 1 and from_shape[i + lead] != 1)


def _sum_to_shape(g, shape):
    shape = tuple(shape)
    gs = np.shape(g)
    if gs == shape:
        return g
    axes = summed_axes(gs, shape)
    out = np.sum(g, axis=axes, dtype=np.asarray(g).dtype) if axes else g
    return np.reshape(out, shape)


def _sum_to_infer(inputs, shape):
    return [(TensorShape(shape), inputs[0].dtype)]


def _sum_to_kernel(g, shape):
    return _sum_to_shape(g, shape)


def _sum_to_grad(inputs, outputs, grads, shape):
    return [broadcast_like(grads[0], inputs[0])]


SUM_TO = OpDef("SumTo", _sum_to_infer, _sum_to_kernel, grad=_sum_to_grad)


def _sum_like_infer(inputs):
    return [(inputs[1].shape, inputs[0].dtype)]


def _sum_like_kernel(g, x):
    return _sum_to_shape(g, np.shape(x))


def _sum_like_grad(inputs, outputs, grads):
    return [broadcast_like(grads[0], inputs[0]), None]


SUM_LIKE = OpDef("SumLike", _sum_like_infer, _sum_like_kernel, grad=_sum_like_grad)


def _broadcast_to_infer(inputs, shape):
    return [(TensorShape(shape), inputs[0].dtype)]


def _broadcast_to_kernel(g, shape):
    # a writable array, not numpy's read-only broadcast view: gradients reach users
    limits.check_elements("BroadcastTo", shape)
    return np.array(np.broadcast_to(g, shape))


def _broadcast_to_grad(inputs, outputs, grads, shape):
    return [sum_to(grads[0], inputs[0])]


BROADCAST_TO = OpDef("BroadcastTo", _broadcast_to_infer, _broadcast_to_kernel,
                     grad=_broadcast_to_grad)


def _broadcast_like_infer(inputs):
    return [(inputs[1].shape, inputs[0].dtype)]


def _broadcast_like_kernel(g, x):
    return np.array(np.broadcast_to(g, np.shape(x)))


def _broadcast_like_grad(inputs, outputs, grads):
    return [sum_to(grads[0], inputs[0]), None]


BROADCAST_LIKE = OpDef("BroadcastLike", _broadcast_like_infer, _broadcast_like_kernel,
                       grad=_broadcast_like_grad)


def sum_to(g, x):
    """`g` (broadcast from `x`'s shape) summed back to the shape of `x`."""
    if g.shape == x.shape and x.shape.is_fully_defined():
        return g
    shape = _static(x.shape)
    if shape is not None:
        return apply_op(SUM_TO, [g], {"shape": shape})
    return apply_op(SUM_LIKE, [g, x])


def broadcast_like(g, x):
    """`g` broadcast to the shape of `x`."""
    if g.shape == x.shape and x.shape.is_fully_defined():
        return g
    shape = _static(x.shape)
    if shape is not None:
        return apply_op(BROADCAST_TO, [g], {"shape": shape})
    return apply_op(BROADCAST_LIKE, [g, x])


OPS = [SUM_TO, SUM_LIKE, BROADCAST_TO, BROADCAST_LIKE]
