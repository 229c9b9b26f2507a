"""A training step under `rt.function(jit_compile=True)`: forward, GradientTape,
gradients and `assign_sub` on Variables (tools/bench/bench_jit.py's MLP step) is one
XLA computation, traced and compiled once, called once per step with no host callback;
after N steps the Variables and losses are the numpy backend's. The Variables keep the
device arrays the step left between steps: what the host sees of them (`numpy()`, reads,
eager assignments between steps, other functions reading them) is as on the numpy
backend."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import io  # noqa: E402
import logging  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.backends.xla.backend import XlaPlan  # noqa: E402

STEPS = 6
LR = 0.1


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(32, 64)).astype(np.float32)
    labels = np.eye(8, dtype=np.float32)[rng.integers(0, 8, size=32)]
    return x, labels


def _params(seed=1):
    rng = np.random.default_rng(seed)
    return [rng.normal(scale=0.3, size=s).astype(np.float32)
            for s in [(64, 64), (64,), (64, 8), (8,)]]


def _train_step(variables, jit):
    w1, b1, w2, b2 = variables

    def train_step(x, labels):
        with rt.GradientTape() as tape:
            h = rt.tanh(rt.matmul(x, w1) + b1)
            logits = rt.matmul(h, w2) + b2
            z = logits - rt.stop_gradient(rt.reduce_max(logits, axis=1, keepdims=True))
            log_p = z - rt.log(rt.reduce_sum(rt.exp(z), axis=1, keepdims=True))
            loss = -rt.reduce_mean(rt.reduce_sum(labels * log_p, axis=1))
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(LR * g)
        return loss
    return rt.function(train_step, jit_compile=jit)


def _pair():
    """(XLA step, its Variables, numpy step, its Variables), from the same values."""
    xla_vars = [rt.Variable(p) for p in _params()]
    np_vars = [rt.Variable(p) for p in _params()]
    return _train_step(xla_vars, True), xla_vars, _train_step(np_vars, False), np_vars


def _assert_same(xla_vars, np_vars):
    for a, b in zip(xla_vars, np_vars):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def _counting(plan):
    """Counts the calls into the plan's jitted function."""
    calls = [0]
    jitted = plan.jitted

    def counted(*args):
        calls[0] += 1
        return jitted(*args)
    counted.inner = jitted
    plan.jitted = counted
    return calls


def test_train_step_agrees_with_numpy_and_is_one_computation_traced_once(caplog):
    x, labels = _data()
    step, xla_vars, np_step, np_vars = _pair()
    losses, np_losses = [], []
    with jax.log_compiles(True), caplog.at_level(logging.WARNING):
        for _ in range(3):
            losses.append(step(x, labels).numpy())
            np_losses.append(np_step(x, labels).numpy())
    compiles = [r for r in caplog.records if "Compiling" in r.getMessage()]
    assert len(compiles) == 1, [r.getMessage() for r in compiles]
    cf = step.get_concrete_function(x, labels)
    plan = cf._compiled()
    assert isinstance(plan, XlaPlan)
    assert not plan.ctx.effects, "the step has a host callback"
    assert not plan.ctx.predrawn
    calls = _counting(plan)
    for _ in range(STEPS - 3):
        losses.append(step(x, labels).numpy())
        np_losses.append(np_step(x, labels).numpy())
    np.testing.assert_allclose(losses, np_losses, rtol=1e-5)
    assert losses[-1] < losses[0]  # it trains
    _assert_same(xla_vars, np_vars)
    assert calls[0] == STEPS - 3  # one jitted call per step
    assert plan.ctx.traces == 1  # lowered to JAX once (and compiled once: above)
    assert step.experimental_get_tracing_count() == 1
    # the gradients are in the computation, and nothing in it calls back to the host
    text = plan.jitted.inner.lower(x, labels, *plan._values(), *plan._draw()).as_text()
    assert "callback" not in text
    assert text.count("dot_general") >= 4  # the forward's 2 matmuls, and the backward's


def test_tensors_and_arrays_as_arguments_share_one_trace():
    x, labels = _data()
    step, xla_vars, np_step, np_vars = _pair()
    for args in [(x, labels), (rt.constant(x), rt.constant(labels)), (x, rt.constant(labels))]:
        np.testing.assert_allclose(step(*args).numpy(), np_step(*args).numpy(), rtol=1e-5)
    assert step.experimental_get_tracing_count() == 1
    _assert_same(xla_vars, np_vars)


def test_host_sees_each_step_and_eager_writes_between_steps_count():
    x, labels = _data()
    step, xla_vars, np_step, np_vars = _pair()
    for k in range(4):
        step(x, labels)
        np_step(x, labels)
        _assert_same(xla_vars, np_vars)
        w1, b1 = xla_vars[0], xla_vars[1]
        np.testing.assert_allclose(w1.read_value().numpy(), np_vars[0].read_value().numpy(),
                                   rtol=1e-5, atol=1e-6)
        if k == 1:  # eager assignments between two steps: the next step reads them
            for vs in (xla_vars, np_vars):
                vs[1].assign(np.full(64, 0.5, np.float32))
                vs[0].assign_add(np.ones((64, 64), np.float32) * 0.01)
        if k == 2:
            b1.numpy()[:] = 7.0  # numpy() is a copy: writing into it changes nothing
    _assert_same(xla_vars, np_vars)


def test_values_read_on_the_host_cannot_be_written_into():
    x, labels = _data()
    step, xla_vars, _, _ = _pair()
    step(x, labels)
    seen = xla_vars[0].read_value().numpy()
    before = seen.copy()
    with pytest.raises(ValueError):
        seen[0, 0] = 1.0
    step(x, labels)
    np.testing.assert_array_equal(seen, before)  # the value read stays what it was
    assert not np.array_equal(xla_vars[0].numpy(), before)


def test_another_function_reads_the_variables_a_step_wrote():
    x, labels = _data()
    step, xla_vars, np_step, np_vars = _pair()

    def predict(vs):
        w1, b1, w2, b2 = vs
        return rt.argmax(rt.matmul(rt.tanh(rt.matmul(x, w1) + b1), w2) + b2, axis=1)

    xla_predict = rt.function(lambda: predict(xla_vars), jit_compile=True)
    np_predict = rt.function(lambda: predict(np_vars))
    for _ in range(3):
        step(x, labels)
        np_step(x, labels)
        np.testing.assert_array_equal(xla_predict().numpy(), np_predict().numpy())
        # and eagerly, on the numpy backend
        np.testing.assert_array_equal(predict(xla_vars).numpy(), np_predict().numpy())
    _assert_same(xla_vars, np_vars)


def test_a_step_with_no_output_ends_when_its_run_ends():
    v = rt.Variable(np.zeros(3, np.float32))
    w = rt.Variable(np.zeros(3, np.float32))

    def bump(x):
        v.assign_add(x)
        w.assign(v * 2.0)

    xla_bump, np_bump = rt.function(bump, jit_compile=True), rt.function(bump)
    x = np.arange(3, dtype=np.float32)
    for _ in range(3):
        assert xla_bump(x) is None
    ref_v, ref_w = v.numpy(), w.numpy()
    v.assign(np.zeros(3, np.float32))
    w.assign(np.zeros(3, np.float32))
    for _ in range(3):
        np_bump(x)
    np.testing.assert_array_equal(ref_v, v.numpy())
    np.testing.assert_array_equal(ref_w, w.numpy())
    np.testing.assert_array_equal(ref_v, 3 * x)


def test_a_failed_check_after_a_step_keeps_the_values_of_the_numpy_backend():
    def run(jit):
        v = rt.Variable(np.array([1, 2, 3], np.int32))

        def f(i):
            v.assign_add(np.array([1, 1, 1], np.int32))
            return rt.gather(v, i)

        g = rt.function(f, jit_compile=jit)
        g(np.int32(1))
        with pytest.raises(rt.errors.InvalidArgumentError):
            g(np.int32(7))
        after_error = v.numpy()
        out = g(np.int32(2)).numpy()
        return after_error, out, v.numpy()

    for a, b in zip(run(True), run(False)):
        np.testing.assert_array_equal(a, b)


def _aligned_arrays():
    """(32, 64) float32 arrays of ones at every 4-byte offset from a 64-byte boundary:
    jax takes a 64-byte-aligned numpy array without copying it."""
    for offset in range(0, 128, 4):
        buffer = np.zeros(8192 + 256, np.uint8)
        start = (-buffer.ctypes.data) % 64 + offset
        x = buffer[start:start + 8192].view(np.float32).reshape(32, 64)
        x[:] = 1.0
        yield x


def test_no_result_or_variable_shares_memory_with_the_callers_array():
    v = rt.Variable(np.zeros((32, 64), np.float32))

    def keep(a):
        v.assign(a)
        return a, a * 2.0

    for fn in (rt.function(lambda a: a, jit_compile=True), rt.function(keep, jit_compile=True)):
        for x in _aligned_arrays():
            out = fn(x)
            x[0, 0] = 5.0                      # the caller reuses its array
            for t in (out if isinstance(out, tuple) else (out,)) + (v,):
                assert t.numpy()[0, 0] in (0.0, 1.0, 2.0)
        # jax hands back an input array itself when the computation returns it as it
        # came (an output variable of the jaxpr that is an input variable): never here.
        plan = next(iter(fn._cache.values()))._compiled()
        x = np.ones((32, 64), np.float32)
        args = (x,) if plan._plain else (x, *plan._values(), *plan._draw())
        inner = plan.jitted.trace(*args).jaxpr.jaxpr  # (not nested: it may have compiler options)
        assert not set(map(id, inner.outvars)) & set(map(id, inner.invars))


def test_a_run_that_fails_while_it_runs_keeps_the_writes_made_before_it():
    """A host call that fails inside a compiled step: on both backends the Variables keep
    the writes made before the failing op (and none after it), and stay readable; the
    next call runs as usual (a failed host callback must not leave JAX's ordered-effects
    token failed: on a GPU every later call would fail with it)."""
    v = rt.Variable(np.array([1.0, 2.0], np.float32))

    class Closed:                  # a stream that fails when the print runs
        def write(self, text):
            raise OSError("stream closed")

    def step(x, stream):
        v.assign_add(x)
        rt.print(v, output_stream=stream)
        v.assign_add(x)
        return v * 2.0

    for jit in (True, False):
        f = rt.function(step, jit_compile=jit)
        with pytest.raises(Exception, match="stream closed"):
            f(np.array([1.0, 1.0], np.float32), Closed())
        np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
        out = io.StringIO()
        np.testing.assert_array_equal(f(np.array([1.0, 1.0], np.float32), out), [8.0, 10.0])
        assert out.getvalue() == "[3 4]\n"
        v.assign([1.0, 2.0])
