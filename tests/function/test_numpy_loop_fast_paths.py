"""The numpy backend's staged loops, against the same loop in numpy by hand: 0-d inputs of
a loop run as numpy scalars, the loop's test sits in its `while` line, and the copies of
loop variables and cond results are folded into the lines that set them. Results must
be numpy's exactly: dtype, int32 wrap-around, float32 rounding, NaN, zero iterations,
nested loops, conds in loops, prints in order."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import runtime as rt
from runtime.backends.numpy.coalesce import coalesce_copies


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def _count(n, step):
    i = rt.constant(0, rt.int32)
    s = rt.constant(0, rt.int32)
    while i < n:
        s += i * step
        i += 1
    return s


def _count_np(n, step):
    i, s = np.int32(0), np.int32(0)
    with np.errstate(over="ignore"):
        while i < n:
            s += i * step
            i += 1
    return s


@pytest.mark.parametrize("n, step", [(0, 1), (1, 3), (1000, 1), (3000, 1000)])
def test_int32_counting_loop_wraps_like_numpy(n, step):
    f = rt.function(_count)
    n_t, step_t = rt.constant(n, rt.int32), rt.constant(step, rt.int32)
    _same(f(n_t, step_t).numpy(), _count_np(np.int32(n), np.int32(step)))
    _same(_count(n_t, step_t).numpy(), _count_np(np.int32(n), np.int32(step)))


def _accumulate(x, n):
    s = rt.constant(0.0, rt.float32)
    i = rt.constant(0)
    while i < n:
        s = s + x * 1.1
        i += 1
    return s


@pytest.mark.parametrize("x", [0.1, 1e-8, 3e38, float("nan")])
@pytest.mark.parametrize("n", [0, 7, 500])
def test_float32_accumulation_rounds_like_numpy(x, n):
    want, xs = np.float32(0.0), np.float32(x)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(n):
            want = want + xs * np.float32(1.1)
    got = rt.function(_accumulate)(rt.constant(xs), rt.constant(n))
    _same(got.numpy(), want)


def _fizz(n):
    a = rt.constant(0)
    b = rt.constant(0)
    c = rt.constant(0)
    for i in rt.range(1, n + 1):
        if i % 15 == 0:
            a += 1
        elif i % 3 == 0:
            b += a          # reads a loop variable another branch writes
        elif i % 5 == 0:
            a, b = b, a     # a swap: each copy reads what another writes
        else:
            c = c + a - b
    return a, b, c


def _fizz_np(n):
    a = b = c = np.int32(0)
    with np.errstate(over="ignore"):
        return _fizz_np_loop(n, a, b, c)


def _fizz_np_loop(n, a, b, c):
    for i in np.arange(1, n + 1, dtype=np.int32):
        if i % 15 == 0:
            a += 1
        elif i % 3 == 0:
            b += a
        elif i % 5 == 0:
            a, b = b, a
        else:
            c = c + a - b
    return a, b, c


@pytest.mark.parametrize("n", [0, 1, 15, 200])
def test_cond_chain_in_loop_with_swaps(n):
    got = rt.function(_fizz)(rt.constant(n))
    for g, w in zip(got, _fizz_np(n)):
        _same(g.numpy(), w)


def _read_after_cond(n):
    x = rt.constant(1)
    y = rt.constant(0)
    i = rt.constant(0)
    while i < n:
        if i % 2 == 0:
            x = x * 3
        else:
            x = x - 1
        y = y + x           # the cond's new x, read after it
        i += 1
    return x, y


def test_loop_variable_read_after_a_cond():
    x, y, i = np.int32(1), np.int32(0), np.int32(0)
    while i < 9:
        x = x * np.int32(3) if i % 2 == 0 else x - np.int32(1)
        y = y + x
        i += 1
    got = rt.function(_read_after_cond)(rt.constant(9))
    _same(got[0].numpy(), x)
    _same(got[1].numpy(), y)


def _nested(n, m):
    total = rt.constant(0)
    i = rt.constant(0)
    while i < n:
        j = rt.constant(0)
        while j < m:
            if (i + j) % 3 == 0:
                total += i * j
            j += 1
        i += 1
    return total


@pytest.mark.parametrize("n, m", [(0, 5), (5, 0), (6, 7)])
def test_nested_loops(n, m):
    want = np.int32(0)
    for i in range(n):
        for j in range(m):
            if (i + j) % 3 == 0:
                want += np.int32(i * j)
    _same(rt.function(_nested)(rt.constant(n), rt.constant(m)).numpy(), want)


def _where_loop(x, n):
    i = rt.constant(0)
    while i < n:
        x = rt.where(x > 10.0, x / 2.0, x * 3.0 + 1.0)   # a kernel's 0-d result
        i += 1
    return x


def test_kernel_scalar_results_keep_their_dtype():
    want = np.float64(7.0)
    for _ in range(20):
        want = np.where(want > 10.0, want / 2.0, want * 3.0 + 1.0)[()]
    got = rt.function(_where_loop)(rt.constant(7.0, rt.float64), rt.constant(20))
    _same(got.numpy(), want)


def _printing(n):
    i = rt.constant(0)
    while i < n:
        if i % 2 == 0:
            rt.print("even", i)
        else:
            rt.print("odd", i)
        i += 1
    return i


def test_prints_in_order():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rt.print("eager")
    eager = io.StringIO()
    with contextlib.redirect_stdout(eager):
        _printing(rt.constant(5))
    staged = io.StringIO()
    with contextlib.redirect_stdout(staged):
        rt.function(_printing)(rt.constant(5))
    assert staged.getvalue() == eager.getvalue()
    assert "odd 3" in staged.getvalue()


def test_maximum_iterations_with_scalar_inputs():
    @rt.function
    def f(n, k):
        return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i),
                             (rt.constant(0), rt.constant(0)), maximum_iterations=k)
    for n, k in [(10, 3), (3, 10), (0, 5), (5, 0)]:
        i, s = f(rt.constant(n), rt.constant(k))
        want = min(n, k)
        assert int(i.numpy()) == want and int(s.numpy()) == sum(range(want))


def test_errors_in_the_loop_test_name_its_node():
    @rt.function
    def f(n, d):
        i = rt.constant(0)
        while i < n // d:  # the failing line
            i += 1
        return i
    assert int(f(rt.constant(7), rt.constant(2)).numpy()) == 3
    with pytest.raises(rt.errors.InvalidArgumentError) as e:
        f(rt.constant(7), rt.constant(0))
    line = next(i for i, text in enumerate(open(__file__), 1) if "# the failing line" in text
                and "text" not in text)
    assert f"{__file__}:{line}" in str(e.value)


# -- the copy folding itself, on generated-style lines: same results before and after --

_PROGRAMS = [
    # a swap through a cond: the folded names would be read after they are set
    ["w1 = c0", "w2 = c1", "k = 0", "while k < 6:",
     "    if k % 2:", "        t3 = w2", "        t4 = w1", "    else:",
     "        t3 = w1", "        t4 = w2", "    w1 = t3", "    w2 = t4", "    k += 1"],
    # the loop variable read after its new value is made: no folding
    ["w1 = c0", "k = 0", "while k < 4:", "    t2 = (w1 + c1)", "    t3 = (w1 * t2)",
     "    w1 = t2", "    k += t3 % 2 + 1"],
    # a def in one branch, a read in the other: the read is on another path
    ["w1 = c0", "w2 = c1", "k = 0", "while k < 5:", "    if k % 2:",
     "        t5 = (w1 + c1)", "        t3 = t5", "    else:", "        t6 = (w1 * c1)",
     "        t3 = t6", "    w2 = (w2 + w1)", "    w1 = t3", "    k += 1"],
    # an inner loop between the definition and the copy
    ["w1 = c0", "k = 0", "while k < 3:", "    t2 = (w1 + c1)", "    j = 0",
     "    while j < 2:", "        w1 = (w1 + j)", "        j += 1", "    w1 = t2", "    k += 1"],
]


@pytest.mark.parametrize("program", _PROGRAMS)
def test_copy_folding_keeps_results(program):
    def run(lines):
        env = {"c0": np.int32(2), "c1": np.int32(3)}
        exec("\n".join(lines), env)
        return {k: v for k, v in env.items() if k.startswith("w")}
    folded = list(program)
    coalesce_copies(folded, 0)
    assert run(folded) == run(program)
