"""Gradients of rt.nn against finite differences (eager, staged, through a Function call):
the composed activations and losses, and the conv2d / pooling ops with their gradient ops
(second order: the gradient ops' own gradients)."""
import numpy as np
import pytest

import runtime as rt
from grad_helpers import check_gradients

RNG = np.random.default_rng(16)
# away from the kinks (0 for relu-like, 6 for relu6), where finite differences straddle
X = np.array([[-2.5, -0.7, 0.3, 1.9], [4.2, 7.5, -1.3, 0.05]])


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu",
                                  "sigmoid", "softplus"])
def test_activation_gradient(name):
    check_gradients(getattr(rt.nn, name), [X])


def test_gelu_approximate_and_softmax_gradients():
    check_gradients(lambda x: rt.nn.gelu(x, approximate=True), [X])
    check_gradients(rt.nn.softmax, [X])
    check_gradients(lambda x: rt.nn.softmax(x, axis=0), [X])
    check_gradients(rt.nn.log_softmax, [X])


def test_gradients_at_the_kinks_are_tensorflows():
    x = rt.constant([0.0, 6.0, 0.0], rt.float64)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        outs = {n: getattr(rt.nn, n)(x) for n in ("relu", "relu6", "leaky_relu", "elu",
                                                   "softplus")}
    got = {n: tape.gradient(y, x).numpy().tolist() for n, y in outs.items()}
    assert got["relu"] == [0.0, 1.0, 0.0]          # ReluGrad: features > 0
    assert got["relu6"] == [0.0, 0.0, 0.0]         # Relu6Grad: 0 < features < 6
    assert got["leaky_relu"] == [0.2, 1.0, 0.2]
    assert got["elu"] == [1.0, 1.0, 1.0]
    np.testing.assert_allclose(got["softplus"], [0.5, 1 / (1 + np.exp(-6.0)), 0.5], rtol=1e-6)


def test_no_nan_gradients_from_the_unselected_side():
    x = rt.constant([-1000.0, 1000.0, 0.5], rt.float32)
    for fn in (rt.nn.elu, rt.nn.selu, rt.nn.softplus,
               lambda t: rt.nn.sigmoid_cross_entropy_with_logits(rt.ones_like(t), t)):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(fn(x))
        assert np.all(np.isfinite(tape.gradient(y, x).numpy()))


def test_loss_gradients():
    labels = np.array([2, 0])
    check_gradients(lambda x: rt.nn.sparse_softmax_cross_entropy_with_logits(labels, x), [X])
    soft = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]])
    check_gradients(lambda y, x: rt.nn.softmax_cross_entropy_with_logits(y, x), [soft, X])
    check_gradients(lambda y, x: rt.nn.sigmoid_cross_entropy_with_logits(y, x),
                    [soft, X])
    check_gradients(rt.nn.l2_loss, [X])
    check_gradients(lambda x: rt.nn.moments(x, axes=[0]), [X])
    check_gradients(lambda x: rt.nn.moments(x, axes=[0, 1], keepdims=True), [X])
    check_gradients(lambda v, b: rt.nn.bias_add(v, b), [X, np.array([1.0, -2.0, 0.5, 3.0])])
    check_gradients(rt.nn.silu, [X])
    check_gradients(lambda v: rt.nn.l2_normalize(v, axis=1), [X])
    check_gradients(lambda v, m, s, o, c: rt.nn.batch_normalization(v, m, s, o, c, 1e-3),
                    [X, X.mean(0), X.var(0) + 0.5, np.arange(4.0), np.linspace(0.5, 2, 4)])


def test_dropout_gradient_is_the_mask_scaled():
    x = rt.constant(np.ones((4, 8)))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.nn.dropout(x, rate=0.25, seed=3)
        total = rt.reduce_sum(y)
    g = tape.gradient(total, x).numpy()
    np.testing.assert_array_equal(g, y.numpy())  # x is ones: the output is the scaled mask


CONV_CASES = [((1, 1), "VALID", (1, 1)), ((2, 2), "SAME", (1, 1)), ((2, 1), "SAME", (1, 2)),
              ((1, 2), [[0, 0], [1, 0], [2, 1], [0, 0]], (1, 1))]


@pytest.mark.parametrize("strides,padding,dilations", CONV_CASES)
def test_conv2d_gradient(strides, padding, dilations):
    x, w = RNG.normal(size=(2, 5, 6, 2)), RNG.normal(size=(3, 2, 2, 3))
    check_gradients(lambda a, b: rt.nn.conv2d(a, b, strides, padding, dilations=dilations),
                    [x, w])


@pytest.mark.parametrize("strides,padding,dilations", CONV_CASES[1:3])
def test_conv2d_second_order(strides, padding, dilations):
    """The gradient ops' own gradients: d/dx and d/dw of a loss of the first gradients."""
    x, w = RNG.normal(size=(1, 4, 5, 2)), RNG.normal(size=(2, 3, 2, 2))

    def first_grads(a, b):
        with rt.GradientTape() as tape:
            tape.watch([a, b])
            y = rt.reduce_sum(rt.square(rt.nn.conv2d(a, b, strides, padding,
                                                     dilations=dilations)))
        return tape.gradient(y, [a, b])
    check_gradients(first_grads, [x, w], rtol=1e-4)


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
@pytest.mark.parametrize("ksize,strides,padding", [(2, 2, "VALID"), (3, 2, "SAME"),
                                                    ([2, 3], [1, 2], "SAME")])
def test_pool_gradient_and_second_order(pool, ksize, strides, padding):
    x = RNG.permutation(2 * 5 * 6 * 2).reshape(2, 5, 6, 2) / 7.0  # distinct: no ties
    fn = getattr(rt.nn, pool)
    check_gradients(lambda a: fn(a, ksize, strides, padding), [x])

    def first_grad(g):  # linear in g; piecewise constant in x (no gradient, as in TF)
        a = rt.constant(x)
        with rt.GradientTape() as tape:
            tape.watch(a)
            y = rt.reduce_sum(fn(a, ksize, strides, padding) * g)
        return tape.gradient(y, a)
    g = RNG.normal(size=fn(rt.constant(x), ksize, strides, padding).shape.as_list())
    check_gradients(first_grad, [g])


def test_max_pool_gradient_goes_to_the_first_maximum_of_a_tie():
    x = rt.constant(np.ones((1, 2, 2, 1)))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.nn.max_pool2d(x, 2, 2, "VALID")
    assert tape.gradient(y, x).numpy().reshape(-1).tolist() == [1.0, 0.0, 0.0, 0.0]
