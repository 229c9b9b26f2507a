"""Gradients of rt.pad in every mode against finite differences (eager, staged, through a
Function call), with paddings known only when the graph runs, and second order."""
import numpy as np
import pytest

import runtime as rt
from grad_helpers import check_gradients

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("paddings,shape", [([[1, 2]], (4,)), ([[1, 1], [2, 0]], (3, 3)),
                                             ([[0, 0], [1, 2], [2, 1]], (2, 3, 4))])
def test_pad_gradient(mode, paddings, shape):
    check_gradients(lambda x: rt.pad(x, paddings, mode=mode), [RNG.normal(size=shape)])


def test_constant_values_gets_no_gradient_as_in_tensorflow():
    x, c = rt.constant([1.0, 2.0]), rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch([x, c])
        y = rt.reduce_sum(rt.pad(x, [[1, 1]], constant_values=c) * rt.constant([1.0, 2.0, 3.0, 4.0]))
    gx, gc = tape.gradient(y, [x, c])
    assert gx.numpy().tolist() == [2.0, 3.0] and gc is None


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_paddings_known_only_at_run_time(mode):
    @rt.function(input_signature=[rt.TensorSpec([None, None], rt.float64),
                                  rt.TensorSpec([2, 2], rt.int32)])
    def grad(x, p):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.pad(x, p, mode=mode) ** 2.0)
        return tape.gradient(y, x)

    x = RNG.normal(size=(3, 4))
    p = np.array([[1, 2], [2, 1]], np.int32)
    xs = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = rt.reduce_sum(rt.pad(xs, p, mode=mode) ** 2.0)
    want = tape.gradient(y, xs)
    got = grad(rt.constant(x), rt.constant(p))
    assert got.shape == rt.TensorShape([3, 4])
    np.testing.assert_allclose(got.numpy(), want.numpy())


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT"])
def test_second_order(mode):
    def first(x):
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.pad(x, [[2, 1]], mode=mode) ** 3.0 * rt.constant(np.arange(1.0, 7.0)))
        return inner.gradient(y, x)
    check_gradients(first, [RNG.normal(size=(3,))], rtol=1e-4)
