"""rt.data's block paths for more pipelines (a filter, a repeat of a shuffle, a shuffle of
a repeat, a batch of a random access input, a map after a batch, a zip) against the
definition in numpy, and against the element by element path (a map that is not
elementwise before them keeps it) where the order depends on the shuffle's iterations:
the same elements in the same order, eagerly, in a staged `for` of an rt.function and
under jit_compile; with 0, 1, 63, 64, 65, 1000 and 16384 rows, with and without
drop_remainder, nested elements, and two iterations of one dataset."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import runtime as rt
from test_data_blocks import batches, eager, shuffled   # the definitions, shared

D = rt.data.Dataset
SIZES = (0, 1, 63, 64, 65, 1000, pytest.param(16384, marks=pytest.mark.slow))
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")


def per_element(ds):
    """`ds` through a map that is not elementwise (a reshape): what follows it reads it
    element by element, as before blocks."""
    def same(*args):
        args = args if len(args) > 1 else args[0]
        return rt.nest.map_structure(lambda v: rt.reshape(v, rt.shape(v)), args)
    return ds.map(same)


def staged(ds):
    """Each leaf's rows concatenated, and each batch's row count, by a staged `for`."""
    specs = rt.nest.flatten(ds.element_spec)

    @rt.function
    def collect():
        outs = [rt.zeros([0] + s.shape.as_list()[1:], s.dtype) for s in specs]
        sizes = rt.zeros([0], rt.int32)
        for e in ds:
            parts = rt.nest.flatten(e)
            outs = [rt.concat([o, p], 0) for o, p in zip(outs, parts)]
            sizes = rt.concat([sizes, rt.reshape(rt.shape(parts[0])[0], [1])], 0)
        return outs, sizes
    outs, sizes = collect()
    return [o.numpy() for o in outs], sizes.numpy().tolist()


def same(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        rt.nest.assert_same_structure(g, e)
        for a, b in zip(rt.nest.flatten(g), rt.nest.flatten(e)):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def check(make, expected: list):
    """`make()` read eagerly and staged gives the batches `expected`."""
    same(eager(make()), expected)
    outs, sizes = staged(make())
    assert sizes == [len(rt.nest.flatten(e)[0]) for e in expected]
    if expected:
        for a, b in zip(outs, zip(*[rt.nest.flatten(e) for e in expected])):
            np.testing.assert_array_equal(a, np.concatenate(b))


def blocks_of(ds):
    """The blocks of the batch `ds` is, or is a take of."""
    while not hasattr(ds, "blocks"):
        ds = ds._inner
    return ds.blocks


def check_twice(make, old):
    """Two eager iterations of one dataset, and a staged one, as the element by element
    path gives them (a shuffle counts its iterations)."""
    ds, ref = make(), old()
    assert blocks_of(ds) is not None or not eager(ds)
    assert blocks_of(ref) is None
    same(eager(ds) + eager(ds), eager(ref) + eager(ref))
    a, b = staged(make()), staged(old())
    assert a[1] == b[1]
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)


def data(n: int):
    x = (np.arange(n, dtype=np.float32) * 0.5) % 37.0
    return x, np.arange(n, dtype=np.int32), np.stack([x, -x, x * x], 1)


# -- filter ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("drop", [False, True])
def test_filtered_batches(n, drop):
    x, y, m = data(n)
    check(lambda: D.from_tensor_slices(y).filter(lambda v: v % 2 == 0)
          .batch(64, drop_remainder=drop), batches(list(y[y % 2 == 0]), 64, drop))
    kept = [i for i in range(n) if y[i] % 7 < 3 and x[i] < 30]
    check(lambda: D.from_tensor_slices((x, {"i": y, "m": m}))
          .filter(lambda a, d: (d["i"] % 7 < 3) & (a < 30.0))
          .map(lambda a, d: (a * 2, d["m"] + 1)).batch(13, drop_remainder=drop),
          batches([(x[i] * 2, m[i] + 1) for i in kept], 13, drop))


@pytest.mark.parametrize("n", (0, 1, 65, 1000))
def test_filters_keeping_none_or_all(n):
    _, y, _ = data(n)
    check(lambda: D.from_tensor_slices(y).filter(lambda v: v < 0).batch(8), [])
    check(lambda: D.from_tensor_slices(y).filter(lambda v: v >= 0).batch(8),
          batches(list(y), 8, False))
    check(lambda: D.range(n).filter(lambda v: v % 5 == 1).batch(3),
          batches([np.int64(i) for i in range(n) if i % 5 == 1], 3, False))


@pytest.mark.parametrize("n", (0, 65, 1000) + tuple(
    pytest.param(n, marks=pytest.mark.slow) for n in (1, 63)))
@pytest.mark.parametrize("reshuffle", [True, False])
def test_a_filter_of_a_shuffle_repeated(n, reshuffle):
    _, y, _ = data(n)

    def make(through=lambda d: d):
        return (through(D.from_tensor_slices(y).shuffle(50, seed=3,
                                                        reshuffle_each_iteration=reshuffle))
                .filter(lambda v: v % 3 != 1).repeat(2).batch(16))
    check_twice(make, lambda: make(per_element))


# -- repeat ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("drop", [False, True])
def test_a_shuffle_of_a_repeat(n, drop):
    x, _, _ = data(n)
    for buffer, seed in ((1024, 1), (40, 5)):
        def make():
            return (D.from_tensor_slices(x).repeat(2).shuffle(buffer, seed=seed)
                    .batch(64, drop_remainder=drop))
        check(make, batches([x[i % n] for i in shuffled(2 * n, buffer, seed)], 64, drop))


@pytest.mark.parametrize("n", (0, 65, 1000) + tuple(
    pytest.param(n, marks=pytest.mark.slow) for n in (1, 63, 64)))
@pytest.mark.parametrize("reshuffle", [True, False])
@pytest.mark.parametrize("drop", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_shuffle_repeated_forever_then_batched(n, reshuffle, drop):
    x, _, _ = data(n)

    def make(through=lambda d: d, count=None, take=9):
        ds = through(D.from_tensor_slices(x).shuffle(100, seed=2,
                                                     reshuffle_each_iteration=reshuffle))
        return ds.repeat(count).batch(64, drop_remainder=drop).take(take)
    epochs = 9 * 64 // max(n, 1) + 2
    rows = [x[i] for e in range(epochs) for i in shuffled(n, 100, 2, e if reshuffle else 0)]
    check(make, batches(rows, 64, drop)[:9])
    check_twice(make, lambda: make(per_element))
    check_twice(lambda: make(count=3, take=-1), lambda: make(per_element, 3, -1))


@pytest.mark.parametrize("n", (0, 1, 65, 1000))
def test_a_repeat_of_nested_shuffled_elements(n):
    x, y, m = data(n)

    def make(through=lambda d: d):
        return (through(D.from_tensor_slices({"x": x, "p": (y, m)}).shuffle(64, seed=4))
                .repeat(3).batch(10, drop_remainder=n % 2 == 1))
    check_twice(make, lambda: make(per_element))


@pytest.mark.parametrize("n", (1, 65, 1000))
def test_an_iterator_of_a_repeated_shuffle_moved_by_a_graph(n):
    x, _, _ = data(n)

    def make(through=lambda d: d):
        return (through(D.from_tensor_slices(x).shuffle(30, seed=6)).repeat()
                .batch(16).skip(2).take(40))

    @rt.function
    def take(it):
        return next(it)

    def read(ds):
        it = iter(ds)
        got = [next(it).numpy() for _ in range(5)]     # from a block read ahead
        got += [take(it).numpy(), next(it).numpy()]
        return got + [b.numpy() for b in it] + eager(ds)
    same(read(make()), read(make(per_element)))


# -- batches of a random access input, and maps after them -------------------------------
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("drop", [False, True])
def test_batches_of_a_random_access_input(n, drop):
    x, y, m = data(n)
    check(lambda: D.from_tensor_slices(m).batch(64, drop_remainder=drop),
          batches(list(m), 64, drop))
    check(lambda: D.from_tensor_slices(m).map(lambda v: v * 2 + 1)
          .batch(64, drop_remainder=drop), batches(list(m * 2 + 1), 64, drop))
    check(lambda: D.from_tensor_slices(m).batch(64, drop_remainder=drop)
          .map(lambda v: v * 2 + 1).map(lambda v: -v), batches(list(-(m * 2 + 1)), 64, drop))
    check(lambda: D.range(n).map(lambda i: i * 2).batch(64, drop_remainder=drop),
          batches([np.int64(2 * i) for i in range(n)], 64, drop))
    check(lambda: D.zip(D.from_tensor_slices(m), D.from_tensor_slices(y))
          .batch(7, drop_remainder=drop), batches([(m[i], y[i]) for i in range(n)], 7, drop))
    check(lambda: D.from_tensor_slices({"x": x, "p": (y, m)}).batch(5, drop_remainder=drop)
          .map(lambda d: {"s": d["x"] + 1.0, "q": d["p"][1] * 2.0}),
          batches([{"s": x[i] + 1, "q": m[i] * 2} for i in range(n)], 5, drop))


@pytest.mark.parametrize("n", (0, 1, 63, 64, 65, 1000))
def test_maps_after_a_batch_that_are_not_elementwise_over_rows(n):
    _, _, m = data(n)
    shift = np.arange(64 * 3, dtype=np.float32).reshape(64, 3)
    check(lambda: D.from_tensor_slices(m).batch(64, drop_remainder=True)
          .map(lambda v: v + shift),          # a constant of a whole batch's shape
          [b + shift for b in batches(list(m), 64, True)])
    check(lambda: D.from_tensor_slices(m).batch(8).map(lambda v: v - rt.reduce_mean(v, 0)),
          [b - b.mean(0) for b in batches(list(m), 8, False)])
    check(lambda: D.from_tensor_slices(m).batch(8).map(lambda v: v * [1.0, 2.0, 3.0]),
          [b * np.float32([1, 2, 3]) for b in batches(list(m), 8, False)])


def test_batches_of_a_range_forever():
    want = batches([np.int64(3 * i) for i in range(10 * 16)], 16, False)
    check(lambda: D.range(0, None).map(lambda i: i * 3).batch(16).take(10), want)


def test_an_iterator_of_indexed_batches_moved_by_a_graph():
    _, _, m = data(1000)
    want = batches(list(m + 2), 64, False)
    it = iter(D.from_tensor_slices(m).batch(64).map(lambda v: v + 2))
    got = [next(it).numpy() for _ in range(3)]     # from a block read ahead

    @rt.function
    def take(it):
        return next(it)
    got += [take(it).numpy(), next(it).numpy()]
    got += [b.numpy() for b in it]
    same(got, want)


# -- jit_compile -------------------------------------------------------------------------
def _digest(ds):
    """(batches, rows, a sum of rows weighted by batch and position): exact in int64."""
    k = rt.constant(0, rt.int64)
    rows = rt.constant(0, rt.int64)
    total = rt.constant(0, rt.int64)
    for b in ds:
        k += 1
        v = rt.cast(b, rt.int64)
        weights = rt.range(1, rt.shape(v, out_type=rt.int64)[0] + 1)
        rows += rt.shape(v, out_type=rt.int64)[0]
        total += k * rt.reduce_sum(v * weights)
    return k, rows, total


def _digest_of(elements):
    k = rows = total = 0
    for b in elements:
        k += 1
        v = np.asarray(b).astype(np.int64)
        rows += len(v)
        total += k * int((v * np.arange(1, len(v) + 1)).sum())
    return k, rows, total


@needs_jax
@pytest.mark.slow
@pytest.mark.parametrize("n", (0, 1, 64, 1000))
def test_jit_compile_gives_the_batches(n):
    _, y, _ = data(n)
    cases = [
        (lambda: D.from_tensor_slices(y).filter(lambda v: v % 2 == 0).batch(8, True),
         batches(list(y[y % 2 == 0]), 8, True)),
        (lambda: D.from_tensor_slices(y).shuffle(30, seed=1).repeat().batch(8, True)
         .take(20), batches([y[i] for e in range(161) for i in shuffled(n, 30, 1, e)],
                            8, True)[:20]),
        (lambda: D.from_tensor_slices(y).repeat(2).shuffle(100, seed=1).batch(16, True),
         batches([y[i % n] for i in shuffled(2 * n, 100, 1)], 16, True)),
    ]
    cases += [
        (lambda: D.from_tensor_slices(y).batch(8, True), batches(list(y), 8, True)),
        (lambda: D.from_tensor_slices(y).batch(8, True).map(lambda v: v * 3),
         batches(list(y * 3), 8, True)),
        (lambda: D.zip(D.from_tensor_slices(y), D.range(n, output_type=rt.int32))
         .map(lambda a, b: a - b)
         .batch(4, True), batches([np.int64(0)] * n, 4, True)),
    ]
    if n % 8 == 0:
        cases.append((lambda: D.from_tensor_slices(y).map(lambda v: v + 1).batch(8),
                      batches(list(y + 1), 8, False)))
    for make, want in cases:
        got = rt.function(_digest, jit_compile=True)(make())
        assert tuple(int(t) for t in got) == _digest_of(want)


def test_an_error_in_a_filter_is_raised():
    y = np.arange(300, dtype=np.int32) - 200           # row 200 divides by zero

    def read(ds):
        got = []
        with pytest.raises(rt.errors.InvalidArgumentError, match="division by zero"):
            for b in ds:
                got.append(b.numpy().tolist())
        return got
    blocked = read(D.from_tensor_slices(y).filter(lambda v: 100 // v < 0).batch(8))
    one_by_one = read(per_element(D.from_tensor_slices(y)).filter(lambda v: 100 // v < 0)
                      .batch(8))
    # (the batches of the block holding the row that raises are not given)
    assert blocked == one_by_one[:len(blocked)]
