"""The elementwise, cumulative and sampling ops and the introspection utilities: floor, ceil,
round, rsqrt, log1p, softplus, clip_by_value, reduce_variance/std, cumsum/cumprod,
is_tensor, executing_eagerly, get_static_value, ensure_shape, rt.random.shuffle/categorical.
Against numpy, eager against staged (rt.function on the numpy backend), TensorFlow's
placement of the names, bad input, saving and ONNX export. (XLA:
tests/xla/test_xla_elementwise_ops.py; gradients:
tests/gradients/test_grad_elementwise_ops.py.)"""
import numpy as np
import pytest

import runtime as rt

X = np.array([[-2.5, -1.5, -0.5, 0.0], [0.5, 1.5, 2.5, 3.7]], np.float32)
POS = np.array([[0.25, 1.0, 4.0], [1e-3, 9.0, 100.0]], np.float32)


def _staged(fn, *arrays):
    """fn traced by rt.function with unknown dimensions, run on `arrays`."""
    specs = [rt.TensorSpec([None] * np.ndim(a), rt.as_dtype(np.asarray(a).dtype)) for a in arrays]
    one, two = (lambda a: fn(a)), (lambda a, b: fn(a, b))
    f = rt.function(one if len(arrays) == 1 else two, input_signature=specs)
    return f(*[rt.constant(a) for a in arrays])


def _both(fn, *arrays):
    eager = fn(*[rt.constant(a) for a in arrays])
    staged = _staged(fn, *arrays)
    np.testing.assert_array_equal(eager.numpy(), staged.numpy())
    assert eager.dtype is staged.dtype
    return eager


UNARY = [
    (rt.floor, np.floor, X), (rt.math.floor, np.floor, X), (rt.math.ceil, np.ceil, X),
    (rt.round, np.round, X), (rt.math.round, np.round, X),
    (rt.math.rsqrt, lambda a: 1 / np.sqrt(a), POS),
    (rt.math.log1p, np.log1p, np.abs(X)),
    (rt.math.softplus, lambda a: np.logaddexp(a, np.float32(0)), X),
]


@pytest.mark.parametrize("fn,ref,x", UNARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_against_numpy_eager_and_staged(fn, ref, x, dtype):
    x = x.astype(dtype)
    got = _both(fn, x)
    assert got.dtype is rt.as_dtype(dtype) and got.shape == rt.TensorShape(x.shape)
    np.testing.assert_allclose(got.numpy(), ref(x), rtol=1e-6 if dtype == np.float32 else 1e-15)


def test_round_is_bankers_rounding_and_keeps_integers():
    assert rt.round([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999]).numpy().tolist() == \
        [0.0, 2.0, 2.0, -0.0, -2.0, 2.0]
    got = rt.round(rt.constant([3, -4]))
    assert got.dtype is rt.int32 and got.numpy().tolist() == [3, -4]


def test_log1p_and_softplus_are_accurate_where_the_naive_forms_are_not():
    assert rt.math.log1p(rt.constant([1e-10], rt.float32)).numpy()[0] == np.float32(1e-10)
    sp = rt.math.softplus(rt.constant([-100.0, 0.0, 100.0, 1000.0], rt.float64)).numpy()
    np.testing.assert_allclose(sp, [np.exp(-100.0), np.log(2.0), 100.0, 1000.0], rtol=1e-6)
    assert np.all(np.isfinite(sp))


def test_names_are_where_tensorflow_has_them():
    for name in ("clip_by_value", "round", "floor", "cumsum", "ensure_shape", "is_tensor",
                 "executing_eagerly", "get_static_value"):
        assert hasattr(rt, name), name
    for name in ("floor", "ceil", "round", "rsqrt", "log1p", "softplus", "reduce_std",
                 "reduce_variance", "cumsum", "cumprod"):
        assert hasattr(rt.math, name), name
    for name in ("ceil", "rsqrt", "log1p", "cumprod", "reduce_std", "reduce_variance"):
        assert not hasattr(rt, name), name  # tf.math only, as in TensorFlow 2
    assert hasattr(rt.random, "shuffle") and hasattr(rt.random, "categorical")


@pytest.mark.parametrize("fn", [rt.floor, rt.math.ceil, rt.math.rsqrt, rt.math.log1p,
                                rt.math.softplus])
def test_float_only_ops_refuse_integers(fn):
    with pytest.raises(rt.errors.InvalidArgumentError, match="int32"):
        fn(rt.constant([1, 2]))


# -- clip_by_value -----------------------------------------------------------------------

def test_clip_by_value():
    got = _both(lambda x: rt.clip_by_value(x, -1.0, 2.0), X)
    np.testing.assert_array_equal(got.numpy(), np.clip(X, -1.0, 2.0))
    lo, hi = np.array([-1.0, 0.0, 0.0, -5.0], np.float32), np.float32(1.0)
    got = _both(lambda x, a: rt.clip_by_value(x, a, hi), X, lo)
    np.testing.assert_array_equal(got.numpy(), np.minimum(np.maximum(X, lo), hi))
    ints = rt.clip_by_value(rt.constant([-3, 0, 7]), 0, 5)
    assert ints.dtype is rt.int32 and ints.numpy().tolist() == [0, 0, 5]


def test_clip_by_value_bad_input():
    with pytest.raises(ValueError, match="shape"):  # the bounds would broadcast t
        rt.clip_by_value(rt.constant([1.0, 2.0]), rt.constant([[0.0], [1.0]]), 3.0)
    with pytest.raises(TypeError):
        rt.clip_by_value(rt.constant([1, 2]), 0.5, 3)
    with pytest.raises(TypeError):
        rt.clip_by_value(rt.constant([1.0]), rt.constant(0.0, rt.float64), 1.0)


# -- reduce_variance, reduce_std ---------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_variance_and_std(axis, keepdims):
    x = (X * 1.3 + 0.2).astype(np.float64)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    var = _both(lambda t: rt.math.reduce_variance(t, axis=axis, keepdims=keepdims), x)
    std = _both(lambda t: rt.math.reduce_std(t, axis=axis, keepdims=keepdims), x)
    np.testing.assert_allclose(var.numpy(), np.var(x, axis=np_axis, keepdims=keepdims), rtol=1e-12)
    np.testing.assert_allclose(std.numpy(), np.std(x, axis=np_axis, keepdims=keepdims), rtol=1e-12)


def test_variance_refuses_integers_as_tensorflow():
    with pytest.raises(TypeError, match="int32"):
        rt.math.reduce_variance(rt.constant([1, 2, 3]))
    with pytest.raises(TypeError, match="int32"):
        rt.math.reduce_std(rt.constant([1, 2, 3]))


# -- cumsum, cumprod ---------------------------------------------------------------------

def _np_scan(fn, identity, x, axis, exclusive, reverse):
    x = np.flip(x, axis) if reverse else x
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.moveaxis(out, axis, 0)
        out = np.concatenate([np.full((1,) + out.shape[1:], identity, x.dtype), out[:-1]])
        out = np.moveaxis(out, 0, axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_cumsum_and_cumprod(exclusive, reverse, axis, dtype):
    x = np.array([[1, 2, 3, 4], [5, -6, 7, 2]]).astype(dtype)
    for public, fn, identity in ((rt.cumsum, np.cumsum, 0), (rt.math.cumsum, np.cumsum, 0),
                                 (rt.math.cumprod, np.cumprod, 1)):
        got = _both(lambda t: public(t, axis=axis, exclusive=exclusive, reverse=reverse), x)
        assert got.dtype is rt.as_dtype(dtype)
        np.testing.assert_array_equal(got.numpy(), _np_scan(fn, identity, x, axis, exclusive,
                                                            reverse))


def test_cumsum_documented_examples_and_axis_as_a_tensor():
    assert rt.cumsum([1, 2, 3]).numpy().tolist() == [1, 3, 6]
    assert rt.cumsum([1, 2, 3], exclusive=True).numpy().tolist() == [0, 1, 3]
    assert rt.cumsum([1, 2, 3], reverse=True).numpy().tolist() == [6, 5, 3]
    assert rt.cumsum([1, 2, 3], exclusive=True, reverse=True).numpy().tolist() == [5, 3, 0]
    assert rt.math.cumprod([2, 3, 4], exclusive=True).numpy().tolist() == [1, 2, 6]
    assert rt.cumsum([[1, 2], [3, 4]], axis=rt.constant(1)).numpy().tolist() == [[1, 3], [3, 7]]
    assert rt.cumsum(np.zeros((0, 2), np.float32), exclusive=True).shape == rt.TensorShape([0, 2])


def test_cumsum_bad_input():
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"range \[-2, 2\), but got 2"):
        rt.cumsum(rt.constant([[1.0]]), axis=2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="scalar"):
        rt.cumsum(rt.constant(1.0))
    with pytest.raises(rt.errors.InvalidArgumentError, match="bool"):
        rt.cumsum(rt.constant([True]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="axis must be known"):
        rt.function(lambda x, a: rt.cumsum(x, a))(rt.constant([1.0]), rt.constant(0))


# -- is_tensor, executing_eagerly, get_static_value --------------------------------------

def test_is_tensor():
    assert rt.is_tensor(rt.constant(1.0)) and rt.is_tensor(rt.Variable(1.0))
    assert not rt.is_tensor(1.0) and not rt.is_tensor(np.ones(2)) and not rt.is_tensor([1])
    seen = []
    rt.function(lambda x: seen.append(rt.is_tensor(x)) or x)(rt.constant(1.0))
    assert seen == [True]


def test_executing_eagerly():
    assert rt.executing_eagerly()
    seen = []

    @rt.function
    def f(x):
        seen.append(rt.executing_eagerly())
        with rt.init_scope():
            seen.append(rt.executing_eagerly())
        return x

    f(rt.constant(1.0))
    g = rt.Graph()
    with g.as_default():
        seen.append(rt.executing_eagerly())
    assert seen == [False, True, False]
    assert rt.executing_eagerly()


def test_get_static_value():
    assert rt.get_static_value(rt.constant([1, 2])).tolist() == [1, 2]
    assert rt.get_static_value(3) == 3 and rt.get_static_value(rt.Variable(1.0)) is None
    seen = {}

    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32),
                                  rt.TensorSpec([4, 3], rt.float32)])
    def f(x, w):
        seen["const"] = rt.get_static_value(rt.constant(2) * 3 + 1)
        seen["arg"] = rt.get_static_value(x)
        seen["rank"] = rt.get_static_value(rt.rank(x))
        seen["dim"] = rt.get_static_value(rt.shape(w)[1] * 2)
        seen["size"] = rt.get_static_value(rt.size(w))
        seen["unknown_dim"] = rt.get_static_value(rt.shape(x)[0])
        seen["random"] = rt.get_static_value(rt.random.uniform([2]))
        seen["from_arg"] = rt.get_static_value(x * 0.0)
        seen["failing"] = rt.get_static_value(rt.constant(1) // rt.constant(0))
        return x

    f(rt.constant(np.ones((2, 3), np.float32)), rt.constant(np.ones((4, 3), np.float32)))
    assert seen["const"] == 7 and isinstance(seen["const"], np.int32)
    assert seen["rank"] == 2 and seen["dim"] == 6 and seen["size"] == 12
    for key in ("arg", "unknown_dim", "random", "from_arg", "failing"):
        assert seen[key] is None, key


# -- ensure_shape ------------------------------------------------------------------------

def test_ensure_shape_eager():
    x = rt.constant([1.0, 2.0, 3.0])
    assert rt.ensure_shape(x, [3]) is x and rt.ensure_shape(x, [None]) is x
    assert rt.ensure_shape(x, rt.TensorShape(None)) is x
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"\[3\] is not compatible"):
        rt.ensure_shape(x, [4])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.ensure_shape(x, [3, 1])


def test_ensure_shape_staged_static_and_run_time():
    shapes = []

    @rt.function(input_signature=[rt.TensorSpec([None, None], rt.float32)])
    def f(x):
        y = rt.ensure_shape(x, [None, 2])
        shapes.append(y.shape)
        return y * 2.0

    np.testing.assert_array_equal(f(rt.constant([[1.0, 2.0]])).numpy(), [[2.0, 4.0]])
    assert shapes == [rt.TensorShape([None, 2])]
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"\[1, 3\] is not compatible"):
        f(rt.constant([[1.0, 2.0, 3.0]]))

    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    def wrong(x):
        return rt.ensure_shape(x, [None, 2])

    with pytest.raises(ValueError, match="not compatible"):
        wrong.get_concrete_function()


# -- random.shuffle, random.categorical ---------------------------------------------------

def test_shuffle_permutes_rows_and_is_reproducible():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    rt.random.set_seed(7)
    a = [rt.random.shuffle(x, seed=3).numpy() for _ in range(3)]
    rt.random.set_seed(7)
    b = [rt.random.shuffle(x, seed=3).numpy() for _ in range(3)]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
        assert sorted(u[:, 0].tolist()) == x[:, 0].tolist()
        np.testing.assert_array_equal(u[:, 1], u[:, 0] + 1)  # rows move whole
    assert not all(np.array_equal(a[0], u) for u in a[1:])
    assert rt.random.shuffle(rt.constant(5.0)).numpy() == 5.0


@pytest.mark.parametrize("spec", [[10, 2], [None, 2], None])
def test_shuffle_staged_draws_anew_each_run_and_repeats_with_the_seed(spec):
    x = np.arange(20, dtype=np.int32).reshape(10, 2)
    runs = []
    for _ in range(2):
        rt.random.set_seed(11)
        sig = None if spec is None else [rt.TensorSpec(spec, rt.int32)]
        f = rt.function(lambda t: rt.random.shuffle(t), input_signature=sig)
        runs.append([f(rt.constant(x)).numpy() for _ in range(3)])
    for u, v in zip(*runs):
        np.testing.assert_array_equal(u, v)
        assert sorted(u[:, 0].tolist()) == x[:, 0].tolist()
    assert not all(np.array_equal(runs[0][0], u) for u in runs[0][1:])


def test_categorical_frequencies_and_masked_classes():
    rt.random.set_seed(1)
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    with np.errstate(divide="ignore"):
        logits = rt.constant(np.log(probs), rt.float32)  # log 0 = -inf: never drawn
    s = rt.random.categorical(logits, 4000, seed=2)
    assert s.dtype is rt.int64 and s.shape == rt.TensorShape([2, 4000])
    freq = np.stack([np.bincount(row, minlength=3) / 4000 for row in s.numpy()])
    np.testing.assert_allclose(freq, probs, atol=0.03)
    assert not np.any(s.numpy()[1] == 2)
    assert rt.random.categorical(logits, 3, dtype=rt.int32).dtype is rt.int32


def test_categorical_is_reproducible_and_staged_like_eager():
    logits = np.array([[0.0, 1.0, 2.0, -1.0]], np.float32)
    out = []
    for _ in range(2):
        rt.random.set_seed(4)
        f = rt.function(lambda l: rt.random.categorical(l, 6, seed=9))
        out.append([f(rt.constant(logits)).numpy() for _ in range(2)])
    np.testing.assert_array_equal(out[0], out[1])
    assert not np.array_equal(out[0][0], out[0][1])


def test_categorical_bad_input():
    with pytest.raises(rt.errors.InvalidArgumentError, match="matrix"):
        rt.random.categorical([0.0, 1.0], 2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="floating"):
        rt.random.categorical([[0, 1]], 2)
    with pytest.raises(ValueError, match="int32 or int64"):
        rt.random.categorical([[0.0, 1.0]], 2, dtype=rt.float32)
    with pytest.raises(rt.errors.InvalidArgumentError, match="known when the graph is built"):
        rt.function(lambda l: rt.random.categorical(l, 2),
                    input_signature=[rt.TensorSpec([None, 2], rt.float32)]).get_concrete_function()


# -- saving and ONNX ---------------------------------------------------------------------

def test_saved_and_loaded(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None, 4], rt.float32)])
    def f(x):
        y = rt.ensure_shape(x, [2, 4])
        return (rt.cumsum(rt.round(y), axis=1, exclusive=True, reverse=True)
                + rt.math.cumprod(rt.floor(y), axis=0) + rt.math.softplus(rt.math.log1p(
                    rt.abs(y))) + rt.math.ceil(y))

    rt.saved.save(f, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded.f(rt.constant(X)).numpy(), f(rt.constant(X)).numpy())


def _onnx_run(cf, *arrays):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    model = rt.onnx.export(cf)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, dict(zip(names, arrays)))


def test_onnx_export_matches():
    @rt.function(input_signature=[rt.TensorSpec([2, None], rt.float32),
                                  rt.TensorSpec([3], rt.int64)])
    def f(x, k):
        y = rt.ensure_shape(x, [2, None])
        return (rt.floor(y), rt.math.ceil(y), rt.round(y), rt.round(k),
                rt.math.log1p(rt.abs(y) * 1e-6), rt.math.softplus(y * 40.0),
                rt.cumsum(y, axis=1, exclusive=True, reverse=True), rt.cumsum(k),
                rt.clip_by_value(y, -1.0, 1.0), rt.math.reduce_std(y, axis=1),
                rt.math.rsqrt(rt.abs(y) + 1.0))

    cf = f.get_concrete_function()
    k = np.array([3, -1, 5], np.int64)
    got = _onnx_run(cf, X, k)
    want = cf(rt.constant(X), rt.constant(k))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b.numpy(), rtol=2e-6, atol=1e-30)
        assert a.dtype == b.numpy().dtype


def test_onnx_names_what_it_cannot_export():
    pytest.importorskip("onnx")

    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    def f(x):
        return rt.ensure_shape(x, [2, 3]), rt.math.cumprod(x), rt.random.shuffle(x)

    with pytest.raises(rt.onnx.ExportError) as e:
        rt.onnx.export(f.get_concrete_function())
    for what in ("EnsureShape", "Cumprod", "RandomPermutation"):
        assert what in str(e.value)
