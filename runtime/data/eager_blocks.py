"""Eager iteration by blocks: one graph call computes the rows of many elements at once,
and the iterator hands them out one by one as views of that block (a row, or a batch's
slice of rows), wrapped in Python: no graph call, op or copy per element.

Two kinds of dataset give blocks:

- a random access dataset whose elements can be gathered many at once (`_vget`) and
  whose length is known now: `RowBlocks` reads the rows of the next `k` indices (the
  position is the index, as `Dataset._next` keeps it);
- a batch that reads its input by blocks (batch_blocks.py): `BatchBlocks` runs its
  refill, and its batches are the block's slices the batch's own step would give (the
  position is the batch's state: the block is part of it).

Each chunk gives the same elements, and the position after them, as the dataset's own
step (`Steps.step`) taken that many times; where a block has no element left (the end),
the step itself runs. The position of elements taken from a block is settled by that
step from where the block began (iterator.py).
"""
from __future__ import annotations

import numpy as np

from .. import nest
from ..core import dtypes
from ..core.tensor import EagerTensor
from ..function import function as rt_function
from ..ops.core import constant
from ..ops.makers import range as rt_range
from ..ops.math_ops import add, cast, equal, greater, minimum, multiply
from .batch_blocks import (BLOCK_BYTES, MOST_BATCHES, BlockedBatches, CarriedBatches, i32,
                           row_bytes)
from .counts import i64, is_dynamic
from .eager_steps import has_effects, steps_for
from .structure import shape_known
from .transforms import Batch, Map, Skip, Take

MOST_ROWS = 256     # the elements of one block of rows

_TRUE = EagerTensor(np.True_, dtypes.bool_)
_FALSE = EagerTensor(np.False_, dtypes.bool_)


class _Blocks:
    """What the iterator needs of a dataset's blocks, beside its single step."""

    def __init__(self, steps, element_spec):
        self.steps = steps
        self.structure = steps.structure
        self._leaves = [s.dtype for s in nest.flatten(element_spec)]
        self._single = not nest.is_nested(element_spec)
        self._spec = element_spec
        # (a plain tuple of tensors: made directly, without packing a nest)
        self._pair = (type(element_spec) is tuple and
                      all(not nest.is_nested(s) for s in element_spec))

    def step(self, base):
        return self.steps.step(base)

    def _element(self, parts):
        if self._single:
            return EagerTensor(parts[0], self._leaves[0])
        if self._pair:
            return tuple([EagerTensor(p, d) for p, d in zip(parts, self._leaves)])
        return nest.pack_sequence_as(self._spec, [
            EagerTensor(p, d) for p, d in zip(parts, self._leaves)])


class RowBlocks(_Blocks):
    """A random access dataset's elements, `k` rows at a time (see above)."""

    def __init__(self, dataset, steps, n):
        super().__init__(steps, dataset._spec)
        k = max(1, min(MOST_ROWS, BLOCK_BYTES // max(1, row_bytes(dataset._spec))))
        self._n = n
        self._k = k = k if n is None else max(1, min(k, n))
        last = None if n is None else i64(n - 1)

        def rows(i):
            at = add(i, rt_range(i64(0), i64(k), i64(1)))
            return tuple(nest.flatten(dataset._vget(at if last is None else
                                                    minimum(at, last))))
        self._fetch = rt_function(rows, autograph=False).get_concrete_function(
            constant(0, dtypes.int64))
        self.usable = not has_effects(self._fetch)

    def chunk(self, base):
        i = int(base[0])
        count = self._k if self._n is None else min(self._k, self._n - i)
        if count <= 0:
            return None
        leaves = [t._value for t in self._fetch.run_flat([base[0]])]
        if self._single:
            leaf, dtype = leaves[0], self._leaves[0]
            elements = [(_TRUE, EagerTensor(leaf[j], dtype)) for j in range(count)]
        else:
            elements = [(_TRUE, self._element([leaf[j] for leaf in leaves]))
                        for j in range(count)]
        return elements, [np.int64(i + count)]


class BatchBlocks(_Blocks):
    """A blocked batch's batches, a block at a time (see above)."""

    def __init__(self, dataset, steps, flat):
        super().__init__(steps, dataset._spec)
        blocks = dataset.blocks
        self._b = blocks.b
        self._rows = len(nest.flatten(blocks.block_spec))
        self._m = m = len(flat) - self._rows - 5
        self._k = blocks.k
        inner_structure = self.structure[0]
        self._inner_specs = flat[:m]

        def refill(*inner_flat):
            state = nest.pack_sequence_as(inner_structure, list(inner_flat))
            return tuple(nest.flatten(blocks.refill(state)))
        self._refill = rt_function(refill, autograph=False).get_concrete_function(*flat[:m])
        self.usable = not has_effects(self._refill)
        self._blocks, self._inner_structure, self._one = blocks, inner_structure, None

    def _one_batch(self, base):
        """The next batch read by itself (the input's `_next_block` of `b` rows), where a
        block's refill raised: the batches before the one whose rows raise come first,
        as a batch of each; the position is then the input's past it, with no block."""
        if self._one is None:
            blocks, structure = self._blocks, self._inner_structure

            def one(*inner_flat):
                state = nest.pack_sequence_as(structure, list(inner_flat))
                count, rows, state = blocks.inner._next_block(state, blocks.b)
                count = cast(count, dtypes.int32)
                valid = (equal(count, i32(blocks.b)) if blocks.drop else
                         greater(count, i32(0)))
                rows = nest.map_structure(lambda t: t[:count], rows)
                return (valid, *nest.flatten(rows), *nest.flatten(state))
            self._one = rt_function(one, autograph=False).get_concrete_function(
                *[EagerTensor(v, t.dtype) for v, t in zip(base[:self._m], self._inner_specs)])
        m, r = self._m, self._rows
        out = [t._value for t in self._one.run_flat(base[:m])]
        if not out[0]:
            return None             # (the step itself says what the end is)
        element = self._element(out[1:1 + r])
        return [(_TRUE, element)], out[1 + r:] + base[m:m + r] + [
            np.int32(0), np.int32(0), np.int32(-1), np.int32(0), np.True_]

    def chunk(self, base):
        m, r = self._m, self._rows
        count, ready, partial, j, more = (int(v) for v in base[m + r:])
        if j >= ready:
            if more:
                try:
                    refilled = self._refill.run_flat(base[:m])
                except Exception:   # noqa: BLE001 - the batches before the error first
                    return self._one_batch(base)
                base = [t._value for t in refilled]
                count, ready, partial, j, more = (int(v) for v in base[m + r:])
            if ready == 0 or not more and j >= ready:
                # the end: as the step, a batch that is not valid
                parts = [leaf[0] for leaf in base[m:m + r]]
                return [(_FALSE, self._element(parts))], base[:m + r] + [
                    np.int32(count), np.int32(0), np.int32(-1), np.int32(1), np.bool_(more)]
        return self._batches(base, count, ready, partial, j)

    def _batches(self, base, count, ready, partial, j):
        """The block's batches `j .. ready - 1` (a view each), and the position after."""
        m, r = self._m, self._rows
        rows = base[m:m + r]
        if self._single:
            leaf, dtype = rows[0], self._leaves[0]
            elements = [(_TRUE, EagerTensor(leaf[i], dtype)) for i in range(j, ready)]
        else:
            elements = [(_TRUE, self._element([leaf[i] for leaf in rows]))
                        for i in range(j, ready)]
        if j <= partial < ready:        # the input's last rows
            b = self._b
            cut = [leaf.reshape((self._k * b,) + leaf.shape[2:])[partial * b:count]
                   for leaf in rows]
            elements[partial - j] = (_TRUE, self._element(cut))
        return elements, base[:m + r + 3] + [np.int32(ready), base[-1]]


class CarriedBlocks(BatchBlocks):
    """A batch's batches where the rows left over from a block are carried into the next
    (batch_blocks.py, `CarriedBatches`): its refill is of the whole position, run while
    no batch is ready and the input may have more, as its step runs it."""

    def __init__(self, dataset, steps, flat):
        _Blocks.__init__(self, steps, dataset._spec)
        blocks = dataset.blocks
        self._b, self._k = blocks.b, blocks.k
        self._rows = len(nest.flatten(blocks.block_spec))
        self._m = len(flat) - self._rows - 5
        structure = self.structure

        def refill(*flat):
            state = nest.pack_sequence_as(structure, list(flat))
            return tuple(nest.flatten(blocks.refill(state)))
        self._refill = rt_function(refill, autograph=False).get_concrete_function(*flat)
        # (a refill may start an epoch of a repeat again: a shuffle's count of its
        # iterations goes up, at the batch where the step would do it; the chunk says
        # the position its batches begin at, past the refill, so that it runs once)
        self.usable = True

    def chunk(self, base):
        m, r = self._m, self._rows
        count, ready, partial, j, more = (int(v) for v in base[m + r:])
        while j >= ready and more:
            base = [t._value for t in self._refill.run_flat(base)]
            count, ready, partial, j, more = (int(v) for v in base[m + r:])
        if j >= ready:      # the end: as the step, a batch that is not valid
            parts = [leaf[min(j, self._k - 1)] for leaf in base[m:m + r]]
            return [(_FALSE, self._element(parts))], base[:m + r + 3] + [
                np.int32(j + 1), base[-1]], base
        elements, end = self._batches(base, count, ready, partial, j)
        return elements, end, base


class IndexedBatches(_Blocks):
    """A random access batch's batches (its input's rows gathered, `_vget`), and maps of
    them whose function is elementwise over a batch's rows: the rows of `k` batches
    read at once, the maps applied to them once, each batch a view of `b` of them (the
    last, where the input's length is not a multiple of `b` and the remainder is kept,
    fewer). The position is the batch's index, as `Dataset._next` keeps it."""

    def __init__(self, dataset, steps, chain):
        super().__init__(steps, dataset._spec)
        batch, maps = chain
        inner, b = batch._inner, batch._b
        self._b, self._n, self._batches = b, inner._length(), dataset._length()
        k = max(1, min(MOST_BATCHES, BLOCK_BYTES // max(1, b * row_bytes(inner._spec))))
        self._k = k = k if self._batches is None else max(1, min(k, self._batches))
        last = None if self._n is None else i64(self._n - 1)

        def rows(i):
            at = add(multiply(i, i64(b)), rt_range(i64(0), i64(k * b), i64(1)))
            block = inner._vget(at if last is None else minimum(at, last))
            for fn in maps:
                block = fn(block)
            return tuple(nest.flatten(block))
        self._fetch = rt_function(rows, autograph=False).get_concrete_function(
            constant(0, dtypes.int64))
        self.usable = not has_effects(self._fetch)

    def chunk(self, base):
        i = int(base[0])
        count = self._k if self._batches is None else min(self._k, self._batches - i)
        if count <= 0:
            return None
        leaves = [t._value for t in self._fetch.run_flat([base[0]])]
        b = self._b
        left = None if self._n is None else self._n - i * b       # the input's rows left
        elements = []
        for j in range(count):
            stop = (j + 1) * b if left is None else min((j + 1) * b, left)
            elements.append((_TRUE, self._element([leaf[j * b:stop] for leaf in leaves])))
        return elements, [np.int64(i + count)]


class TakenBlocks(_Blocks):
    """The first `count` elements of a dataset that gives blocks (a take that is not
    random access: its position is (the elements taken, the input's position)): the
    input's chunks, cut where the count is reached. Past the count the take's step
    reads no more of its input, so the input's position at a cut chunk's end (past
    elements not given) is never read."""

    def __init__(self, dataset, steps, inner):
        super().__init__(steps, dataset._spec)
        self._count, self._inner = dataset._c, inner
        self.usable = True

    def chunk(self, base):
        taken = int(base[0])
        if 0 <= self._count <= taken:
            return None             # (the step gives the end)
        got = self._inner.chunk(base[1:])
        if got is None:
            return None
        elements, end = got[0], got[1]
        start = got[2] if len(got) > 2 else base[1:]
        if self._count >= 0:
            elements = elements[:self._count - taken]
        return (elements, [np.int64(taken + len(elements))] + end,
                [np.int64(taken)] + start)


def indexed_batches(dataset):
    """(the random access batch, the maps after it) where `dataset` is such a batch, or
    maps of one, whose input gathers rows (`_vget`) of known shapes and length: else
    None."""
    maps = []
    while isinstance(dataset, Map) and dataset._random_access:
        fn = dataset.rows_function()
        if fn is None:
            return None
        maps.insert(0, fn)
        dataset = dataset._inner
    if not (isinstance(dataset, Batch) and dataset.blocks is None and
            dataset._random_access and shape_known(dataset._inner._spec) and
            not is_dynamic(dataset._inner._length())):
        return None
    return dataset, maps


def blocks_for(dataset, steps, flat):
    """The dataset's blocks (made once, kept on it) for the position `flat` whose single
    step is `steps`, or None where they do not apply (see above)."""
    cached = dataset.__dict__.get("_eager_blocks")
    if cached is None:
        cached = _make(dataset, steps, flat) or False
        dataset.__dict__["_eager_blocks"] = cached
    return cached or None


def may_give_blocks(dataset) -> bool:
    """Whether the dataset is of a kind that gives blocks (see above)."""
    if isinstance(getattr(dataset, "blocks", None), BlockedBatches):
        return True
    if indexed_batches(dataset) is not None:
        return True
    if isinstance(dataset, (Take, Skip)) and not dataset._random_access:
        return may_give_blocks(dataset._inner)
    # (rows of numbers: an element is a numpy scalar or a view, as the executor gives)
    return (dataset._random_access and hasattr(dataset, "_vget") and
            shape_known(dataset._spec) and not is_dynamic(dataset._length()) and
            all(s.dtype.np_dtype.kind in "biufc" for s in nest.flatten(dataset._spec)))


def _make(dataset, steps, flat):
    if not may_give_blocks(dataset):
        return None
    if isinstance(getattr(dataset, "blocks", None), BlockedBatches):
        kind = CarriedBlocks if isinstance(dataset.blocks, CarriedBatches) else BatchBlocks
        made = kind(dataset, steps, flat)
        return made if made.usable else None
    if isinstance(dataset, (Take, Skip)) and not dataset._random_access:
        # a skip's position and step are its input's; a take's hold its input's
        inner_flat = flat if isinstance(dataset, Skip) else flat[1:]
        structure = steps.structure if isinstance(dataset, Skip) else steps.structure[1]
        position = nest.pack_sequence_as(structure, list(inner_flat))
        inner_steps = steps_for(dataset._inner, position, chunks=False)
        inner = inner_steps and blocks_for(dataset._inner, inner_steps, inner_flat)
        if not inner or isinstance(dataset, Skip):
            return inner or None
        return TakenBlocks(dataset, steps, inner)
    chain = indexed_batches(dataset)
    if chain is not None:
        if len(flat) != 1 or dataset._length() == 0:
            return None
        made = IndexedBatches(dataset, steps, chain)
        return made if made.usable else None
    n = dataset._length()
    if n == 0 or len(flat) != 1:
        return None
    made = RowBlocks(dataset, steps, n)
    return made if made.usable else None
