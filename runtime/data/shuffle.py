"""`Dataset.shuffle`: a buffer of `buffer_size` items; each output is drawn from it and
replaced by the next input, as tf.data does. Random access inputs keep indices in the
buffer (any element shape); others keep the elements (their shapes must be known).
A random access input of known length whose buffer holds it all (a full shuffle, the
common case) is one permutation instead, made when an iteration begins: the order of
the generator's next n draws (an argsort), then one gather per element, where the
buffer costs a pass over it per element.

The draws come from a Lehmer generator (x -> 48271 x mod 2^31-1) computed with int64
ops: the same seed gives the same orders on every backend, eagerly and staged.

With `reshuffle_each_iteration`, each iteration begun gets its own order. A shuffle made
outside any function counts the iterations begun in a Variable of its own, which the
graph that begins one increments: eager loops and every call of an `rt.function` that
iterates it draw the next order (as tf.data's seed generator does), instead of the
function replaying the order it was traced with. One made while a function is traced
begins at the first order on each call (as TensorFlow's does)."""
from __future__ import annotations

import numpy as np

from .. import nest
from ..control_flow import while_loop
from ..core import dtypes
from ..core.graph import current_graph
from ..core.shapes import TensorShape, TensorSpec
from ..errors import InvalidArgumentError
from ..ops import random_ops
from ..ops.array_ops import expand_dims, gather, reshape
from ..ops.sort_ops import argsort
from ..ops.core import constant
from ..ops.state_ops import Variable
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, cast, equal, greater, less, logical_and, maximum, minimum, mod,
                            multiply,
                            subtract, where)
from .base import Dataset, kind, static_count
from .structure import batched_spec, shape_known, zeros_for
from .transforms import _Unary

_M, _A = 2147483647, 48271
_PERMUTED_UP_TO = 1 << 22   # a full shuffle of at most this many is one permutation


def _powers(n: int) -> np.ndarray:
    """A^1 ... A^n mod M: x times them (mod M) are the generator's next n draws from x."""
    p = np.array([_A], np.int64)
    while len(p) < n:
        p = np.concatenate([p, p * pow(_A, len(p), _M) % _M])      # (< 2^62: no overflow)
    return p[:n]


def _i64(v):
    return constant(v, dtypes.int64)


def _step(x):
    return mod(multiply(x, _i64(_A)), _i64(_M))


def _seed(seed) -> int:
    if seed is not None:
        return static_count(seed, "shuffle: seed")
    g = random_ops._global_seed
    if g is None:
        return int(np.random.SeedSequence().entropy % _M)
    return int(np.random.default_rng([g, next(random_ops._op_counter)]).integers(0, _M))


@kind
class Shuffle(_Unary):
    def __init__(self, inner, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(inner)
        b = static_count(buffer_size, "shuffle: buffer_size")
        if b <= 0:
            raise InvalidArgumentError(f"shuffle: buffer_size must be greater than zero, got {b}")
        n = inner._cardinality()
        self._b = max(1, min(b, n)) if n >= 0 else b
        self._seed = _seed(seed) % (_M - 1)
        self._reshuffle = bool(reshuffle_each_iteration)
        self._begun = (Variable(0, trainable=False, dtype=dtypes.int64, name="shuffle_iterations")
                       if self._reshuffle and current_graph() is None else None)
        self._indices = inner._random_access
        self._random_access = False
        length = inner._length() if self._indices else None
        self._permuted = (length is not None and 0 < length <= min(self._b, _PERMUTED_UP_TO))
        if not self._indices and not shape_known(inner._spec):
            raise ValueError(f"shuffle: the elements' shapes must be fully known to buffer "
                             f"them, got {inner._spec}")

    def _cardinality(self):
        return self._inner._cardinality()

    def _items_spec(self):
        return batched_spec(self._spec if not self._indices else
                            _index_spec(), self._b)

    def _init(self, epoch):
        if self._begun is not None:           # the iterations begun so far (see above)
            e = subtract(self._begun.assign_add(_i64(1)), _i64(1))
        else:
            e = epoch if self._reshuffle else _i64(0)
        x = add(_i64(self._seed + 1), mod(multiply(e, _i64(7919)), _i64(_M - 1 - self._seed)))
        x = _step(_step(_step(x)))
        if self._permuted:
            n = self._inner._length()
            draws = mod(multiply(constant(_powers(n)), x), _i64(_M))
            return (cast(argsort(draws), dtypes.int64), _i64(0))
        source = Dataset._init(self._inner, epoch) if self._indices else self._inner._init(epoch)
        return (x, _i64(0), constant(True), zeros_for(self._items_spec()), source)

    def _pull(self, s):
        if not self._indices:
            return self._inner._next(s)
        i = s[0]
        n = self._inner._length()
        valid = constant(True) if n is None else less(i, _i64(n))
        return valid, i, (add(i, _i64(1)),)

    def _next(self, state):
        if self._permuted:
            order, i = state
            last = _i64(self._inner._length() - 1)
            element = self._inner._safe_get(gather(order, minimum(i, last)))
            return less(i, add(last, _i64(1))), element, (order, add(i, _i64(1)))
        rng, count, more, bufs, s = state
        b = self._b
        positions = rt_range(_i64(0), _i64(b), _i64(1))

        def put(buf, x, k, ok):
            mask = reshape(logical_and(equal(positions, k), ok), [b] + [1] * x.shape.rank)
            return where(mask, expand_dims(x, 0), buf)

        def fill(count, more, bufs, s):
            more, item, s = self._pull(s)
            bufs = nest.map_structure(lambda buf, x: put(buf, x, count, more), bufs, item)
            return add(count, cast(more, dtypes.int64)), more, bufs, s

        count, more, bufs, s = while_loop(
            lambda c, m, bufs, s: logical_and(less(c, _i64(b)), m), fill,
            (count, more, bufs, s))
        valid = greater(count, _i64(0))
        rng = _step(rng)
        j = mod(rng, maximum(count, _i64(1)))
        last = maximum(subtract(count, _i64(1)), _i64(0))
        item = nest.map_structure(lambda buf: gather(buf, j), bufs)
        bufs = nest.map_structure(lambda buf: put(buf, gather(buf, last), j, constant(True)),
                                  bufs)
        count = subtract(count, cast(valid, dtypes.int64))
        element = self._inner._safe_get(item) if self._indices else item
        return valid, element, (rng, count, more, bufs, s)


def _index_spec():
    return TensorSpec(TensorShape([]), dtypes.int64)
