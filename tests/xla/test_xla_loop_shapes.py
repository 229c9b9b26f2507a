"""One rule for loop variables whose shape changes from one iteration to the next: the
numpy backend runs the loop (its shape relaxed, tests/runtime/test_rt_loop_shapes.py)
and gives eager's answer; XLA, whose while loops carry fixed shapes, refuses it with an
error naming the variable, its shape before the loop and after one iteration, and the
loop's line, saying what to write instead; written that way, every backend agrees."""
import inspect

import numpy as np
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import runtime as rt  # noqa: E402
from runtime.backends.xla.backend import XlaLoweringError  # noqa: E402


def doubling_for(n):
    x = rt.constant([1.0])
    for i in rt.range(n):
        x = rt.concat([x, x], 0)
    return x


def doubling_while(n):
    x = rt.constant([1])
    while rt.shape(x)[0] < n:
        x = rt.concat([x, x], 0)
    return x


def growing_rank(n):
    x = rt.constant(2.0)
    for _ in rt.range(n):
        x = rt.expand_dims(x, 0)
    return rt.reshape(x, [-1])


def transposing(n):
    x = rt.reshape(rt.range(6), [2, 3])
    i = 0
    while i < n:
        x = rt.transpose(x)
        i += 1
    return x


class Holder:
    pass


HOLDER = Holder()


def attribute_state(n):
    HOLDER.rows = rt.zeros([1, 2])
    for i in rt.range(n):
        HOLDER.rows = rt.concat([HOLDER.rows, rt.ones([1, 2])], 0)
    return HOLDER.rows


CASES = [(doubling_for, "x", "(1,)", "(2,)"), (doubling_while, "x", "(1,)", "(2,)"),
         (growing_rank, "x", "()", "(1,)"), (transposing, "x", "(2, 3)", "(3, 2)"),
         (attribute_state, "HOLDER.rows", "(1, 2)", "(2, 2)")]


def _loop_line(fn):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines)
                        if text.lstrip().startswith(("for ", "while ")))


@pytest.mark.parametrize("fn,name,before,after", CASES, ids=[c[0].__name__ for c in CASES])
def test_numpy_runs_it_as_eager_and_xla_names_the_variable(fn, name, before, after):
    n = rt.constant(3)
    want = fn(n)
    got = rt.function(fn)(n)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(XlaLoweringError) as info:
        rt.function(fn, jit_compile=True)(n)
    text = str(info.value)
    assert f"changes the shape of '{name}' from {before} before the loop to {after} " \
           f"after one iteration" in text, text
    assert f"{__file__}:{_loop_line(fn)} (in {fn.__name__})" in text, text
    assert "rt.TensorArray" in text and "without jit_compile" in text


def doubling_by_tensor_array(n):
    """What the error says to write: the values of each iteration in a TensorArray."""
    ta = rt.TensorArray(rt.float32, size=n, element_shape=[2])
    for i in rt.range(n):
        ta = ta.write(i, rt.ones([2]) * rt.cast(i, rt.float32))
    return rt.reshape(ta.stack(), [-1])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_written_with_a_tensor_array_every_backend_agrees(n):
    want = doubling_by_tensor_array(rt.constant(n)).numpy()
    for jit in (False, True):
        f = rt.function(doubling_by_tensor_array, jit_compile=jit)
        np.testing.assert_array_equal(f(n).numpy(), want)


def test_a_loop_that_keeps_its_shapes_compiles():
    def f(x):
        for _ in rt.range(3):
            x = x[::-1] * 2.0
        return x
    x = rt.constant([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(rt.function(f, jit_compile=True)(x).numpy(),
                                  rt.function(f)(x).numpy())
