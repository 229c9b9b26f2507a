"""`padded_batch`, `unbatch` and `shard`, as `tf.data`'s (methods in more_methods.py).

Each is a staged iterator whose `_next` is a small graph: a padded batch's fill loop
grows its buffers to the largest element so far (elements of different shapes), an
unbatch holds the current batch and the position in it, a shard skips the elements of
the other shards (and is random access where its input is)."""
from __future__ import annotations

import numpy as np

from .. import nest
from ..control_flow import cond, while_loop
from ..core import dtypes
from ..core.shapes import TensorShape, TensorSpec
from ..errors import InvalidArgumentError
from ..ops.array_ops import expand_dims, gather, reshape, shape
from ..ops.core import constant, convert_to_tensor, stack
from ..ops.io_ops import assert_that
from ..ops.makers import fill
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, cast, equal, greater, greater_equal, less, less_equal,
                            logical_and, logical_not, maximum, mod, multiply, subtract,
                            where)
from ..ops.pad_ops import pad
from ..ops.reduce_ops import reduce_all
from .base import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, static_count
from .counts import (cardinality_of, ceil_quotient, i64, is_dynamic, largest, minus, quotient,
                     times)
from .more_methods import more_kind
from .structure import zeros_for


def _negative(n) -> bool:
    return not is_dynamic(n) and n < 0


def state_shapes(state):
    """The shapes of a staged iterator's state (a nest of tensors), as loop invariants."""
    return nest.map_structure(lambda t: t.shape, state)


def _default_padding(dtype):
    if dtype is dtypes.string:
        return ""
    if dtype is dtypes.bool_:
        return False
    return 0


class _OneInner(Dataset):
    """A dataset made from one other, iterated with its state."""

    def __init__(self, inner):
        if not isinstance(inner, Dataset):
            raise TypeError(f"expected an rt.data.Dataset, got {inner!r}")
        self._inner = inner
        self._spec = inner._spec
        self._source_is_python = inner._source_is_python


@more_kind
class PaddedBatch(_OneInner):
    def __init__(self, inner, batch_size, padded_shapes, padding_values, drop_remainder):
        super().__init__(inner)
        self._b = static_count(batch_size, "padded_batch: batch_size")
        if self._b <= 0:
            raise InvalidArgumentError(f"padded_batch: batch_size must be greater than zero, "
                                       f"got {self._b}")
        self._drop = bool(drop_remainder)
        specs = nest.flatten(inner._spec)
        for s in specs:
            if s.shape.rank is None:
                raise ValueError(f"padded_batch: the elements' ranks must be known, got {s}")
        if padded_shapes is None:
            targets = [s.shape.as_list() for s in specs]
        else:
            given = _leaves(_shapes_up_to(inner._spec, padded_shapes))
            targets = []
            for s, t in zip(specs, given):
                t = [None if d is None or d == -1 else int(d) for d in t]
                if len(t) != s.shape.rank:
                    raise ValueError(f"padded_batch: the padded shape {t} must have the rank "
                                     f"of the element's component {s}")
                for d, known in zip(t, s.shape.as_list()):
                    if d is not None and known is not None and d < known:
                        raise ValueError(f"padded_batch: the padded shape {t} is smaller "
                                         f"than the component's shape {s.shape}")
                targets.append(t)
        self._targets = targets
        if padding_values is None:
            values = [_default_padding(s.dtype) for s in specs]
        elif nest.is_nested(padding_values):
            values = _leaves(_up_to(inner._spec, padding_values))
        else:
            values = [padding_values] * len(specs)
        self._pads = [convert_to_tensor(v, dtype=s.dtype) for v, s in zip(values, specs)]
        for p in self._pads:
            if p.shape.rank not in (0, None):
                raise ValueError(f"padded_batch: a padding value must be a scalar, got {p!r}")
        first = self._b if self._drop else None
        self._spec = nest.pack_sequence_as(inner._spec, [
            TensorSpec(TensorShape([first] + t), s.dtype) for t, s in zip(targets, specs)])

    def _cardinality(self):
        n = self._inner._cardinality()
        if _negative(n):
            return n
        return quotient(n, self._b) if self._drop else ceil_quotient(n, self._b)

    def _init(self, epoch):
        return self._inner._init(epoch)

    def _put(self, buf, x, k, target, pad_value):
        """`buf` ([b, ...]) with `x` at row `k`, both padded to the larger of them."""
        rank = len(target)
        if rank == 0:
            mask = equal(rt_range(i64(0), i64(self._b), i64(1)), k)
            return where(mask, x, buf)
        have = shape(buf, out_type=dtypes.int64)[1:]
        xs = shape(x, out_type=dtypes.int64)
        fixed = [t is not None for t in target]
        want = [i64(t) if t is not None else None for t in target]
        dims = []
        for j in range(rank):
            dims.append(want[j] if fixed[j] else maximum(have[j], xs[j]))
        new = stack(dims)
        if any(fixed):
            assert_that(reduce_all(less_equal(xs, new)),
                        "padded_batch: attempted to pad an element to a smaller size than "
                        "its own (padded_shapes is smaller than an element)")
        zero = constant(np.zeros([rank], np.int64))
        grown = pad(buf, stack([stack([i64(0), i64(0)])] +
                               [stack([i64(0), subtract(new[j], have[j])]) for j in range(rank)]),
                    constant_values=pad_value)
        xp = pad(x, stack([zero, subtract(new, xs)], axis=1), constant_values=pad_value)
        mask = reshape(equal(rt_range(i64(0), i64(self._b), i64(1)), k), [self._b] + [1] * rank)
        out = where(mask, expand_dims(xp, 0), grown)
        out.set_shape(TensorShape([self._b] + target))
        return out

    def _next(self, state):
        b, inner = self._b, self._inner
        starts = [fill([b] + [t if t is not None else 0 for t in target], p)
                  for target, p in zip(self._targets, self._pads)]
        invariants = [TensorShape([b] + target) for target in self._targets]

        def body(k, valid, bufs, s):
            valid, element, s = inner._next(s)
            xs = nest.flatten(element)

            def put():
                return [self._put(buf, x, k, t, p) for buf, x, t, p in
                        zip(bufs, xs, self._targets, self._pads)]
            bufs = cond(valid, put, lambda: list(bufs))
            return add(k, cast(valid, dtypes.int64)), valid, bufs, s

        k, _, bufs, state = while_loop(
            lambda k, v, bufs, s: logical_and(less(k, i64(b)), v), body,
            (i64(0), constant(True), starts, state),
            shape_invariants=(TensorShape([]), TensorShape([]), invariants,
                              state_shapes(state)))
        if self._drop:
            return equal(k, i64(b)), nest.pack_sequence_as(self._inner._spec, bufs), state
        k32 = cast(k, dtypes.int32)
        return (greater(k, i64(0)),
                nest.pack_sequence_as(self._inner._spec, [t[:k32] for t in bufs]), state)


class _Box:
    """A leaf of a nest cut at a spec's leaves (which may itself be a list)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _leaves(boxed):
    return [b.value for b in nest.flatten(boxed)]


def _up_to(spec, value):
    """`value` (a nest at least as deep as `spec`'s structure) cut at spec's leaves."""
    if isinstance(spec, TensorSpec):
        return _Box(value)
    if isinstance(spec, dict):
        return {k: _up_to(spec[k], value[k]) for k in spec}
    if len(value) != len(spec):
        raise ValueError(f"padded_batch: {value!r} does not match the element's structure "
                         f"{spec}")
    vals = [_up_to(s, v) for s, v in zip(spec, value)]
    return type(spec)(*vals) if hasattr(spec, "_fields") else type(spec)(vals)


def _shapes_up_to(spec, shapes):
    """padded_shapes as a nest of lists of dimensions, structured like `spec`."""
    if isinstance(spec, TensorSpec):
        if isinstance(shapes, TensorShape):
            return _Box(shapes.as_list() if shapes.rank is not None
                        else [None] * spec.shape.rank)
        if hasattr(shapes, "numpy"):
            shapes = shapes.numpy().tolist()
        if isinstance(shapes, np.ndarray):
            shapes = shapes.tolist()
        if shapes is None:
            return _Box(spec.shape.as_list())
        return _Box(list(shapes))
    if isinstance(spec, dict):
        return {k: _shapes_up_to(spec[k], shapes[k]) for k in spec}
    if len(shapes) != len(spec):
        raise ValueError(f"padded_batch: padded_shapes {shapes!r} does not match the "
                         f"element's structure {spec}")
    vals = [_shapes_up_to(s, v) for s, v in zip(spec, shapes)]
    return type(spec)(*vals) if hasattr(spec, "_fields") else type(spec)(vals)


@more_kind
class Unbatch(_OneInner):
    def __init__(self, inner):
        super().__init__(inner)
        specs = nest.flatten(inner._spec)
        firsts = set()
        for s in specs:
            if s.shape.rank == 0:
                raise ValueError(f"unbatch: every component needs a first dimension, got {s}")
            firsts.add(None if s.shape.rank is None else s.shape[0])
        known = firsts - {None}
        if len(known) > 1:
            raise ValueError(f"unbatch: the components' first dimensions differ: {inner._spec}")
        self._batch = known.pop() if known and None not in firsts else None
        self._spec = nest.map_structure(
            lambda s: TensorSpec(TensorShape(None if s.shape.rank is None
                                             else s.shape.as_list()[1:]), s.dtype), inner._spec)

    def _cardinality(self):
        n = self._inner._cardinality()
        if self._batch is None:
            return n if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY
        return n if _negative(n) else times(n, self._batch)

    def _init(self, epoch):
        current = zeros_for(self._inner._spec)
        return (self._inner._init(epoch), current, i64(0), i64(0))

    def _next(self, state):
        inner = self._inner
        inner_state, current, pos, n = state

        def body(more, s, cur, p, m):
            v, e, s = inner._next(s)
            first = shape(nest.flatten(e)[0], out_type=dtypes.int64)[0]
            for t in nest.flatten(e)[1:]:
                assert_that(logical_not(logical_and(v, logical_not(equal(
                    shape(t, out_type=dtypes.int64)[0], first)))),
                    "unbatch: the components of an element have different first dimensions")
            cur, p, m = cond(v, lambda: (e, i64(0), first), lambda: (cur, p, m))
            return v, s, cur, p, m

        more, inner_state, current, pos, n = while_loop(
            lambda more, s, cur, p, m: logical_and(more, greater_equal(p, m)), body,
            (constant(True), inner_state, current, pos, n),
            shape_invariants=(TensorShape([]), state_shapes(inner_state),
                              nest.map_structure(lambda s: s.shape, inner._spec),
                              TensorShape([]), TensorShape([])))
        valid = less(pos, n)
        spec = self._spec
        element = cond(valid, lambda: nest.map_structure(lambda t: gather(t, pos), current),
                       lambda: zeros_for(spec))
        return valid, element, (inner_state, current, add(pos, i64(1)), n)


@more_kind
class Shard(_OneInner):
    def __init__(self, inner, num_shards, index):
        super().__init__(inner)
        self._k = static_count(num_shards, "shard: num_shards")
        self._i = static_count(index, "shard: index")
        if self._k <= 0:
            raise InvalidArgumentError(f"shard: num_shards must be greater than zero, got "
                                       f"{self._k}")
        if not 0 <= self._i < self._k:
            raise InvalidArgumentError(f"shard: index must be in [0, num_shards), got "
                                       f"{self._i} with num_shards {self._k}")
        self._random_access = inner._random_access
        if self._random_access and hasattr(inner, "_vget"):
            self._vget = lambda idx: inner._vget(self._position(idx))

    def _position(self, i):
        return add(multiply(i, i64(self._k)), i64(self._i))

    def _count(self, n):
        """The elements of this shard among `n` (a count, not negative)."""
        return largest(quotient(minus(n, self._i - self._k + 1), self._k), 0)

    def _cardinality(self):
        if self._random_access:
            return cardinality_of(self._length())
        n = self._inner._cardinality()
        return n if _negative(n) else self._count(n)

    def _length(self):
        n = self._inner._length()
        return None if n is None else self._count(n)

    def _get(self, i):
        return self._inner._get(self._position(i))

    def _init(self, epoch):
        if self._random_access:
            return Dataset._init(self, epoch)
        return (i64(0), self._inner._init(epoch))

    def _next(self, state):
        if self._random_access:
            return Dataset._next(self, state)
        inner, k, index = self._inner, self._k, self._i
        count, s = state

        def body(valid, mine, e, c, s):
            valid, e, s = inner._next(s)
            mine = equal(mod(c, i64(k)), i64(index))
            return valid, mine, e, add(c, i64(1)), s

        valid, _, element, count, s = while_loop(
            lambda v, mine, e, c, s: logical_and(v, logical_not(mine)), body,
            (constant(True), constant(False), zeros_for(self._spec), count, s),
            shape_invariants=(TensorShape([]), TensorShape([]),
                              nest.map_structure(lambda sp: sp.shape, self._spec),
                              TensorShape([]), state_shapes(s)))
        return valid, element, (count, s)


__all__ = ["PaddedBatch", "Unbatch", "Shard", "state_shapes"]
