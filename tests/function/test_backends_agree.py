"""Ordinary programs, every way they run (tests/agreement.py): eagerly, on the numpy
backend for known and unknown dimensions, under jit_compile, and exported to ONNX, each
also on zero rows, one row and NaN."""
import os
import sys

import numpy as np
import pytest

import runtime as rt

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from agreement import agree, variants  # noqa: E402

F = np.float32
ROWS = np.arange(12, dtype=F).reshape(6, 2) - 4.5
VEC = np.array([3.0, -1.0, 2.5, 0.0, 7.0], F)

X0 = rt.constant(1.0)


class Holder:
    pass


HOLDER = Holder()
GLOBAL_START = rt.constant(2.0)


def loop_from_eager_local(x):
    y = X0
    for v in x:
        y = y * 0.5 + v
    return y


def loop_from_eager_attribute(x):
    HOLDER.v = X0
    for v in x:
        HOLDER.v = HOLDER.v + v
    return HOLDER.v


def loop_from_eager_global(x):
    total = GLOBAL_START
    i = 0
    while i < rt.size(x):
        total = total + x[i]
        i += 1
    return total


def while_loop_from_eager_vars(x):
    return rt.while_loop(lambda i, y: i < rt.shape(x)[0],
                         lambda i, y: (i + 1, y + rt.reduce_sum(x[i])),
                         [rt.constant(0), X0])[1]


def cond_from_eager(x):
    return rt.cond(rt.reduce_sum(x) > 0.0, lambda: X0, lambda: X0 * 3.0)


def running_max(x):
    best = rt.constant(-np.inf)
    for v in x:
        if v > best:
            best = v
    return best


def count_positive_rows(x):
    n = 0
    for row in x:
        if rt.reduce_sum(row) > 0.0:
            n += 1
    return n


def first_negative(x):
    for i in rt.range(rt.shape(x)[0]):
        if x[i] < 0.0:
            return i
    return -1


def reductions(x):
    return (rt.reduce_sum(x), rt.reduce_mean(x), rt.reduce_max(x), rt.reduce_min(x),
            rt.argmax(x), rt.argmin(x))


def cumulative(x):
    return rt.cumsum(x), rt.math.cumprod(x) if hasattr(rt, "math") else rt.cumsum(x)


def scan_rows(x):
    return rt.scan(lambda a, r: a + r, x, initializer=rt.zeros([2]))


def map_rows(x):
    return rt.map_fn(lambda r: r * 2.0 + 1.0, x,
                     fn_output_signature=rt.TensorSpec([2], rt.float32))


def fold_rows(x):
    return rt.foldl(lambda a, r: a + r, x, initializer=rt.zeros([2]))


def tensor_array_of_squares(x):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for i in rt.range(rt.shape(x)[0]):
        ta = ta.write(i, x[i] * x[i])
    return ta.stack()


PROGRAMS_OF_VECTORS = [loop_from_eager_local, loop_from_eager_attribute,
                       loop_from_eager_global, while_loop_from_eager_vars, cond_from_eager,
                       running_max, first_negative]
PROGRAMS_OF_ROWS = [count_positive_rows, scan_rows, map_rows, fold_rows]


@pytest.mark.parametrize("fn", PROGRAMS_OF_VECTORS, ids=lambda f: f.__name__)
def test_programs_of_vectors(fn):
    agree(fn, (VEC,))


def test_dynamic_tensor_array_is_refused_by_xla_never_wrong():
    # XLA needs the stacked size while compiling; a dynamic_size TensorArray is refused
    agree(tensor_array_of_squares, (VEC,), jit="refuses")


@pytest.mark.parametrize("fn", PROGRAMS_OF_ROWS, ids=lambda f: f.__name__)
def test_programs_of_rows(fn):
    agree(fn, (ROWS,))


def test_map_fn_of_no_rows_of_unknown_width_asks_for_the_signature():
    # eagerly the rows' width is known (0, 2); traced for [None, None] nothing tells
    # fn's output shape without a row to run it on: a clear error, not a guess
    f = rt.function(lambda x: rt.map_fn(lambda r: r * 2.0, x),
                    input_signature=[rt.TensorSpec([None, None], rt.float32)])
    with pytest.raises(rt.errors.InvalidArgumentError, match="fn_output_signature"):
        f(rt.zeros([0, 2]))
    np.testing.assert_array_equal(f(rt.ones([1, 2])).numpy(), [[2.0, 2.0]])


def test_reductions_agree_on_nan_and_empty():
    agree(reductions, (VEC,), which=("given", "one", "nan"))
    # reductions of nothing: sum 0, mean NaN; max/min/argmax of nothing raise
    agree(lambda x: (rt.reduce_sum(x), rt.reduce_mean(x)), (VEC,), which=("empty",))


def test_variants_cover_empty_one_and_nan():
    names = [name for name, _ in variants((ROWS, VEC))]
    assert names == ["given", "empty", "one", "nan"]
    arrays = dict(variants((ROWS,)))
    assert arrays["empty"][0].shape == (0, 2) and arrays["one"][0].shape == (1, 2)
    assert np.isnan(arrays["nan"][0][0, 0])
