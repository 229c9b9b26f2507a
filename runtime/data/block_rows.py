"""Inputs that give up to `k` elements at once, with a flag saying whether more may come:
`rows(state, k) -> (count, more, rows, state)`, the rows a batch of `k` (the first
`count` valid), `more` False once the input has ended (a later call gives 0 rows and
False again). Unlike `_next_block` (batch_blocks.py), a block may be short, or empty,
before the end: a filter keeps some of its input's rows, a repeat ends a block where an
epoch ends and starts the next epoch at the next call. A batch over such an input
carries the rows left over from one block into the next (`CarriedBatches`).

A source of such blocks:

- a dataset that defines `_next_rows` (a filter, a repeat, a map of one);
- one with `_next_block`: `more` while the block is full;
- a random access dataset with `_vget` whose length is known now: the rows at the next
  `k` indices, its position the index (`Dataset._init`, as its `_next` keeps it).
"""
from __future__ import annotations

from .. import nest
from ..control_flow import cond
from ..core import dtypes
from ..ops.array_ops import gather
from ..ops.core import constant
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, cast, equal, greater, less, logical_and, logical_not,
                            logical_or, maximum, minimum, subtract)
from ..ops.reduce_ops import reduce_sum
from ..ops.sort_ops import argsort
from .counts import i64, is_dynamic
from .structure import batched_spec, zeros_for


def rows_source(dataset):
    """`dataset`'s blocks as `(state, k) -> (count, more, rows, state)`, or None where
    it gives none (see above)."""
    if hasattr(dataset, "_next_rows"):
        return dataset._next_rows
    if hasattr(dataset, "_next_block"):
        def full(state, k):
            count, rows, state = dataset._next_block(state, k)
            return count, equal(count, i64(k)), rows, state
        return full
    if dataset._random_access and hasattr(dataset, "_vget"):
        n = dataset._length()
        if is_dynamic(n):
            return None
        return lambda state, k: _indexed(dataset, n, state, k)
    return None


def most_rows(dataset):
    """The most elements `dataset` gives, where known now (its cardinality, or the bound
    a filter or a map of one keeps from its input: `_most_rows`), else None."""
    n = dataset._cardinality()
    if not is_dynamic(n) and n >= 0:
        return n
    return getattr(dataset, "_most_rows", None)


class IndexedRows:
    """A random access dataset of length known now, read `k` rows at a time by index as
    `_next_block` gives them (batch_blocks.py): its position the index."""

    def __init__(self, dataset):
        self.dataset = dataset
        self._spec = dataset._spec

    def _cardinality(self):
        return self.dataset._cardinality()

    def _next_block(self, state, k: int):
        count, _, rows, state = _indexed(self.dataset, self.dataset._length(), state, k)
        return count, rows, state


def _indexed(dataset, n, state, k: int):
    """The rows at indices `i .. i + k - 1` of a random access dataset of length `n`
    (None: infinite), past its end the last row repeated (not counted)."""
    i = state[0]
    at = add(i, rt_range(i64(0), i64(k), i64(1)))
    if n is None:
        return i64(k), constant(True), dataset._vget(at), (add(i, i64(k)),)
    if n == 0:
        return i64(0), constant(False), zeros_for(batched_spec(dataset._spec, k)), state
    count = maximum(minimum(subtract(i64(n), i), i64(k)), i64(0))
    rows = dataset._vget(minimum(at, i64(n - 1)))
    moved = add(i, count)
    return count, less(moved, i64(n)), rows, (moved,)


def filtered(source, keeps, spread):
    """The blocks of a filter: the input's block (from `source`), the rows `keeps` (the
    predicate on a batch of elements, vectorize.py) holds for moved to its front in
    their order (a stable sort on the mask), and their count."""
    def rows(state, k):
        count, more, block, state = source(state, k)
        valid = less(rt_range(i64(0), i64(k), i64(1)), count)
        mask = logical_and(spread(keeps, block), valid)
        order = argsort(cast(logical_not(mask), dtypes.int16))     # (a radix sort)
        kept = reduce_sum(cast(mask, dtypes.int64))
        return kept, more, nest.map_structure(lambda t: gather(t, order), block), state
    return rows


def mapped(source, many, spread):
    """The blocks of a map whose function is applied to a batch of elements at once."""
    def rows(state, k):
        count, more, block, state = source(state, k)
        return count, more, spread(many, block), state
    return rows


def repeated(dataset, source, count_limit: int):
    """The blocks of `dataset.repeat(count_limit)` (-1: forever) over an input giving
    blocks (`source`), its state `(repetition, base epoch, the input's state, fresh)`:
    `fresh` while the epoch began by a restart has given no row.

    As the element by element repeat: where the input has ended and a row is asked for,
    the input starts again (its `_init` of the next epoch, which the element by element
    repeat calls at the same point of the sequence: when a row past the epoch's end is
    needed); an epoch so begun that gives no row at all ends the repeat. A block that
    ends an epoch with rows ends there (the next call starts the next epoch)."""
    inner = dataset._inner

    def may_restart(rep):
        return constant(True) if count_limit < 0 else less(add(rep, i64(1)), i64(count_limit))

    def going(count, more, rep):
        """Whether rows may follow: the input's, or its next epoch's after these rows."""
        return logical_or(more, logical_and(greater(count, i64(0)), may_restart(rep)))

    def rows(state, k):
        rep, base, s, fresh = state
        count, more, block, s = source(s, k)
        fresh = logical_and(fresh, equal(count, i64(0)))
        got_none = logical_and(equal(count, i64(0)), logical_not(more))
        restart = logical_and(logical_and(got_none, logical_not(fresh)), may_restart(rep))

        def again():
            following = add(rep, i64(1))
            c2, more2, block2, s2 = source(inner._init(add(base, following)), k)
            return c2, going(c2, more2, following), block2, s2, following, equal(c2, i64(0))

        def stay():
            return count, going(count, more, rep), block, s, rep, fresh

        count, more, block, s, rep, fresh = cond(restart, again, stay)
        return count, more, block, (rep, base, s, fresh)
    return rows
