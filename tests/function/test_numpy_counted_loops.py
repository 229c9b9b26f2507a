"""The numpy backend's counted loops: a staged loop whose test is `i < limit`, whose body
steps `i + 1` and reads `i` only as an index runs as `for i in range(start, limit):`.
Each program runs in plain Python/numpy, eagerly and through rt.function, and must give
the same values and dtypes: zero, one and many iterations, a start past the limit, int32
counters at the top of their range, int64 counters, break and continue, nested loops,
NaN tests, an index out of bounds; loops that do not qualify must still be right."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import runtime as rt
from runtime.core import walk
from runtime.backends.numpy.counted_loops import counted_loop

INT32_MAX = np.iinfo(np.int32).max


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def _source(fn, *args):
    return fn.get_concrete_function(*args)._compiled().source


def _counted_in(fn, *args) -> list:
    """Whether each top-level while node of the traced graph qualifies as counted."""
    graph, _, outputs = fn.get_concrete_function(*args)._optimized()
    return [counted_loop(op) is not None for op in walk.schedule(graph, outputs)
            if op.type.endswith("While")]


# -- for i in rt.range(...): the counter indexes a range -----------------------------------

def _range_sum(x, start, limit, delta):
    s = rt.constant(0, rt.int32)
    for i in rt.range(start, limit, delta):
        s += i * 2
    return s


@pytest.mark.parametrize("start, limit, delta", [
    (0, 0, 1), (0, 1, 1), (3, 2, 1), (0, 1000, 1), (5, -5, -2), (-3, 40, 7)])
def test_range_loops_count_like_python(start, limit, delta):
    f = rt.function(_range_sum)
    args = [rt.constant(v, rt.int32) for v in (0, start, limit, delta)]
    want = np.int32(sum(i * 2 for i in range(start, limit, delta)))
    _same(f(*args).numpy(), want)
    _same(_range_sum(*args).numpy(), want)
    assert "for f" in _source(f, *args)


def _index_sum(x, n):
    s = rt.constant(0.0, rt.float32)
    i = rt.constant(0)
    while i < n:
        s += x[i]
        i += 1
    return s, i


@pytest.mark.parametrize("size, n", [(0, 0), (1, 1), (5, 3), (100, 100), (4, -2)])
def test_while_loop_indexing_with_its_counter(size, n):
    x = np.arange(size, dtype=np.float32) * np.float32(0.1)
    s, i = np.float32(0.0), np.int32(0)
    while i < n:
        s += x[i]
        i += np.int32(1)
    f = rt.function(_index_sum)
    got = f(rt.constant(x), rt.constant(n))
    _same(got[0].numpy(), s)
    _same(got[1].numpy(), i)          # the counter after the loop: n if it ran, else 0
    assert _counted_in(f, rt.constant(x), rt.constant(n)) == [True]


def test_index_out_of_bounds_fails_at_the_same_iteration():
    def g(x, n):
        i = rt.constant(0)
        while i < n:
            rt.print("at", i)
            rt.print(x[i])
            i += 1
        return i

    f = rt.function(g)
    x = rt.constant(np.arange(3, dtype=np.float32))
    buf = io.StringIO()
    with pytest.raises(rt.errors.InvalidArgumentError) as e:
        with contextlib.redirect_stdout(buf):
            f(x, rt.constant(5))
    assert "out of bounds" in str(e.value) and "[[node" in str(e.value)
    # the test passed at 3, then the index failed: as the while loop does
    assert buf.getvalue().split("\n") == ["at 0", "0", "at 1", "1", "at 2", "2", "at 3", ""]


def _top_of_range(start, limit, x):
    i = start
    s = rt.constant(0, x.dtype)
    while i < limit:
        s += x[i % 3]
        i += 1
    return i, s


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_counters_at_the_top_of_their_range(dtype):
    top = np.iinfo(dtype).max
    x = np.array([1, 2, 3], dtype)
    f = rt.function(_top_of_range)
    got = f(rt.constant(dtype(top - 4)), rt.constant(dtype(top)), rt.constant(x))
    _same(got[0].numpy(), dtype(top))
    # i % 3 reads the counter in arithmetic: that loop stays a while loop, right anyway
    assert _counted_in(f, rt.constant(dtype(top - 4)), rt.constant(dtype(top)),
                       rt.constant(x)) == [False]


def _stride(x, start, limit):
    i = start
    s = rt.constant(0, x.dtype)
    while i < limit:
        s += x[i]
        i += 1
    return i, s


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("start, limit", [(0, 4), (4, 4), (9, 4), (-4, 0)])
def test_counter_after_the_loop_keeps_its_dtype(dtype, start, limit):
    x = np.arange(10, 14, dtype=dtype)
    i, s = dtype(start), dtype(0)
    while i < limit:
        s += x[i]
        i += dtype(1)
    f = rt.function(_stride)
    args = rt.constant(x), rt.constant(dtype(start)), rt.constant(dtype(limit))
    got = f(*args)
    _same(got[0].numpy(), i)
    _same(got[1].numpy(), s)
    assert _counted_in(f, *args) == [True]


def test_int32_counter_up_to_int32_max_does_not_wrap():
    x = np.arange(8, dtype=np.int32)

    def g(x, start):
        i = start
        s = rt.constant(0)
        while i < INT32_MAX:
            s += x[0]
            i += 1
        return i, s

    f = rt.function(g)
    got = f(rt.constant(x), rt.constant(np.int32(INT32_MAX - 3)))
    _same(got[0].numpy(), np.int32(INT32_MAX))
    _same(got[1].numpy(), np.int32(0))


def _accumulate_wraps(x, n):
    s = rt.constant(INT32_MAX - 2, rt.int32)
    for i in rt.range(n):
        s += x[i]
    return s


def test_accumulator_wraps_like_int32_in_a_counted_loop():
    x = np.full(10, 1000, np.int32)
    want = np.int32(INT32_MAX - 2)
    with np.errstate(over="ignore"):
        for v in x:
            want = want + v
    f = rt.function(_accumulate_wraps)
    _same(f(rt.constant(x), rt.constant(10)).numpy(), want)


def _break_continue(x, n):
    s = rt.constant(0.0)
    for i in rt.range(n):
        if x[i] < 0.0:
            continue
        if x[i] > 100.0:
            break
        s += x[i]
    return s


@pytest.mark.parametrize("values", [[], [1.0], [1.0, -2.0, 3.0, 500.0, 4.0],
                                    [float("nan"), 2.0, -1.0]])
def test_break_and_continue(values):
    x = np.array(values, np.float32)
    want = np.float32(0.0)
    for v in x:
        if v < 0.0:
            continue
        if v > 100.0:
            break
        want += v
    got = rt.function(_break_continue)(rt.constant(x), rt.constant(len(values)))
    _same(got.numpy(), want)


def _nested(x):
    s = rt.constant(0.0)
    for i in rt.range(x.shape[0]):
        for j in rt.range(x.shape[1]):
            s += x[i, j] * rt.cast(j + 1, rt.float32)
    return s


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (4, 5)])
def test_nested_range_loops(shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    want = np.float32(0.0)
    for i in range(shape[0]):
        for j in range(shape[1]):
            want += x[i, j] * np.float32(j + 1)
    got = rt.function(_nested)(rt.constant(x))
    _same(got.numpy(), want)


def _float_counter(x, limit):
    i = rt.constant(0.0)
    s = rt.constant(0.0)
    while i < limit:
        s += x
        i += 1.0
    return i, s


@pytest.mark.parametrize("limit", [0.0, 2.5, float("nan"), float("-inf")])
def test_float_counters_and_nan_tests(limit):
    i, s = np.float32(0.0), np.float32(0.0)
    while i < np.float32(limit):
        s += np.float32(1.5)
        i += np.float32(1.0)
    f = rt.function(_float_counter)
    got = f(rt.constant(1.5), rt.constant(limit))
    _same(got[0].numpy(), i)
    _same(got[1].numpy(), s)
    assert _counted_in(f, rt.constant(1.5), rt.constant(limit)) == [False]


def test_maximum_iterations_keeps_the_while_loop():
    @rt.function
    def f(x, n, k):
        return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + x[i]),
                             (rt.constant(0), rt.constant(0.0)), maximum_iterations=k)
    x = rt.constant(np.arange(10, dtype=np.float32))
    for n, k in [(10, 3), (3, 10), (0, 5), (5, 0)]:
        i, s = f(x, rt.constant(n), rt.constant(k))
        want = min(n, k)
        _same(i.numpy(), np.int32(want))
        _same(s.numpy(), np.float32(sum(range(want))))


def test_counter_read_elsewhere_keeps_the_while_loop():
    def g(x, n):
        i = rt.constant(0)
        s = rt.constant(0)
        while i < n:
            s += x[i] * i       # the counter in arithmetic: a numpy int32 there
            i += 1
        return s

    f = rt.function(g)
    x = np.full(5, 2 ** 29, np.int32)
    want = np.int32(0)
    with np.errstate(over="ignore"):
        for i in range(5):
            want += x[i] * np.int32(i)
    _same(f(rt.constant(x), rt.constant(5)).numpy(), want)
    assert _counted_in(f, rt.constant(x), rt.constant(5)) == [False]


def test_tensor_array_loop_matches_numpy():
    def g(x):
        out = rt.TensorArray(rt.float32, size=x.shape[0])
        state = rt.zeros([2], rt.float32)
        for i in rt.range(x.shape[0]):
            state = state + x[i]
            out = out.write(i, state)
        return out.stack()

    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    _same(rt.function(g)(rt.constant(x)).numpy(), np.cumsum(x, axis=0))


def test_tensor_array_stack_of_ragged_elements_is_an_error():
    @rt.function
    def f(a, b):
        ta = rt.TensorArray(rt.float32, size=2)
        ta = ta.write(0, a)
        ta = ta.write(1, b)
        return ta.stack()

    spec = rt.TensorSpec([None], rt.float32)
    g = f.get_concrete_function(spec, spec)
    _same(g(rt.constant([1.0, 2.0]), rt.constant([3.0, 4.0])).numpy(),
          np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="different shapes"):
        g(rt.constant([1.0, 2.0]), rt.constant([3.0]))


# -- loop variables that only count run as Python ints, wrapped once after the loop -----

def _tallies(x, start):
    small = start
    big = start
    down = start
    flip = start
    for i in rt.range(rt.shape(x)[0]):
        if x[i] < 0.5:
            small += 1
        else:
            big += 1000
            down -= 7
        flip = 3 - flip
    return small, big, down, flip


def _tallies_np(x, start):
    small = big = down = flip = start
    with np.errstate(over="ignore"):
        for v in x:
            if v < 0.5:
                small += start.dtype.type(1)
            else:
                big += start.dtype.type(1000)
                down -= start.dtype.type(7)
            flip = start.dtype.type(3) - flip
    return small, big, down, flip


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("size", [0, 1, 7, 3000])
@pytest.mark.parametrize("where", ["zero", "near max", "near min"])
def test_tallies_wrap_like_numpy(dtype, size, where):
    info = np.iinfo(dtype)
    start = dtype({"zero": 0, "near max": info.max - 5, "near min": info.min + 5}[where])
    x = np.random.default_rng(size).random(size).astype(np.float32)
    f = rt.function(_tallies)
    got = f(rt.constant(x), rt.constant(start))
    for g, w in zip(got, _tallies_np(x, start)):
        _same(g.numpy(), w)
    source = _source(f, rt.constant(x), rt.constant(start))
    assert source.count("= int(w") == 4


def _tally_read_elsewhere(x):
    n = rt.constant(0)
    m = rt.constant(0)
    for i in rt.range(rt.shape(x)[0]):
        if x[i] < 0.5:
            n += 1
        else:
            n = rt.constant(0)      # a reset in one branch: n stays a numpy int32
        m += 1
        if m > 2:                   # m read by a test: a numpy int32 too
            m -= 2
    return n, m


def test_tallies_read_otherwise_stay_numpy_values():
    x = np.array([0.1, 0.2, 0.9, 0.3, 0.4, 0.45], np.float32)
    n, m = np.int32(0), np.int32(0)
    for v in x:
        n = n + np.int32(1) if v < 0.5 else np.int32(0)
        m += np.int32(1)
        if m > 2:
            m -= np.int32(2)
    f = rt.function(_tally_read_elsewhere)
    got = f(rt.constant(x))
    _same(got[0].numpy(), n)
    _same(got[1].numpy(), m)
    assert "= int(w" not in _source(f, rt.constant(x))


def _while_tallies(n, start):
    i = rt.constant(0)
    evens = start
    while i < n * 2:
        if i % 2 == 0:
            evens += 1
        i += 3
    return evens, i


@pytest.mark.parametrize("n", [0, 1, 100])
def test_tallies_in_a_while_loop(n):
    start = np.int32(INT32_MAX - 10)
    i, evens = np.int32(0), start
    with np.errstate(over="ignore"):
        while i < n * 2:
            if i % 2 == 0:
                evens += np.int32(1)
            i += np.int32(3)
    f = rt.function(_while_tallies)
    got = f(rt.constant(n), rt.constant(start))
    _same(got[0].numpy(), evens)
    _same(got[1].numpy(), i)


def _nested_tallies(x):
    total = rt.constant(0)
    rows = rt.constant(0, rt.int64)
    for i in rt.range(rt.shape(x)[0]):
        inner = rt.constant(0)
        for j in rt.range(rt.shape(x)[1]):
            if x[i, j] > 0.0:
                inner += 1
        total += inner          # read by another addition: total stays a numpy value
        rows += 1
    return total, rows


@pytest.mark.parametrize("shape", [(0, 2), (2, 0), (3, 4)])
def test_nested_tallies(shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got = rt.function(_nested_tallies)(rt.constant(x))
    _same(got[0].numpy(), np.int32((x > 0).sum()))
    _same(got[1].numpy(), np.int64(shape[0]))


def _static_range(x):
    s = rt.constant(0, rt.int32)
    for i in rt.range(10, -2, -3):            # a constant range: its elements as a list
        s += i * 2 ** 29 + rt.cast(x[0], rt.int32)
    return s


def test_constant_range_elements_keep_dtype_and_wrap():
    x = np.array([7.0], np.float32)
    want = np.int32(0)
    with np.errstate(over="ignore"):
        for i in np.arange(10, -2, -3, dtype=np.int32):
            want += i * np.int32(2 ** 29) + np.int32(7)
    f = rt.function(_static_range)
    _same(f(rt.constant(x)).numpy(), want)
    _same(_static_range(rt.constant(x)).numpy(), want)
    assert "for f" in _source(f, rt.constant(x))


def test_constant_vector_indexed_past_its_end_keeps_the_arrays_error():
    def g(n):
        v = rt.constant([1.0, 2.0, 3.0])
        s = rt.constant(0.0)
        i = rt.constant(0)
        while i < 5:
            s += v[i]
            i += 1
        return s + n

    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds"):
        rt.function(g)(rt.constant(1.0))


def _long_count(x, n):
    s = rt.constant(0.0)
    t = rt.constant(0)
    for i in rt.range(n):
        s += x[i % 3]
        t += 1
    return s, t


def test_iteration_guard_stops_a_counted_loop(tmp_path):
    from runtime import saved
    f = rt.function(_long_count, input_signature=[rt.TensorSpec([3], rt.float32),
                                                  rt.TensorSpec([], rt.int32)])
    path = str(tmp_path / "long_count")
    saved.save(f, path)
    loaded = saved.load(path, max_loop_iterations=100)
    x = np.array([1.0, 2.0, 4.0], np.float32)
    s, t = loaded(x, np.int32(100))      # the limit: 100 iterations run
    _same(np.asarray(t), np.int32(100))
    _same(np.asarray(s), np.float32(33 * 7 + 1))
    with pytest.raises(rt.errors.InvalidArgumentError, match="ran 100 iterations"):
        loaded(x, np.int32(101))


def _rows(x):
    total = rt.zeros([rt.shape(x)[1]], x.dtype)
    n = rt.constant(0)
    for row in x:                      # counted, iterating over x's rows
        total = total * 0.5 + row
        n += 1
    return total, n


@pytest.mark.parametrize("shape", [(0, 3), (1, 3), (5, 3)])
def test_loop_over_rows_of_unknown_count(shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 4.0
    want = np.zeros(shape[1], np.float32)
    for row in x:
        want = want * np.float32(0.5) + row
    f = rt.function(_rows, input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    got = f(rt.constant(x))
    _same(got[0].numpy(), want)
    _same(got[1].numpy(), np.int32(shape[0]))
    assert "in zip(range(" in _source(f, rt.constant(x))


def test_fizzbuzz_counts_iterate_their_range():
    from examples import programs
    f = rt.function(programs.fizzbuzz_counts)
    for n in [0, 1, 15, 100]:
        want = [0, 0, 0, 0]
        for i in range(1, n + 1):
            want[0 if i % 15 == 0 else 1 if i % 3 == 0 else 2 if i % 5 == 0 else 3] += 1
        got = f(rt.constant(n))
        assert [(int(v), v.dtype) for v in got] == [
            (w, rt.int32) for w in (want[1], want[2], want[0], want[3])]
    assert "in zip(range(" in _source(f, rt.constant(5))
