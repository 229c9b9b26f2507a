"""Staged `for i in rt.range(...)` loops writing TensorArrays, compiled with XLA: the same
results as the numpy backend for loops of 0, 1 and many iterations, static and dynamic
trip counts, and TensorArrays of 0 and 1 elements; indices out of range still raise;
gradients through them agree; and a loop whose trip count is known while compiling
lowers as `lax.scan` written by hand does (its counter indexes directly: no carried
range, no failure record in the carry, no wrapping of negative indices)."""
import re

import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.backends.xla.backend import JaxBackend  # noqa: E402
from runtime.errors import InvalidArgumentError  # noqa: E402
from xla_helpers import assert_same, traced  # noqa: E402

RNG = np.random.default_rng(3)


def rnn(input_data, initial_state):
    """bench_jit's dynamic_rnn: the trip count is the static length of the data."""
    input_data = rt.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = rt.TensorArray(rt.float32, size=max_seq_len)
    state = initial_state
    for i in rt.range(max_seq_len):
        state = rt.tanh(input_data[i] + state)
        states = states.write(i, state)
    return rt.transpose(states.stack(), [1, 0, 2])


def prefix_sums(x, n):
    """A dynamic trip count (`n`, a tensor) writing an array of the static length of x."""
    sums = rt.TensorArray(rt.float32, size=x.shape[0], element_shape=[])
    total = rt.constant(0.0)
    for i in rt.range(n):
        total = total + x[i]
        sums = sums.write(i, total)
    return sums.stack(), total


def stepped(x):
    """A range of start 1 and step 3 indexes x and a TensorArray."""
    out = rt.TensorArray(rt.float32, size=x.shape[0])
    for i in rt.range(1, x.shape[0], 3):
        out = out.write(i, x[i] * 2.0)
    return out.stack()


def from_the_end(x):
    """Negative indices (counter - length) wrap as in Python."""
    out = rt.TensorArray(rt.float32, size=x.shape[0])
    for i in rt.range(x.shape[0]):
        out = out.write(i, x[i - x.shape[0]] + x[-1 - i])
    return out.stack()


def both(fn, *args):
    """(numpy backend's results, XLA's results) of `fn` on `args`, as numpy arrays."""
    def arrays(out):
        out = out if isinstance(out, (tuple, list)) else (out,)
        return [np.asarray(o) for o in out]
    return arrays(rt.function(fn)(*args)), arrays(rt.function(fn, jit_compile=True)(*args))


def assert_agree(fn, *args):
    expected, got = both(fn, *args)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g, e, exact=False)
    return got


@pytest.mark.parametrize("steps", [0, 1, 2, 50])
def test_static_trip_count_agrees(steps):
    data = RNG.normal(size=(3, steps, 4)).astype(np.float32)
    state = RNG.normal(size=(3, 4)).astype(np.float32)
    [out] = assert_agree(rnn, data, state)
    assert out.shape == (3, steps, 4)


@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_dynamic_trip_count_agrees(n):
    x = RNG.normal(size=6).astype(np.float32)
    stacked, total = assert_agree(prefix_sums, x, np.int32(n))
    np.testing.assert_allclose(stacked[:n], np.cumsum(x[:n]), rtol=1e-6)
    assert not stacked[n:].any()
    np.testing.assert_allclose(total, x[:n].sum(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("length", [0, 1, 2, 7])
def test_progressions_and_negative_indices_agree(length):
    x = RNG.normal(size=length).astype(np.float32)
    assert_agree(stepped, x)
    if length:
        assert_agree(from_the_end, x)


@pytest.mark.parametrize("size", [0, 1])
def test_tensor_array_of_zero_and_one_element(size):
    def f(x):
        ta = rt.TensorArray(rt.float32, size=size, element_shape=[2])
        for i in rt.range(size):
            ta = ta.write(i, x * rt.cast(i + 1, rt.float32))
        return ta.stack(), ta.size()
    stacked, n = assert_agree(f, np.array([1.5, -2.0], np.float32))
    assert stacked.shape == (size, 2) and n == size


def test_an_index_past_the_end_still_raises():
    """A dynamic trip count past the data: the numpy backend's error, on both."""
    x = np.arange(6, dtype=np.float32)
    messages = []
    for jit in (False, True):
        with pytest.raises(InvalidArgumentError, match="index 6 is out of bounds") as info:
            rt.function(prefix_sums, jit_compile=jit)(x, np.int32(7))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_a_write_past_the_end_still_raises():
    def f(x, n):
        ta = rt.TensorArray(rt.float32, size=2)
        for i in rt.range(n):
            ta = ta.write(i, x)
        return ta.stack()
    x = np.float32(1.0)
    assert_agree(f, x, np.int32(2))
    for jit in (False, True):
        with pytest.raises(InvalidArgumentError, match="Tried to write to index 2"):
            rt.function(f, jit_compile=jit)(x, np.int32(3))


def test_a_read_with_a_negative_index_still_raises():
    def f(x, k):
        ta = rt.TensorArray(rt.float32, size=3).unstack(x)
        acc = rt.constant(0.0)
        for i in rt.range(3):
            acc += ta.read(i - k)
        return acc
    x = np.array([1.0, 2.0, 4.0], np.float32)
    assert_agree(f, x, np.int32(0))
    for jit in (False, True):
        with pytest.raises(InvalidArgumentError, match="read from index -1"):
            rt.function(f, jit_compile=jit)(x, np.int32(1))


def test_gradients_through_the_loop_agree():
    def loss_and_grads(data, state):
        with rt.GradientTape() as tape:
            tape.watch(data)
            tape.watch(state)
            loss = rt.reduce_sum(rnn(data, state) ** 2)
        return [loss, *tape.gradient(loss, [data, state])]
    data = RNG.normal(size=(2, 5, 3)).astype(np.float32)
    state = RNG.normal(size=(2, 3)).astype(np.float32)
    expected, got = both(loss_and_grads, data, state)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_static_trip_count_lowers_as_a_scan_by_hand():
    """The StableHLO of rnn's loop: one while whose carries are what lax.scan carries
    (the data, the counter, the state, the buffer), whose test is the counter against
    the constant trip count, and no select (no wrapped index, no failure record)."""
    data = RNG.normal(size=(2, 5, 3)).astype(np.float32)
    state = np.zeros((2, 3), np.float32)
    graph, inputs, outputs = traced(rnn, rt.TensorSpec([2, 5, 3], rt.float32),
                                    rt.TensorSpec([2, 3], rt.float32))
    plan = JaxBackend().compile(graph, inputs, outputs)
    text = plan.jitted.lower(data, state).as_text()
    whiles = re.findall(r"stablehlo\.while\((.*?)\) :", text)
    assert len(whiles) == 1
    assert whiles[0].count("%iterArg") == 4, whiles[0]
    assert "select" not in text
    test = re.search(r"cond \{(.*?)\} do \{", text, re.S).group(1)
    assert re.search(r"constant dense<5> : tensor<i32>", test), test
    assert test.count("stablehlo.compare") == 1, test
    np.testing.assert_allclose(plan(data, state)[0], rt.function(rnn)(data, state).numpy(),
                               rtol=1e-6, atol=1e-6)


def reverse_from(x, first):
    """An index `j` moving down in step with the loop counter, from `first`."""
    out = rt.TensorArray(rt.float32, size=x.shape[0], element_shape=[])
    j = first
    for i in rt.range(x.shape[0]):
        out = out.write(i, x[j])
        j -= 1
    return out.stack()


def shifted_by(x, first):
    """An index `j` moving up in step with the loop counter, from `first`."""
    out = rt.TensorArray(rt.float32, size=x.shape[0], element_shape=[])
    j = first
    for i in rt.range(x.shape[0]):
        out = out.write(i, x[j])
        j += 1
    return out.stack()


@pytest.mark.parametrize("length", [0, 1, 5])
def test_indices_in_step_with_the_counter_agree(length):
    x = RNG.normal(size=length).astype(np.float32)
    [out] = assert_agree(lambda x: reverse_from(x, length - 1), x)
    np.testing.assert_array_equal(out, x[::-1])
    assert_agree(lambda x: shifted_by(x, 0), x)
    assert_agree(lambda x: rt.scan(lambda a, r: a * 0.5 + r, x, initializer=1.0), x)


@pytest.mark.parametrize("fn, first, index", [(shifted_by, 1, 5), (reverse_from, -2, -6)])
def test_an_index_in_step_with_the_counter_past_the_end_still_raises(fn, first, index):
    """Its range over the loop's iterations reaches past the data: still checked."""
    x = np.arange(5, dtype=np.float32)
    messages = []
    for jit in (False, True):
        with pytest.raises(InvalidArgumentError, match=f"index {index} is out of bounds") \
                as info:
            rt.function(lambda x: fn(x, first), jit_compile=jit)(x)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_scan_lowers_without_checks():
    """rt.scan's loop reads row `j`, a variable moving in step with its counter: no
    check, so no failure record in the carry and no select."""
    x = RNG.normal(size=(6, 4)).astype(np.float32)
    graph, inputs, outputs = traced(lambda x: rt.scan(lambda a, r: a + r, x),
                                    rt.TensorSpec([6, 4], rt.float32))
    plan = JaxBackend().compile(graph, inputs, outputs)
    text = plan.jitted.lower(x).as_text()
    assert "select" not in text
    np.testing.assert_allclose(plan(x)[0], np.cumsum(x, axis=0), rtol=1e-6)


def gather_rows(x, w, offset):
    """Each iteration reads row `i - offset` of x (negative: from the end) and adds it
    to the carry: the gradient accumulates one row of x's gradient per iteration."""
    acc = rt.zeros_like(w)
    for i in rt.range(x.shape[0]):
        acc = rt.tanh(x[i - offset] * w + acc)
    return rt.reduce_sum(acc * acc)


def grads_of(fn, *consts):
    def step(x, w):
        with rt.GradientTape() as tape:
            tape.watch(x)
            tape.watch(w)
            loss = fn(x, w, *consts)
        return [loss, *tape.gradient(loss, [x, w])]
    return step


@pytest.mark.parametrize("rows, offset", [(0, 0), (1, 0), (1, 1), (6, 0), (6, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_gradients_in_a_loop_agree(rows, offset, dtype):
    x = RNG.normal(size=(rows, 3)).astype(dtype)
    w = RNG.normal(size=3).astype(dtype)
    expected, got = both(grads_of(gather_rows, offset), x, w)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_row_gradient_out_of_range_still_raises():
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    w = np.ones(3, np.float32)
    messages = []
    for jit in (False, True):
        with pytest.raises(InvalidArgumentError, match="out of bounds") as info:
            rt.function(grads_of(gather_rows, -1), jit_compile=jit)(x, w)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_gradients_of_slices_added_agree():
    """Gradients of slices (not one index) added up: the sum as it is."""
    def f(x, w):
        return rt.reduce_sum(x[1:3] * w) + rt.reduce_sum(x[-1] * w) + rt.reduce_sum(x[::2])
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    w = RNG.normal(size=3).astype(np.float32)
    expected, got = both(grads_of(lambda x, w: f(x, w)), x, w)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
