"""rt.data's block paths (a batch reading the rows of several batches at once, eager
iteration handing out views of a block) against the definition in numpy: the same
elements in the same order, batch by batch, eagerly, in a staged `for` of an
rt.function and under jit_compile; with 0, 1, 63, 64, 65, 1000 and 16384 rows, with and
without drop_remainder, nested elements, maps that are and are not elementwise, and
repeat/take/skip around the batch."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import runtime as rt
from runtime.data.shuffle_order import reference_order

D = rt.data.Dataset
M, A = 2147483647, 48271
SIZES = (0, 1, 63, 64, 65, 1000, pytest.param(16384, marks=pytest.mark.slow))
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")


# -- the definition ----------------------------------------------------------------------
def shuffled(n: int, buffer: int, seed: int, epoch: int = 0) -> list:
    """The order of `range(n).shuffle(buffer, seed)` in its `epoch`-th iteration: the
    generator's state from the seed and the iteration, then the whole permutation (the
    argsort of the next n draws) where the buffer holds every element, else the buffer
    drawn from element by element."""
    if n == 0:
        return []
    x = seed + 1 + epoch * 7919 % (M - 1 - seed)
    for _ in range(3):
        x = x * A % M
    if n <= buffer:
        draws, d = [], x
        for _ in range(n):
            d = d * A % M
            draws.append(d)
        return np.argsort(np.array(draws), kind="stable").tolist()
    return reference_order(x, n, buffer)


def batches(rows, b: int, drop: bool) -> list:
    """`rows` (a list of elements) in batches of `b`, stacked leaf by leaf."""
    out = []
    for i in range(0, len(rows), b):
        part = rows[i:i + b]
        if drop and len(part) < b:
            break
        out.append(rt.nest.map_structure(lambda *leaves: np.stack(leaves), *part))
    return out


def data(n: int):
    x = (np.arange(n, dtype=np.float32) * 0.5) % 37.0
    return x, np.stack([x, -x, x * x], 1)


# -- the ways of reading a dataset -------------------------------------------------------
def eager(ds) -> list:
    return [rt.nest.map_structure(lambda t: np.asarray(t.numpy()), e) for e in ds]


def staged(ds, batched: bool):
    """(each leaf's rows concatenated, each element's row count) read by a staged `for`."""
    specs = rt.nest.flatten(ds.element_spec)

    @rt.function
    def collect():
        outs = [rt.zeros([0] + s.shape.as_list()[1 if batched else 0:], s.dtype)
                for s in specs]
        sizes = rt.zeros([0], rt.int32)
        for e in ds:
            parts = rt.nest.flatten(e)
            if not batched:
                parts = [rt.expand_dims(p, 0) for p in parts]
            outs = [rt.concat([o, p], 0) for o, p in zip(outs, parts)]
            sizes = rt.concat([sizes, rt.reshape(rt.shape(parts[0])[0], [1])], 0)
        return outs, sizes
    outs, sizes = collect()
    return [o.numpy() for o in outs], sizes.numpy().tolist()


def flat_rows(elements, batched: bool):
    """The staged form of a list of elements (see `staged`)."""
    if not elements:
        return None, []
    leaves = [rt.nest.flatten(e) for e in elements]
    cols = list(zip(*leaves))
    if batched:
        return [np.concatenate(c) for c in cols], [len(lv[0]) for lv in leaves]
    return [np.stack(c) for c in cols], [1] * len(elements)


def check(make, expected: list, batched: bool = True):
    """`make()` (a fresh dataset: a shuffle counts its iterations) read eagerly and staged
    gives `expected`, element by element."""
    got = eager(make())
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        rt.nest.assert_same_structure(g, e)
        for a, b in zip(rt.nest.flatten(g), rt.nest.flatten(e)):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
    outs, sizes = staged(make(), batched)
    want, want_sizes = flat_rows(expected, batched)
    assert sizes == want_sizes
    if want is not None:
        for a, b in zip(outs, want):
            np.testing.assert_array_equal(a, b)


# -- the tests ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("drop", [False, True])
def test_shuffled_batches_of_a_map(n, drop):
    x, _ = data(n)
    for buffer, seed in ((1024, 1), (32, 7)):
        def make():
            return (D.from_tensor_slices(x).map(lambda v: v * 2 + 1)
                    .shuffle(buffer, seed=seed).batch(64, drop_remainder=drop))
        rows = [x[i] * 2 + 1 for i in shuffled(n, buffer, seed)]
        check(make, batches(rows, 64, drop))


@pytest.mark.parametrize("n", (0, 1, 65, 1000))
def test_a_map_that_is_not_elementwise(n):
    x, _ = data(n)
    scale = rt.constant(3.0)                      # captured: not vectorised

    def make():
        return (D.from_tensor_slices(x).map(lambda v: v * scale)
                .shuffle(100, seed=2).batch(16))
    rows = [x[i] * 3 for i in shuffled(n, 100, 2)]
    check(make, batches(rows, 16, False))


@pytest.mark.parametrize("n", (0, 1, 63, 64, 65, 1000))
def test_nested_elements(n):
    x, m = data(n)
    ints = np.arange(n, dtype=np.int64)

    def make():
        return (D.from_tensor_slices((x, {"m": m, "i": ints}))
                .map(lambda a, d: (a + 1, {"m": d["m"] * 2, "i": d["i"] - 1}))
                .shuffle(50, seed=3).batch(8, drop_remainder=n % 2 == 0))
    rows = [(x[i] + 1, {"m": m[i] * 2, "i": ints[i] - 1}) for i in shuffled(n, 50, 3)]
    check(make, batches(rows, 8, n % 2 == 0))


@pytest.mark.slow
@pytest.mark.parametrize("n", (0, 1, 65, 1000))
def test_repeat_take_and_skip_of_batches(n):
    x, _ = data(n)

    def shuffled_batches(drop=False):
        return (D.from_tensor_slices(x).map(lambda v: v - 1)
                .shuffle(64, seed=4).batch(10, drop_remainder=drop))
    first = batches([x[i] - 1 for i in shuffled(n, 64, 4, 0)], 10, False)
    second = batches([x[i] - 1 for i in shuffled(n, 64, 4, 1)], 10, False)
    check(lambda: shuffled_batches().repeat(2), first + second)
    check(lambda: shuffled_batches().take(3), first[:3])
    check(lambda: shuffled_batches().skip(2), first[2:])
    check(lambda: shuffled_batches().skip(1).take(2), first[1:3])
    kept = batches([x[i] - 1 for i in shuffled(n, 64, 4, 0)], 10, True)
    check(lambda: shuffled_batches(drop=True).take(5), kept[:5])


@pytest.mark.parametrize("n", SIZES)
def test_elements_of_a_map_one_by_one(n):
    x, m = data(n)
    check(lambda: D.from_tensor_slices(x).map(lambda v: v * 2 + 1), list(x * 2 + 1),
          batched=False)
    check(lambda: D.from_tensor_slices(m).map(lambda v: v + 1).skip(3).take(500),
          list(m[3:503] + 1), batched=False)
    check(lambda: D.from_tensor_slices((x, m)).map(lambda a, b: (b, a)),
          [(m[i], x[i]) for i in range(n)], batched=False)
    check(lambda: D.from_tensor_slices(x).map(lambda v: v * 2).batch(64),
          batches(list(x * 2), 64, False))


def test_an_iterator_moved_by_a_graph_after_eager_batches():
    x, _ = data(1000)
    order = shuffled(1000, 1024, 9)
    want = batches([x[i] + 2 for i in order], 64, False)
    ds = D.from_tensor_slices(x).map(lambda v: v + 2).shuffle(1024, seed=9).batch(64)
    it = iter(ds)
    got = [next(it).numpy() for _ in range(3)]     # from a block read ahead

    @rt.function
    def take(it):
        return next(it)
    got += [take(it).numpy(), next(it).numpy()]
    got += [b.numpy() for b in it]
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_a_block_is_a_view_of_bounded_size():
    from runtime.data.batch_blocks import BLOCK_BYTES, MOST_BATCHES
    x = np.zeros((4096, 1000), np.float32)            # 4000 bytes a row
    ds = D.from_tensor_slices(x).map(lambda v: v + 1).shuffle(4096, seed=1).batch(64)
    assert ds.blocks.k == max(1, BLOCK_BYTES // (64 * 4000))
    small = D.from_tensor_slices(x[:, 0]).map(lambda v: v).shuffle(10, seed=1).batch(64)
    assert small.blocks.k == MOST_BATCHES
    assert D.from_tensor_slices(x[:100, 0]).map(abs).shuffle(10).batch(64).blocks.k == 2


def _digest(ds):
    """(elements, rows, a sum of rows weighted by element and position): exact in int64."""
    k = rt.constant(0, rt.int64)
    rows = rt.constant(0, rt.int64)
    total = rt.constant(0, rt.int64)
    for b in ds:
        k += 1
        v = rt.cast(b * 2.0, rt.int64)
        weights = rt.range(1, rt.shape(v, out_type=rt.int64)[0] + 1)
        rows += rt.shape(v, out_type=rt.int64)[0]
        total += k * rt.reduce_sum(v * weights)
    return k, rows, total


def _digest_of(elements):
    k = rows = total = 0
    for b in elements:
        k += 1
        v = (np.asarray(b) * 2).astype(np.int64)
        rows += len(v)
        total += k * int((v * np.arange(1, len(v) + 1)).sum())
    return k, rows, total


@needs_jax
@pytest.mark.slow
@pytest.mark.parametrize("n, drop", [(64, False), (1000, True), (16384, False),
                                     (65, True), (0, True)])
def test_jit_compile_gives_the_batches(n, drop):
    x, _ = data(n)
    ds = (D.from_tensor_slices(x).map(lambda v: v * 2 + 1).shuffle(1024, seed=1)
          .batch(64, drop_remainder=drop))
    want = _digest_of(batches([x[i] * 2 + 1 for i in shuffled(n, 1024, 1)], 64, drop))
    got = rt.function(_digest, jit_compile=True)(ds)
    assert tuple(int(t) for t in got) == want


def test_the_radix_order_is_the_stable_argsort():
    from runtime.data.shuffle_order import stable_order
    rng = np.random.default_rng(5)
    for n, bits, top in ((0, 31, 10), (100, 31, 1 << 31), (5000, 31, 1 << 31), (5000, 31, 7),
                         (5000, 15, 1 << 15), (70000, 31, 70000)):
        keys = rng.integers(0, top, n).astype(np.int64)
        want = np.argsort(keys, kind="stable")
        got = stable_order(rt.constant(keys), bits, n if n < 1000 else None).numpy()
        np.testing.assert_array_equal(got, want)


@pytest.mark.slow
def test_a_buffer_of_more_than_32768_slots():
    n, b = 50000, 40000
    x = np.arange(n, dtype=np.float32)
    ds = D.from_tensor_slices(x).shuffle(b, seed=11).batch(1000)
    got = np.concatenate([t.numpy() for t in ds])
    np.testing.assert_array_equal(got, x[shuffled(n, b, 11)])


def test_string_elements_one_by_one_and_in_shuffled_batches():
    words = [b"a", b"bb", b"ccc", b"", b"ee", b"f", b"gg"]
    ds = D.from_tensor_slices(rt.constant(words))
    assert [t.numpy() for t in ds] == words
    got = [list(t.numpy()) for t in ds.shuffle(5, seed=2).batch(3)]
    order = [words[i] for i in shuffled(len(words), 5, 2)]
    assert got == [order[i:i + 3] for i in range(0, len(words), 3)]


def test_an_error_comes_at_its_batch():
    x = np.arange(200, dtype=np.int32) - 100           # row 100 divides by zero
    order = shuffled(200, 300, 1)
    bad = order.index(100) // 8
    for drop in (False, True):
        ds = (D.from_tensor_slices(x).map(lambda v: 100 // v).shuffle(300, seed=1)
              .batch(8, drop_remainder=drop))
        got = []
        with pytest.raises(rt.errors.InvalidArgumentError, match="division by zero"):
            for b in ds:
                got.append(b.numpy().tolist())
        assert got == [[100 // int(x[i]) for i in order[k * 8:k * 8 + 8]]
                       for k in range(bad)]
