"""Gradients of the elementwise and cumulative ops (runtime/ops/elementwise_ops.py,
cumulative_ops.py), checked by finite differences three ways (eager tape, tape inside
rt.function, rt.function under a tape: grad_helpers.check_gradients), and the piecewise-
constant ones (floor, ceil, round) giving no gradient, as in TensorFlow."""
import numpy as np
import pytest

import runtime as rt
from grad_helpers import check_gradients

X = np.array([[-1.3, -0.4, 0.2], [0.7, 1.6, 2.9]])
POS = np.array([[0.3, 1.1, 2.5], [0.9, 4.2, 0.6]])


@pytest.mark.parametrize("fn,x", [
    (rt.math.log1p, POS), (rt.math.log1p, X * 0.3),
    (rt.math.softplus, X), (lambda t: rt.math.softplus(t * 30.0), X),
    (rt.math.rsqrt, POS),
    (lambda t: rt.math.reduce_variance(t), X),
    (lambda t: rt.math.reduce_variance(t, axis=1, keepdims=True), X),
    (lambda t: rt.math.reduce_std(t, axis=0), X),
    (lambda t: rt.math.reduce_std(t, axis=[0, 1], keepdims=True), X),
    (lambda t: rt.ensure_shape(t, [None, 3]) * t, X),
    (lambda t: t * rt.floor(t) + rt.math.ceil(t) + rt.round(t) * t, X),
])
def test_unary_gradients_match_finite_differences(fn, x):
    check_gradients(fn, [x])


def test_softplus_gradient_is_sigmoid_at_zero():
    x = rt.constant([0.0, -50.0, 50.0], rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.math.softplus(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 1 / (1 + np.exp(-x.numpy())))


@pytest.mark.parametrize("fn", [rt.floor, rt.math.ceil, rt.round])
def test_piecewise_constant_ops_have_no_gradient(fn):
    x = rt.constant(X)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = fn(x)
    assert tape.gradient(y, x) is None
    zeros = tape.gradient(y, x, unconnected_gradients="zero")
    np.testing.assert_array_equal(zeros.numpy(), np.zeros_like(X))


def test_clip_by_value_gradient_flows_inside_the_range_and_to_the_bounds():
    x = rt.constant([-2.0, -1.0, 0.5, 1.0, 3.0], rt.float64)
    lo, hi = rt.constant(-1.0, rt.float64), rt.constant(1.0, rt.float64)
    with rt.GradientTape() as tape:
        tape.watch([x, lo, hi])
        y = rt.reduce_sum(rt.clip_by_value(x, lo, hi) * rt.constant([1.0, 2.0, 3.0, 4.0, 5.0],
                                                                    rt.float64))
    gx, glo, ghi = tape.gradient(y, [x, lo, hi])
    # at a bound (x == -1, x == 1) the gradient goes to x, as with TensorFlow's min/max
    assert gx.numpy().tolist() == [0.0, 2.0, 3.0, 4.0, 0.0]
    assert glo.numpy() == 1.0 and ghi.numpy() == 5.0


def test_clip_by_value_finite_differences_away_from_the_bounds():
    lo = np.array([-1.0, 0.0, 0.1])
    check_gradients(lambda t, a: rt.clip_by_value(t, a, 1.5), [X, lo])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_and_cumprod_gradients(exclusive, reverse, axis):
    check_gradients(lambda t: rt.cumsum(t, axis, exclusive=exclusive, reverse=reverse), [X])
    check_gradients(lambda t: rt.math.cumprod(t, axis, exclusive=exclusive, reverse=reverse),
                    [X])


def test_cumsum_gradient_is_the_reverse_cumsum():
    x = rt.constant([1.0, 2.0, 3.0, 4.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cumsum(x)
    assert tape.gradient(y, x).numpy().tolist() == [4.0, 3.0, 2.0, 1.0]


@pytest.mark.parametrize("spec", [[2, 3], [None, 3]])
def test_shuffle_gradient_goes_back_to_the_rows(spec):
    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    @rt.function(input_signature=[rt.TensorSpec(spec, rt.float64)])
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            s = rt.random.shuffle(x, seed=1)
            y = rt.reduce_sum(s * rt.constant(w))
        return s, tape.gradient(y, x)

    x = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    s, g = f(rt.constant(x))
    order = [0, 1] if s.numpy()[0, 0] == 1.0 else [1, 0]
    np.testing.assert_array_equal(g.numpy(), w[np.argsort(order)])
