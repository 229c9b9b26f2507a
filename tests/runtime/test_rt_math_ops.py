"""Elementwise math, comparisons, logic, reductions, argmax/argmin, where, cast, matmul:
eager against numpy, staged against eager, and static shape inference."""
import numpy as np
import pytest

import runtime as rt
from rt_helpers import assert_same, check_eager_and_staged, staged

F = np.array([[0.5, -1.25, 2.0], [3.5, 0.25, -0.75]], dtype=np.float32)
I = np.array([[1, -2, 3], [4, 0, -6]], dtype=np.int32)
POS = np.array([[0.5, 1.25, 2.0], [3.5, 0.25, 0.75]], dtype=np.float32)
B = np.array([[True, False, True], [False, False, True]])

# op, numpy reference, input
UNARY = [
    (rt.negative, np.negative, F), (rt.negative, np.negative, I),
    (rt.abs, np.abs, F), (rt.abs, np.abs, I),
    (rt.sign, np.sign, F), (rt.sign, np.sign, I),
    (rt.square, np.square, F), (rt.square, np.square, I),
    (rt.sqrt, np.sqrt, POS),
    (rt.exp, np.exp, F),
    (rt.log, np.log, POS),
    (rt.tanh, np.tanh, F),
    (rt.sigmoid, lambda x: (1 / (1 + np.exp(-x))).astype(np.float32), F),
    (rt.sin, np.sin, F),
    (rt.cos, np.cos, F),
    (rt.logical_not, np.logical_not, B),
]


@pytest.mark.parametrize("op,ref,x", UNARY, ids=lambda v: getattr(v, "__name__", None))
def test_unary(op, ref, x):
    check_eager_and_staged(op, x, expected=ref(x), unknown=True)


@pytest.mark.parametrize("op", [rt.sqrt, rt.exp, rt.log, rt.tanh, rt.sigmoid, rt.sin, rt.cos])
def test_float_only_unary_rejects_int(op):
    with pytest.raises(rt.errors.InvalidArgumentError, match="int32"):
        op(rt.constant([1, 2]))


def test_unary_float64_keeps_dtype():
    x = np.array([0.1, 0.2], dtype=np.float64)
    y = rt.exp(x)
    assert y.dtype is rt.float64
    assert_same(y.numpy(), np.exp(x))


Y_F = np.array([2.0, -0.5, 1.5], dtype=np.float32)
Y_I = np.array([3, 5, -2], dtype=np.int32)
Y_POS_I = np.array([2, 1, 3], dtype=np.int32)
B2 = np.array([True, True, False])

# op, numpy reference (None: computed from the dtype rule), x, y (broadcast (2,3) with (3,))
BINARY = [
    (rt.add, np.add, F, Y_F), (rt.add, np.add, I, Y_I),
    (rt.subtract, np.subtract, F, Y_F), (rt.subtract, np.subtract, I, Y_I),
    (rt.multiply, np.multiply, F, Y_F), (rt.multiply, np.multiply, I, Y_I),
    (rt.divide, np.true_divide, F, Y_F),
    (rt.divide, lambda x, y: np.true_divide(x, y, dtype=np.float64), I, Y_I),
    (rt.floordiv, np.floor_divide, F, Y_F), (rt.floordiv, np.floor_divide, I, Y_I),
    (rt.mod, np.mod, F, Y_F), (rt.mod, np.mod, I, Y_I),
    (rt.pow, np.power, POS, Y_F), (rt.pow, np.power, I, Y_POS_I),
    (rt.maximum, np.maximum, F, Y_F), (rt.maximum, np.maximum, I, Y_I),
    (rt.minimum, np.minimum, F, Y_F), (rt.minimum, np.minimum, I, Y_I),
    (rt.equal, np.equal, I, Y_I), (rt.not_equal, np.not_equal, F, Y_F),
    (rt.less, np.less, I, Y_I), (rt.less_equal, np.less_equal, F, Y_F),
    (rt.greater, np.greater, I, Y_I), (rt.greater_equal, np.greater_equal, F, Y_F),
    (rt.logical_and, np.logical_and, B, B2), (rt.logical_or, np.logical_or, B, B2),
]


@pytest.mark.parametrize("op,ref,x,y", BINARY, ids=lambda v: getattr(v, "__name__", None))
def test_binary(op, ref, x, y):
    check_eager_and_staged(op, x, y, expected=ref(x, y), unknown=True)


def test_divide_int_gives_float64_like_tensorflow():
    assert rt.divide(7, 2).dtype is rt.float64
    assert (rt.constant(7) / 2).numpy() == 3.5


def test_floordiv_and_mod_follow_python_signs():
    assert_same(rt.floordiv(rt.constant([-7, 7]), 2).numpy(), np.array([-4, 3], np.int32))
    assert_same(rt.mod(rt.constant([-7, 7]), 3).numpy(), np.array([2, 1], np.int32))


def test_integer_division_by_zero_is_an_error():
    with pytest.raises(rt.errors.InvalidArgumentError, match="division by zero"):
        rt.floordiv(rt.constant(7), 0)
    with pytest.raises(rt.errors.InvalidArgumentError, match="division by zero"):
        rt.mod(rt.constant([7, 1]), rt.constant([1, 0]))


def test_float_special_values_do_not_warn(recwarn):
    assert rt.log(rt.constant(0.0)).numpy() == -np.inf
    assert np.isnan(rt.sqrt(rt.constant(-1.0)).numpy())
    assert rt.divide(1.0, 0.0).numpy() == np.inf
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_integer_pow_negative_exponent_raises():
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative"):
        rt.pow(rt.constant(2), -1)


# -- Python operators ----------------------------------------------------------------------

OPERATORS = [
    ("+", lambda a, b: a + b, rt.add), ("-", lambda a, b: a - b, rt.subtract),
    ("*", lambda a, b: a * b, rt.multiply), ("/", lambda a, b: a / b, rt.divide),
    ("//", lambda a, b: a // b, rt.floordiv), ("%", lambda a, b: a % b, rt.mod),
    ("**", lambda a, b: a ** b, rt.pow), ("<", lambda a, b: a < b, rt.less),
    ("<=", lambda a, b: a <= b, rt.less_equal), (">", lambda a, b: a > b, rt.greater),
    (">=", lambda a, b: a >= b, rt.greater_equal), ("==", lambda a, b: a == b, rt.equal),
    ("!=", lambda a, b: a != b, rt.not_equal),
]


@pytest.mark.parametrize("sym,expr,op", OPERATORS, ids=[o[0] for o in OPERATORS])
def test_python_operators_match_ops(sym, expr, op):
    x, y = np.array([1.5, 2.0, 4.0], np.float32), np.array([0.5, 2.0, 3.0], np.float32)
    check_eager_and_staged(expr, x, y, expected=np.asarray(op(x, y)))
    # a Python number on either side takes the tensor's dtype
    left = expr(rt.constant(x), 2)
    right = expr(3, rt.constant(x))
    assert left.dtype is right.dtype
    assert_same(left.numpy(), op(x, np.float32(2)).numpy())
    assert_same(right.numpy(), op(np.float32(3), x).numpy())


def test_unary_operators():
    x = np.array([1, -2, 3], np.int32)
    check_eager_and_staged(lambda t: -t, x, expected=-x)
    check_eager_and_staged(lambda t: abs(t), x, expected=np.abs(x))
    b = np.array([True, False])
    check_eager_and_staged(lambda t: ~t, b, expected=~b)
    check_eager_and_staged(lambda t, u: t & u, b, np.array([True, True]), expected=b & True)
    check_eager_and_staged(lambda t, u: t | u, b, np.array([False, False]), expected=b)


def test_matmul_operator_and_function():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    check_eager_and_staged(lambda x, y: x @ y, a, b, expected=a @ b, unknown=True)
    check_eager_and_staged(lambda x, y: rt.matmul(x, y, transpose_a=True), a.T.copy(), b,
                           expected=a @ b)
    check_eager_and_staged(lambda x, y: rt.matmul(x, y, transpose_b=True), a, b.T.copy(),
                           expected=a @ b)
    batch = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    check_eager_and_staged(rt.matmul, batch, batch.transpose(0, 2, 1).copy(),
                           expected=batch @ batch.transpose(0, 2, 1))


def test_matmul_static_shapes():
    g = rt.Graph()
    with g.as_default():
        a = rt.placeholder(rt.float32, [None, 3])
        assert rt.matmul(a, rt.ones([3, 5])).shape == rt.TensorShape([None, 5])
        assert rt.matmul(rt.placeholder(rt.float32, None), a).shape.rank is None
        with pytest.raises(rt.errors.InvalidArgumentError, match=r"\(None, 3\).*\(4, 5\)"):
            rt.matmul(a, rt.ones([4, 5]))


# -- reductions ------------------------------------------------------------------------------

X3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
REDUCTIONS = [
    (rt.reduce_sum, np.sum), (rt.reduce_mean, np.mean), (rt.reduce_max, np.max),
    (rt.reduce_min, np.min), (rt.reduce_prod, lambda x, **k: np.prod(x * 0.1, **k)),
]
AXES = [None, 0, 1, -1, (0, 2), [1, -1]]


@pytest.mark.parametrize("op,ref", REDUCTIONS, ids=lambda v: getattr(v, "__name__", None))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(op, ref, axis, keepdims):
    x = X3 * 0.1 if op is rt.reduce_prod else X3
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = np.asarray(ref(X3, axis=np_axis, keepdims=keepdims), dtype=np.float32)
    fn = lambda t: op(t, axis=axis, keepdims=keepdims)  # noqa: E731
    eager = check_eager_and_staged(fn, x, unknown=True)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("op,ref", [(rt.reduce_any, np.any), (rt.reduce_all, np.all)])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_bool_reductions(op, ref, axis):
    check_eager_and_staged(lambda t: op(t, axis=axis), B, expected=ref(B, axis=axis),
                           unknown=True)


def test_integer_reductions_keep_dtype():
    assert_same(rt.reduce_sum(I).numpy(), np.int32(I.sum()))
    assert_same(rt.reduce_mean(rt.constant([1, 2])).numpy(), np.int32(1))  # truncated
    assert_same(rt.reduce_prod(I, 1).numpy(), np.prod(I, 1).astype(np.int32))


def test_reduction_axis_given_as_tensor():
    assert_same(rt.reduce_sum(I, rt.constant(1)).numpy(), I.sum(1).astype(np.int32))


def test_reduction_bad_axis():
    with pytest.raises(rt.errors.InvalidArgumentError, match="axis 3 .* rank 2"):
        rt.reduce_sum(I, 3)
    with pytest.raises(rt.errors.InvalidArgumentError, match="bool"):
        rt.reduce_any(I)


@pytest.mark.parametrize("op,ref", [(rt.argmax, np.argmax), (rt.argmin, np.argmin)])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_argmax_argmin(op, ref, axis):
    expected = ref(F, axis=0 if axis is None else axis).astype(np.int64)
    check_eager_and_staged(lambda t: op(t, axis=axis), F, expected=expected, unknown=True)
    out = op(F, axis=axis, output_type=rt.int32)
    assert out.dtype is rt.int32


@pytest.mark.parametrize("op", [rt.argmax, rt.argmin])
def test_argmax_bad_axis(op):
    with pytest.raises(rt.errors.InvalidArgumentError, match="axis"):
        op(rt.constant([1, 3, 2]), 3)


# -- where, cast -------------------------------------------------------------------------------

def test_where_select():
    check_eager_and_staged(rt.where, B, F, np.float32(0), expected=np.where(B, F, np.float32(0)),
                           unknown=True)
    out = rt.where(rt.constant([True, False]), 1, 2)
    assert out.dtype is rt.int32
    assert_same(out.numpy(), np.array([1, 2], np.int32))


def test_where_indices():
    out = rt.where(rt.constant(B))
    assert out.dtype is rt.int64
    assert_same(out.numpy(), np.argwhere(B).astype(np.int64))
    result, sym = staged(rt.where, B, shapes=[[None, 3]])
    assert sym.shape == rt.TensorShape([None, 2])
    assert_same(result.numpy(), np.argwhere(B).astype(np.int64))


def test_where_errors():
    with pytest.raises(rt.errors.InvalidArgumentError, match="bool condition"):
        rt.where(rt.constant([1, 0]), 1, 2)
    with pytest.raises(rt.errors.DTypeMismatchError, match="int32 and float32"):
        rt.where(rt.constant([True]), rt.constant([1]), rt.constant([1.0]))
    with pytest.raises(ValueError, match="both x and y"):
        rt.where(rt.constant([True]), 1)


CASTS = [
    (np.array([1.7, -1.7, 0.2], np.float32), rt.int32),
    (np.array([1, 0, 3], np.int32), rt.bool),
    (np.array([True, False]), rt.float32),
    (np.array([1, 2], np.int32), rt.float64),
    (np.array([1.5, 2.25], np.float64), rt.float16),
]


@pytest.mark.parametrize("x,dtype", CASTS, ids=lambda v: getattr(v, "name", None))
def test_cast(x, dtype):
    out = check_eager_and_staged(lambda t: rt.cast(t, dtype), x, expected=x.astype(dtype.np_dtype),
                                 unknown=True)
    assert out.dtype is dtype


def test_cast_to_same_dtype_is_identity_and_strings_are_rejected():
    t = rt.constant([1, 2])
    assert rt.cast(t, rt.int32) is t
    with pytest.raises(rt.errors.InvalidArgumentError, match="string"):
        rt.cast(rt.constant(["1"]), rt.int32)


DTYPE_CASES = [
    ("add", lambda a, b: a + b, lambda a, b: a + b),
    ("mul", lambda a, b: a * b, lambda a, b: a * b),
    ("maximum", rt.maximum, np.maximum),
    ("floordiv", lambda a, b: a // b, lambda a, b: a // b),
    ("mod", lambda a, b: a % b, lambda a, b: a % b),
    ("reduce", lambda a, b: rt.reduce_sum(a) + rt.reduce_max(b),
     lambda a, b: np.sum(a, dtype=a.dtype) + np.max(b)),
    ("square", lambda a, b: rt.square(a) - b, lambda a, b: np.square(a) - b),
    ("where", lambda a, b: rt.where(a > b, a, b), lambda a, b: np.where(a > b, a, b)),
]


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.uint8, rt.float16, rt.float32,
                                   rt.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("name,fn,ref", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_ops_keep_every_numeric_dtype(dtype, name, fn, ref):
    a = np.array([3, 1, 4, 1, 5], dtype=dtype.np_dtype)
    b = np.array([2, 7, 1, 8, 2], dtype=dtype.np_dtype)
    with np.errstate(all="ignore"):  # uint8 wraps around, as in TensorFlow
        expected = np.asarray(ref(a, b))
    eager = check_eager_and_staged(fn, a, b, unknown=True)
    assert eager.dtype is dtype
    np.testing.assert_allclose(eager.numpy().astype(np.float64), expected.astype(np.float64),
                               rtol=1e-3)
