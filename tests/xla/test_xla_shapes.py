"""Shapes under `rt.function(jit_compile=True)`: how often a graph is compiled.

- A concrete function is compiled once (one `JaxBackend.compile`, one XLA compilation at
  its first call); later calls reuse it.
- A relaxed signature (`input_signature` with a None dimension, or `reduce_retracing`)
  gives one concrete function whose graph has a None dimension. Its one XLA plan is a
  `jax.jit` function, which XLA compiles once per concrete input shape: length 3, then 5,
  then 3 again compiles twice (3 reused), and every answer is the numpy backend's.

Compiles are counted without touching user code: the backend's `compile` is wrapped
(each plan and the shapes of its graph's inputs), and XLA's compilations are counted with
JAX's own monitoring events (`jax.monitoring`: one backend-compile event per executable
XLA builds).
"""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import jax.monitoring  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
import runtime.backends.xla.backend as jax_backend  # noqa: E402

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
JAXPR_TRACE = "/jax/core/compile/jaxpr_trace_duration"


class Compiles:
    """What compiled since the fixture began: `plans` (the input shapes of each graph the
    XLA backend compiled) and `events` (JAX's trace and XLA compile events), which
    `take()` returns and clears."""

    def __init__(self):
        self.plans: list = []
        self.events: list = []

    def listen(self, name, _secs, **_kwargs):
        if name in (BACKEND_COMPILE, JAXPR_TRACE):
            self.events.append(name)

    def take(self):
        events, self.events = self.events, []
        return events.count(JAXPR_TRACE), events.count(BACKEND_COMPILE)


@pytest.fixture
def compiles(monkeypatch):
    record = Compiles()
    original = jax_backend.JaxBackend.compile

    def compile(self, graph, inputs, outputs):
        record.plans.append([t.shape.as_list() for t in inputs])
        return original(self, graph, inputs, outputs)

    monkeypatch.setattr(jax_backend.JaxBackend, "compile", compile)
    jax.monitoring.register_event_duration_secs_listener(record.listen)
    try:
        yield record
    finally:
        jax.monitoring.unregister_event_duration_listener(record.listen)


def stats(x):
    return rt.reduce_sum(x * 2.0 + 1.0), rt.shape(x)[0], rt.reduce_mean(x)


def running_sums(x):
    """A staged loop over the None dimension, a TensorArray as long as it, a division."""
    n = rt.shape(x)[0]
    sums = rt.TensorArray(rt.float32, size=n)
    total = 0.0
    for i in rt.range(n):
        total += x[i]
        sums = sums.write(i, total)
    return sums.stack(), x // 2.0


def _arrays(result):
    return [np.asarray(r.numpy()) for r in (result if isinstance(result, tuple) else (result,))]


def _same(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(_arrays(actual), _arrays(expected)):
        assert a.shape == e.shape and a.dtype == e.dtype, (a, e)
        np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-6)


def test_one_concrete_function_compiles_once(compiles):
    f = rt.function(stats, jit_compile=True)
    numpy_f = rt.function(stats)
    x = rt.constant(np.arange(4, dtype=np.float32))
    compiles.take()  # (constant() made on the host: nothing of ours)
    _same(f(x), numpy_f(x))
    assert compiles.plans == [[[4]]]
    assert compiles.take() == (1, 1)  # one JAX trace, one XLA compile, at the first call
    for _ in range(3):
        _same(f(x), numpy_f(x))
        _same(f(np.arange(4, dtype=np.float32) + 1), numpy_f(np.arange(4, dtype=np.float32) + 1))
    assert compiles.plans == [[[4]]]
    assert compiles.take() == (0, 0)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("fn", [stats, running_sums], ids=["stats", "running_sums"])
def test_input_signature_none_dim_compiles_once_per_shape(compiles, fn):
    spec = rt.TensorSpec([None], rt.float32)
    f = rt.function(fn, jit_compile=True, input_signature=[spec])
    numpy_f = rt.function(fn, input_signature=[spec])
    cf = f.get_concrete_function()
    assert [t.shape.as_list() for t in cf.inputs] == [[None]]

    per_call = []
    for n in (3, 5, 3, 5, 3):
        x = np.arange(n, dtype=np.float32) * 1.5
        _same(f(x), numpy_f(x))
        per_call.append(compiles.take())
    # one plan, for the graph with the None dimension; XLA compiles it for length 3 and
    # for length 5 once each, and reuses them
    assert compiles.plans == [[[None]]]
    assert per_call == [(1, 1), (1, 1), (0, 0), (0, 0), (0, 0)]
    assert f.experimental_get_tracing_count() == 1


def test_reduce_retracing_relaxes_to_a_none_dim(compiles):
    f = rt.function(stats, jit_compile=True, reduce_retracing=True)
    numpy_f = rt.function(stats)
    per_call = []
    for n in (3, 5, 3, 7, 5):
        x = rt.constant(np.arange(n, dtype=np.float32) - 1.0)
        compiles.take()
        _same(f(x), numpy_f(x))
        per_call.append(compiles.take())
    # As TensorFlow: the first call traces for [3], the second relaxes to [None]; length
    # 3 then runs the first concrete function, 7 and 5 the relaxed one. Each plan
    # compiles once; XLA once per (plan, shape).
    assert compiles.plans == [[[3]], [[None]]]
    assert per_call == [(1, 1), (1, 1), (0, 0), (1, 1), (0, 0)]
    assert f.experimental_get_tracing_count() == 2
