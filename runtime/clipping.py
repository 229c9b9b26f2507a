"""`rt.clip_by_norm`, `rt.clip_by_global_norm` and `rt.linalg.global_norm`, with
TensorFlow's formulas (tensorflow/python/ops/clip_ops.py), composed
from the public ops (so gradients, XLA, ONNX and saving come with them).

    grads, norm = rt.clip_by_global_norm(tape.gradient(loss, vs), 5.0)
"""
from __future__ import annotations

from typing import Optional

from .core.tensor import Tensor
from .ops.array_ops import stack
from .ops.core import convert_to_tensor, ones_like
from .ops.math_ops import cast, greater, maximum, minimum, sqrt, where
from .ops.reduce_ops import reduce_sum

__all__ = ["clip_by_norm", "clip_by_global_norm", "global_norm"]


def _tensor(t):
    if hasattr(t, "read_value"):    # a Variable
        return t.read_value()
    return convert_to_tensor(t)


def clip_by_norm(t, clip_norm, axes=None, name: Optional[str] = None):
    """`t * clip_norm / max(l2norm(t), clip_norm)`, the L2 norm taken over `axes` (every
    axis by default) and broadcast back (TensorFlow's `tf.clip_by_norm`). A zero norm gives
    `t` unchanged (and a finite gradient).

    Args:
      t: a float tensor.
      clip_norm: a positive scalar, the largest norm kept.
      axes: the axes the norm is taken over (an int or a list), None for all.
      name: unused (TensorFlow's argument).

    >>> print(rt.clip_by_norm(rt.constant([3.0, 4.0]), 1.0))
    rt.Tensor([0.6 0.8], shape=(2,), dtype=float32)
    >>> print(rt.clip_by_norm(rt.constant([[3.0, 0.0], [0.0, 0.5]]), 1.0, axes=1))
    rt.Tensor(
    [[1.  0. ]
     [0.  0.5]], shape=(2, 2), dtype=float32)
    """
    t = _tensor(t)
    clip_norm = cast(convert_to_tensor(clip_norm, dtype_hint=t.dtype), t.dtype)
    l2sum = reduce_sum(t * t, axis=axes, keepdims=True)
    positive = greater(l2sum, 0)
    l2norm = where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)
    return t * clip_norm / maximum(l2norm, clip_norm)


def global_norm(t_list, name: Optional[str] = None):
    """`sqrt(sum(sum(t**2) for t in t_list))`, None entries left out (TensorFlow's
    `tf.linalg.global_norm`).

    >>> print(rt.linalg.global_norm([rt.constant([3.0]), None, rt.constant([4.0])]))
    rt.Tensor(5.0, shape=(), dtype=float32)
    """
    if isinstance(t_list, (Tensor, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"t_list should be a sequence of tensors, got {t_list!r}")
    values = [_tensor(t) for t in t_list if t is not None]
    if not values:
        return convert_to_tensor(0.0)
    dtype = values[0].dtype
    half = [reduce_sum(cast(v, dtype) * cast(v, dtype)) for v in values]
    return sqrt(reduce_sum(stack(half)))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name: Optional[str] = None):
    """Scales every tensor of `t_list` by `clip_norm / max(global_norm, clip_norm)`
    (TensorFlow's `tf.clip_by_global_norm`): `t * clip_norm * min(1 / global_norm,
    1 / clip_norm)`. None entries stay None. An infinite or NaN norm makes every value NaN,
    as TensorFlow's.

    Args:
      t_list: a list (or tuple) of tensors or None.
      clip_norm: a positive scalar.
      use_norm: the global norm to use (else computed by `global_norm`).
      name: unused (TensorFlow's argument).

    Returns:
      (the list of clipped tensors, the global norm used).

    >>> clipped, norm = rt.clip_by_global_norm([rt.constant([3.0]), None,
    ...                                         rt.constant([4.0])], 1.0)
    >>> print(clipped[0], clipped[1], clipped[2], norm)
    rt.Tensor([0.6], shape=(1,), dtype=float32) None rt.Tensor([0.8], shape=(1,), dtype=float32) rt.Tensor(5.0, shape=(), dtype=float32)
    """
    if isinstance(t_list, (Tensor, str)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"t_list should be a sequence, got {t_list!r}")
    values = [None if t is None else _tensor(t) for t in t_list]
    norm = global_norm(values) if use_norm is None else _tensor(use_norm)
    clip = cast(convert_to_tensor(clip_norm, dtype_hint=norm.dtype), norm.dtype)
    scale = clip * minimum(1.0 / norm, 1.0 / clip)
    scale = scale + (norm - norm)      # NaN for an infinite or NaN norm
    out = [None if t is None else t * cast(scale, t.dtype) for t in values]
    return out, norm
