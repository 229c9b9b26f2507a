"""Gradients through TensorArrays (a handle's gradient is a handle of the elements'
gradients): written in a staged loop and stacked, unstacked and read, read in a loop."""
import numpy as np

import runtime as rt
from grad_helpers import check_gradients

RNG = np.random.default_rng(5)


def rnn(x, w):
    ta = rt.TensorArray(rt.float64, size=3)
    h = x
    for i in rt.range(3):
        h = rt.tanh(h * w)
        ta = ta.write(i, h)
    # a stacked TensorArray has an unknown length when staged: reduce to a scalar
    return rt.reduce_sum(rt.sin(ta.stack()) * rt.constant([[1.0, 2.0]], rt.float64))


def test_written_in_a_loop_then_stacked():
    check_gradients(rnn, [RNG.normal(size=2), RNG.uniform(0.5, 1.5, size=2)])


def test_dynamic_size_written_until_a_tensor_condition():
    def f(x):
        ta = rt.TensorArray(rt.float64, size=0, dynamic_size=True)
        i = rt.constant(0)
        y = x
        while rt.reduce_sum(y) < 4.0:
            y = y * 1.5 + 0.1
            ta = ta.write(i, y * y)
            i += 1
        return rt.reduce_sum(ta.stack())
    check_gradients(f, [RNG.uniform(0.3, 0.6, size=2)])


def test_unstack_and_read():
    def f(x):
        ta = rt.TensorArray(rt.float64, size=3).unstack(x)
        return ta.read(1) * ta.read(2) + ta.read(1)
    check_gradients(f, [RNG.normal(size=(3, 2))])


def test_read_in_a_loop():
    def f(x):
        ta = rt.TensorArray(rt.float64, size=4).unstack(x)
        acc = x[0] * 0.0
        for i in rt.range(4):
            acc = acc * 0.5 + ta.read(i) * ta.read(i)
        return acc
    check_gradients(f, [RNG.normal(size=(4, 2))])
