"""Eager iteration's flat steps and chunks (runtime/data/eager_steps.py) and the shuffle
buffer's last draws as one op (runtime/ops/buffer_ops.py) give what the per-element
paths give: the same elements in the same order as `_next` called through rt.function
element by element, errors at the same element, prints in step with the elements, and
the same position when an iterator moves on in a graph."""
import importlib.util

import numpy as np
import pytest

import runtime as rt
from runtime.data import eager_steps
from runtime.data.shuffle_order import reference_order
from runtime.errors import InvalidArgumentError
from runtime.ops.buffer_ops import BUFFER_DRAIN, drain, shuffle_buffer_drain

D = rt.data.Dataset
X = np.random.default_rng(1).standard_normal(300).astype(np.float32)


def old_path(ds, limit=10_000):
    """The elements by `_next` through rt.function, one call per element (as before)."""
    state = tuple(ds._init_function()(rt.constant(ds._epoch(), rt.int64)))
    out = []
    for _ in range(limit):
        valid, element, state = ds._next_function()(*state)
        if not bool(valid.numpy()):
            return out
        out.append(rt.nest.map_structure(lambda t: t.numpy().tolist(), element))
    return out


def eager(ds):
    return [rt.nest.map_structure(lambda t: t.numpy().tolist(), e) for e in ds]


PIPELINES = {
    "shuffle_batch": lambda: D.from_tensor_slices(X).map(lambda v: v * 2 + 1).shuffle(
        64, seed=3).batch(7),
    "remainder": lambda: D.from_tensor_slices(X[:50]).batch(16),
    "filter_unknown_length": lambda: D.range(100).filter(lambda x: x % 3 == 0).map(
        lambda x: (x, x * 2)),
    "buffered_unknown_length": lambda: D.range(60).filter(lambda x: x % 2 == 0).shuffle(
        8, seed=2),
    "empty": lambda: D.from_tensor_slices(np.zeros([0, 2], np.float32)).shuffle(4, seed=1),
    "empty_filter": lambda: D.range(20).filter(lambda x: x > 100),
    "dict": lambda: D.from_tensor_slices({"a": X[:20], "b": np.arange(20)}).batch(6),
    "generator": lambda: D.from_generator(lambda: iter(range(5)), output_signature=rt.TensorSpec(
        [], rt.int64)),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_same_elements_in_the_same_order_as_one_call_per_element(name):
    make = PIPELINES[name]
    ref = old_path(make())
    assert eager(make()) == ref
    ds = make()                              # two epochs of one dataset: their own orders
    again = make()
    assert [eager(ds), eager(ds)] == [old_path(again), old_path(again)]


def test_the_buffers_order_against_its_definition():
    n, b, seed = 300, 64, 3
    got = [int(i) for i in D.range(n).shuffle(b, seed=seed)]
    assert sorted(got) == list(range(n))
    ds = D.range(n).shuffle(b, seed=seed)
    assert eager(ds) == got                  # the first epoch again, a fresh dataset
    x = rt.data.shuffle._seed(seed)[0] % (2147483647 - 1) + 1
    for _ in range(3):
        x = x * 48271 % 2147483647
    assert got == reference_order(x, n, b)


def test_an_error_comes_at_the_same_element():
    table = rt.constant(np.arange(10, dtype=np.float32))
    ds = D.range(30).map(lambda i: rt.gather(table, i))   # index 10 is out of range
    assert ds.__dict__.get("_flat_steps") is None
    got = []
    with pytest.raises(InvalidArgumentError):
        for v in ds:
            got.append(float(v))
    assert got == list(map(float, range(10)))
    assert ds.__dict__["_flat_steps"].chunked is not None


def test_prints_come_with_their_elements(capsys):
    ds = D.range(40).map(lambda x: (rt.print("at", x), x)[1])
    it = iter(ds)
    next(it)
    next(it)
    assert capsys.readouterr().out == "at 0\nat 1\n"
    assert ds.__dict__["_flat_steps"].chunked is None      # a print: no chunks


def test_the_position_is_the_elements_taken_when_a_graph_moves_it():
    ds = D.from_tensor_slices(np.arange(100)).shuffle(32, seed=5)
    order = eager(D.from_tensor_slices(np.arange(100)).shuffle(32, seed=5))
    it = iter(ds)
    first = [int(next(it)) for _ in range(3)]      # a chunk computed ahead

    @rt.function
    def take(it):
        return next(it)
    assert first + [int(take(it)), int(next(it))] == order[:5]


def test_the_drain_kernel_is_the_buffers_definition():
    rng = np.random.default_rng(0)
    for m in (0, 1, 2, 5, 40):
        held = rng.permutation(1000)[:m].astype(np.int64)
        slots = np.array([rng.integers(0, m - t) for t in range(m)], np.int64)
        cur, want = held.tolist(), []
        for t, j in enumerate(slots.tolist()):
            want.append(cur[j])
            cur[j] = cur[-1]
            cur.pop()
        assert drain(held, slots).tolist() == want
        # (jit_compile where JAX is installed: CI's other Pythons have no jax extra)
        for jit in (False, True) if importlib.util.find_spec("jax") else (False,):
            f = rt.function(shuffle_buffer_drain, jit_compile=jit)
            assert f(held, slots).numpy().tolist() == want, (m, jit)
    with pytest.raises(InvalidArgumentError):
        shuffle_buffer_drain(np.array([1, 2], np.int64), np.array([1, 1], np.int64))
    assert BUFFER_DRAIN in rt.ops.registry().values()


def test_a_chunk_is_not_made_for_a_variable_read():
    v = rt.Variable(1.0)
    ds = D.range(40).map(lambda x: rt.cast(x, rt.float32) * v)
    it = iter(ds)
    assert float(next(it)) == 0.0
    v.assign(2.0)
    assert float(next(it)) == 2.0              # read when its element is taken
    assert ds.__dict__["_flat_steps"].chunked is None
    assert eager_steps.CHUNK > 1
