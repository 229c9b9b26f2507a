"""rt.data pipelines iterated in rt.function(jit_compile=True) against the numpy backend
and eager iteration: the same results, one staged loop of the same graph size for 10 and
10,000 elements. (XLA needs static shapes: batches use drop_remainder=True.)"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402

D = rt.data.Dataset


def total(ds):
    s = rt.constant(0, rt.int64)
    for x in ds:
        s += rt.reduce_sum(rt.cast(x, rt.int64))
    return s


def first_big(ds):
    for x in ds:
        if x * x > 30:
            return x
    return rt.constant(-1, rt.int64)


PIPELINES = {
    "range": lambda n: D.range(n),
    "slices_map_batch": lambda n: D.from_tensor_slices(np.arange(n, dtype=np.int32)).map(
        lambda x: x + 1).batch(3, drop_remainder=True).map(rt.reduce_sum),
    "filter_map": lambda n: D.range(n).filter(lambda x: x % 3 == 0).map(lambda x: x * 10),
    "filter_batch": lambda n: D.range(n).filter(lambda x: x % 2 == 1).batch(
        2, drop_remainder=True),
    "shuffle_take": lambda n: D.range(n).shuffle(7, seed=3).take(5),
    "batch_repeat_skip": lambda n: D.range(n).batch(4, drop_remainder=True).repeat(2).skip(1),
    "zip_enumerate": lambda n: D.zip((D.range(n), D.range(n).filter(lambda x: x > 2))).map(
        lambda a, b: a * b).enumerate().map(lambda i, v: i + v),
    "shuffle_filter_repeat": lambda n: D.range(n).filter(lambda x: x > 1).shuffle(
        4, seed=1).repeat(2),
}


# the shuffles and the longest pipelines compile longest: the slow tier
SLOW = {"shuffle_filter_repeat", "shuffle_take", "zip_enumerate", "slices_map_batch"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in sorted(PIPELINES)])
def test_xla_agrees_with_numpy_and_eager(name):
    make = PIPELINES[name]
    for n in (10, 10000):
        ref = int(sum(int(np.sum(x.numpy())) for x in make(n)))
        sizes = []
        for jit in (False, True):
            f = rt.function(lambda: total(make(n)), jit_compile=jit)
            assert int(f()) == ref, (name, n, jit)
            sizes.append(len(f.get_concrete_function().graph.get_operations()))
        assert sizes[0] == sizes[1]
    small = rt.function(lambda: total(make(10)), jit_compile=True).get_concrete_function()
    big = rt.function(lambda: total(make(10000)), jit_compile=True).get_concrete_function()
    assert len(small.graph.get_operations()) == len(big.graph.get_operations())


def test_xla_return_inside_the_loop_and_reduce():
    ds = D.range(100).map(lambda x: x + 1)
    assert int(rt.function(first_big, jit_compile=True)(ds)) == 6
    f = rt.function(lambda: D.range(1, 6).reduce(rt.constant(0, rt.int64), lambda s, x: s + x),
                    jit_compile=True)
    assert int(f()) == 15


def test_xla_refuses_a_generator_dataset_clearly():
    ds = D.from_generator(lambda: iter([1, 2]), output_signature=rt.TensorSpec([], rt.int32))
    f = rt.function(lambda: total(ds), jit_compile=True)
    with pytest.raises(Exception, match="py_function"):
        f()
