"""The examples of the `tf.function` API reference page, with `rt` in place of `tf`."""
import numpy as np

import runtime as rt


def f(x, y):
    return rt.reduce_mean(rt.multiply(x ** 2, 3) + y)


def test_function_and_python_agree_and_capture():
    g = rt.function(f)
    x = rt.constant([[2.0, 3.0]])
    y = rt.constant([[3.0, -2.0]])
    assert f(x, y).numpy() == g(x, y).numpy()

    @rt.function
    def h():
        return f(x, y)

    assert (h().numpy() == f(x, y).numpy()).all()


def test_data_dependent_control_flow():
    @rt.function
    def g(x):
        if rt.reduce_sum(x) > 0:
            return x * x
        else:
            return -x // 2

    assert g(rt.constant([1, 2])).numpy().tolist() == [1, 4]
    assert g(rt.constant([-3, 1])).numpy().tolist() == [1, -1]
    assert g.experimental_get_tracing_count() == 1


def test_methods_use_distinct_variables():
    class Dense(object):
        def __init__(self):
            self.W = rt.Variable(rt.random.uniform((10, 10)))
            self.b = rt.Variable(rt.zeros(10))

        @rt.function
        def compute(self, x):
            return rt.matmul(x, self.W) + self.b

    d1 = Dense()
    d2 = Dense()
    x = rt.random.uniform((10, 10))
    assert not (d1.compute(x).numpy() == d2.compute(x).numpy()).all()
    expected = x.numpy() @ d1.W.numpy() + d1.b.numpy()
    assert np.allclose(d1.compute(x).numpy(), expected, rtol=1e-5)


def test_a_graph_per_input_shape_and_signature():
    @rt.function
    def f(x):
        return x + 1

    f(rt.constant(1.0))
    f(rt.constant([1.0, 1.0]))
    f(rt.constant([[3.0]]))
    assert f.experimental_get_tracing_count() == 3

    @rt.function(input_signature=[rt.TensorSpec(shape=None, dtype=rt.float32)])
    def g(x):
        return x + 1

    g(rt.constant(1.0))
    g(rt.constant([1.0, 1.0]))
    g(rt.constant([[3.0]]))
    assert g.experimental_get_tracing_count() == 1


def test_numpy_randomness_is_frozen_at_trace_but_rt_random_is_not():
    def add_noise():
        return rt.eye(5) + np.random.randn(5, 5).astype(np.float32)

    traced = rt.function(add_noise)
    assert not np.array_equal(add_noise().numpy(), add_noise().numpy())
    assert np.array_equal(traced().numpy(), traced().numpy())

    def add_rt_noise():
        return rt.eye(5) + rt.random.normal((5, 5))

    traced_rt = rt.function(add_rt_noise)
    assert not np.array_equal(traced_rt().numpy(), traced_rt().numpy())
