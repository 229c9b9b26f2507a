"""A call whose positional arguments were seen before (same types, dtypes and shapes;
Python values equal) goes straight to its ConcreteFunction's runner: it must give what
the first call (the general path) gives, trace as often, and keep each argument's rules
(Python values by value, -0.0 apart from 0.0, numpy inputs not aliased)."""
import collections

import numpy as np
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    BACKENDS = [False, True]      # the numpy backend, and XLA (jit_compile=True)
except ImportError:
    BACKENDS = [False]

Pair = collections.namedtuple("Pair", "a b")


def _twice(f, *args):
    """The first call (traces, general path) and a second one (the fast path)."""
    return f(*args), f(*args)


@pytest.mark.parametrize("jit", BACKENDS)
@pytest.mark.parametrize("make", [
    lambda: np.arange(5, dtype=np.float32),
    lambda: rt.constant(np.arange(6, dtype=np.int32).reshape(2, 3)),
    lambda: np.array(7, np.int32),
    lambda: rt.constant(2.5),
])
def test_repeated_call_agrees_with_numpy(jit, make):
    f = rt.function(lambda x: x * 2 + 1, jit_compile=jit)
    x = make()
    first, second = _twice(f, x)
    expected = np.asarray(x) * 2 + 1
    np.testing.assert_array_equal(first.numpy(), expected)
    np.testing.assert_array_equal(second.numpy(), expected)
    assert second.dtype == first.dtype and second.shape == first.shape
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("jit", BACKENDS)
def test_structures_out_and_python_values_in(jit):
    f = rt.function(lambda x, k, s: (x + k if s == "a" else x - k, [x * k, None], Pair(x, k)),
                    jit_compile=jit)
    x = np.arange(3, dtype=np.float32)
    for _ in range(3):
        out = f(x, 2, "a")
        assert type(out) is tuple and type(out[1]) is list and type(out[2]) is Pair
        np.testing.assert_array_equal(out[0].numpy(), x + 2)
        np.testing.assert_array_equal(out[1][0].numpy(), x * 2)
        assert out[1][1] is None
        np.testing.assert_array_equal(out[2].a.numpy(), x)
    assert f.experimental_get_tracing_count() == 1
    out = f(x, 3, "a")       # another Python value: traced again, its own result
    np.testing.assert_array_equal(out[0].numpy(), x + 3)
    assert f.experimental_get_tracing_count() == 2
    np.testing.assert_array_equal(f(x, 2, "b")[0].numpy(), x - 2)
    assert f.experimental_get_tracing_count() == 3


@pytest.mark.parametrize("jit", BACKENDS)
def test_float_arguments_by_value(jit):
    f = rt.function(lambda x, y: x / y, jit_compile=jit)
    x = np.ones(2, np.float32)
    for y in (0.0, 0.0, -0.0, -0.0, float("nan"), float("nan"), 2.0, 2.0):
        with np.errstate(divide="ignore", invalid="ignore"):
            np.testing.assert_array_equal(f(x, y).numpy(), x / np.float32(y))
    assert f.experimental_get_tracing_count() == 4   # 0.0, -0.0, nan, 2.0


@pytest.mark.parametrize("jit", BACKENDS)
def test_new_dtype_or_shape_retraces(jit):
    f = rt.function(lambda x: x + 1, jit_compile=jit)
    for x in (np.zeros(2, np.float32), np.zeros(3, np.float32), np.zeros(2, np.int32),
              np.zeros(2, np.float32), rt.constant(np.zeros(2, np.float32))):
        out = f(x)
        assert out.dtype == rt.as_dtype(x.dtype) and out.shape == x.shape
        np.testing.assert_array_equal(out.numpy(), np.asarray(x) + 1)
    assert f.experimental_get_tracing_count() == 3


@pytest.mark.parametrize("jit", BACKENDS)
def test_results_do_not_alias_numpy_inputs(jit):
    f = rt.function(lambda x: rt.identity(x), jit_compile=jit)
    x = np.arange(4, dtype=np.float32)
    _, out = _twice(f, x)
    x[0] = 100
    np.testing.assert_array_equal(out.numpy(), np.arange(4, dtype=np.float32))


@pytest.mark.parametrize("jit", BACKENDS)
def test_variables_and_prints_each_call(jit, capsys):
    v = rt.Variable(0.0)

    @rt.function(jit_compile=jit)
    def step(x):
        v.assign_add(rt.reduce_sum(x))
        rt.print("v", v)
        return v.read_value()

    x = np.ones(3, np.float32)
    results = [float(step(x)) for _ in range(3)]
    assert results == [3.0, 6.0, 9.0] and float(v.numpy()) == 9.0
    assert capsys.readouterr().out.split() == ["v", "3", "v", "6", "v", "9"]


@pytest.mark.parametrize("jit", BACKENDS)
def test_eager_mode_and_tapes_bypass_it(jit):
    f = rt.function(lambda x: x * x, jit_compile=jit)
    x = rt.constant([1.0, 2.0])
    f(x), f(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * x.numpy())
    rt.config.run_functions_eagerly(True)
    try:
        np.testing.assert_allclose(f(x).numpy(), x.numpy() ** 2)
    finally:
        rt.config.run_functions_eagerly(False)
