"""The elementwise, cumulative and sampling ops on the XLA backend against the numpy backend
(same dtypes, same values; transcendental ones to float rounding),
rt.function(jit_compile=True) against eager, random shuffles and categorical draws identical
to the numpy backend's run after run, ensure_shape's check at the first call, and gradients
under XLA."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import numpy as np

import runtime as rt
from runtime.errors import InvalidArgumentError
from xla_helpers import compare_fn, plans, run, traced

F = np.array([[-2.5, -1.5, -0.5, 0.0], [0.5, 1.5, 2.5, 3.7]], np.float32)
POS = np.array([[0.25, 1.0, 4.0], [1e-3, 9.0, 100.0]], np.float32)
I = np.array([[1, 2, -3, 4], [5, -6, 7, 2]], np.int32)


@pytest.mark.parametrize("fn", [rt.floor, rt.math.ceil, rt.round])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_unary(fn, dtype):
    compare_fn(lambda x: fn(x), F.astype(dtype))


def test_round_of_integers():
    compare_fn(rt.round, I)
    compare_fn(rt.round, I.astype(np.int64))


@pytest.mark.parametrize("fn,x", [(rt.math.rsqrt, POS), (rt.math.log1p, POS),
                                  (rt.math.log1p, np.float32(1e-7) * F),
                                  (rt.math.softplus, F * 30.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transcendental_unary(fn, x, dtype):
    compare_fn(lambda t: fn(t), x.astype(dtype), exact=False, rtol=1e-6)


@pytest.mark.parametrize("exclusive", [False, pytest.param(True, marks=pytest.mark.slow)])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scans(exclusive, reverse, axis):
    for x, exact in ((I, True), (I.astype(np.int64), True), (F, False)):
        compare_fn(lambda t: rt.cumsum(t, axis, exclusive=exclusive, reverse=reverse), x,
                   exact=exact)
        compare_fn(lambda t: rt.math.cumprod(t, axis, exclusive=exclusive, reverse=reverse), x,
                   exact=exact)


def test_compositions():
    compare_fn(lambda x: rt.clip_by_value(x, -1.0, 2.0), F)
    compare_fn(lambda x: rt.clip_by_value(x, 0, 3), I)
    compare_fn(lambda x: (rt.math.reduce_variance(x, axis=1), rt.math.reduce_std(x),
                          rt.math.reduce_std(x, axis=0, keepdims=True)), F.astype(np.float64),
               exact=False, rtol=1e-12)


def test_jit_compile_matches_eager():
    def f(x):
        return (rt.floor(x) + rt.math.ceil(x) + rt.round(x) * rt.math.softplus(x),
                rt.cumsum(rt.clip_by_value(x, -1.0, 1.0), axis=1, exclusive=True),
                rt.math.reduce_std(x, axis=1), rt.math.rsqrt(rt.math.log1p(rt.abs(x)) + 1.0))

    jitted = rt.function(f, jit_compile=True)
    for a, b in zip(jitted(rt.constant(F)), f(rt.constant(F))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_ensure_shape_checks_at_the_first_call():
    def f(x):
        return rt.ensure_shape(x, [None, 4]) * 2.0

    g, ins, outs = traced(f, rt.TensorSpec([None, None], rt.float32))
    numpy_plan, xla_plan = plans(g, ins, outs)
    np.testing.assert_array_equal(run(xla_plan, [F])[0][0], run(numpy_plan, [F])[0][0])
    for plan in (numpy_plan, xla_plan):
        with pytest.raises(InvalidArgumentError, match=r"\[2, 3\] is not compatible"):
            plan(np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("spec", [[6, 2], [None, 2]])
def test_shuffle_draws_match_the_numpy_backend_run_after_run(spec):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)

    def f(t):
        return rt.random.shuffle(t, seed=5), rt.random.shuffle(t * 2.0)

    draws = []
    for backend in (0, 1):
        rt.random.set_seed(3)
        g, ins, outs = traced(f, rt.TensorSpec(spec, rt.float32))
        plan = plans(g, ins, outs)[backend]
        draws.append([run(plan, [x])[0] for _ in range(3)])
    for a, b in zip(*draws):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
    assert not all(np.array_equal(draws[1][0][0], d[0]) for d in draws[1][1:])


def test_shuffle_and_categorical_inside_a_loop_match_too():
    logits = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], np.float32))

    def f(l, n):
        s = rt.zeros([2, 4], rt.int64)
        rows = rt.zeros([3], rt.float32)
        i = 0
        while i < n:
            s = s + rt.random.categorical(l, 4, seed=1)
            rows = rows + rt.random.shuffle(rt.constant([1.0, 2.0, 3.0]), seed=2)
            i += 1
        return s, rows

    draws = []
    for backend in (0, 1):
        rt.random.set_seed(8)
        g, ins, outs = traced(f, rt.TensorSpec([2, 3], rt.float32), rt.TensorSpec([], rt.int32))
        plan = plans(g, ins, outs)[backend]
        draws.append([run(plan, [logits, np.int32(3)])[0] for _ in range(2)])
    for a, b in zip(*draws):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)


def test_categorical_draws_match_the_numpy_backend():
    logits = np.array([[np.log(0.2), np.log(0.3), np.log(0.5)],
                       [np.log(0.6), np.log(0.4), -np.inf]], np.float32)

    def f(l):
        return rt.random.categorical(l, 50, seed=4), rt.random.categorical(l, 3, rt.int32)

    draws = []
    for backend in (0, 1):
        rt.random.set_seed(6)
        g, ins, outs = traced(f, rt.TensorSpec([2, 3], rt.float32))
        plan = plans(g, ins, outs)[backend]
        draws.append([run(plan, [logits])[0] for _ in range(2)])
    for a, b in zip(*draws):
        for u, v in zip(a, b):
            assert u.dtype == v.dtype
            np.testing.assert_array_equal(u, v)
    assert not np.any(draws[1][0][0][1] == 2)  # probability 0: never drawn


def test_gradients_under_xla():
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.math.cumprod(x, axis=1, reverse=True) * rt.math.softplus(x)
                              + rt.cumsum(rt.math.log1p(rt.abs(x)), exclusive=True)
                              + rt.clip_by_value(x, -1.0, 1.0) * rt.floor(x)
                              + rt.math.reduce_std(x, axis=0, keepdims=True))
        return tape.gradient(y, x)

    x = F.astype(np.float64) + 0.1
    compare_fn(f, x, exact=False, rtol=1e-10)
