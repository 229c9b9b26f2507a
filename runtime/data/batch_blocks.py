"""A batch of an input that gives many elements at once (`_next_block`: a shuffle of known
length, a vectorised map of one) reads the rows of several batches in one block and
gives each batch as a slice of it.

Reading `k` batches' rows at once runs the input's gathers and map once per block on
`k * b` rows instead of once per batch, and the batch's step is then a few scalar ops
and an index: the state carries the block, the number of its rows that are valid, the
number of batches it holds, which one is partial, the next one, and whether the input
may have more; a `cond` refills it when its batches are used up (unless the input has ended: a block of fewer rows than asked for was its
last). The rows and their order are the input's: the batches are the same as one
`_next_block(state, b)` per batch gives.

The block is `[k, b, ...]` and a batch is `block[j]`: a shape XLA knows where every batch
is full (`drop_remainder`, or an input whose length is a multiple of the batch size);
else a `cond` gives the one partial batch (the input's last rows) as a slice of them.

`k` keeps a block within `BLOCK_BYTES` and `MOST_BATCHES` (memory, and the time to the
first batch), and within the input's length where it is known.
"""
from __future__ import annotations

import numpy as np

from .. import nest
from ..control_flow import cond, while_loop
from ..core import dtypes
from ..ops.array_ops import gather, reshape
from ..ops.core import constant
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, cast, equal, floordiv, greater_equal, less, logical_and,
                            logical_not, maximum, minimum, mod, multiply, subtract, where)
from .counts import is_dynamic
from .structure import batched_spec, zeros_for

BLOCK_BYTES = 1 << 20
MOST_BATCHES = 64


def i32(n):
    """`n` as an int32 scalar tensor (the block's counts)."""
    return constant(n, dtypes.int32)


def row_bytes(spec) -> int:
    """The bytes of one element of `spec` (fully known shapes)."""
    total = 0
    for s in nest.flatten(spec):
        total += int(np.prod(s.shape.as_list(), dtype=np.int64)) * s.dtype.np_dtype.itemsize
    return total


class BlockedBatches:
    """The state machine of `inner.batch(b, drop)` reading blocks (see above)."""

    def __init__(self, inner, b: int, drop: bool):
        self.inner, self.b, self.drop = inner, b, drop
        k = max(1, min(MOST_BATCHES, BLOCK_BYTES // max(1, b * row_bytes(inner._spec))))
        n = inner._cardinality()
        known = not is_dynamic(n) and n >= 0
        if known:
            k = min(k, max(1, -(-n // b)))
        self.k = k
        # every batch full: each is `block[j]`, of a shape known while compiling
        self.full = drop or (known and n % b == 0)
        self.block_spec = batched_spec(batched_spec(inner._spec, b), k)

    def init(self, inner_state):
        """(the input's state, the block, its valid rows, its batches, the one that is
        partial (-1: none), the next batch, whether the input may have more)."""
        zero = i32(0)
        return (inner_state, zeros_for(self.block_spec), zero, zero, i32(-1), zero,
                constant(True))

    def refill(self, inner_state):
        """The next block, and the state at its first batch (see `init`)."""
        b, k = self.b, self.k
        count, rows, inner_state = self.inner._next_block(inner_state, k * b)
        rows = nest.map_structure(
            lambda t, s: reshape(t, [k, b] + s.shape.as_list()), rows, self.inner._spec)
        count = cast(count, dtypes.int32)
        if self.drop:
            ready, partial = floordiv(count, i32(b)), i32(-1)
        else:
            ready = floordiv(add(count, i32(b - 1)), i32(b))
            partial = where(equal(mod(count, i32(b)), i32(0)), i32(-1),
                            subtract(ready, i32(1)))
        return (inner_state, rows, count, ready, partial, i32(0),
                equal(count, i32(k * b)))

    def next(self, state):
        inner_state, rows, count, ready, partial, j, more = state

        def refill_or_end():
            return cond(more, lambda: self.refill(inner_state),
                        lambda: (inner_state, rows, count, i32(0), i32(-1), i32(0), more))
        inner_state, rows, count, ready, partial, j, more = cond(
            greater_equal(j, ready), refill_or_end, lambda: tuple(state))
        valid = less(j, ready)
        whole = nest.map_structure(lambda t: t[j], rows)
        batch = self.batch_at(rows, count, partial, j, whole)
        return valid, batch, (inner_state, rows, count, ready, partial, add(j, i32(1)), more)


    def batch_at(self, rows, count, partial, j, whole):
        """Batch `j` of the block: `whole` (row j of the [k, b, ...] block), or where j is
        the `partial` batch (the input's length not a multiple of b), its rows up to the
        block's `count`."""
        if self.full:
            return whole

        def part():
            start = multiply(j, i32(self.b))
            return nest.map_structure(
                lambda t, s: reshape(t, [self.k * self.b] + s.shape.as_list())[start:count],
                rows, self.inner._spec)
        return cond(equal(j, partial), part, lambda: whole)


class CarriedBatches(BlockedBatches):
    """`inner.batch(b, drop)` over an input whose blocks may be short before its end
    (block_rows.py: a filter, a repeat): the rows of a block that fill no whole batch
    are carried to the front of the next block, so every batch but the last holds `b`
    rows, as the element by element batch fills them (a batch may span two epochs of a
    repeat, as tf.data's). The block has one batch more than is read at once (`k - 1`
    batches' rows read, and up to `b - 1` carried); a refill repeats while no whole
    batch is ready and the input may have more."""

    def __init__(self, inner, rows, b: int, drop: bool, most=None):
        self.rows = rows
        super().__init__(inner, b, drop)
        # (no more rows read at once than the input may give: `most`, where known)
        self.read = self.k if most is None else max(1, min(self.k, -(-most // b)))
        self.k = self.read + 1
        self.full = drop
        self.block_spec = batched_spec(batched_spec(inner._spec, b), self.k)

    def refill(self, state):
        """The state with the next block read (see `BlockedBatches.init`)."""
        inner_state, rows, count, ready, _, _, _ = state
        b, k = self.b, self.k
        cells = k * b
        carried = subtract(count, multiply(ready, i32(b)))      # (< b rows)
        got, more, fresh, inner_state = self.rows(inner_state, self.read * b)
        got = cast(got, dtypes.int32)
        p = rt_range(i32(0), i32(cells), i32(1))
        old_at = minimum(add(p, multiply(ready, i32(b))), i32(cells - 1))
        new_at = minimum(maximum(subtract(p, carried), i32(0)), i32(self.read * b - 1))
        before = less(p, carried)

        def combine(old, new, spec):
            shape = spec.shape.as_list()
            old = reshape(old, [cells] + shape)
            picked = where(reshape(before, [cells] + [1] * len(shape)),
                           gather(old, old_at), gather(new, new_at))
            return reshape(picked, [k, b] + shape)
        rows = nest.map_structure(combine, rows, fresh, self.inner._spec)
        count = add(carried, got)
        whole = floordiv(count, i32(b))
        if self.drop:
            ready, partial = whole, i32(-1)
        else:
            last = floordiv(add(count, i32(b - 1)), i32(b))
            ready = where(more, whole, last)
            partial = where(logical_and(logical_not(more), less(whole, last)),
                            subtract(last, i32(1)), i32(-1))
        return (inner_state, rows, count, ready, partial, i32(0), more)

    def next(self, state):
        def wanting(*s):
            return logical_and(greater_equal(s[5], s[3]), s[6])
        state = while_loop(wanting, lambda *s: self.refill(s), tuple(state))
        inner_state, rows, count, ready, partial, j, more = state
        valid = less(j, ready)
        at = minimum(j, i32(self.k - 1))          # (past the end: a row not used)
        whole = nest.map_structure(lambda t: t[at], rows)
        batch = self.batch_at(rows, count, partial, j, whole)
        return valid, batch, (inner_state, rows, count, ready, partial, add(j, i32(1)), more)
