"""Dataset transformations. Each is random access where its input is (a map, take, skip,
repeat, zip or batch of tensor slices computes the element at an index) and otherwise a
staged iterator whose `_next` is a small graph (a filter's inner loop, a batch's fill
loop, a shuffle buffer): either way a `for` over the dataset is one staged loop."""
from __future__ import annotations

from .. import nest
from ..control_flow import cond, while_loop
from ..core import dtypes
from ..core.shapes import TensorShape, TensorSpec
from ..errors import InvalidArgumentError
from ..ops.array_ops import expand_dims, reshape
from ..ops.core import constant
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, cast, equal, greater, greater_equal, less, less_equal,
                            logical_and, logical_not, minimum, mod, multiply, where)
from .base import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, kind, static_count
from .batch_blocks import BlockedBatches, CarriedBatches
from .block_rows import IndexedRows, filtered, mapped, most_rows, repeated, rows_source
from .counts import (NO_END, cardinality_of, ceil_quotient, choose, i64, is_dynamic, is_zero,
                     largest, minus, quotient, smallest, times)
from .structure import TracedFunction, batched_spec, shape_known, zeros_for
from .vectorize import vectorized


def _block_map(many, inner, state, k):
    count, rows, state = inner._next_block(state, k)
    return count, _spread(many, rows), state


def _spread(fn, element):
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        return fn(*element)
    return fn(element)


class Transformed(Dataset):
    """A dataset made from one other, `inner` (map, filter, batch, take, skip, repeat,
    shuffle): its element spec and kind of access to start from."""

    def __init__(self, inner):
        if not isinstance(inner, Dataset):
            raise TypeError(f"expected an rt.data.Dataset, got {inner!r}")
        self._inner = inner
        self._spec = inner._spec
        self._random_access = inner._random_access
        self._source_is_python = inner._source_is_python

    def _init(self, epoch):
        return Dataset._init(self, epoch) if self._random_access else self._inner._init(epoch)


@kind
class Map(Transformed):
    def __init__(self, inner, fn):
        super().__init__(inner)
        self._fn = TracedFunction(fn, inner._spec, "map: map_func")
        self._spec = self._fn.output_spec
        if hasattr(inner, "_vget") or hasattr(inner, "_next_block"):
            many = vectorized(self._fn)     # the function on a batch of elements at once
            if many is not None and hasattr(inner, "_vget"):
                self._vget = lambda idx: _spread(many, inner._vget(idx))
            if many is not None and hasattr(inner, "_next_block"):
                self._next_block = lambda state, k: _block_map(many, inner, state, k)
        if hasattr(inner, "_next_rows"):
            many = vectorized(self._fn)
            if many is not None:
                self._next_rows = mapped(inner._next_rows, many, _spread)
                self._most_rows = most_rows(inner)

    def _cardinality(self):
        return self._inner._cardinality()

    def _length(self):
        return self._inner._length()

    def rows_function(self):
        """The function on the rows of many of its input's elements at once, where each
        element is a batch of rows and the function is elementwise over them
        (vectorize.py), else None: made once."""
        if "_rows_fn" not in self.__dict__:
            many = vectorized(self._fn, rows=True)
            self._rows_fn = None if many is None else (lambda e: _spread(many, e))
        return self._rows_fn

    def _get(self, i):
        return _spread(self._fn, self._inner._get(i))

    def _staged_plan(self):
        """A map of a batch read by blocks in a staged `for` (see `Batch.indexed_blocks`):
        the function applied to each of the batch's elements as its plan gives them."""
        inner = below = self._inner
        while isinstance(below, Map):
            below = below._inner
        if not (isinstance(below, Batch) and below.indexed_blocks() is not None):
            return super()._staged_plan()
        _, first, following = inner._staged_plan()
        fn = self._fn

        def mapped_step(step):
            valid, element, state = step
            return valid, _spread(fn, element), state
        return ("iterator", lambda: mapped_step(first()),
                lambda state: mapped_step(following(state)))

    def _next(self, state):
        if self._random_access:
            return Dataset._next(self, state)
        valid, element, state = self._inner._next(state)
        return valid, _spread(self._fn, element), state


@kind
class Filter(Transformed):
    def __init__(self, inner, predicate):
        super().__init__(inner)
        self._random_access = False
        self._pred = TracedFunction(predicate, inner._spec, "filter: predicate")
        out = self._pred.output_spec
        if not isinstance(out, TensorSpec) or out.dtype is not dtypes.bool_ or \
                out.shape.rank not in (0, None):
            raise ValueError(f"filter: predicate must return a scalar bool tensor, got {out}")
        # an input giving many elements at once, a predicate on many at once: blocks of
        # the rows kept (block_rows.py)
        source = rows_source(inner) if shape_known(inner._spec) else None
        keeps = vectorized(self._pred) if source is not None else None
        if keeps is not None:
            self._next_rows = filtered(source, keeps, _spread)
            self._most_rows = most_rows(inner)

    def _cardinality(self):
        n = self._inner._cardinality()
        return n if _is(n, INFINITE_CARDINALITY) else UNKNOWN_CARDINALITY

    def _next(self, state):
        inner, pred = self._inner, self._pred

        def body(valid, keep, element, s):
            valid, element, s = inner._next(s)
            keep = cond(valid, lambda: _spread(pred, element), lambda: constant(False))
            return valid, keep, element, s

        # (an element of unknown dimensions starts as zeros with 0 there: its spec's shape
        # is the invariant it keeps)
        invariants = (TensorShape([]), TensorShape([]),
                      nest.map_structure(lambda spec: spec.shape, self._spec),
                      nest.map_structure(lambda t: t.shape, state))
        out = while_loop(lambda v, k, e, s: logical_and(v, logical_not(k)), body,
                         (constant(True), constant(False), zeros_for(self._spec), state),
                         shape_invariants=invariants)
        return out[0], out[2], out[3]


@kind
class Batch(Transformed):
    def __init__(self, inner, batch_size, drop_remainder):
        super().__init__(inner)
        self._b = static_count(batch_size, "batch: batch_size")
        if self._b <= 0:
            raise InvalidArgumentError(f"batch: batch_size must be greater than zero, got "
                                       f"{self._b}")
        self._drop = bool(drop_remainder)
        self._spec = batched_spec(inner._spec, self._b if self._drop else None)
        self._random_access = inner._random_access and hasattr(inner, "_vget")
        if not self._random_access and not shape_known(inner._spec):
            raise ValueError(f"batch: the elements' shapes must be fully known to batch them, "
                             f"got {inner._spec}; map them to a fixed shape first")
        # an input giving many elements at once: blocks of several batches (batch_blocks.py)
        self.blocks = None
        if not self._random_access and hasattr(inner, "_next_rows"):
            self.blocks = CarriedBatches(inner, inner._next_rows, self._b, self._drop,
                                         most_rows(inner))
        elif not self._random_access and hasattr(inner, "_next_block"):
            self.blocks = BlockedBatches(inner, self._b, self._drop)

    def _cardinality(self):
        if self._random_access:
            return cardinality_of(self._length())
        n = self._inner._cardinality()
        if _negative(n):
            return n
        return quotient(n, self._b) if self._drop else ceil_quotient(n, self._b)

    def indexed_blocks(self):
        """A random access batch whose input gathers rows (`_vget`) of known shapes and
        length: blocks of its batches read by index (batch_blocks.py), for a staged
        `for` over it, whose step is then a few scalar ops and an index; else None."""
        if "_indexed" not in self.__dict__:
            inner = self._inner
            n = inner._length() if self._random_access else 0
            usable = (self._random_access and not is_dynamic(n) and shape_known(inner._spec)
                      and self._length() != 0)
            # (fewer rows than a batch: one batch of them all, of a shape known while
            # compiling, as `_get` gives it)
            b = self._b if n is None or not usable else min(self._b, n)
            self._indexed = (BlockedBatches(IndexedRows(inner), b, self._drop)
                             if usable else None)
        return self._indexed

    def _staged_plan(self):
        blocks = self.indexed_blocks()
        if blocks is None:
            return super()._staged_plan()
        return ("iterator", lambda: blocks.next(blocks.init((i64(0),))), blocks.next)

    def _length(self):
        n = self._inner._length()
        if n is None:
            return None
        return quotient(n, self._b) if self._drop else ceil_quotient(n, self._b)

    def _get(self, j):
        b, n = self._b, self._inner._length()
        start = multiply(j, i64(b))
        if self._drop or n is None or (not is_dynamic(n) and n % b == 0):
            return self._full(start)     # every batch is full: one static shape (XLA)
        if not is_dynamic(n):
            return self._partial(i64(0), n) if n <= b else self._partial(start, n)
        # known when the graph runs (and while compiling under XLA, which needs the
        # batches' shape: all full, or one batch of all the elements, has one)
        return cond(equal(mod(n, i64(b)), i64(0)), lambda: self._full(start),
                    lambda: cond(less_equal(n, i64(b)), lambda: self._partial(i64(0), n),
                                 lambda: self._partial(start, n)))

    def _full(self, start):
        """The batch of `b` elements from `start` (all of them there)."""
        element = self._inner._vget(add(start, rt_range(i64(0), i64(self._b), i64(1))))
        return nest.map_structure(
            lambda t, s: reshape(t, [self._b] + s.shape.as_list())
            if s.shape.is_fully_defined() else t, element, self._inner._spec)

    def _partial(self, start, n):
        """The batch from `start`, fewer than `b` elements where the data ends first."""
        stop = minimum(add(start, i64(self._b)), i64(n))
        return self._inner._vget(rt_range(start, stop, i64(1)))

    def _init(self, epoch):
        if self.blocks is not None:
            return self.blocks.init(self._inner._init(epoch))
        return super()._init(epoch)

    def _next(self, state):
        if self._random_access:
            return Dataset._next(self, state)
        b, inner = self._b, self._inner
        if self.blocks is not None:
            return self.blocks.next(state)
        positions = rt_range(i64(0), i64(b), i64(1))

        def put(buf, x, k, v):
            mask = logical_and(equal(positions, k), v)
            mask = reshape(mask, [b] + [1] * x.shape.rank)
            return where(mask, expand_dims(x, 0), buf)

        def body(k, valid, bufs, s):
            valid, element, s = inner._next(s)
            bufs = nest.map_structure(lambda buf, x: put(buf, x, k, valid), bufs, element)
            return add(k, cast(valid, dtypes.int64)), valid, bufs, s

        zeros = zeros_for(batched_spec(inner._spec, b))
        k, _, bufs, state = while_loop(
            lambda k, v, bufs, s: logical_and(less(k, i64(b)), v), body,
            (i64(0), constant(True), zeros, state))
        if self._drop:
            return equal(k, i64(b)), bufs, state
        k32 = cast(k, dtypes.int32)
        return greater(k, i64(0)), nest.map_structure(lambda t: t[:k32], bufs), state


def _is(n, value: int) -> bool:
    """Whether the count `n` is the int `value` (a count known at run time is none)."""
    return not is_dynamic(n) and n == value


def _negative(n) -> bool:
    """Whether the cardinality `n` is INFINITE or UNKNOWN (never one known at run time)."""
    return not is_dynamic(n) and n < 0


def _shortest(lengths):
    """The smallest of lengths (None: infinite)."""
    out = None
    for n in lengths:
        out = n if out is None else out if n is None else smallest(out, n)
    return out


def _count_arg(count, what):
    c = static_count(count, what)
    if c < -1:
        raise InvalidArgumentError(f"{what} must be -1 or non-negative, got {c}")
    return c


@kind
class Take(Transformed):
    def __init__(self, inner, count):
        super().__init__(inner)
        self._c = _count_arg(count, "take: count")
        if hasattr(inner, "_vget"):     # many elements at once where the input gives them
            self._vget = inner._vget

    def _cardinality(self):
        if self._random_access:
            return cardinality_of(self._length())
        n, c = self._inner._cardinality(), self._c
        if c < 0:
            return n
        if _is(n, INFINITE_CARDINALITY):
            return c
        if _is(n, UNKNOWN_CARDINALITY):
            return c if c == 0 else UNKNOWN_CARDINALITY
        return smallest(n, c)

    def _length(self):
        n, c = self._inner._length(), self._c
        if c < 0:
            return n
        return c if n is None else smallest(n, c)

    def _get(self, i):
        return self._inner._get(i)

    def _init(self, epoch):
        if self._random_access:
            return Dataset._init(self, epoch)
        return (i64(0), self._inner._init(epoch))

    def _next(self, state):
        if self._random_access:
            return Dataset._next(self, state)
        taken, s = state
        if self._c < 0:
            valid, element, s = self._inner._next(s)
            return valid, element, (taken, s)
        spec, inner = self._spec, self._inner
        valid, element, s = cond(less(taken, i64(self._c)), lambda: inner._next(s),
                                 lambda: (constant(False), zeros_for(spec), s))
        return valid, element, (add(taken, i64(1)), s)


@kind
class Skip(Transformed):
    def __init__(self, inner, count):
        super().__init__(inner)
        self._c = _count_arg(count, "skip: count")
        if hasattr(inner, "_vget"):     # many elements at once where the input gives them
            self._vget = lambda idx: inner._vget(add(idx, i64(self._c)))

    def _cardinality(self):
        if self._random_access:
            return cardinality_of(self._length())
        n, c = self._inner._cardinality(), self._c
        if _negative(n):
            return n
        return 0 if c < 0 else largest(minus(n, c), 0)

    def _length(self):
        n, c = self._inner._length(), self._c
        if n is None:
            return None
        return 0 if c < 0 else largest(minus(n, c), 0)

    def _get(self, i):
        return self._inner._get(add(i, i64(self._c)))

    def _init(self, epoch):
        if self._random_access:
            return Dataset._init(self, epoch)
        inner = self._inner
        limit = i64(self._c if self._c >= 0 else 2 ** 62)

        def body(k, valid, s):
            valid, _, s = inner._next(s)
            return add(k, i64(1)), valid, s

        _, _, s = while_loop(lambda k, v, s: logical_and(less(k, limit), v), body,
                             (i64(0), constant(True), inner._init(epoch)))
        return s

    def _next(self, state):
        if self._random_access:
            return Dataset._next(self, state)
        return self._inner._next(state)


@kind
class Repeat(Transformed):
    def __init__(self, inner, count):
        super().__init__(inner)
        self._c = -1 if count is None else _count_arg(count, "repeat: count")
        if self._random_access and hasattr(inner, "_vget"):   # many elements at once
            self._vget = lambda idx: inner._vget(self._wrapped(idx))
        source = None if self._random_access or self._c == 0 else rows_source(inner)
        if source is not None and shape_known(inner._spec):     # blocks (block_rows.py)
            self._next_rows = repeated(self, source, self._c)

    def _wrapped(self, i):
        """The input's index of index `i` (its length known: the index modulo it)."""
        n = self._inner._length()
        return i if n is None else mod(i, i64(largest(n, 1)))

    def _cardinality(self):
        if self._random_access:
            return cardinality_of(self._length())
        n, c = self._inner._cardinality(), self._c
        if c < 0:
            return 0 if _is(n, 0) else INFINITE_CARDINALITY
        if c == 0:
            return 0
        return n if _negative(n) else times(n, c)

    def _length(self):
        n, c = self._inner._length(), self._c
        if c == 0:
            return 0
        if n is None:
            return None
        if not is_dynamic(n):
            return (None if n else 0) if c < 0 else n * c
        if c < 0:                 # forever, unless there is nothing to repeat
            return choose(is_zero(n), 0, NO_END)
        return choose(greater_equal(n, i64(NO_END)), NO_END, times(n, c))

    def _get(self, i):
        return self._inner._get(self._wrapped(i))

    def _init(self, epoch):
        if self._random_access:
            return Dataset._init(self, epoch)
        base = multiply(epoch, i64(1 << 20))
        fresh = (constant(False),) if hasattr(self, "_next_rows") else ()
        return (i64(0), base, self._inner._init(base)) + fresh

    def _next(self, state):
        if self._random_access:
            return Dataset._next(self, state)
        rep, base, s = state[:3]
        inner, c = self._inner, self._c
        valid, element, s = inner._next(s)
        following = add(rep, i64(1))
        again = logical_not(valid)
        if c >= 0:
            again = logical_and(again, less(following, i64(c)))

        def restart():
            v, e, s2 = inner._next(inner._init(add(base, following)))
            return v, e, s2, following

        valid, element, s, rep = cond(again, restart, lambda: (valid, element, s, rep))
        return valid, element, (rep, base, s) + tuple(state[3:])


@kind
class Zip(Dataset):
    def __init__(self, datasets):
        self._structure = datasets
        self._parts = nest.flatten(datasets)
        for d in self._parts:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip: expected a nest of rt.data.Dataset, got {d!r}")
        self._spec = nest.pack_sequence_as(datasets, [d._spec for d in self._parts])
        self._random_access = all(d._random_access for d in self._parts)
        self._source_is_python = any(d._source_is_python for d in self._parts)
        if self._random_access and all(hasattr(d, "_vget") for d in self._parts):
            self._vget = lambda idx: self._pack([d._vget(idx) for d in self._parts])

    def _pack(self, values):
        return nest.pack_sequence_as(self._structure, values)

    def _cardinality(self):
        if self._random_access:
            return cardinality_of(self._length())
        ns = [d._cardinality() for d in self._parts]
        if any(_is(n, UNKNOWN_CARDINALITY) for n in ns):
            return UNKNOWN_CARDINALITY
        return cardinality_of(_shortest([None if _is(n, INFINITE_CARDINALITY) else n
                                         for n in ns]))

    def _length(self):
        return _shortest([d._length() for d in self._parts])

    def _get(self, i):
        return self._pack([d._get(i) for d in self._parts])

    def _init(self, epoch):
        if self._random_access:
            return Dataset._init(self, epoch)
        return tuple(d._init(epoch) for d in self._parts)

    def _next(self, state):
        if self._random_access:
            return Dataset._next(self, state)
        valids, elements, states = [], [], []
        for d, s in zip(self._parts, state):
            v, e, s = d._next(s)
            valids.append(v)
            elements.append(e)
            states.append(s)
        valid = valids[0]
        for v in valids[1:]:
            valid = logical_and(valid, v)
        return valid, self._pack(elements), tuple(states)


