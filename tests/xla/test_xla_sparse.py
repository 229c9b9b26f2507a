"""rt.SparseTensor under rt.function(jit_compile=True): the same results as the numpy
backend and numpy itself (arguments, results, loop variables, cond outputs, gradients),
and out-of-range indices an InvalidArgumentError as on the numpy backend."""
import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.errors import InvalidArgumentError  # noqa: E402

IDX = np.array([[0, 0], [0, 3], [1, 2], [2, 1]], np.int64)
VALS = np.array([1.5, -2.0, 3.0, 4.25], np.float32)
SHAPE = (3, 4)


def sp(vals=VALS, idx=IDX, shape=SHAPE):
    return rt.SparseTensor(idx, vals, shape)


def dense_ref(vals=VALS, idx=IDX, shape=SHAPE):
    out = np.zeros(shape, np.asarray(vals).dtype)
    out[tuple(np.asarray(idx).T)] = vals
    return out


def both(fn, *args):
    """fn on the numpy backend and under XLA."""
    return [rt.function(fn)(*args), rt.function(fn, jit_compile=True)(*args)]


def values_of(x):
    if isinstance(x, rt.SparseTensor):
        return [x.indices.numpy(), x.values.numpy(), x.dense_shape.numpy()]
    return [np.asarray(x)]


def agree(fn, *args, want=None):
    a, b = both(fn, *args)
    for x, y in zip(rt.nest.flatten(a), rt.nest.flatten(b)):
        for p, q in zip(values_of(x), values_of(y)):
            np.testing.assert_allclose(p, q, rtol=1e-6)
    if want is not None:
        np.testing.assert_allclose(np.asarray(rt.nest.flatten(a)[0]), want, rtol=1e-5)
    return a


def test_ops_agree_with_numpy():
    b = np.random.default_rng(0).normal(size=(4, 2)).astype(np.float32)
    agree(rt.sparse.to_dense, sp(), want=dense_ref())
    agree(lambda s: rt.sparse.to_dense(s, default_value=7.0), sp(),
          want=np.where(dense_ref() != 0, dense_ref(), 7))
    agree(lambda s: rt.sparse.reduce_sum(s, axis=1), sp(), want=dense_ref().sum(1))
    agree(lambda s: rt.sparse.reduce_sum(s), sp(), want=dense_ref().sum())
    agree(lambda s, m: rt.sparse.sparse_dense_matmul(s, m), sp(), b, want=dense_ref() @ b)
    agree(lambda s: rt.sparse.to_dense(s * np.float32([1, 2, 3, 4])), sp(),
          want=dense_ref() * np.float32([1, 2, 3, 4]))


def test_from_dense_is_refused_with_a_clear_error():
    """Its number of values depends on the data: XLA cannot compile it (as in TF)."""
    from runtime.backends.xla.backend import XlaLoweringError
    x = np.array([[0, 2.0], [3.0, 0]], np.float32)
    np.testing.assert_array_equal(rt.function(lambda t: rt.sparse.to_dense(
        rt.sparse.from_dense(t)))(x).numpy(), x)
    with pytest.raises(XlaLoweringError, match="depends on the values"):
        rt.function(lambda t: rt.sparse.from_dense(t).values, jit_compile=True)(x)


def test_argument_and_result():
    out = agree(lambda s, k: s * k, sp(), 2.0)
    assert isinstance(out, rt.SparseTensor)
    np.testing.assert_allclose(out.values.numpy(), VALS * 2)


def test_loop_variable_and_cond_output():
    def scale(s, k):
        i = 0
        while i < k:
            s = s * 2.0
            i += 1
        return rt.sparse.to_dense(s)
    agree(scale, sp(), rt.constant(3), want=dense_ref() * 8)

    def pick(x, a, b):
        if x > 0:
            s = a
        else:
            s = b
        return rt.sparse.to_dense(s)
    # as many values in both branches (see the report: XLA conds whose branches give
    # different shapes are a backend gap of their own)
    idx = np.array([[0, 1], [1, 1], [2, 0], [2, 3]], np.int64)
    other = rt.SparseTensor(idx, [9.0, 8.0, 7.0, 6.0], [3, 4])
    agree(pick, rt.constant(1.0), sp(), other, want=dense_ref())
    agree(pick, rt.constant(-1.0), sp(), other, want=dense_ref(np.float32([9, 8, 7, 6]), idx))


def test_gradients_agree():
    def grads(v, m):
        with rt.GradientTape() as tape:
            tape.watch([v, m])
            s = rt.SparseTensor(IDX, v, SHAPE)
            loss = (rt.reduce_sum(rt.sparse.to_dense(s) * np.arange(12.0, dtype=np.float32)
                                  .reshape(3, 4))
                    + rt.reduce_sum(rt.sparse.sparse_dense_matmul(s, m) ** 2))
        return tape.gradient(loss, [v, m])
    m = np.random.default_rng(2).normal(size=(4, 2)).astype(np.float32)
    a, b = both(grads, rt.constant(VALS), rt.constant(m))
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-5)
    d = dense_ref()
    want_v = np.arange(12.0).reshape(3, 4)[tuple(IDX.T)] + (2 * (d @ m) @ m.T)[tuple(IDX.T)]
    np.testing.assert_allclose(a[0].numpy(), want_v, rtol=1e-5)


def test_out_of_range_indices_fail_under_xla():
    bad = sp(idx=np.array([[0, 0], [0, 4], [1, 2], [2, 1]], np.int64))
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        rt.function(rt.sparse.to_dense, jit_compile=True)(bad)
