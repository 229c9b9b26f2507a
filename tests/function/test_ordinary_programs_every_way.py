"""Ordinary programs over eager state captured by functions, rt.data
pipelines, functions calling functions, the functional ops on no rows, and mixed
tensor/numpy arithmetic, each run every way (tests/agreement.py: eager, the numpy backend
for known and unknown dimensions, jit_compile, ONNX) on zero rows, one row and NaN."""
import os
import sys

import numpy as np
import pytest

import runtime as rt

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from agreement import HAVE_JAX, agree  # noqa: E402

F = np.float32
VEC = np.array([3.0, -1.0, 2.5, 0.0, 7.0], F)
ROWS = np.arange(12, dtype=F).reshape(6, 2) - 4.5
NOT_EMPTY = ("given", "one", "nan")   # a gradient of nothing is None eagerly

W = rt.constant([1.5, -2.0, 0.5, 1.0, 3.0])
S = rt.constant(2.0)
NP_START = np.float32(3.0)


# -- jacobians of a size known only when the graph runs: a staged loop, also exported ------

def jacobian_of_a_vector(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * W[:1] * 2.0
    return tape.jacobian(y, x)


def jacobian_of_row_sums(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x * x, axis=1)
    return tape.jacobian(y, x)


def jacobian_of_two_sources(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.sin(x) * 2.0
        z = rt.cumsum(y)
    return tape.jacobian(z, [x, y])


def batch_jacobian_of_rows(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.stack([x[:, 0] * x[:, 1], x[:, 0] + x[:, 1], x[:, 1] * 3.0], axis=1)
    return tape.batch_jacobian(y, x)


@pytest.mark.slow
def test_jacobians_agree_every_way_onnx_included():
    # the exported loop wrote its TensorArray past the items written (onnxruntime failed)
    agree(jacobian_of_a_vector, (VEC,), onnx="required")
    agree(jacobian_of_two_sources, (VEC,), onnx="required")
    agree(jacobian_of_row_sums, (ROWS,), onnx="required")
    agree(batch_jacobian_of_rows, (ROWS,), onnx="required")


# -- gradients with respect to eager tensors captured by the function ----------------------

def unconnected_gives_zeros(x):
    with rt.GradientTape() as tape:
        tape.watch(S)
        y = rt.reduce_sum(x)
    return tape.gradient(y, S, unconnected_gradients=rt.UnconnectedGradients.ZERO)


def captured_scalar_through_a_loop(x):
    with rt.GradientTape() as tape:
        tape.watch(S)
        acc = S
        for v in x:
            acc = acc * 0.5 + v * S
    return tape.gradient(acc, S)


def captured_through_cond(x):
    with rt.GradientTape() as tape:
        tape.watch(S)
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: S * S, lambda: S * 3.0)
    return tape.gradient(y, S)


def captured_and_argument(x):
    with rt.GradientTape() as tape:
        tape.watch([x, S])
        y = rt.reduce_sum(rt.sin(x) * S)
    return tape.gradient(y, [x, S])


@pytest.mark.slow
def test_gradients_of_captured_eager_tensors():
    for fn in (unconnected_gives_zeros, captured_scalar_through_a_loop,
               captured_through_cond, captured_and_argument):
        agree(fn, (VEC,))
    assert rt.UnconnectedGradients.NONE.value == "none"


# -- loops and branches starting from eager, numpy and Python state ------------------------

def numpy_scalar_starts_a_loop(x):
    s = NP_START
    for v in x:
        s = s + v
    return s


def while_loop_of_numpy_and_int_vars(x):
    return rt.while_loop(lambda i, s: i < rt.size(x), lambda i, s: (i + 1, s + x[i]),
                         (0, NP_START))


def cond_of_eager_outputs(x):
    a, b = rt.cond(rt.size(x) > 2, lambda: (S, W), lambda: (S * 2.0, W * 0.0))
    return a + rt.reduce_sum(b)


def break_from_an_eager_start(x):
    s = S
    i = 0
    while i < rt.size(x):
        if x[i] < 0:
            break
        s += x[i]
        i += 1
    return s, i


def test_state_made_outside_the_function_starts_staged_loops():
    for fn in (numpy_scalar_starts_a_loop, while_loop_of_numpy_and_int_vars,
               cond_of_eager_outputs, break_from_an_eager_start):
        agree(fn, (VEC,))


# -- rt.data: a range whose bound is known only when the graph runs ------------------------

def range_of_the_input_size(x):
    ds = rt.data.Dataset.range(rt.size(x)).map(lambda i: rt.cast(i, rt.float32) * 2.0)
    return ds.reduce(rt.constant(0.0), lambda a, v: a + v)


def range_down_with_a_step(x):
    return rt.data.Dataset.range(rt.size(x) * 3, 1, -2).reduce(
        rt.constant(0, rt.int64), lambda a, v: a * 3 + v)


def range_in_a_for_loop(x):
    s = rt.zeros([])
    for i in rt.data.Dataset.range(1, rt.size(x)):
        s += x[i]
    return s, rt.data.Dataset.range(1, rt.size(x)).cardinality()


def range_batched(x):
    ds = rt.data.Dataset.range(rt.size(x), dtype=rt.int32).batch(2, drop_remainder=True)
    return ds.reduce(rt.constant(0), lambda a, v: a + rt.reduce_prod(v + 1))


@pytest.mark.slow
def test_dataset_range_of_a_symbolic_bound():
    # was "stop must be known when the dataset is built" inside rt.function
    for fn in (range_of_the_input_size, range_down_with_a_step, range_in_a_for_loop,
               range_batched):
        agree(fn, (VEC,), which=("given", "empty", "one"))


# -- a gradient through Dataset.reduce: a bound XLA can see, and a scalar gather exported --

def gradient_through_reduce(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        ds = rt.data.Dataset.from_tensor_slices(x).map(lambda v: v * v)
        y = ds.reduce(rt.constant(0.0), lambda a, v: a + v)
    return tape.gradient(y, x)


def gradient_through_repeated_reduce(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.data.Dataset.from_tensor_slices(x).repeat(2).reduce(
            rt.constant(1.0), lambda a, v: a * 0.5 + v * v)
    return tape.gradient(y, x)


def gradient_of_a_scalar_gather(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.gather(x, 0) * 3.0
    return tape.gradient(y, x)


@pytest.mark.slow
def test_gradients_through_dataset_reduce_and_scalar_gathers():
    # under jit_compile the fold's gradient had no bound on iterations (XlaLoweringError
    # for data of known length); the export of a gather of one element raised ValueError
    agree(gradient_through_reduce, (VEC,), which=NOT_EMPTY, onnx="required")
    agree(gradient_through_repeated_reduce, (VEC,), which=NOT_EMPTY)
    agree(gradient_of_a_scalar_gather, (VEC,), which=NOT_EMPTY, onnx="required")


def reduce_gradients_of_empty_inputs(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = (rt.reduce_sum(x) + rt.reduce_sum(x * x, axis=0)
             + rt.reduce_mean(x * 0.0 + 1.0, axis=0, keepdims=True)[0])
    return tape.gradient(y, x)


def reduce_gradients_of_rows(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = (rt.reduce_sum(rt.reduce_sum(x, axis=1)) + rt.reduce_sum(rt.reduce_mean(x, axis=0))
             + rt.reduce_sum(rt.reduce_sum(x, axis=1, keepdims=True) * x))
    return tape.gradient(y, x)


def test_exported_reduce_gradients_run_on_zero_rows():
    agree(reduce_gradients_of_empty_inputs, (VEC,), onnx="required")
    agree(reduce_gradients_of_rows, (ROWS,), onnx="required")


# -- where eager raises, every way raises (the helper's ONNX trace included) --------------

def test_a_program_eager_refuses_is_refused_every_way():
    ints = np.array([3, -1, 2, 0, 7], np.int32)
    agree(lambda x: x + rt.constant(np.int64(5)), (ints,), which=("given",))


# -- an iterator made outside, advanced by the function's next() at every call ---------------

def test_an_iterator_passed_to_a_function_moves_on_at_each_call():
    for jit in (False, True) if HAVE_JAX else (False,):
        it = iter(rt.data.Dataset.from_tensor_slices(VEC).repeat())
        take_two = rt.function(lambda it: next(it) + next(it) * 10.0, jit_compile=jit)
        got = [float(take_two(it)) for _ in range(3)]
        np.testing.assert_allclose(got, [VEC[0] + 10 * VEC[1], VEC[2] + 10 * VEC[3],
                                         VEC[4] + 10 * VEC[0]])
