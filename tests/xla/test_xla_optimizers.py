"""rt.optimizers under rt.function(jit_compile=True): the training steps of
tests/runtime/test_rt_optimizers.py (a 2-layer rt.Module, GradientTape, SGD / momentum /
Nesterov / Adam) on XLA against the same numpy references and the numpy backend."""
import os
import sys

import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime"))
from test_rt_optimizers import OPTIMIZERS, check_against_numpy, rt_train  # noqa: E402


@pytest.mark.parametrize("name", [n if n in ("sgd", "adam") else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(OPTIMIZERS)])
def test_training_on_xla_matches_numpy_reference(name):
    losses = check_against_numpy(name, "xla")
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("name", ["nesterov", "adam"])
def test_xla_agrees_with_numpy_backend(name):
    a = rt_train(OPTIMIZERS[name][0], "function")
    b = rt_train(OPTIMIZERS[name][0], "xla")
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5)
    for x, y in zip(a[1], b[1]):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def test_schedule_and_module_method_on_xla():
    v = rt.Variable(np.zeros(2, np.float32))
    opt = rt.optimizers.Adam(lambda step: 0.1 * 0.5 ** step)

    class Holder(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = v

        @rt.function(jit_compile=True)
        def step(self, g):
            opt.apply_gradients([(g, self.v)])
            return self.v.read_value()

    h = Holder()
    ref = np.zeros(2)
    m = np.zeros(2)
    s = np.zeros(2)
    g = np.array([1.0, -2.0])
    for t in range(1, 4):
        h.step(rt.constant(g, dtype=rt.float32))
        lr = 0.1 * 0.5 ** (t - 1)
        m = m + (g - m) * 0.1
        s = s + (g * g - s) * 0.001
        ref = ref - m * (lr * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)) / (np.sqrt(s) + 1e-7)
    np.testing.assert_allclose(v.numpy(), ref, rtol=1e-5)
    assert h.step.experimental_get_tracing_count() == 1
