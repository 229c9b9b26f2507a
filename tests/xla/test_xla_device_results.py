"""Results of `rt.function(jit_compile=True)` stay device arrays (a DeviceTensor) until
something asks for their value: every numpy-backed use of them (`.numpy()`, printing,
`np.asarray`, eager ops, a numpy-backend function) gives the numpy backend's answer, and
a jit_compile function they are passed back into takes the device array as it is. The
Variables such functions write donate their old buffers to XLA, never one that a
tensor read before the step still shows. Numeric numpy scalars and jax arrays as
arguments are keyed as tensors (by dtype and shape), not by identity: one trace for
many values."""
import copy
import pickle

import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.core.device_tensor import DeviceTensor  # noqa: E402


def affine(x):
    return x * 2.0 + 1.0


def pair(fn):
    return rt.function(fn, jit_compile=True), rt.function(fn)


INPUTS = [np.zeros(0, np.float32), np.array([1.5], np.float32),
          np.array([np.nan, -0.0, 3.0], np.float32), np.float32(2.5)]


@pytest.mark.parametrize("x", INPUTS, ids=["empty", "one", "nan", "scalar"])
def test_results_are_device_tensors_equal_to_numpy_backend(x):
    xla, npf = pair(affine)
    got, want = xla(x), npf(x)
    assert type(got) is DeviceTensor
    assert got.dtype is want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    # fed back in (the fast path, then the general one: a keyword argument)
    again, want_again = xla(got), npf(want)
    np.testing.assert_array_equal(again.numpy(), want_again.numpy())
    np.testing.assert_array_equal(xla(x=got).numpy(), want_again.numpy())
    # into the numpy backend, and the numpy result into the jit_compile one
    np.testing.assert_array_equal(npf(got).numpy(), want_again.numpy())
    np.testing.assert_array_equal(xla(want).numpy(), want_again.numpy())


def test_a_device_result_reads_as_a_numpy_backed_tensor():
    xla, npf = pair(affine)
    x = np.array([1.0, -2.0, 0.5], np.float32)
    got, want = xla(x), npf(x)
    assert str(got) == str(want) and repr(got) == repr(want)
    assert f"{got}" == f"{want}"
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    other = rt.constant([10.0, 20.0, 30.0])
    for op in (lambda a: a + other, lambda a: other * a, lambda a: a + 1.0,
               lambda a: -a, lambda a: a[1:], lambda a: rt.reduce_sum(a),
               lambda a: np.asarray(a) * 2):
        np.testing.assert_array_equal(np.asarray(op(got)), np.asarray(op(want)))
    assert [float(t) for t in got] == [float(t) for t in want]
    assert len(got) == 3
    np.testing.assert_array_equal(copy.deepcopy(got).numpy(), want.numpy())
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(got)).numpy(), want.numpy())
    scalar = xla(np.float32(3.0))
    assert float(scalar) == 7.0 and bool(scalar) and scalar.numpy() == np.float32(7.0)


def test_a_device_result_passed_back_is_not_copied_to_the_host():
    xla = rt.function(affine, jit_compile=True)
    got = xla(np.ones(4, np.float32))
    seen = []
    plan = xla.get_concrete_function(got)._compiled()
    jitted = plan.jitted

    def spy(array):
        seen.append(array)
        return jitted(array)
    plan.jitted = spy
    xla._runners.clear()    # (runners made anew: the general path, then the fastest)
    for _ in range(3):
        out = xla(got)
    assert len(seen) == 3 and all(a is got.device_array for a in seen)
    assert got._host is None            # its value was never read
    np.testing.assert_array_equal(out.numpy(), np.full(4, 7.0, np.float32))


def test_structured_results_and_a_nest_of_device_results():
    @rt.function(jit_compile=True)
    def two(x, y):
        return {"sum": x + y, "both": (x * y, x - y)}
    x, y = np.arange(3, dtype=np.float32), np.full(3, 2.0, np.float32)
    out = two(x, y)
    assert type(out["sum"]) is DeviceTensor
    again = two(out["sum"], out["both"][0])
    np.testing.assert_array_equal(again["sum"].numpy(), (x + y) + x * y)
    np.testing.assert_array_equal(again["both"][1].numpy(), (x + y) - x * y)


def make_step(v, jit_compile):
    def step(x):
        v.assign(v * 0.5 + x)
        return rt.reduce_sum(v)
    return rt.function(step, jit_compile=jit_compile)


def test_variables_over_steps_and_reads_taken_before_a_step():
    v_xla, v_np = rt.Variable(np.arange(4, dtype=np.float32)), rt.Variable(
        np.arange(4, dtype=np.float32))
    step_xla, step_np = make_step(v_xla, True), make_step(v_np, False)
    x = np.array([1.0, -1.0, 0.25, np.nan], np.float32)
    snapshots = []
    for i in range(6):
        if i in (2, 4):     # a read before a step keeps its value: no donation of it
            snapshots.append((v_xla.read_value(), v_xla.numpy(), v_np.numpy().copy()))
        np.testing.assert_array_equal(step_xla(x).numpy(), step_np(x).numpy())
        np.testing.assert_array_equal(v_xla.numpy(), v_np.numpy())
    for read, array, want in snapshots:
        np.testing.assert_array_equal(read.numpy(), want)
        np.testing.assert_array_equal(array, want)
    assert step_xla.experimental_get_tracing_count() == 1


def test_written_variables_are_donated_and_a_held_array_is_not():
    v = rt.Variable(np.ones(3, np.float32))
    step = make_step(v, True)
    x = np.ones(3, np.float32)
    step(x)
    step(x)
    plan = step.get_concrete_function(x)._compiled()
    text = plan.jitted.lower(x, *plan.variable_values()).as_text()
    assert "tf.aliasing_output" in text or "jax.buffer_donor" in text
    held = v._device                     # held elsewhere: given as a copy, not donated
    step(x)
    assert not held.is_deleted()
    np.testing.assert_array_equal(np.asarray(held), np.full(3, 1.75, np.float32))
    alone = v._device
    donated = plan.variable_values()[0]
    assert donated is not alone          # (this frame holds it too: not donated)
    del alone, donated
    values = plan.variable_values()
    assert values[0] is v._device        # held by the Variable alone: donated as it is
    del values
    np.testing.assert_array_equal(v.numpy(), np.full(3, 1.875, np.float32))
    step(x)                               # (read: given as its host view, not donated)
    np.testing.assert_array_equal(v.numpy(), np.full(3, 1.9375, np.float32))


@pytest.mark.parametrize("make", [np.float32, np.int64, np.float64, np.bool_, np.int32],
                         ids=lambda f: f.__name__)
def test_numpy_scalars_are_keyed_by_dtype_as_tensors(make):
    for jit_compile in (True, False):
        f = rt.function(lambda a: a * 2 if a.dtype != rt.bool else ~a,
                        jit_compile=jit_compile)
        values = [make(i % 7) for i in range(100)]
        got = [f(v).numpy() for v in values]
        assert f.experimental_get_tracing_count() == 1
        for v, g in zip(values, got):
            want = ~v if make is np.bool_ else v * 2
            assert g == want and g.dtype == np.dtype(make), (v, g)


def test_jax_arrays_are_keyed_by_dtype_and_shape():
    xla, npf = pair(affine)
    for i in range(100):
        x = jnp.full((3,), i, jnp.float32)
        np.testing.assert_array_equal(xla(x).numpy(), npf(x).numpy())
        assert type(xla(x=x)) is DeviceTensor
    assert xla.experimental_get_tracing_count() == 1
    assert npf.experimental_get_tracing_count() == 1
    # one trace for a jax array, a numpy array and a tensor of the same dtype and shape
    xla(np.ones(3, np.float32))
    xla(rt.constant([1.0, 2.0, 3.0]))
    assert xla.experimental_get_tracing_count() == 1
    xla(jnp.ones((2,), jnp.float32))
    assert xla.experimental_get_tracing_count() == 2


def test_a_failed_check_raises_at_the_call_with_device_inputs():
    @rt.function(jit_compile=True)
    def checked(x):
        rt.debugging.assert_non_negative(x)
        return x + 1.0
    good = checked(np.ones(2, np.float32))
    assert type(good) is DeviceTensor
    bad = rt.function(affine, jit_compile=True)(np.array([-5.0, 1.0], np.float32))
    with pytest.raises(rt.errors.InvalidArgumentError):
        checked(bad)


def test_runs_on_the_default_device():
    xla = rt.function(affine, jit_compile=True)
    out = xla(np.ones(2, np.float32))
    assert isinstance(out.device_array, jax.Array)


def test_a_variable_of_relaxed_shape_that_grows_is_not_donated(recwarn):
    xla_v = rt.Variable(np.zeros(2, np.float32), shape=rt.TensorShape([None]))
    np_v = rt.Variable(np.zeros(2, np.float32), shape=rt.TensorShape([None]))

    def grow(v):
        def step(x):
            v.assign(rt.concat([v, x], 0))
            return rt.reduce_sum(v)
        return step
    xla, npf = rt.function(grow(xla_v), jit_compile=True), rt.function(grow(np_v))
    for i in range(3):
        x = np.full(2, i, np.float32)
        np.testing.assert_array_equal(xla(x).numpy(), npf(x).numpy())
    np.testing.assert_array_equal(xla_v.numpy(), np_v.numpy())
    assert not [w for w in recwarn if "donated" in str(w.message)]


@pytest.mark.parametrize("fn", [lambda x: None, lambda x: (), lambda x: (x, 1.5, None)],
                         ids=["none", "empty", "mixed"])
def test_results_without_tensors_or_with_python_values(fn):
    xla, npf = pair(fn)
    x = np.ones(2, np.float32)
    got, want = xla(x), npf(x)
    assert type(got) is type(want)
    if isinstance(want, tuple) and want:
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        assert got[1:] == want[1:]
