"""`Dataset.shuffle`: a buffer of `buffer_size` items; each output is drawn from it and
replaced by the next input, as tf.data does; a random access input the buffer holds
whole is one permutation instead. The draws come from a Lehmer generator
(x -> 48271 x mod 2^31-1) computed with int64 ops: the same seed gives the same orders on
every backend, eagerly and staged. With `reshuffle_each_iteration` a shuffle counts the
iterations begun in a Variable of its own (docs/architecture.md, "Input pipelines",
shuffling).
"""
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
from ..ops.core import constant
from ..ops.state_ops import Variable, runtime_variable
from ..control_flow import cond
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, cast, equal, floordiv, greater, less, logical_and, maximum,
                            minimum, mod, multiply, subtract, where)
from .base import Dataset, kind, static_count
from .counts import i64, is_dynamic, within
from .shuffle_order import buffer_order, stable_order
from .structure import batched_spec, shape_known, zeros_for
from .transforms import Transformed

_M, _A = 2147483647, 48271
_PERMUTED_UP_TO = 1 << 30   # a full shuffle of at most this many is one permutation
_TABLED_ABOVE = 1 << 22     # more draws than this come from two small tables (`draws`)
_TABLE = 1 << 12


def _powers(n: int) -> np.ndarray:
    """A^1 ... A^n mod M: x times them (mod M) are the generator's next n draws from x."""
    p = np.array([_A], np.int64)
    while len(p) < n:
        p = np.concatenate([p, p * pow(_A, len(p), _M) % _M])      # (< 2^62: no overflow)
    return p[:n]


def draws(n: int, x, tabled_above=None):
    """The generator's next n draws from `x` (an int64 tensor): x A^k mod M, k = 1 .. n.
    Up to `tabled_above` from one constant of the n powers; above, from two small ones
    (A^(i+1), i below 4096, and A^(4096 j)), so that no graph holds a constant of n values
    (a shuffle of 10^7 rows would hold 80 MB)."""
    if n <= (_TABLED_ABOVE if tabled_above is None else tabled_above):
        return mod(multiply(constant(_powers(n)), x), i64(_M))
    k = rt_range(i64(0), i64(n), i64(1))
    low = constant(_powers(_TABLE))                       # A^1 .. A^4096
    high = np.ones(-(-n // _TABLE), np.int64)             # A^0, A^4096, A^8192, ...
    step = pow(_A, _TABLE, _M)
    for j in range(1, len(high)):
        high[j] = high[j - 1] * step % _M
    powers = mod(multiply(gather(low, mod(k, i64(_TABLE))),
                          gather(constant(high), floordiv(k, i64(_TABLE)))), i64(_M))
    return mod(multiply(powers, x), i64(_M))


def _step(x):
    return mod(multiply(x, i64(_A)), i64(_M))


def _seed(seed):
    """(the seed, whether it is fixed: given, or drawn from a global seed)."""
    if seed is not None:
        return static_count(seed, "shuffle: seed"), True
    g = random_ops.global_seed()
    if g is None:
        return int(np.random.SeedSequence().entropy % _M), False
    return int(np.random.default_rng([g, random_ops.next_op_seed()]).integers(0, _M)), True


def _powers_of(k):
    """A^k mod M for an int64 tensor `k` of exponents up to `_PERMUTED_UP_TO` (`_powers`'
    values where their number is known only when the graph runs): square and multiply."""
    result = add(multiply(k, i64(0)), i64(1))
    base = _A
    for _ in range(_PERMUTED_UP_TO.bit_length()):
        odd = equal(mod(k, i64(2)), i64(1))
        result = where(odd, mod(multiply(result, i64(base)), i64(_M)), result)
        k = floordiv(k, i64(2))
        base = base * base % _M
    return result


@kind
class Shuffle(Transformed):
    def __init__(self, inner, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(inner)
        b = static_count(buffer_size, "shuffle: buffer_size")
        if b <= 0:
            raise InvalidArgumentError(f"shuffle: buffer_size must be greater than zero, got {b}")
        n = inner._cardinality()
        self._b = max(1, min(b, n)) if not is_dynamic(n) and n >= 0 else b
        seed, fixed = _seed(seed)
        self._seed = seed % (_M - 1)
        self._reshuffle = bool(reshuffle_each_iteration)
        self._begun = None
        if self._reshuffle and current_graph() is None:
            self._begun = Variable(0, trainable=False, dtype=dtypes.int64,
                                   name="shuffle_iterations")
        elif self._reshuffle:
            self._begun = runtime_variable(np.int64(0), "shuffle_iterations")
            if fixed:           # the same orders at each run (see above)
                self._begun.assign(i64(0))
        self._indices = inner._random_access
        self._random_access = False
        length = inner._length() if self._indices else None
        self._dynamic = is_dynamic(length)
        self._permuted = (not self._dynamic and length is not None and
                          0 < length <= min(self._b, _PERMUTED_UP_TO))
        # a longer input of known length: the buffer's whole order at once (shuffle_order.py)
        self._ordered = (self._indices and not self._dynamic and length is not None and
                         self._b < length <= _PERMUTED_UP_TO)
        if (self._permuted or self._ordered) and hasattr(inner, "_vget"):
            self._next_block = self._block
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
            e = subtract(self._begun.assign_add(i64(1)), i64(1))
        else:
            e = epoch if self._reshuffle else i64(0)
        x = add(i64(self._seed + 1), mod(multiply(e, i64(7919)), i64(_M - 1 - self._seed)))
        x = _step(_step(_step(x)))
        if self._permuted or self._ordered:
            n = self._inner._length()
            drawn = draws(n, x)
            if self._ordered:
                return (buffer_order(drawn, n, self._b), i64(0))
            return (stable_order(drawn, 31, n), i64(0))
        source = Dataset._init(self._inner, epoch) if self._indices else self._inner._init(epoch)
        buffered = (x, i64(0), constant(True), zeros_for(self._items_spec()), source)
        if not self._dynamic:
            return buffered
        n = self._inner._length()

        def permutation():
            draws = mod(multiply(_powers_of(add(_range_to(n), i64(1))), x), i64(_M))
            return stable_order(draws, 31)
        order = cond(self._fits(n), permutation, lambda: _range_to(n))
        return (order, i64(0)) + buffered

    def _fits(self, n):
        """Whether a length known at run time gets the permutation (see above)."""
        return within(n, 0, min(self._b, _PERMUTED_UP_TO))

    def _pull(self, s):
        if not self._indices:
            return self._inner._next(s)
        i = s[0]
        n = self._inner._length()
        valid = constant(True) if n is None else less(i, i64(n))
        return valid, i, (add(i, i64(1)),)

    def _next(self, state):
        if self._permuted or self._ordered:
            return self._permuted_next(state, self._inner._length())
        if not self._dynamic:
            return self._buffered_next(state)
        n = self._inner._length()

        def permuted():
            valid, element, moved = self._permuted_next(state[:2], n)
            return valid, element, moved + state[2:]

        def buffered():
            valid, element, moved = self._buffered_next(state[2:])
            return valid, element, state[:2] + moved
        return cond(self._fits(n), permuted, buffered)

    def _permuted_next(self, state, n):
        order, i = state
        last = maximum(subtract(i64(n), i64(1)), i64(0))
        element = self._inner._safe_get(gather(order, minimum(i, last)))
        return less(i, i64(n)), element, (order, add(i, i64(1)))

    def _block(self, state, k: int):
        """The next `k` elements at once, as a batch (where fewer remain, the last is
        repeated: `count` says how many are valid), and the state past them."""
        order, i = state
        n = self._inner._length()
        at = minimum(add(i, rt_range(i64(0), i64(k), i64(1))), i64(n - 1))
        rows = self._inner._vget(gather(order, at))
        count = maximum(minimum(subtract(i64(n), i), i64(k)), i64(0))
        return count, rows, (order, add(i, count))

    def _buffered_next(self, state):
        rng, count, more, bufs, s = state
        b = self._b
        positions = rt_range(i64(0), i64(b), i64(1))

        def put(buf, x, k, ok):
            mask = reshape(logical_and(equal(positions, k), ok), [b] + [1] * x.shape.rank)
            return where(mask, expand_dims(x, 0), buf)

        def fill(count, more, bufs, s):
            more, item, s = self._pull(s)
            bufs = nest.map_structure(lambda buf, x: put(buf, x, count, more), bufs, item)
            return add(count, cast(more, dtypes.int64)), more, bufs, s

        count, more, bufs, s = while_loop(
            lambda c, m, bufs, s: logical_and(less(c, i64(b)), m), fill,
            (count, more, bufs, s))
        valid = greater(count, i64(0))
        rng = _step(rng)
        j = mod(rng, maximum(count, i64(1)))
        last = maximum(subtract(count, i64(1)), i64(0))
        item = nest.map_structure(lambda buf: gather(buf, j), bufs)
        bufs = nest.map_structure(lambda buf: put(buf, gather(buf, last), j, constant(True)),
                                  bufs)
        count = subtract(count, cast(valid, dtypes.int64))
        element = self._inner._safe_get(item) if self._indices else item
        return valid, element, (rng, count, more, bufs, s)


def _range_to(n):
    """0, 1, ..., n - 1 (int64) for a length known at run time."""
    return rt_range(i64(0), n, i64(1))


def _index_spec():
    return TensorSpec(TensorShape([]), dtypes.int64)
