"""rt.random.truncated_normal and Generator, rt.debugging.check_numerics and
enable_check_numerics: eagerly, in rt.function on the numpy backend and under jit_compile."""
import numpy as np
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    BACKENDS = [False, True]
except ImportError:  # pragma: no cover
    BACKENDS = [False]


def test_truncated_normal_bounds_and_moments():
    x = rt.random.truncated_normal([20000], mean=1.0, stddev=2.0, seed=3).numpy()
    assert x.dtype == np.float32 and x.shape == (20000,)
    assert (np.abs(x - 1.0) <= 4.0).all()
    # a standard normal truncated to [-2, 2] has variance 1 - 4 phi(2) / (2 Phi(2) - 1)
    phi2 = np.exp(-2.0) / np.sqrt(2 * np.pi)
    var = 1 - 4 * phi2 / 0.9544997361
    assert abs(x.mean() - 1.0) < 0.05 and abs(x.std() - 2.0 * np.sqrt(var)) < 0.05
    assert rt.random.truncated_normal([0, 3]).shape == (0, 3)
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.random.truncated_normal([2], dtype=rt.int32)


@pytest.mark.parametrize("jit", BACKENDS)
def test_truncated_normal_seeded_in_function_repeats_after_set_seed(jit):
    f = rt.function(lambda: rt.random.truncated_normal([5], seed=7), jit_compile=jit)
    rt.random.set_seed(3)
    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b) and (np.abs(a) <= 2).all()
    rt.random.set_seed(3)
    g = rt.function(lambda: rt.random.truncated_normal([5], seed=7), jit_compile=jit)
    np.testing.assert_array_equal(g().numpy(), a)
    rt.random.set_seed(None)


def test_generator_from_seed_is_reproducible_and_advances():
    g1, g2 = rt.random.Generator.from_seed(5), rt.random.Generator.from_seed(5)
    a = g1.normal([4])
    np.testing.assert_array_equal(a.numpy(), g2.normal([4]).numpy())
    assert not np.array_equal(a.numpy(), g1.normal([4]).numpy())
    u = g1.uniform([1000], 2.0, 3.0).numpy()
    assert ((u >= 2.0) & (u < 3.0)).all()
    i = g1.uniform([1000], 0, 4, dtype=rt.int64).numpy()
    assert i.dtype == np.int64 and set(np.unique(i)) == {0, 1, 2, 3}
    t = g1.truncated_normal([1000], stddev=0.5).numpy()
    assert (np.abs(t) <= 1.0).all()
    g2.reset_from_seed(5)
    np.testing.assert_array_equal(g2.normal([4]).numpy(), a.numpy())


@pytest.mark.parametrize("jit", BACKENDS)
def test_generator_inside_function_draws_new_numbers_each_run(jit):
    g = rt.random.Generator.from_seed(11)
    f = rt.function(lambda: g.normal([3], mean=1.0, stddev=2.0), jit_compile=jit)
    ref = rt.random.Generator.from_seed(11)
    for _ in range(3):  # each run draws what the eager generator draws next
        np.testing.assert_allclose(f().numpy(), ref.normal([3], mean=1.0, stddev=2.0).numpy(),
                                   rtol=1e-6)
    np.testing.assert_array_equal(g.state.numpy(), ref.state.numpy())
    # after the function's runs, eager draws continue the same sequence
    np.testing.assert_array_equal(g.uniform([2]).numpy(), ref.uniform([2]).numpy())


def test_generator_split_and_refusals():
    a, b = rt.random.Generator.from_seed(1).split(2)
    assert not np.array_equal(a.normal([3]).numpy(), b.normal([3]).numpy())
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.random.Generator.from_seed(1).normal([2], dtype=rt.int32)


@pytest.mark.parametrize("jit", BACKENDS)
def test_check_numerics_passes_finite_and_raises_at_run_time(jit):
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(rt.debugging.check_numerics(x, "ok").numpy(), x)
    f = rt.function(lambda t: rt.debugging.check_numerics(t * 2.0, "doubled"), jit_compile=jit)
    np.testing.assert_array_equal(f(rt.constant(x)).numpy(), x * 2)
    for bad, what in ((np.nan, "NaN"), (np.inf, "Inf")):
        with pytest.raises(rt.errors.InvalidArgumentError, match=f"doubled : Tensor had {what}"):
            f(rt.constant([1.0, bad], dtype=rt.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="Inf and NaN"):
        rt.debugging.check_numerics(rt.constant([np.inf, np.nan]), "both")
    assert f(rt.constant(np.zeros([0], np.float32))).shape == (0,)


def test_check_numerics_gradient_checks_the_gradient():
    x = rt.constant([0.0, 1.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.sqrt(rt.debugging.check_numerics(x, "x")))
    with pytest.raises(rt.errors.InvalidArgumentError, match="detected in gradient. x"):
        tape.gradient(y, x)


@pytest.mark.parametrize("jit", BACKENDS)
def test_enable_check_numerics_names_the_op_and_line(jit):
    rt.debugging.enable_check_numerics()
    try:
        with pytest.raises(rt.errors.InvalidArgumentError,
                           match=r'"RealDiv".*test_rt_random_numerics_more.py'):
            rt.constant([1.0]) / rt.constant([0.0])

        def divide(a, b):
            c = a + b
            return c / b   # the line the error names
        f = rt.function(divide, jit_compile=jit)
        np.testing.assert_array_equal(f(rt.constant([1.0]), rt.constant([2.0])).numpy(), [1.5])
        with pytest.raises(rt.errors.InvalidArgumentError, match=r'"RealDiv".*in divide'):
            f(rt.constant([1.0]), rt.constant([0.0]))
    finally:
        rt.debugging.disable_check_numerics()
    np.testing.assert_array_equal((rt.constant([1.0]) / rt.constant([0.0])).numpy(), [np.inf])
