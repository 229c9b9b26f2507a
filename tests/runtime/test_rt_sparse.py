"""rt.SparseTensor and rt.sparse: the ops against numpy, eagerly and staged; the
SparseTensor as a composite value (rt.function argument and result, input_signature,
staged loop variable, cond output, rt.nest); gradients w.r.t. values by finite
differences; bad input as TensorFlow reports it."""
import os
import sys

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "gradients"))
from grad_helpers import check_gradients  # noqa: E402

IDX = np.array([[0, 0], [0, 3], [1, 2], [2, 1]], np.int64)
VALS = np.array([1.5, -2.0, 3.0, 4.25], np.float32)
SHAPE = (3, 4)


def sp(vals=VALS, idx=IDX, shape=SHAPE):
    return rt.SparseTensor(idx, vals, shape)


def dense_ref(vals=VALS, idx=IDX, shape=SHAPE, default=0):
    out = np.full(shape, default, dtype=np.asarray(vals).dtype)
    out[tuple(np.asarray(idx).T)] = vals
    return out


def three_ways(fn, *args):
    """fn eagerly, in rt.function and in rt.function traced twice (cache hit)."""
    staged = rt.function(fn)
    return [fn(*args), staged(*args), staged(*args)]


# -- the value and its properties ----------------------------------------------------------

def test_properties():
    s = sp()
    assert s.dtype is rt.float32
    assert s.shape.as_list() == [3, 4]
    assert s.indices.dtype is rt.int64 and s.dense_shape.dtype is rt.int64
    np.testing.assert_array_equal(s.values.numpy(), VALS)
    np.testing.assert_array_equal(s.dense_shape.numpy(), SHAPE)
    assert rt.sparse.SparseTensor is rt.SparseTensor


def test_to_dense_and_from_dense_round_trip():
    for got in three_ways(lambda s: rt.sparse.to_dense(s), sp()):
        np.testing.assert_array_equal(got.numpy(), dense_ref())
    d = rt.sparse.to_dense(sp(), default_value=-1.0)
    np.testing.assert_array_equal(d.numpy(), dense_ref(default=-1))
    x = np.array([[0, 2, 0], [0, 0, 0], [5, 0, 7]], np.int32)
    for s in three_ways(lambda t: rt.sparse.from_dense(t), x):
        np.testing.assert_array_equal(s.indices.numpy(), np.argwhere(x))
        np.testing.assert_array_equal(s.values.numpy(), x[x != 0])
        assert s.values.dtype is rt.int32
        np.testing.assert_array_equal(s.dense_shape.numpy(), x.shape)
        np.testing.assert_array_equal(rt.sparse.to_dense(s).numpy(), x)


def test_higher_rank_and_vector():
    idx = np.array([[0, 1, 1], [1, 0, 2]], np.int64)
    s = rt.SparseTensor(idx, [1.0, 2.0], [2, 2, 3])
    np.testing.assert_array_equal(rt.sparse.to_dense(s).numpy(),
                                  dense_ref(np.float32([1, 2]), idx, (2, 2, 3)))
    v = rt.SparseTensor([[3]], [9], [5])
    np.testing.assert_array_equal(rt.sparse.to_dense(v).numpy(), [0, 0, 0, 9, 0])


@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, False), (1, True),
                                           (-1, False), ([0, 1], False)])
def test_reduce_sum(axis, keepdims):
    want = dense_ref().sum(axis=None if axis is None else tuple(np.atleast_1d(axis)),
                           keepdims=keepdims)
    for got in three_ways(lambda s: rt.sparse.reduce_sum(s, axis=axis, keepdims=keepdims),
                          sp()):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
        assert tuple(got.shape.as_list()) == np.shape(want)


@pytest.mark.parametrize("adjoint_a,adjoint_b", [(False, False), (True, False), (False, True)])
def test_sparse_dense_matmul(adjoint_a, adjoint_b):
    rng = np.random.default_rng(0)
    a = dense_ref()
    b = rng.normal(size=(3 if adjoint_a else 4, 2)).astype(np.float32)
    if adjoint_b:
        b = b.T.copy()
    want = (a.T if adjoint_a else a) @ (b.T if adjoint_b else b)
    for got in three_ways(lambda s, m: rt.sparse.sparse_dense_matmul(
            s, m, adjoint_a=adjoint_a, adjoint_b=adjoint_b), sp(), b):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_multiply_and_divide_by_scalar_and_dense():
    dense = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    row = np.float32([1, 2, 3, 4])
    cases = [(lambda s: s * 2.0, dense_ref() * 2), (lambda s: s * dense, dense_ref() * dense),
             (lambda s: s * row, dense_ref() * row), (lambda s: s / 4.0, dense_ref() / 4),
             (lambda s: s / dense, dense_ref() / dense)]
    for fn, want in cases:
        for got in three_ways(fn, sp()):
            assert isinstance(got, rt.SparseTensor)
            np.testing.assert_allclose(rt.sparse.to_dense(got).numpy(), want, rtol=1e-6)


# -- composite value --------------------------------------------------------------------

def test_function_argument_and_result_trace_by_spec():
    @rt.function
    def f(s, k):
        return s * k, rt.sparse.reduce_sum(s)
    out, total = f(sp(), 2.0)
    assert isinstance(out, rt.SparseTensor) and out.shape.as_list() == [3, 4]
    np.testing.assert_allclose(rt.sparse.to_dense(out).numpy(), dense_ref() * 2)
    assert float(total) == pytest.approx(VALS.sum())
    f(sp(VALS[:2], IDX[:2]), 2.0)          # another number of values: the same trace
    assert f.experimental_get_tracing_count() == 1
    f(sp(shape=(3, 5)), 2.0)                # another dense shape: a new trace, as TF
    assert f.experimental_get_tracing_count() == 2
    cf = f.get_concrete_function(sp(), 2.0)
    assert "SparseTensorSpec(shape=(3, 4)" in cf.pretty_printed_signature()
    with pytest.raises(TypeError, match="SparseTensorSpec"):
        cf(sp(shape=(3, 5)), 2.0)


def test_input_signature():
    @rt.function(input_signature=[rt.SparseTensorSpec([None, 4], rt.float32)])
    def f(s):
        return rt.sparse.reduce_sum(s, axis=0)
    np.testing.assert_allclose(f(sp()).numpy(), dense_ref().sum(0))
    np.testing.assert_allclose(f(sp(shape=(7, 4))).numpy(), dense_ref().sum(0))
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function().outputs[0].shape.as_list() == [4]
    with pytest.raises(ValueError, match="SparseTensorSpec"):
        f(sp(shape=(3, 5)))
    with pytest.raises(ValueError, match="SparseTensorSpec"):
        f(rt.constant([1.0]))


def test_loop_variable_scales_values_k_times():
    @rt.function
    def scale(s, k):
        i = 0
        while i < k:
            s = s * 2.0
            i += 1
        return s, rt.sparse.to_dense(s)
    for k in (0, 1, 3):
        s, d = scale(sp(), rt.constant(k))
        np.testing.assert_allclose(s.values.numpy(), VALS * 2 ** k)
        np.testing.assert_allclose(d.numpy(), dense_ref() * 2 ** k)
    assert scale.experimental_get_tracing_count() == 1
    w = rt.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), (0, sp()))
    np.testing.assert_allclose(w[1].values.numpy(), VALS * 8)


def test_loop_that_rebuilds_the_value_keeps_only_its_rank_static():
    @rt.function
    def f(s, k):
        i = 0
        while i < k:
            s = rt.SparseTensor(s.indices, s.values + 1.0, s.dense_shape)
            i += 1
        assert s.shape.as_list() == [None, None]     # its dense_shape is a loop variable
        return rt.sparse.to_dense(s)
    np.testing.assert_allclose(f(sp(), rt.constant(2)).numpy(), dense_ref(VALS + 2))


def test_cond_output():
    other = rt.SparseTensor([[2, 3]], [9.0], [3, 4])

    @rt.function
    def pick(x, a, b):
        if x > 0:
            s = a
        else:
            s = b
        return rt.sparse.to_dense(s), s
    d, s = pick(rt.constant(1.0), sp(), other)
    np.testing.assert_array_equal(d.numpy(), dense_ref())
    d, s = pick(rt.constant(-1.0), sp(), other)
    np.testing.assert_array_equal(d.numpy(), dense_ref(np.float32([9]), [[2, 3]]))
    assert s.values.shape.as_list() == [1]

    @rt.function
    def differ(x):      # branches of different dense shapes: the static shape says neither
        out = rt.cond(x > 0, lambda: sp(), lambda: rt.SparseTensor([[0, 0]], [1.0], [2, 2]))
        assert out.shape.as_list() == [None, None]
        return out
    assert differ(rt.constant(-1.0)).shape.as_list() == [2, 2]
    with pytest.raises(TypeError, match="structure"):
        rt.function(lambda x: rt.cond(x > 0, lambda: sp(), lambda: 1.0))(rt.constant(1.0))


def test_nest():
    s = sp()
    assert rt.nest.flatten([s, 1]) == [s, 1]      # a leaf unless expanded, as tf.nest
    flat = rt.nest.flatten({"a": s, "b": 2}, expand_composites=True)
    assert len(flat) == 4 and flat[0] is s.indices and flat[3] == 2
    back = rt.nest.pack_sequence_as({"a": s, "b": 2}, flat, expand_composites=True)
    assert isinstance(back["a"], rt.SparseTensor) and back["a"].shape.as_list() == [3, 4]
    assert rt.nest.is_nested(s, expand_composites=True) and not rt.nest.is_nested(s)
    assert rt.nest.same_structure(s, sp(shape=(5, 5)), expand_composites=True)
    assert not rt.nest.same_structure(s, [1, 2, 3], expand_composites=True)
    assert rt.nest.structure_repr([s]) == "[SparseTensor(., ., .)]"
    doubled = rt.nest.map_structure(lambda t: t, s, expand_composites=True)
    assert isinstance(doubled, rt.SparseTensor)


# -- gradients w.r.t. values ------------------------------------------------------------

def test_gradients_by_finite_differences():
    v = VALS.astype(np.float64)
    b = np.random.default_rng(1).normal(size=(4, 3))
    check_gradients(lambda t: rt.sparse.to_dense(rt.SparseTensor(IDX, t, SHAPE)), [v])
    check_gradients(lambda t: rt.sparse.to_dense(rt.SparseTensor(IDX, t, SHAPE),
                                                 default_value=np.float64(0.5)), [v])
    check_gradients(lambda t: rt.sparse.reduce_sum(rt.SparseTensor(IDX, t, SHAPE), axis=1), [v])
    check_gradients(lambda t: rt.sparse.reduce_sum(rt.SparseTensor(IDX, t, SHAPE)), [v])
    check_gradients(lambda t, m: rt.sparse.sparse_dense_matmul(rt.SparseTensor(IDX, t, SHAPE),
                                                               m), [v, b])
    check_gradients(lambda t: (rt.SparseTensor(IDX, t, SHAPE) * np.arange(4.0)).values, [v])


# -- bad input ------------------------------------------------------------------------

def test_indices_out_of_range_fail_when_the_graph_runs():
    bad = sp(idx=np.array([[0, 0], [0, 4], [1, 2], [2, 1]], np.int64))
    fns = [rt.sparse.to_dense, rt.sparse.reduce_sum, lambda s: rt.sparse.reduce_sum(s, 1),
           lambda s: rt.sparse.sparse_dense_matmul(s, np.ones((4, 2), np.float32)),
           lambda s: s * np.ones((3, 4), np.float32)]
    for fn in fns[:1] + fns[2:]:
        with pytest.raises(InvalidArgumentError, match="out of bounds"):
            fn(bad)
        with pytest.raises(InvalidArgumentError, match="out of bounds"):
            rt.function(fn)(bad)
    neg = sp(idx=np.array([[0, 0], [0, -1], [1, 2], [2, 1]], np.int64))
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        rt.function(rt.sparse.to_dense)(neg)


def test_unordered_or_repeated_indices():
    swapped = sp(idx=IDX[[1, 0, 2, 3]])
    with pytest.raises(InvalidArgumentError, match="out of order or repeated"):
        rt.sparse.to_dense(swapped)
    with pytest.raises(InvalidArgumentError, match="out of order or repeated"):
        rt.function(rt.sparse.to_dense)(sp(idx=IDX[[0, 0, 2, 3]]))
    got = rt.sparse.to_dense(swapped, validate_indices=False)
    np.testing.assert_array_equal(got.numpy(), dense_ref(VALS, IDX[[1, 0, 2, 3]]))


def test_mismatched_lengths_and_dtypes():
    with pytest.raises(ValueError, match="rows but values has"):
        rt.SparseTensor(IDX, VALS[:3], SHAPE)
    with pytest.raises(ValueError, match="dense_shape has"):
        rt.SparseTensor(IDX, VALS, (3, 4, 5))
    with pytest.raises(ValueError, match="matrix"):
        rt.SparseTensor([0, 1], [1.0, 2.0], [3])
    with pytest.raises(TypeError, match="int64"):
        rt.SparseTensor(rt.constant(IDX.astype(np.int32)), VALS, SHAPE)
    with pytest.raises(TypeError):
        sp() * rt.ones((3, 4), rt.int32)        # a tensor is never cast


@pytest.mark.parametrize("op", [
    lambda s: s + 1.0, lambda s: 1.0 + s, lambda s: s - s, lambda s: 2.0 * s, lambda s: -s,
    lambda s: s @ np.ones((4, 1), np.float32), lambda s: s < 1.0, lambda s: s[0],
    lambda s: list(s), lambda s: len(s), lambda s: bool(s), lambda s: s * s,
    lambda s: rt.constant(1.0) * s, lambda s: rt.convert_to_tensor(s), lambda s: np.asarray(s),
    lambda s: rt.reduce_sum(s), lambda s: s // 2.0, lambda s: abs(s),
    lambda s: rt.SparseTensor(IDX, np.arange(4), SHAPE) / 2,
])
def test_operators_tensorflow_does_not_define_raise_type_error(op):
    with pytest.raises(TypeError):
        op(sp())


def test_staged_operators_tensorflow_does_not_define_raise_type_error():
    with pytest.raises(TypeError):
        rt.function(lambda s: s + 1.0)(sp())


def test_gradient_through_a_function_taking_and_returning_a_sparse_tensor():
    v = rt.constant(VALS)
    f = rt.function(lambda s: s * 3.0)
    g = rt.function(lambda s: rt.sparse.reduce_sum(s * 2.0))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(v)
        out = f(sp(v))
        loss = rt.reduce_sum(out.values * out.values)
        total = g(sp(v))
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), 18 * VALS, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(total, v).numpy(), np.full(4, 2.0))


def test_default_value_keeps_nan_values_and_bool_and_int_values():
    s = rt.SparseTensor([[0, 1], [1, 0]], [np.nan, 2.0], [2, 2])
    np.testing.assert_array_equal(rt.sparse.to_dense(s, default_value=5.0).numpy(),
                                  [[5, np.nan], [2, 5]])
    b = rt.SparseTensor([[0, 1], [1, 0]], [True, True], [2, 2])
    for got in three_ways(rt.sparse.to_dense, b):
        np.testing.assert_array_equal(got.numpy(), [[False, True], [True, False]])
    i = rt.SparseTensor([[0, 1], [1, 0]], [3, 4], [2, 2])
    np.testing.assert_array_equal(rt.sparse.to_dense(i, default_value=-1).numpy(),
                                  [[-1, 3], [4, -1]])
    empty = rt.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [2, 2])
    np.testing.assert_array_equal(rt.sparse.to_dense(empty).numpy(), np.zeros((2, 2)))


def test_dense_operand_broadcasts_to_the_sparse_shape_only():
    s = rt.SparseTensor([[0, 1]], [2.0], [1, 4])
    for y in (np.ones((5, 4), np.float32), np.ones((2, 1, 4), np.float32)):
        with pytest.raises(InvalidArgumentError, match="broadcasts to the sparse shape"):
            s * y
        with pytest.raises(InvalidArgumentError, match="broadcasts to the sparse shape"):
            rt.function(lambda a, b: a * b)(s, y)
