"""rt.nn on the XLA backend against the numpy backend: the composed activations and
losses, conv2d and the pools (Conv2D, MaxPool, AvgPool, Erf lowered by
runtime/backends/xla/rules_nn.py), and their gradient ops, second order included."""
import numpy as np
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import runtime as rt  # noqa: E402
from xla_helpers import assert_same, compare_fn, compare_traced  # noqa: E402

RNG = np.random.default_rng(160)
X = np.array([[-3.0, -1.0, -0.25, 0.0], [0.5, 2.0, 6.5, 30.0]], np.float32)


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu",
                                  "sigmoid", "softplus", "softmax", "log_softmax", "l2_loss"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations(name, dtype):
    compare_fn(getattr(rt.nn, name), X.astype(dtype), exact=False, rtol=1e-6)


def test_losses_moments_bias_add_gelu_approximate():
    logits = RNG.normal(size=(5, 4))
    compare_fn(rt.nn.sparse_softmax_cross_entropy_with_logits,
               np.array([0, 3, 1, 1, 2], np.int32), logits, exact=False)
    compare_fn(rt.nn.softmax_cross_entropy_with_logits, RNG.dirichlet(np.ones(4), size=5),
               logits, exact=False)
    compare_fn(rt.nn.sigmoid_cross_entropy_with_logits, RNG.uniform(size=(5, 4)), logits,
               exact=False)
    compare_fn(lambda x: rt.nn.moments(x, axes=[0]), logits, exact=False)
    compare_fn(rt.nn.bias_add, logits, np.arange(4.0), exact=False)
    compare_fn(lambda x: rt.nn.gelu(x, approximate=True), logits, exact=False)
    compare_fn(rt.nn.silu, logits, exact=False)
    compare_fn(lambda x: rt.nn.l2_normalize(x, axis=0), logits, exact=False)
    compare_fn(lambda x, m, v: rt.nn.batch_normalization(x, m, v, 1.0, 2.0, 1e-3), logits,
               logits.mean(0), logits.var(0), exact=False)


def test_sparse_label_out_of_range_raises_under_xla():
    f = rt.function(rt.nn.sparse_softmax_cross_entropy_with_logits, jit_compile=True)
    with pytest.raises(rt.errors.InvalidArgumentError, match="outside the valid range"):
        f(rt.constant([0, 4]), rt.constant(np.zeros((2, 4))))


def test_dropout_draws_as_the_numpy_backend_does():
    def f(x):
        return rt.nn.dropout(x, 0.5, seed=3)
    x = rt.ones([8, 8])
    rt.random.set_seed(1)
    a = rt.function(f)(x).numpy()
    rt.random.set_seed(1)
    b = rt.function(f, jit_compile=True)(x).numpy()
    np.testing.assert_array_equal(a, b)


CONV = [(1, "VALID", None), (2, "SAME", None), ([2, 1], "SAME", [1, 2]),
        ([1, 2], [[0, 0], [2, 1], [0, 3], [0, 0]], 1), (3, "SAME", 2)]


@pytest.mark.parametrize("strides,padding,dilations", CONV)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d(strides, padding, dilations, dtype):
    x, w = RNG.normal(size=(2, 7, 8, 3)).astype(dtype), RNG.normal(size=(3, 2, 3, 4)).astype(dtype)
    compare_fn(lambda a, b: rt.nn.conv2d(a, b, strides, padding, dilations=dilations), x, w,
               exact=False, rtol=1e-5 if dtype == np.float32 else 1e-12)


POOLS = [(2, 2, "VALID"), (3, 2, "SAME"), ([2, 3], [1, 2], "SAME"), (4, 3, "SAME")]


@pytest.mark.parametrize("ksize,strides,padding", POOLS)
@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pools(pool, ksize, strides, padding):
    x = RNG.normal(size=(2, 7, 8, 3)).astype(np.float32)
    compare_fn(lambda a: getattr(rt.nn, pool)(a, ksize, strides, padding), x, exact=False)


def test_unknown_spatial_sizes():
    specs = [rt.TensorSpec([None, None, None, 3], rt.float64),
             rt.TensorSpec([3, 3, 3, 2], rt.float64)]
    x, w = RNG.normal(size=(2, 6, 5, 3)), RNG.normal(size=(3, 3, 3, 2))
    compare_traced(lambda a, b: rt.nn.max_pool2d(rt.nn.conv2d(a, b, 2, "SAME"), 2, 1, "SAME"),
                   specs, [x, w], exact=False, rtol=1e-12)


def _grads(fn, order):
    def g(*xs):
        with rt.GradientTape(persistent=True) as outer:
            outer.watch(list(xs))
            with rt.GradientTape() as tape:
                tape.watch(list(xs))
                y = rt.reduce_sum(rt.square(fn(*xs)))
            first = tape.gradient(y, list(xs))
            if order == 1:
                return first
            z = sum(rt.reduce_sum(rt.square(t)) for t in first)
        return [t for t in outer.gradient(z, list(xs)) if t is not None]
    return g


@pytest.mark.parametrize("order", [1, pytest.param(2, marks=pytest.mark.slow)])
@pytest.mark.parametrize("strides,padding,dilations", CONV[1:4])
def test_conv2d_gradients(order, strides, padding, dilations):
    x, w = RNG.normal(size=(2, 6, 7, 2)), RNG.normal(size=(3, 2, 2, 3))
    compare_fn(_grads(lambda a, b: rt.nn.conv2d(a, b, strides, padding, dilations=dilations),
                      order), x, w, exact=False, rtol=1e-10)


@pytest.mark.parametrize("order", [1, pytest.param(2, marks=pytest.mark.slow)])
@pytest.mark.parametrize("ksize,strides,padding", POOLS)
@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pool_gradients(pool, ksize, strides, padding, order):
    x = RNG.permutation(2 * 7 * 8 * 3).reshape(2, 7, 8, 3) / 11.0
    fn = getattr(rt.nn, pool)

    def grad(a, g):
        with rt.GradientTape() as outer:
            outer.watch(g)
            with rt.GradientTape() as tape:
                tape.watch(a)
                y = rt.reduce_sum(fn(a, ksize, strides, padding) * g)
            first = tape.gradient(y, a)
            z = rt.reduce_sum(rt.square(first))
        return first if order == 1 else outer.gradient(z, g)
    g = RNG.normal(size=fn(rt.constant(x), ksize, strides, padding).shape.as_list())
    compare_fn(grad, x, g, exact=False, rtol=1e-12)


def test_max_pool_ties_route_alike():
    x = np.ones((1, 4, 4, 1))
    fn = rt.function(lambda a: _grads(lambda t: rt.nn.max_pool2d(t, 2, 2, "SAME"), 1)(a))
    jit = rt.function(lambda a: _grads(lambda t: rt.nn.max_pool2d(t, 2, 2, "SAME"), 1)(a),
                      jit_compile=True)
    assert_same(jit(rt.constant(x))[0].numpy(), fn(rt.constant(x))[0].numpy())


def test_gradients_with_unknown_batch_and_spatial_sizes():
    def step(x, w):
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            y = rt.nn.conv2d(x, w, 2, "SAME")
            y = rt.nn.avg_pool2d(rt.nn.max_pool2d(y, 2, 1, "SAME"), 2, 2, "SAME")
            loss = rt.reduce_sum(y * y)
        return tape.gradient(loss, [x, w])
    specs = [rt.TensorSpec([None, None, None, 3], rt.float64),
             rt.TensorSpec([3, 3, 3, 2], rt.float64)]
    for shape in ((2, 7, 6, 3), (1, 4, 9, 3)):
        compare_traced(step, specs, [RNG.normal(size=shape), RNG.normal(size=(3, 3, 3, 2))],
                       exact=False, rtol=1e-10)
