"""Gradients through staged `cond` and `while_loop`, nested, with captured tensors and
Variables: the same Python function differentiated eagerly (Python control flow), staged
by rt.function (cond/while nodes) and through a Function call, against finite
differences."""
import numpy as np
import pytest

import runtime as rt
from grad_helpers import check_gradients

RNG = np.random.default_rng(11)


def branchy(x):
    if rt.reduce_sum(x) > 0.0:
        y = x * x
    else:
        y = rt.sin(x) * 3.0
    return y


def nested_branches(x, y):
    if rt.reduce_sum(x) > 0.0:
        if rt.reduce_sum(y) > 0.0:
            z = x * y
        else:
            z = x - y * y
    else:
        z = rt.exp(x) * y
    return z


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond(sign):
    check_gradients(branchy, [sign * RNG.uniform(0.5, 1.0, size=3)])


@pytest.mark.parametrize("sx,sy", [(1, 1), (1, -1), (-1, 1)])
def test_nested_cond(sx, sy):
    check_gradients(nested_branches, [sx * RNG.uniform(0.5, 1, size=(2, 3)),
                                      sy * RNG.uniform(0.5, 1, size=3)])


def test_only_the_taken_branch_contributes():
    @rt.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            if x > 0.0:
                y = rt.sqrt(x)
            else:
                y = rt.log(x)  # its gradient at a positive x would be finite, but at
        return tape.gradient(y, x)   # a negative one the sqrt branch gives nan
    assert f(rt.constant(4.0)).numpy() == pytest.approx(0.25)
    assert f(rt.constant(-2.0)).numpy() == pytest.approx(-0.5)


def power_loop(x, n):
    y = x
    i = rt.constant(1)
    while i < n:
        y = y * x
        i += 1
    return y


@pytest.mark.parametrize("n", [1, 2, 5])
def test_while(n):
    check_gradients(power_loop, [RNG.normal(size=3), np.int32(n)])


def loop_with_branch_and_capture(x, w):
    acc = x
    for i in rt.range(4):
        if rt.reduce_sum(acc) > 2.0:
            acc = acc * 0.5 + w
        else:
            acc = acc * w + rt.cast(i, acc.dtype)
    return acc


def test_while_with_cond_inside_and_captured_tensor():
    check_gradients(loop_with_branch_and_capture, [RNG.uniform(0.2, 1.0, size=3),
                                                   RNG.uniform(0.5, 1.5, size=3)])


def nested_loops(x):
    total = x * 0.0
    i = rt.constant(0)
    while i < 3:
        j = rt.constant(0)
        inner = x
        while j < i:
            inner = rt.sin(inner) * x
            j += 1
        total = total + inner
        i += 1
    return total


def test_nested_while():
    check_gradients(nested_loops, [RNG.normal(size=(2, 2))])


def cond_around_loop(x, n):
    if rt.reduce_sum(x) > 0.0:
        y = power_loop(x, n)
    else:
        y = -x
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_loop_inside_cond(sign):
    check_gradients(cond_around_loop, [sign * RNG.uniform(0.5, 1, size=3), np.int32(3)])


def test_while_loop_api_with_maximum_iterations():
    def f(x):
        _, y = rt.while_loop(lambda i, y: i < 10, lambda i, y: (i + 1, y * x + 1.0),
                             [rt.constant(0), x], maximum_iterations=3)
        return y
    check_gradients(f, [RNG.normal(size=2)])


def test_loop_variable_that_is_not_differentiated():
    def f(x):
        count = rt.constant(0)
        y = x
        while rt.reduce_sum(y) < 10.0:
            y = y * 2.0
            count += 1
        return y * rt.cast(count, y.dtype)
    check_gradients(f, [RNG.uniform(0.5, 1.0, size=2)])


def test_variables_read_in_branches_and_loops():
    w = rt.Variable(np.array([0.5, -1.5]))
    b = rt.Variable(0.25, dtype=rt.float64)

    def loss(x):
        y = x
        for _ in rt.range(3):
            if rt.reduce_sum(y) > 0.0:
                y = y * w + b
            else:
                y = y - w * b
        return rt.reduce_sum(y * y)

    x = rt.constant(np.array([1.0, 2.0]))
    with rt.GradientTape() as tape:
        eager = loss(x)
    eager_grads = tape.gradient(eager, [w, b])

    @rt.function
    def staged(x):
        with rt.GradientTape() as tape:
            value = loss(x)
        return tape.gradient(value, [w, b])

    with rt.GradientTape() as tape:
        called = rt.function(loss)(x)
    call_grads = tape.gradient(called, [w, b])

    def numeric(var):
        base = var.numpy().copy()
        out = np.zeros(np.shape(base))
        for idx in np.ndindex(*np.shape(base)):
            for sign in (1, -1):
                v = np.array(base, dtype=np.float64)
                v[idx] += sign * 1e-6
                var.assign(v)
                out[idx] += sign * loss(x).numpy() / 2e-6
            var.assign(base)
        return out

    expected = [numeric(w), numeric(b)]
    for got in (eager_grads, staged(x), call_grads):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g.numpy(), e, rtol=1e-5, atol=1e-8)


def test_gradient_in_a_plain_graph():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [2])
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.cond(rt.reduce_sum(x) > 0.0, lambda: x * x, lambda: x * 3.0)
            z = rt.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * x), [0, y])[1]
            total = rt.reduce_sum(z)
        dx = tape.gradient(total, x)
    np.testing.assert_allclose(g.run(dx, {x: [1.0, 2.0]}).numpy(), [4.0, 32.0])
    np.testing.assert_allclose(g.run(dx, {x: [-1.0, -2.0]}).numpy(), [9.0, 36.0])


def test_loop_inputs_the_target_does_not_depend_on_get_none():
    w = rt.Variable(2.0)

    @rt.function
    def f(x, unused):
        with rt.GradientTape() as tape:
            tape.watch([x, unused])
            i, y, other = rt.constant(0), x, unused
            while i < 3:
                y = y * x
                other = other * w + unused
                i += 1
            total = rt.reduce_sum(y)
        return tape.gradient(total, [x, unused, w], unconnected_gradients="zero")
    dx, dunused, dw = f(rt.constant(2.0), rt.constant(1.0))
    assert dx.numpy() == 32.0 and dunused.numpy() == 0.0 and dw.numpy() == 0.0


def test_loop_gradient_with_unconnected_state_is_none():
    w = rt.Variable(2.0)

    @rt.function
    def f(x, unused):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch([x, unused])
            i, y, other = rt.constant(0), x, unused
            while i < 3:
                y = y * x
                other = other * w + unused
                i += 1
            total = y * 1.0
        return [tape.gradient(total, s) is None for s in (x, unused, w)]
    assert [bool(v) for v in f(rt.constant(2.0), rt.constant(1.0))] == [False, True, True]


def test_for_over_a_tensor_and_break():
    def f(x):
        acc = x[0] * 0.0
        for row in x:
            acc = acc + row * row
            if rt.reduce_sum(acc) > 3.0:
                break
        return acc
    check_gradients(f, [RNG.uniform(0.5, 1.0, size=(5, 2))])
