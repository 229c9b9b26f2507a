"""`zip` over tensors in a `for`, and the builtins `max`/`min` of tensors, staged: one
staged loop as long as the shortest tensor (not a Python loop unrolled over each row),
and Python's answer for max/min (the first of equal values; a NaN is the answer only
where it comes first), every way a program runs."""
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime as rt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from agreement import HAVE_JAX, agree  # noqa: E402


def dot_by_zip(xs, ys):
    acc = rt.constant(0.0)
    for x, y in zip(xs, ys):
        acc += x * y
    return acc


def zip_with_break(xs, ys):
    acc = rt.constant(0.0)
    for i, (x, y) in enumerate(zip(xs, ys)):
        if x > 2.5:
            break
        acc += rt.cast(i, rt.float32) * x + y
    return acc


def biggest_gap(a, b, c):
    return max(a, b) - min(b, c) + max(a, b, c) - min(a, b, c)


def spread(xs):
    return max(xs) - min(xs)


def test_zip_over_tensors_is_one_staged_loop():
    xs, ys = np.arange(5, dtype=np.float32), np.arange(3, dtype=np.float32) + 1
    agree(dot_by_zip, (xs, ys), which=("given", "one", "nan"))
    graph = rt.function(dot_by_zip).get_concrete_function(
        rt.TensorSpec([None], rt.float32), rt.TensorSpec([None], rt.float32)).graph
    assert {"While", "StatelessWhile"} & {op.type for op in graph.get_operations()}


def test_zip_stops_at_the_shortest_and_at_break():
    xs = np.array([1.0, 2.0, 3.0, 1.0], np.float32)
    for ys in (np.ones(4, np.float32), np.ones(2, np.float32)):
        agree(zip_with_break, (xs, ys), which=("given", "one", "nan"))


def test_zip_of_datasets_and_of_a_tensor_with_a_list():
    d1, d2 = rt.data.Dataset.range(5), rt.data.Dataset.range(3).map(lambda v: v * 10)

    @rt.function
    def over_datasets(a, b):
        s = rt.constant(0, rt.int64)
        for x, y in zip(a, b):
            s += x + y
        return s
    assert int(over_datasets(d1, d2)) == sum(x + 10 * x for x in range(3))

    @rt.function
    def with_list(t):
        s = 0.0
        for x, w in zip(t, [1.0, 2.0]):
            s += x * w
        return s
    assert float(with_list(rt.constant([1.0, 2.0, 3.0]))) == 5.0


@pytest.mark.parametrize("values", [(1.0, 2.0, 3.0), (3.0, 2.0, 1.0), (2.0, 2.0, 2.0),
                                    (np.nan, 1.0, 2.0), (1.0, np.nan, 2.0),
                                    (2.0, 1.0, np.nan)])
def test_max_min_of_scalars_as_python(values):
    args = tuple(np.float32(v) for v in values)
    expected = biggest_gap(*(float(v) for v in values))
    got = rt.function(biggest_gap)(*args).numpy()
    np.testing.assert_equal(got, np.float32(expected))
    agree(biggest_gap, args, which=("given",), unknown=False)


@pytest.mark.parametrize("xs", [[1.0, 3.0, 2.0], [np.nan, 1.0, 2.0], [1.0, np.nan, 2.0],
                                [5.0]])
def test_max_min_of_a_vector_as_python(xs):
    expected = spread([float(x) for x in xs])
    got = rt.function(spread)(rt.constant(xs, rt.float32)).numpy()
    np.testing.assert_equal(got, np.float32(expected))
    ints = np.array([3, 1, 2], np.int32)
    assert int(rt.function(spread)(rt.constant(ints))) == spread(list(ints))


def test_max_of_an_empty_or_matrix_tensor_says_what_python_says():
    with pytest.raises(ValueError, match="empty sequence"):
        rt.function(spread)(rt.constant(np.zeros(0, np.float32)))
    with pytest.raises(TypeError, match="reduce_max"):
        rt.function(spread)(rt.constant(np.zeros((2, 2), np.float32)))


@pytest.mark.parametrize("dtype", [rt.int32, rt.float32])
@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=pytest.mark.skipif(
    not HAVE_JAX, reason="jit_compile needs JAX"))])
def test_max_of_a_vector_empty_only_at_run_time_raises(dtype, jit):
    """A reduction of nothing gives its identity (int32's lowest value): never returned
    as a max, as Python raises instead."""
    f = rt.function(spread, input_signature=[rt.TensorSpec([None], dtype)], jit_compile=jit)
    assert float(f(rt.constant([1, 3], dtype))) == 2
    with pytest.raises(rt.errors.InvalidArgumentError, match="empty sequence"):
        f(rt.constant(np.zeros(0, dtype.np_dtype)))


def test_max_with_key_or_of_python_values_is_pythons():
    @rt.function
    def f(x):
        return max([3, 1, 2], key=lambda v: -v) + min(4, 5) + x
    assert float(f(rt.constant(0.0))) == 5.0
