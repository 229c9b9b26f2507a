"""An eager tensor made outside a traced function and read by it is one of its inputs for
gradients, as TensorFlow's captures are: a tape inside the function watching it, a tape
around a call, through a staged loop, to second order; eagerly and under jit_compile."""
import numpy as np
import pytest

import runtime as rt

W = rt.constant(3.0)
X = rt.constant(2.0)


def _jit_modes():
    try:
        import jax  # noqa: F401
        return [False, True]
    except ImportError:
        return [False]


def _eager_gradient(fn, *args):
    with rt.GradientTape() as t:
        t.watch(W)
        out = fn(*args)
    return t.gradient(out, W)


def y_w_w(y):
    return y * W * W


@pytest.mark.parametrize("jit", _jit_modes())
def test_a_tape_around_the_call_reaches_the_captured_tensor(jit):
    g = rt.function(y_w_w, jit_compile=jit)
    expected = _eager_gradient(y_w_w, X)
    assert float(expected) == 12.0
    assert float(_eager_gradient(g, X)) == 12.0
    # the capture passed as the argument too: both paths add up (2 * 3 * 3 + 9)
    assert float(_eager_gradient(g, W)) == float(_eager_gradient(y_w_w, W)) == 27.0


@pytest.mark.parametrize("jit", _jit_modes())
def test_second_order_through_the_call(jit):
    g = rt.function(y_w_w, jit_compile=jit)
    with rt.GradientTape() as outer:
        outer.watch(W)
        with rt.GradientTape() as inner:
            inner.watch(W)
            out = g(X)
        d = inner.gradient(out, W)
    assert float(d) == 12.0
    assert float(outer.gradient(d, W)) == 4.0


def test_a_tape_inside_the_function_watches_the_captured_tensor():
    @rt.function
    def f(x):
        with rt.GradientTape() as t:
            t.watch(W)
            y = x * W * W
        return t.gradient(y, W)
    assert float(f(X)) == 12.0
    assert float(f(rt.constant(0.5))) == 3.0


def test_through_a_staged_loop_and_branch():
    def power(n):
        y = rt.constant(1.0)
        for _ in rt.range(n):
            if y < 100.0:
                y = y * W
        return y
    staged = rt.function(power)
    for n in (0, 1, 2, 5):
        e = _eager_gradient(power, rt.constant(n))
        s = _eager_gradient(staged, rt.constant(n))
        if e is None:  # no iteration: the result does not depend on W
            assert s is None or float(s) == 0.0
        else:
            np.testing.assert_allclose(s.numpy(), e.numpy())


def test_unwatched_captures_change_nothing():
    g = rt.function(y_w_w)
    with rt.GradientTape() as t:
        t.watch(X)
        out = g(X)
    assert float(t.gradient(out, X)) == 9.0
    assert float(g(X)) == 18.0
