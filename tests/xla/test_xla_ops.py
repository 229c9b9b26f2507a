"""Every op family on the XLA backend against the numpy backend: same dtypes, same values
(transcendental functions to float rounding: XLA has its own approximations)."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import numpy as np

import runtime as rt
from runtime.backends.xla import analysis as jax_analysis, backend as jax_backend
from runtime.errors import InvalidArgumentError
from runtime.ops import registry
from xla_helpers import compare_fn

F = np.array([[-2.5, -1.0, 0.0], [0.5, 1.5, 3.25]], np.float32)
I = np.array([[-7, -3, 0], [2, 5, 9]], np.int32)
POS = np.array([[0.5, 1.0, 2.0], [3.0, 4.5, 9.0]], np.float32)


def test_every_registered_op_lowers_or_says_why_not():
    assert jax_analysis.check_table_covers(registry()) == []


@pytest.mark.parametrize("name", ["negative", "abs", "sign", "square"])
@pytest.mark.parametrize("x", [F, I, F.astype(np.float64), I.astype(np.int64)])
def test_exact_unary(name, x):
    compare_fn(getattr(rt, name), x)


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "tanh", "sigmoid", "sin", "cos"])
def test_transcendental_unary(name):
    fn = getattr(rt, name) if hasattr(rt, name) else getattr(rt.math, name)
    compare_fn(fn, POS, exact=False, rtol=1e-6)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "equal",
                                  "not_equal", "less", "less_equal", "greater",
                                  "greater_equal", "floordiv", "mod", "divide"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_binary(name, dtype):
    x = np.array([[-7, -3, 0], [2, 5, 9], [7, -7, 1]]).astype(dtype)
    y = np.array([[2, -2, 3], [-4, 5, 7], [-3, 3, -1]]).astype(dtype)
    fn = {"floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b}.get(
        name, getattr(rt, name, None) or getattr(rt.math, name))
    # XLA on a GPU divides float32 within an ulp or two, not correctly rounded
    gpu_float_division = (name == "divide" and dtype == np.float32
                          and jax_backend.jax.default_backend() == "gpu")
    compare_fn(fn, x, y, exact=not gpu_float_division)


def test_pow_and_logic():
    compare_fn(lambda a, b: a ** b, I, np.array([[2, 3, 1], [0, 2, 1]], np.int32))
    compare_fn(lambda a, b: rt.pow(a, b), POS, F, exact=False)
    b1 = np.array([True, False, True])
    b2 = np.array([True, True, False])
    compare_fn(rt.logical_and, b1, b2)
    compare_fn(rt.logical_or, b1, b2)
    compare_fn(rt.logical_not, b1)


def test_integer_division_by_zero_raises_as_on_numpy():
    for fn in (lambda a, b: a // b, lambda a, b: a % b):
        with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
            compare_fn(fn, I, np.array([[1, 0, 2], [3, 4, 5]], np.int32))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_matmul_cast_where(dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    b = np.arange(12).reshape(3, 4).astype(dtype) - 5
    compare_fn(rt.matmul, a, b, exact=dtype != np.float32)
    compare_fn(lambda a, b: rt.matmul(a, b, transpose_a=True, transpose_b=True), a.T.copy(),
               b.T.copy(), exact=dtype != np.float32)
    compare_fn(lambda a: rt.cast(a, rt.int8), a)
    compare_fn(lambda a: rt.cast(a, rt.bool), a)
    compare_fn(lambda a: rt.cast(a, rt.float64), a)
    compare_fn(lambda a, b: rt.where(a > 2, a, b), a, a * 0 - 1)


def test_products_ask_for_full_float32_precision():
    """Matmuls, einsums and convolutions lower with Precision.HIGHEST: a GPU would
    otherwise multiply float32 in TF32 (about 3 digits), far from the numpy backend."""
    from jax import lax

    def f(a, b, x, w):
        return (rt.matmul(a, b), rt.einsum("ij,jk->ik", a, b),
                rt.nn.conv2d(x, w, strides=1, padding="SAME"))

    args = [np.ones((2, 3), np.float32), np.ones((3, 4), np.float32),
            np.ones((1, 4, 4, 2), np.float32), np.ones((3, 3, 2, 2), np.float32)]
    cf = rt.function(f, jit_compile=True).get_concrete_function(
        *[rt.TensorSpec(a.shape, rt.float32) for a in args])
    plan = jax_backend.JaxBackend().compile(cf.graph, list(cf.inputs), list(cf.outputs))

    def eqns(jaxpr):  # with those of the nested jaxprs
        for e in jaxpr.eqns:
            yield e
            inner = e.params.get("jaxpr")
            if inner is not None:
                yield from eqns(getattr(inner, "jaxpr", inner))

    found = list(eqns(plan.jitted.trace(*args).jaxpr.jaxpr))  # (not nested in another jit)
    products = [e for e in found if e.primitive.name in ("dot_general", "conv_general_dilated")]
    assert len(products) == 3, [e.primitive.name for e in found]
    for e in products:
        assert e.params["precision"] in (lax.Precision.HIGHEST,
                                         (lax.Precision.HIGHEST, lax.Precision.HIGHEST)), e


def test_casts_from_float():
    compare_fn(lambda a: rt.cast(a, rt.int32), F)
    compare_fn(lambda a: rt.cast(a, rt.int64), F * 3)


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                  "reduce_prod"])
@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1], -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("x", [F, I])
def test_reductions(name, axis, keepdims, x):
    compare_fn(lambda t: getattr(rt, name)(t, axis=axis, keepdims=keepdims), x,
               exact=x.dtype.kind != "f" or name not in ("reduce_mean",), rtol=1e-6)


def test_bool_reductions_and_args():
    b = np.array([[True, False, True], [True, True, True]])
    for axis in (None, 0, 1):
        compare_fn(lambda t: rt.reduce_any(t, axis=axis), b)
        compare_fn(lambda t: rt.reduce_all(t, axis=axis, keepdims=True), b)
    for axis in (0, 1):
        compare_fn(lambda t: rt.argmax(t, axis=axis), F)
        compare_fn(lambda t: rt.argmin(t, axis=axis, output_type=rt.int32), I)


def test_empty_reductions():
    e = np.zeros((0, 3), np.float32)
    compare_fn(lambda t: rt.reduce_max(t, axis=0), e)
    compare_fn(lambda t: rt.reduce_min(t), e.astype(np.int32))
    compare_fn(lambda t: rt.reduce_mean(t, axis=0), e)


def test_layout_ops():
    x = np.arange(24).reshape(2, 3, 4).astype(np.float32)
    compare_fn(lambda t: rt.reshape(t, [4, -1]), x)
    compare_fn(lambda t: rt.transpose(t, [2, 0, 1]), x)
    compare_fn(lambda t: rt.transpose(t), x)
    compare_fn(lambda t: rt.expand_dims(t, 1), x)
    compare_fn(lambda t: rt.squeeze(rt.expand_dims(t, 0)), x)
    compare_fn(lambda t: rt.concat([t, t * 2], axis=1), x)
    compare_fn(lambda t: rt.stack([t, t + 1], axis=-1), x)
    compare_fn(lambda t: rt.unstack(t, axis=1), x)
    compare_fn(lambda t: rt.gather(t, [2, 0, 1, 1], axis=2), x)
    compare_fn(lambda t: rt.gather(t, [[1, 0], [0, 1]]), x)
    compare_fn(lambda t: rt.shape(t), x, shapes=[[None, 3, None]])
    compare_fn(lambda t: rt.size(t), x, shapes=[[None, 3, None]])
    compare_fn(lambda t: rt.rank(t), x, shapes=[None])
    compare_fn(lambda t: rt.reshape(t, rt.shape(t)[::-1]), x, shapes=[[None, 3, 4]])


def test_slicing():
    x = np.arange(60).reshape(3, 4, 5).astype(np.int32)
    for fn in (lambda t: t[1], lambda t: t[-1, 1:3], lambda t: t[..., ::-2],
               lambda t: t[:, None, 2, 1:], lambda t: t[::2, ..., 3]):
        compare_fn(fn, x)
    compare_fn(lambda t, i: t[i, 1:3], x, np.int32(-2))
    compare_fn(lambda t, i: t[1, i], x, np.int32(3))
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        compare_fn(lambda t, i: t[i], x, np.int32(3))


def test_gather_out_of_range_raises():
    x = np.arange(5).astype(np.float32)
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 5\)"):
        compare_fn(rt.gather, x, np.array([1, 7], np.int32))


def test_pad():
    x = np.arange(12).reshape(3, 4).astype(np.float32)
    p = [[1, 2], [0, 1]]
    compare_fn(lambda t: rt.pad(t, p), x)
    compare_fn(lambda t: rt.pad(t, p, constant_values=-1.5), x)
    compare_fn(lambda t: rt.pad(t, p, mode="REFLECT"), x)
    compare_fn(lambda t: rt.pad(t, p, mode="symmetric"), x)


def test_makers():
    x = np.arange(6).reshape(2, 3).astype(np.float32)
    compare_fn(lambda t: rt.zeros_like(t) + rt.ones_like(t), x)
    compare_fn(lambda t: rt.fill([2, 3], 7.0) * t, x)
    compare_fn(lambda t: rt.fill(rt.shape(t), 2.0) * t, x, shapes=[[None, 3]])
    compare_fn(lambda t: rt.eye(2, 3) + t, x)
    compare_fn(lambda t: rt.range(0, 6, 2, dtype=rt.float32) + t[0, 0], x)
    compare_fn(lambda t: rt.zeros([2, 3], rt.int64), x)


def test_gradient_ops():
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    idx = np.array([2, 0, 2], np.int32)

    def grads(t, i):
        with rt.GradientTape() as tape:
            tape.watch(t)
            y = (rt.reduce_sum(rt.gather(t, i, axis=1) * rt.pad(t, [[1, 1], [2, 0]])[1:3, 2:])
                 + rt.reduce_sum(rt.reduce_prod(t, axis=0))
                 + rt.reduce_sum(t[:, 1:] @ rt.transpose(t[:, :2]))
                 + rt.reduce_mean(rt.pad(t, [[1, 0], [1, 1]], mode="REFLECT")))
        return tape.gradient(y, t)
    compare_fn(grads, x, idx, exact=False)
