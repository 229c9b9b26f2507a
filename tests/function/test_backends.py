"""Which backend a Function's graphs run on (runtime.core.backend_registry): the numpy backend by
default, `jit_compile=True` asks for XLA (without JAX: a clear error at decoration),
and `backend=` names a registered one; gradients through the function run on the same."""
import importlib.util

import numpy as np
import pytest

import runtime as rt
from runtime.core import backend_registry


class RecordingBackend:
    """Runs plans on the numpy backend, recording which graphs it compiled and how many
    times its plans ran."""

    name = "recording"

    def __init__(self):
        self.compiled = []   # names of the graphs compiled
        self.runs = 0

    def compile(self, graph, inputs, outputs):
        plan = backend_registry.get("numpy").compile(graph, inputs, outputs)
        self.compiled.append(graph.name)

        def run(*arrays):
            self.runs += 1
            return plan(*arrays)
        run.needed_placeholders = plan.needed_placeholders
        return run


@pytest.fixture
def recording():
    backend = RecordingBackend()
    backend_registry.register(backend)   # replaces the one an earlier test registered
    return backend


def _without_jax(monkeypatch):
    """As on a machine without JAX: importing it fails, and no XLA backend is loaded."""
    import sys
    monkeypatch.setitem(sys.modules, "jax", None)
    monkeypatch.delitem(backend_registry._registered, "xla", raising=False)


# -- jit_compile ----------------------------------------------------------------------------

def test_jit_compile_true_without_jax_fails_at_decoration_naming_the_install(monkeypatch):
    _without_jax(monkeypatch)

    def f(x):
        return x * 2.0

    with pytest.raises(ImportError) as e:
        rt.function(f, jit_compile=True)
    message = str(e.value)
    assert "jit_compile=True" in message and "JAX" in message
    assert "pip install -e '.[jax]'" in message and "\n" not in message
    with pytest.raises(ImportError):
        rt.function(jit_compile=True)  # the decorator form fails before any function is given


def test_jit_compile_true_runs_on_the_xla_backend():
    pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

    @rt.function(jit_compile=True)
    def f(x):
        total = x * 0.0
        for i in rt.range(3):
            total += x * rt.cast(i, rt.float32)
        return total

    got = f(rt.constant([1.0, 2.0]))
    np.testing.assert_allclose(got.numpy(), [3.0, 6.0])
    assert f.get_concrete_function(rt.TensorSpec([2], rt.float32)).backend == "xla"


@pytest.mark.parametrize("jit", [False, None])
def test_jit_compile_false_or_none_runs_on_numpy(jit, recording):
    @rt.function(jit_compile=jit)
    def f(x):
        return x * 2.0 + 1.0

    np.testing.assert_allclose(f(rt.constant([1.0, 2.0])).numpy(), [3.0, 5.0])
    cf = f.get_concrete_function(rt.TensorSpec([2], rt.float32))
    assert cf.backend is None   # the default: numpy
    assert recording.compiled == [] and recording.runs == 0


def test_jit_compile_cannot_name_another_backend_too(recording):
    with pytest.raises(ValueError, match="jit_compile"):
        rt.function(lambda x: x, jit_compile=True, backend="recording")


def test_an_unknown_backend_fails_at_decoration():
    with pytest.raises(ValueError, match="no backend named 'nope'"):
        rt.function(lambda x: x, backend="nope")


# -- a backend chosen by name ---------------------------------------------------------------

def test_a_function_runs_on_the_backend_it_names(recording):
    @rt.function(backend="recording")
    def f(x, y):
        return rt.reduce_sum(x * y)

    x, y = rt.constant([1.0, 2.0]), rt.constant([3.0, 4.0])
    assert float(f(x, y)) == 11.0
    assert recording.compiled == ["f"] and recording.runs == 1
    assert float(f(x, y)) == 11.0   # the cached trace (the fast path) runs there too
    assert recording.runs == 2
    assert float(f(x, y=y)) == 11.0   # and a call with keywords
    assert recording.runs == 3


def test_a_concrete_function_runs_on_its_backend(recording):
    @rt.function(backend="recording")
    def f(x):
        return x + 1.0

    cf = f.get_concrete_function(rt.TensorSpec([None], rt.float32))
    assert cf.backend == "recording"
    np.testing.assert_allclose(cf(rt.constant([1.0, 2.0])).numpy(), [2.0, 3.0])
    assert recording.runs == 1
    np.testing.assert_allclose(cf.run_flat([np.array([5.0], np.float32)]).numpy(), [6.0])
    assert recording.runs == 2


def test_a_method_keeps_its_backend(recording):
    class Model:
        def __init__(self):
            self.w = rt.Variable(2.0)

        @rt.function(backend="recording")
        def __call__(self, x):
            return self.w * x

    m = Model()
    assert float(m(rt.constant(3.0))) == 6.0
    assert recording.runs == 1


def test_gradients_through_the_function_run_on_its_backend(recording):
    w = rt.Variable([1.0, 2.0])

    @rt.function(backend="recording")
    def loss(x):
        return rt.reduce_sum(w * x * x)

    x = rt.constant([3.0, 4.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = loss(x)
    dx, dw = tape.gradient(y, [x, w])
    assert float(y) == 1.0 * 9.0 + 2.0 * 16.0
    np.testing.assert_allclose(dx.numpy(), [6.0, 16.0])
    np.testing.assert_allclose(dw.numpy(), [9.0, 16.0])
    # the forward graph (with the values the backward pass reads) and the backward graph
    assert "loss" in recording.compiled and "loss_grad" in recording.compiled
    assert recording.runs == 2


def test_gradients_on_the_default_backend_match(recording):
    def loss(x):
        return rt.reduce_sum(rt.tanh(x) * x)

    x = rt.constant([0.5, -1.5])
    results = []
    for f in (rt.function(loss), rt.function(loss, backend="recording")):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        results.append((float(y), tape.gradient(y, x).numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert recording.runs == 2


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=pytest.mark.skipif(
    importlib.util.find_spec("jax") is None,
    reason="JAX is not installed: pip install -e '.[jax]'"))])
def test_a_result_never_changes_with_the_callers_array(jit):
    """The cached-call path takes the user's numpy arrays as they are where the backend
    copies them itself (XLA), and copies them first where it may hand one back (numpy)."""
    f = rt.function(lambda k, a, b: (a, b * k), jit_compile=jit)
    x, y = np.ones(3, np.float32), np.ones(3, np.float32)
    results = []
    for _ in range(3):                       # the second and third calls hit the cache
        results.append(f(2.0, x, y))
        x += 1.0
        y += 1.0
    for i, (a, b) in enumerate(results):
        np.testing.assert_array_equal(a.numpy(), np.full(3, 1.0 + i))
        np.testing.assert_array_equal(b.numpy(), np.full(3, 2.0 * (1.0 + i)))
