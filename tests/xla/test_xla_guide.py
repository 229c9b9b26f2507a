"""The guides' examples (tests/autograph/guide_examples.py) on the XLA backend, against
the numpy backend."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import os
import sys

import numpy as np

import runtime as rt
from xla_helpers import compare_traced

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "autograph"))
import guide_examples as ge  # noqa: E402

I32 = rt.TensorSpec([], rt.int32)


def test_fizzbuzz():
    _, text = compare_traced(ge.fizzbuzz, [I32], [np.int32(100)])
    assert text.count("fizzbuzz") == 6


def test_tanh_loop_on_a_reduction():
    # tanh is XLA's own approximation: values agree to float32 rounding, so the printed
    # digits may differ in the last place
    x = np.array([1.0, 2.0, 3.0], np.float32)
    compare_traced(ge.f, [rt.TensorSpec([3], rt.float32)], [x], exact=False, rtol=1e-5,
                   printed=False)


def collatz(x):
    steps = 0
    while x != 1:
        x = ge.next_collatz(x)
        steps += 1
    return steps


@pytest.mark.parametrize("x", [1, 6, 27, 97])
def test_collatz(x):
    compare_traced(collatz, [I32], [np.int32(x)])


def test_power():
    x = (np.arange(100).reshape(10, 10) % 3 - 1).astype(np.int32)
    compare_traced(ge.power, [rt.TensorSpec([10, 10], rt.int32), 100], [x])


def test_dynamic_rnn():
    def rnn(data, state):
        return ge.dynamic_rnn(ge.rnn_step, data, state)

    data = np.random.default_rng(0).normal(size=(4, 7, 3)).astype(np.float32)
    state = np.zeros((4, 3), np.float32)
    compare_traced(rnn, [rt.TensorSpec([4, 7, 3], rt.float32), rt.TensorSpec([4, 3], rt.float32)],
                   [data, state])


@pytest.mark.parametrize("x", [-2.0, 3.5])
def test_simple_relu_and_friends(x):
    spec = [rt.TensorSpec([], rt.float32)]
    compare_traced(ge.simple_relu, spec, [np.float32(x)])
    compare_traced(ge.my_relu, spec, [np.float32(x)])
    compare_traced(lambda a: ge.get_MSE(a, a * 0.5), spec, [np.float32(x)])
    compare_traced(ge.a_function_with_python_side_effect, [I32], [np.int32(3)])


def test_train_prints():
    compare_traced(ge.train, [I32], [np.int32(3)])


def test_a_regular_function():
    rng = np.random.default_rng(1)
    x, y, b = (rng.normal(size=s).astype(np.float32) for s in ((2, 3), (3, 2), (2,)))
    specs = [rt.TensorSpec(a.shape, rt.float32) for a in (x, y, b)]
    compare_traced(ge.a_regular_function, specs, [x, y, b], exact=False)
