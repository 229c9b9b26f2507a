"""The guide's gradient examples (tf.function guide: "Usage", "Using with multiple Keras
optimizers"), with a small optimizer that, like Keras's, makes its Variables the first
time it applies gradients."""
import numpy as np
import pytest

import runtime as rt


class SGDWithMomentum:
    def __init__(self, learning_rate):
        self.learning_rate = learning_rate
        self.iterations = None
        self.slots = {}

    def apply_gradients(self, grads_and_vars):
        if self.iterations is None:
            self.iterations = rt.Variable(0)
        for g, v in grads_and_vars:
            if id(v) not in self.slots:
                self.slots[id(v)] = rt.Variable(np.zeros_like(v.numpy()))
            m = self.slots[id(v)]
            m.assign(m * 0.9 + g)
            v.assign_sub(m * self.learning_rate)
        self.iterations.assign_add(1)


def train_step(w, x, y, optimizer):
    with rt.GradientTape() as tape:
        L = rt.reduce_sum(rt.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))


def test_usage_gradient_of_a_function_call():
    @rt.function
    def add(a, b):
        return a + b

    np.testing.assert_array_equal(add(rt.ones([2, 2]), rt.ones([2, 2])).numpy(),
                                  [[2.0, 2.0], [2.0, 2.0]])
    v = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        result = add(v, 1.0)
    assert repr(tape.gradient(result, v)) == "<rt.Tensor: shape=(), dtype=float32, numpy=1.0>"


def test_a_second_optimizer_makes_variables_after_the_first_call():
    opt1, opt2 = SGDWithMomentum(1e-2), SGDWithMomentum(1e-3)
    step = rt.function(train_step)
    w = rt.Variable(2.0)
    x = rt.constant([-1.0])
    y = rt.constant([2.0])
    step(w, x, y, opt1)
    assert w.numpy() == pytest.approx(2.0 - 1e-2 * 2 * (2.0 * -1.0 - 2.0) * -1.0)
    with pytest.raises(ValueError, match="singleton"):
        step(w, x, y, opt2)


def test_one_concrete_function_per_optimizer():
    opt1, opt2 = SGDWithMomentum(1e-2), SGDWithMomentum(1e-3)
    w = rt.Variable(2.0)
    x = rt.constant([-1.0])
    y = rt.constant([2.0])
    train_step_1 = rt.function(train_step).get_concrete_function(w, x, y, opt1)
    train_step_2 = rt.function(train_step).get_concrete_function(w, x, y, opt2)
    losses = []
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y)  # `opt1` is not used as a parameter.
        else:
            train_step_2(w, x, y)  # `opt2` is not used as a parameter.
        losses.append((w.numpy() * -1.0 - 2.0) ** 2)
    assert opt1.iterations.numpy() == 5 and opt2.iterations.numpy() == 5
    assert losses[-1] < losses[0]
