"""TensorFlow's further math names: the elementwise ops (atan, asin, acos, sinh, cosh,
expm1, erf, atan2), slogdet, the bitwise shifts and the compositions (add_n,
count_nonzero, divide_no_nan, squared_difference, truncatediv, repeat, band_part,
in_top_k), each against numpy and TensorFlow's documented examples, eagerly, in
rt.function and under jit_compile, with edge inputs, and their gradients against finite
differences. The segment reductions and ONNX export: test_tf_names_more_export.py."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

import runtime as rt

HAS_JAX = importlib.util.find_spec("jax") is not None
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-7, 3.0, -20.0, 1e30]


def every_way(fn, *arrays):
    """fn's results eagerly, in rt.function and (with jax) under jit_compile."""
    tensors = [rt.constant(a) for a in arrays]
    out = {"eager": fn(*tensors), "function": rt.function(fn)(*tensors)}
    if HAS_JAX:
        out["jit"] = rt.function(fn, jit_compile=True)(*tensors)
    return {k: [np.asarray(t.numpy()) for t in rt.nest.flatten(v)] for k, v in out.items()}


def check_every_way(fn, expected, *arrays, rtol=1e-6, atol=0.0):
    for way, got in every_way(fn, *arrays).items():
        want = [np.asarray(e) for e in (expected if isinstance(expected, tuple) else [expected])]
        assert len(got) == len(want), way
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (way, g, w)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=way)


def numeric_gradient(f, x, eps=1e-6):
    x = np.array(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (np.sum(f(up)) - np.sum(f(down))) / (2 * eps)
    return grad


def tape_gradient(fn, *arrays, wrt=0):
    xs = [rt.constant(np.asarray(a, np.float64)) for a in arrays]
    with rt.GradientTape() as tape:
        tape.watch(xs[wrt])
        y = rt.reduce_sum(fn(*xs))
    return tape.gradient(y, xs[wrt]).numpy()


def assert_gradient(fn, *arrays, wrt=0):
    def at(v):
        args = list(arrays)
        args[wrt] = v
        return fn(*[rt.constant(np.asarray(a, np.float64)) for a in args]).numpy()
    np.testing.assert_allclose(tape_gradient(fn, *arrays, wrt=wrt),
                               numeric_gradient(at, arrays[wrt]), rtol=1e-5, atol=1e-6)


UNARY = {"atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
         "cosh": np.cosh, "expm1": np.expm1, "erf": np.vectorize(math.erf, otypes=[float])}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_matches_numpy_every_way(name, dtype):
    fn = getattr(rt.math, name)
    with np.errstate(all="ignore"):
        for x in (np.array(SPECIAL, dtype), np.zeros(0, dtype), np.array([0.25], dtype),
                  np.array([np.nan], dtype), np.array(0.75, dtype)):
            check_every_way(fn, np.asarray(UNARY[name](x)).astype(dtype), x,
                            rtol=2e-6 if dtype == np.float32
                            else 1e-12, atol=1e-37)
    with pytest.raises(rt.errors.InvalidArgumentError, match="int32"):
        fn(rt.constant([1, 2]))


def test_documented_values_and_top_level_names():
    assert rt.math.expm1(rt.constant(1e-10, rt.float64)).numpy() == np.expm1(1e-10) != 0
    assert rt.math.atan2(rt.constant(0.0), rt.constant(-1.0)).numpy() == np.float32(np.pi)
    assert rt.math.atan2(rt.constant(-0.0), rt.constant(-1.0)).numpy() == -np.float32(np.pi)
    for name in ("atan", "asin", "acos", "sinh", "cosh", "atan2", "add_n", "truncatediv"):
        assert getattr(rt, name) is getattr(rt.math, name)
    assert rt.repeat is not None and rt.nn.in_top_k is rt.math.in_top_k
    assert rt.math.l2_normalize is rt.nn.l2_normalize


def test_atan2_matches_numpy_every_way_on_signed_zeros_and_infinities():
    a = np.array(SPECIAL, np.float32)
    y, x = (v.ravel() for v in np.meshgrid(a, a))
    with np.errstate(all="ignore"):
        check_every_way(rt.math.atan2, np.arctan2(y, x), y, x, rtol=2e-6)
    check_every_way(rt.math.atan2, np.zeros(0, np.float32), np.zeros(0, np.float32),
                    np.zeros(0, np.float32))
    got = rt.math.atan2(rt.constant([[1.0], [-1.0]]), rt.constant([1.0, -1.0, 0.0])).numpy()
    np.testing.assert_allclose(got, np.arctan2([[1.0], [-1.0]], [1.0, -1.0, 0.0]), rtol=1e-6)


@pytest.mark.parametrize("name, points", [
    ("atan", [-3.0, 0.0, 0.7]), ("asin", [-0.9, 0.0, 0.6]), ("acos", [-0.9, 0.0, 0.6]),
    ("sinh", [-2.0, 0.0, 1.5]), ("cosh", [-2.0, 0.0, 1.5]), ("expm1", [-2.0, 0.0, 1.5]),
    ("erf", [-2.0, 0.0, 0.4])])
def test_unary_gradients_match_finite_differences(name, points):
    assert_gradient(getattr(rt.math, name), np.array(points))


def test_atan2_gradients_match_finite_differences_with_broadcasting():
    y, x = np.array([[1.0, -2.0, 0.5]]), np.array([[0.3], [-1.5]])
    assert_gradient(rt.math.atan2, y, x, wrt=0)
    assert_gradient(rt.math.atan2, y, x, wrt=1)


# -- slogdet ---------------------------------------------------------------------------------

def test_slogdet_matches_numpy_every_way():
    rng = np.random.default_rng(0)
    batch = rng.normal(size=(3, 4, 4))
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for a in (batch, singular, np.array([[np.nan, 1.0], [1.0, 1.0]]), np.zeros((0, 0)),
              np.array([[-3.0]]), np.diag([1e200, 1e200, 1e-5])):
        with np.errstate(invalid="ignore"):
            sign, logdet = np.linalg.slogdet(a)
        if np.isnan(a).any():
            sign, logdet = np.nan, np.nan
        check_every_way(rt.linalg.slogdet, (np.float64(sign), np.float64(logdet)), a,
                        rtol=1e-10)
    with np.errstate(over="ignore"):   # why slogdet exists
        assert np.isinf(np.linalg.det(np.diag([1e200, 1e200, 1e-5])))
    a32 = batch.astype(np.float32)
    check_every_way(rt.linalg.slogdet, tuple(v.astype(np.float32)
                                             for v in np.linalg.slogdet(a32)), a32, rtol=1e-5)
    with pytest.raises(rt.errors.InvalidArgumentError, match="square"):
        rt.linalg.slogdet(rt.zeros([2, 3]))


def test_slogdet_gradient_matches_finite_differences():
    a = np.array([[2.0, 0.5, 0.1], [0.3, -1.5, 0.2], [0.0, 0.4, 3.0]])
    assert_gradient(lambda m: rt.linalg.slogdet(m)[1], a)
    batch = np.stack([a, a.T + np.eye(3)])
    assert_gradient(lambda m: rt.linalg.slogdet(m)[1], batch)


# -- shifts ----------------------------------------------------------------------------------

def _shift_reference(x, y, left):
    bits = x.dtype.itemsize * 8
    y = np.clip(y, 0, bits - 1)
    if left:
        u = np.dtype(f"u{x.dtype.itemsize}")
        return np.left_shift(x.astype(u), y.astype(u)).astype(x.dtype)
    return np.right_shift(x, y.astype(x.dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_shifts_match_tensorflows_clamped_kernel_every_way(dtype):
    info = np.iinfo(dtype)
    x = np.array([0, 1, 5, info.max, info.min, 3, 7, 1], dtype)
    y = np.array([0, 1, 3, 1, 1, info.bits - 1, info.bits, info.bits + 5], dtype)
    if info.min < 0:
        x = np.concatenate([x, np.array([-1, -16, -3], dtype)])
        y = np.concatenate([y, np.array([2, -1, 100], dtype)])
    check_every_way(rt.bitwise.left_shift, _shift_reference(x, y, True), x, y)
    check_every_way(rt.bitwise.right_shift, _shift_reference(x, y, False), x, y)
    empty = np.zeros(0, dtype)
    check_every_way(rt.bitwise.left_shift, empty, empty, empty)


def test_shifts_documented_examples():
    assert rt.bitwise.left_shift(rt.constant([-1, -5, -3, -14], rt.int8),
                                 rt.constant([5, 0, 7, 11], rt.int8)).numpy().tolist() == \
        [-32, -5, -128, 0]
    assert rt.bitwise.right_shift(rt.constant([-1, -5, -3, -14], rt.int8),
                                  rt.constant([5, 0, 7, 11], rt.int8)).numpy().tolist() == \
        [-1, -5, -1, -1]
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.bitwise.left_shift(rt.constant([1.0]), rt.constant([1.0]))


# -- compositions ----------------------------------------------------------------------------

def test_add_n_sums_every_way_and_refuses_broadcasting():
    a, b, c = (np.array(v, np.float32) for v in ([1, np.nan], [2, 3], [4, -1]))
    check_every_way(lambda x, y, z: rt.add_n([x, y, z]), a + b + c, a, b, c)
    check_every_way(lambda x: rt.add_n([x]), a, a)
    e = np.zeros((0, 2), np.int32)
    check_every_way(lambda x, y: rt.add_n([x, y]), e, e, e)
    assert_gradient(lambda x, y: rt.add_n([x, y, x]), np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    with pytest.raises(ValueError, match="broadcast"):
        rt.add_n([rt.constant([1.0, 2.0]), rt.constant(1.0)])
    with pytest.raises(TypeError, match="dtypes"):
        rt.add_n([rt.constant([1.0]), rt.constant([1])])
    with pytest.raises(ValueError, match="non-empty"):
        rt.add_n([])


def test_count_nonzero_counts_nan_and_matches_numpy_every_way():
    x = np.array([[0.0, np.nan, -0.0], [1.0, 0.0, np.inf]], np.float32)
    check_every_way(rt.math.count_nonzero, np.int64(3), x)
    check_every_way(lambda t: rt.math.count_nonzero(t, axis=1, keepdims=True),
                    np.array([[1], [2]], np.int64), x)
    check_every_way(lambda t: rt.math.count_nonzero(t, axis=0, dtype=rt.int32),
                    np.array([1, 1, 1], np.int32), x)
    check_every_way(rt.math.count_nonzero, np.int64(0), np.zeros(0, np.int32))
    check_every_way(rt.math.count_nonzero, np.int64(2), np.array([True, False, True]))
    assert rt.math.count_nonzero(rt.constant(["", "a", "bc"])).numpy() == 2


def test_divide_no_nan_gives_zero_and_a_zero_gradient_where_y_is_zero():
    x = np.array([3.0, 1.0, np.nan, np.inf, 0.0, 2.0], np.float32)
    y = np.array([2.0, 0.0, 0.0, 0.0, 0.0, -0.0], np.float32)
    check_every_way(rt.math.divide_no_nan, np.array([1.5, 0, 0, 0, 0, 0], np.float32), x, y)
    check_every_way(rt.math.divide_no_nan, np.array([[0.5, 0.0]], np.float32),
                    np.array([[1.0], ], np.float32), np.array([2.0, 0.0], np.float32))
    xs, ys = np.array([1.0, 2.0, 3.0]), np.array([0.0, 4.0, -0.5])
    gx, gy = tape_gradient(rt.math.divide_no_nan, xs, ys), tape_gradient(
        rt.math.divide_no_nan, xs, ys, wrt=1)
    np.testing.assert_allclose(gx, [0.0, 0.25, -2.0])
    np.testing.assert_allclose(gy, [0.0, -2.0 / 16, -3.0 / 0.25])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.math.divide_no_nan(rt.constant([1]), rt.constant([0]))


def test_squared_difference_every_way_and_its_gradient():
    check_every_way(rt.math.squared_difference, np.array([9, 9, 0], np.int32),
                    np.array([1, 5, -3], np.int32), np.array([4, 2, -3], np.int32))
    x = np.array([np.nan, 1.5], np.float32)
    check_every_way(rt.math.squared_difference, np.square(x - 0.5), x, np.float32(0.5))
    assert_gradient(rt.math.squared_difference, np.array([1.0, -2.0]), np.array([0.5, 3.0]))
    assert_gradient(rt.math.squared_difference, np.array([1.0, -2.0]), np.array([0.5, 3.0]),
                    wrt=1)


def test_truncatediv_rounds_toward_zero_every_way():
    x = np.array([7, -7, 7, -7, 0, 6, -6, 2147483647, -2147483648, 1], np.int32)
    y = np.array([5, 5, -5, -5, 3, 3, 3, 2, 7, -1], np.int32)
    want = np.array([int(a / b) if abs(int(a)) < 2**31 - 1 else
                     (abs(int(a)) // abs(int(b))) * (1 if (a < 0) == (b < 0) else -1)
                     for a, b in zip(x.tolist(), y.tolist())], np.int32)
    check_every_way(rt.math.truncatediv, want, x, y)
    check_every_way(rt.math.truncatediv, np.zeros(0, np.int64), np.zeros(0, np.int64),
                    np.zeros(0, np.int64))
    with pytest.raises(rt.errors.InvalidArgumentError, match="division by zero"):
        rt.math.truncatediv(rt.constant([1]), rt.constant([0]))
    with pytest.raises(TypeError, match="integer"):
        rt.math.truncatediv(rt.constant([1.0]), rt.constant([2.0]))
