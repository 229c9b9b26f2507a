"""The last draws of a shuffle buffer as one op (ShuffleBufferDrain): once its input is
exhausted, a buffer of `m` held items is emptied by `m` draws, each taking the item at its
slot and moving the last held item there (the buffer shrinks by one). Step by step the
draws are a loop of `m` iterations of several ops; here one kernel (a Python loop over
`m` integers, or a `fori_loop` under XLA) gives the same order.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..errors import InvalidArgumentError
from .core import OpDef, apply_op, convert_to_tensor


def _infer(inputs):
    held, slots = inputs
    for t, what in ((held, "held"), (slots, "slots")):
        if t.dtype is not dtypes.int64:
            raise InvalidArgumentError(f"shuffle_buffer_drain: {what} must be int64, got "
                                       f"{t.dtype.name}")
        if t.shape.rank is not None and t.shape.rank != 1:
            raise InvalidArgumentError(f"shuffle_buffer_drain: {what} must be a vector, got "
                                       f"shape {t.shape}")
    a, b = held.shape, slots.shape
    if a.rank == 1 and b.rank == 1 and None not in (a[0], b[0]) and a[0] != b[0]:
        raise InvalidArgumentError(f"shuffle_buffer_drain: {a[0]} items held but {b[0]} "
                                   f"draws")
    return [(a if a.rank == 1 and a[0] is not None else b, dtypes.int64)]


def drain(held, slots):
    """The numpy kernel: `out[t] = cur[slots[t]]`, then `cur[slots[t]] = cur[m - 1 - t]`,
    for t = 0 .. m-1 from `cur = held`."""
    held, slots = np.asarray(held), np.asarray(slots)
    m = held.shape[0]
    if slots.shape[0] != m:
        raise InvalidArgumentError(f"shuffle_buffer_drain: {m} items held but "
                                   f"{slots.shape[0]} draws")
    if m and not np.all((slots >= 0) & (slots < m - np.arange(m))):
        raise InvalidArgumentError("shuffle_buffer_drain: draw t must take one of the "
                                   "m - t slots still held")
    cur, js, out = held.tolist(), slots.tolist(), [0] * m
    end = m - 1
    for t in range(m):
        j = js[t]
        out[t] = cur[j]
        cur[j] = cur[end]
        end -= 1
    return np.array(out, dtype=np.int64).reshape(m)


BUFFER_DRAIN = OpDef("ShuffleBufferDrain", _infer, drain, allocates=True,
                     grad=lambda inputs, outputs, grads: [None, None])  # integer positions


def shuffle_buffer_drain(held, slots):
    """The order in which draws `slots` empty a buffer holding `held` (int64 vectors of one
    length m; draw t takes slot `slots[t] < m - t` and moves the last held item there).

    >>> from runtime.ops.buffer_ops import shuffle_buffer_drain
    >>> print(shuffle_buffer_drain(rt.constant([10, 11, 12], rt.int64),
    ...                            rt.constant([1, 0, 0], rt.int64)))
    rt.Tensor([11 10 12], shape=(3,), dtype=int64)
    """
    held = convert_to_tensor(held, dtypes.int64)
    slots = convert_to_tensor(slots, dtypes.int64)
    return apply_op(BUFFER_DRAIN, [held, slots], {})


OPS = [BUFFER_DRAIN]
