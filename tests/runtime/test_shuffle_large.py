"""A shuffle of more than 2^22 elements: its draws come from two small tables of the
generator's powers instead of one constant of every power (a constant of n values in
the graph), and it keeps the one-permutation-per-epoch path rather than falling to the
buffer element by element (25 s for 4,194,368 rows, where 4,194,304 took 1 s)."""
import numpy as np
import pytest

import runtime as rt
from runtime.data import shuffle


def _order(n, buffer_size, seed):
    ds = rt.data.Dataset.range(n).shuffle(buffer_size, seed=seed)
    return np.concatenate([b.numpy() for b in ds.batch(97)]) if n else np.zeros(0, np.int64)


@pytest.mark.parametrize("n, buffer_size", [(0, 8), (1, 8), (1000, 64), (5000, 5000),
                                            (4097, 4096), (9000, 100)])
def test_tabled_draws_give_the_same_orders(monkeypatch, n, buffer_size):
    expected = _order(n, buffer_size, seed=7)
    monkeypatch.setattr(shuffle, "_TABLED_ABOVE", 10)
    got = _order(n, buffer_size, seed=7)
    np.testing.assert_array_equal(got, expected)
    assert sorted(got.tolist()) == list(range(n))


def test_tabled_draws_are_the_generators():
    x = rt.constant(np.int64(123456789))
    for n in (1, 4095, 4096, 4097, 20000):
        np.testing.assert_array_equal(shuffle.draws(n, x, tabled_above=0).numpy(),
                                      shuffle.draws(n, x).numpy())


@pytest.mark.slow
def test_a_shuffle_of_more_than_four_million_rows_is_one_order_per_epoch():
    n = (1 << 22) + 64
    x = np.arange(n, dtype=np.int32)
    ds = rt.data.Dataset.from_tensor_slices(x).shuffle(1024, seed=1).batch(4096)
    graph = rt.function(lambda d: d.reduce(np.int64(0), lambda s, b: s + 1)).get_concrete_function(
        ds).graph
    sizes = [op.outputs[0].shape.num_elements() or 0 for op in graph.get_operations()
             if op.type == "Const"]
    assert sum(size >= n for size in sizes) == 1    # the data only, no constant of n draws
    seen = np.concatenate([b.numpy() for b in ds])
    assert len(seen) == n and not (seen == x).all()
    np.testing.assert_array_equal(np.sort(seen), x)
