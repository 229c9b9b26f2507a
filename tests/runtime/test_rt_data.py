"""rt.data.Dataset: every method eagerly against Python/numpy references; the same
pipelines iterated in an rt.function (one staged loop, graph size independent of the
data); break/return in the loop; map traced once; seeded shuffles; saving."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import runtime as rt

D = rt.data.Dataset


def values(ds):
    return [_py(x) for x in ds.as_numpy_iterator()]


def _py(x):
    if isinstance(x, tuple):
        return tuple(_py(v) for v in x)
    if isinstance(x, dict):
        return {k: _py(v) for k, v in x.items()}
    return np.asarray(x).tolist()


def total(ds):
    s = rt.constant(0, rt.int64)
    for x in ds:
        s += rt.reduce_sum(rt.cast(x, rt.int64))
    return s


# Pipelines with their Python references (n elements of data).
PIPELINES = {
    "range": (lambda n: D.range(n), lambda n: list(range(n))),
    "range_step": (lambda n: D.range(3, n, 4), lambda n: list(range(3, n, 4))),
    "slices_map": (lambda n: D.from_tensor_slices(np.arange(n, dtype=np.int32)).map(
        lambda x: x * 2 + 1), lambda n: [2 * i + 1 for i in range(n)]),
    "filter_map": (lambda n: D.range(n).filter(lambda x: x % 3 == 0).map(lambda x: x * 10),
                   lambda n: [10 * i for i in range(n) if i % 3 == 0]),
    "batch": (lambda n: D.range(n).batch(4), lambda n: [list(range(n))[i:i + 4]
                                                        for i in range(0, n, 4)]),
    "batch_drop": (lambda n: D.range(n).batch(4, drop_remainder=True),
                   lambda n: [list(range(i, i + 4)) for i in range(0, n - 3, 4)]),
    "map_batch": (lambda n: D.range(n).map(lambda x: x + 1).batch(3),
                  lambda n: [list(range(1, n + 1))[i:i + 3] for i in range(0, n, 3)]),
    "filter_batch": (lambda n: D.range(n).filter(lambda x: x % 2 == 1).batch(2),
                     lambda n: [[i for i in range(n) if i % 2][j:j + 2]
                                for j in range(0, len([i for i in range(n) if i % 2]), 2)]),
    "take_skip": (lambda n: D.range(n).skip(2).take(5), lambda n: list(range(n))[2:7]),
    "repeat": (lambda n: D.range(n).repeat(2), lambda n: list(range(n)) * 2),
    "filter_repeat_take": (lambda n: D.range(n).filter(lambda x: x > 1).repeat().take(7),
                           lambda n: ([i for i in range(n) if i > 1] * 7)[:7]),
    "filter_skip_take": (lambda n: D.range(n).filter(lambda x: x < 8).skip(2).take(3),
                         lambda n: [i for i in range(n) if i < 8][2:5]),
    "zip_enumerate": (lambda n: D.zip((D.range(n), D.range(n).map(lambda x: x * x)))
                      .enumerate(5).map(lambda i, ab: i + ab[0] + ab[1]),
                      lambda n: [5 + i + i + i * i for i in range(n)]),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_eager_against_python(name):
    make, ref = PIPELINES[name]
    for n in (0, 1, 10, 13):
        assert values(make(n)) == ref(n), n


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_staged_loop_same_results_and_graph_size(name):
    make, ref = PIPELINES[name]
    sizes = []
    for n in (13, 10001):      # (lengths alike in having a partial last batch or not)
        f = rt.function(lambda: total(make(n)))
        assert int(f()) == int(np.sum([np.sum(v) for v in ref(n)] or [0]))
        sizes.append(len(f.get_concrete_function().graph.get_operations()))
    assert sizes[0] == sizes[1]


def test_element_structures():
    ds = D.from_tensor_slices({"a": [1, 2], "b": ([3.0, 4.0], [[5], [6]])})
    assert values(ds) == [{"a": 1, "b": (3.0, [5])}, {"a": 2, "b": (4.0, [6])}]
    assert ds.element_spec["b"][1] == rt.TensorSpec([1], rt.int32)
    assert values(D.from_tensors(([1, 2], 3))) == [([1, 2], 3)]
    assert D.range(3).element_spec.dtype is rt.int64
    pairs = D.zip({"x": D.range(3), "y": D.range(10, 12)})
    assert values(pairs) == [{"x": 0, "y": 10}, {"x": 1, "y": 11}]


def test_cardinality():
    c = lambda ds: int(ds.cardinality())
    assert c(D.range(10)) == 10 and c(D.range(10).batch(3)) == 4
    assert c(D.range(10).batch(3, drop_remainder=True)) == 3
    assert c(D.range(10).repeat()) == rt.data.INFINITE_CARDINALITY == -1
    assert c(D.range(10).filter(lambda x: x > 2)) == rt.data.UNKNOWN_CARDINALITY == -2
    assert c(D.range(10).repeat().take(4)) == 4 and c(D.range(10).skip(3)) == 7
    assert c(D.zip((D.range(3), D.range(5)))) == 3 and c(D.range(4).repeat(3)) == 12
    assert rt.data.AUTOTUNE == -1 and values(D.range(3).prefetch(rt.data.AUTOTUNE)) == [0, 1, 2]
    assert len(D.range(5)) == 5


def test_reduce_eager_and_staged():
    ds = D.range(1, 6)
    assert int(ds.reduce(rt.constant(0, rt.int64), lambda s, x: s + x)) == 15
    f = rt.function(lambda: ds.map(lambda x: x * x).reduce(rt.constant(0, rt.int64),
                                                          lambda s, x: s + x))
    assert int(f()) == 55
    pair = D.range(4).reduce((rt.constant(0, rt.int64), rt.constant(1, rt.int64)),
                             lambda s, x: (s[0] + x, s[1] * (x + 1)))
    assert [int(v) for v in pair] == [6, 24]


def test_eager_iteration_yields_eager_tensors():
    xs = list(D.from_tensor_slices([1.5, 2.5]))
    assert all(isinstance(x, rt.EagerTensor) for x in xs) and xs[0].dtype is rt.float32
    it = iter(D.range(1))
    assert int(next(it)) == 0
    with pytest.raises(StopIteration):
        next(it)


def test_map_and_filter_traced_once():
    calls = []

    def f(x):
        calls.append(1)
        return x + 1

    def p(x):
        calls.append(2)
        return x > 3

    ds = D.range(10000).map(f).filter(p)
    assert calls == [1, 2]
    fn = rt.function(lambda: total(ds))
    assert int(fn()) == sum(i + 1 for i in range(10000) if i + 1 > 3)
    assert values(ds)[:2] == [4, 5]
    assert calls == [1, 2]


def loop_with_break(ds):
    s = rt.constant(0, rt.int64)
    for x in ds:
        if x > 5:
            break
        s += x
    return s


def loop_with_return(ds):
    for x in ds:
        if x * x > 30:
            return x
    return rt.constant(-1, rt.int64)


def loop_with_continue(ds):
    s = rt.constant(0, rt.int64)
    for x in ds:
        if x % 2 == 0:
            continue
        s += x
    return s


def loop_enumerate(ds):
    s = rt.constant(0, rt.int64)
    for i, x in enumerate(ds):
        s += rt.cast(i, rt.int64) * x
    return s


def test_break_return_continue_inside_the_staged_loop():
    ds = D.range(100).map(lambda x: x + 1)
    assert int(rt.function(loop_with_break)(ds)) == 15
    assert int(rt.function(loop_with_return)(ds)) == 6
    assert int(rt.function(loop_with_return)(D.range(3))) == -1
    assert int(rt.function(loop_with_continue)(D.range(10))) == 25
    assert int(rt.function(loop_enumerate)(D.range(4))) == 0 + 1 + 4 + 9
    assert int(rt.function(loop_with_break)(D.range(100).repeat())) == 15


def test_shuffle_seeded_reproducible_and_a_permutation():
    a = values(D.range(20).shuffle(20, seed=7))
    b = values(D.range(20).shuffle(20, seed=7))
    assert a == b and sorted(a) == list(range(20)) and a != list(range(20))
    ds = D.range(20).shuffle(5, seed=3)
    e1, e2 = values(ds), values(ds)
    assert sorted(e1) == sorted(e2) == list(range(20)) and e1 != e2     # reshuffled
    fixed = D.range(20).shuffle(20, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    assert values(D.range(10).shuffle(1, seed=1)) == list(range(10))    # a buffer of one
    two = values(D.range(6).shuffle(6, seed=2).repeat(2))
    assert sorted(two[:6]) == sorted(two[6:]) == list(range(6)) and two[:6] != two[6:]
    # staged: the same order as the first eager iteration
    f = rt.function(lambda: D.range(20).shuffle(8, seed=9).batch(20).reduce(
        rt.zeros([0], rt.int64), lambda s, x: rt.concat([s, x], 0)))
    assert f().numpy().tolist() == values(D.range(20).shuffle(8, seed=9))
    filtered = values(D.range(30).filter(lambda x: x % 2 == 0).shuffle(4, seed=5))
    assert sorted(filtered) == list(range(0, 30, 2))


def gen():
    for i in range(5):
        yield i, [i, i * 2]


SIG = (rt.TensorSpec([], rt.int32), rt.TensorSpec([2], rt.int32))


def test_from_generator_eager_and_staged():
    ds = D.from_generator(gen, output_signature=SIG)
    assert values(ds) == [(i, [i, 2 * i]) for i in range(5)]
    assert values(ds) == values(ds)             # the generator is called anew
    assert int(ds.cardinality()) == -2
    f = rt.function(lambda: total(ds.map(lambda a, b: a + b[1])))
    assert int(f()) == sum(3 * i for i in range(5))
    assert values(ds.batch(2).map(lambda a, b: rt.reduce_sum(b))) == [3, 15, 12]


def test_from_generator_bad_element():
    ds = D.from_generator(lambda: iter([[1, 2, 3]]), output_signature=rt.TensorSpec([2], rt.int32))
    with pytest.raises(Exception, match="does not match"):
        values(ds)


def test_saving_tensor_sourced_dataset(tmp_path):
    ds = D.from_tensor_slices(np.arange(12, dtype=np.float32)).map(lambda x: x * 2).filter(
        lambda x: x > 4.0).batch(3)

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(scale):
        s = rt.constant(0.0)
        for x in ds:
            s += rt.reduce_sum(x) * scale
        return s

    expect = float(f(rt.constant(2.0)))
    rt.saved.save(f, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    fn = loaded.signatures["serving_default"] if hasattr(loaded, "signatures") else loaded
    out = fn(rt.constant(2.0))
    got = float(rt.nest.flatten(out)[0]) if not isinstance(out, rt.Tensor) else float(out)
    assert got == expect == 2.0 * sum(2 * i for i in range(12) if 2 * i > 4)


def test_saving_generator_dataset_refused(tmp_path):
    ds = D.from_generator(gen, output_signature=SIG)

    @rt.function(input_signature=[])
    def f():
        return total(ds.map(lambda a, b: a))

    assert int(f()) == 10
    with pytest.raises(Exception, match="from_generator"):
        rt.saved.save(f, str(tmp_path / "g"))


def test_bad_arguments():
    with pytest.raises(rt.errors.InvalidArgumentError):
        D.range(3).batch(0)
    with pytest.raises(ValueError):
        D.from_tensor_slices(rt.constant(1))
    with pytest.raises(rt.errors.InvalidArgumentError):
        D.from_tensor_slices(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match="scalar bool"):
        D.range(3).filter(lambda x: x)
    with pytest.raises(TypeError):
        D.from_generator(gen)


def _staged_order(ds, n, jit):
    def order():
        out = rt.TensorArray(rt.int64, size=n)
        i = 0
        for x in ds:
            out = out.write(i, x)
            i += 1
        return out.stack()
    return rt.function(order, jit_compile=jit)


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="JAX is not installed"))])
def test_each_call_of_a_function_looping_over_an_outer_shuffle_draws_the_next_order(jit):
    """As tf.data's seed generator: eager loops and calls of a function share one sequence
    of orders, the same for the same seed; a function traced once draws a new order at
    each call (it does not replay the order it was traced with)."""
    def make(reshuffle=True):
        return D.range(12).shuffle(12, seed=4, reshuffle_each_iteration=reshuffle)
    reference = make()
    expected = [values(reference) for _ in range(4)]
    assert len({tuple(e) for e in expected}) == 4
    ds = make()
    f = _staged_order(ds, 12, jit)
    got = [f().numpy().tolist(), values(ds), f().numpy().tolist(), f().numpy().tolist()]
    assert got == expected
    assert len(f._cache) == 1                          # traced once
    fixed = make(reshuffle=False)
    g = _staged_order(fixed, 12, jit)
    assert g().numpy().tolist() == g().numpy().tolist() == values(fixed) == expected[0]
