"""The whole order of a buffered shuffle of indices, computed at once (one permutation per
epoch) instead of by per-element buffer ops, giving the same order as the buffer does.

The buffer (shuffle.py) holds `b` indices of an input of known length `n > b`. Draw `k`
(k = 0 .. n-1) takes slot `j_k = x_k mod c_k`, where `x_k` is the generator's (k+1)-th
draw and `c_k = min(b, n - k)` the items held, and moves the last held item into that
slot; while input remains, index `b - 1 + k` is the last held item at draw `k`. So:

- steady draws (k <= n - b): draw k gives `b - 1 + k` when `j_k = b - 1`, else what
  slot `j_k` last received: `b - 1 + k'` for the latest earlier draw `k'` with the same
  slot, or the slot's first index `j_k`: a stable sort of the slots finds each draw's
  predecessor (vectorised);
- the last `b - 1` draws empty the buffer (swap with the last, shrinking): one op
  (ShuffleBufferDrain, runtime/ops/buffer_ops.py) whose kernel loops over the `b - 1`
  slots, whatever `n` is.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..ops.array_ops import concat, expand_dims, gather, reshape
from ..ops.buffer_ops import shuffle_buffer_drain
from ..ops.core import constant
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, cast, equal, floordiv, less, logical_and, mod, not_equal,
                            subtract, where)
from ..ops.scatter_ops import tensor_scatter_nd_update
from ..ops.sort_ops import argsort
from .counts import i64


def stable_order(keys, bits: int, n=None):
    """The stable argsort (int64) of int64 `keys` in [0, 2^bits), bits 15 or 31: sorted
    as int16 (numpy sorts 16-bit integers by a radix sort, ~20x faster than int64), in
    two passes (low half, then high half: stable, so the same order) for 31 bits, unless
    there are few keys (`n`, where known: below 4096 the passes' gathers cost more)."""
    if bits <= 15:
        return cast(argsort(cast(keys, dtypes.int16)), dtypes.int64)
    if n is not None and n < 4096:
        return cast(argsort(keys), dtypes.int64)
    low = cast(subtract(mod(keys, i64(1 << 16)), i64(1 << 15)), dtypes.int16)
    by_low = argsort(low)
    high = cast(floordiv(gather(keys, by_low), i64(1 << 16)), dtypes.int16)
    return cast(gather(by_low, argsort(high)), dtypes.int64)


def buffer_order(draws, n: int, b: int):
    """The n indices (int64) a buffer of `b` < `n` gives, from `draws`: the generator's
    n draws (int64, x_1 .. x_n) of this epoch."""
    steady = n - b + 1
    # the slot each draw takes: mod b while the buffer is full, then mod what it holds
    # (no constant of n counts in the graph)
    js = mod(draws[:steady], i64(b))
    tail = np.arange(b - 1, 0, -1, dtype=np.int64)
    k = rt_range(i64(0), i64(steady), i64(1))
    # stable: draws of a slot in order
    by_slot = stable_order(js, 15 if b <= 1 << 15 else 31)
    slots = gather(js, by_slot)
    same = concat([constant([False]), equal(slots[1:], slots[:-1])], 0)
    before = concat([i64([0]), by_slot[:-1]], 0)
    given = where(same, add(before, i64(b - 1)), slots)   # what each draw takes, slot-sorted
    out = tensor_scatter_nd_update(k, expand_dims(by_slot, 1), given)
    out = where(equal(js, i64(b - 1)), add(k, i64(b - 1)), out)
    if b == 1:
        return out
    # the buffer after the steady draws: each slot's last received index
    last = concat([not_equal(slots[:-1], slots[1:]), constant([True])], 0)
    keep = logical_and(last, less(slots, i64(b - 1)))
    buf = tensor_scatter_nd_update(rt_range(i64(0), i64(b), i64(1)),
                                   expand_dims(where(keep, slots, i64(b - 1)), 1),
                                   add(by_slot, i64(b - 1)))[:b - 1]
    return concat([out, shuffle_buffer_drain(reshape(buf, [b - 1]),
                                             mod(draws[steady:], constant(tail)))], 0)


def reference_order(x: int, n: int, b: int) -> list:
    """The same order by the buffer's definition, in plain Python (for tests): `x` the
    generator's state before the epoch's first draw."""
    m, a = 2147483647, 48271
    buf: list[int] = []
    out: list[int] = []
    nxt = 0
    while True:
        while len(buf) < b and nxt < n:
            buf.append(nxt)
            nxt += 1
        if not buf:
            return out
        x = x * a % m
        j = x % len(buf)
        out.append(buf[j])
        buf[j] = buf[-1]
        buf.pop()
