"""rt.nn against numpy references: eager, and staged in an rt.function (numpy backend);
shape inference, TensorFlow's errors for bad input, dropout's seeding, and ONNX export of
conv2d and the pools (when onnx and onnxruntime are installed). The XLA backend:
tests/xla/test_xla_nn.py; gradients: tests/gradients/test_grad_nn.py."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import nn
from runtime.errors import InvalidArgumentError

RNG = np.random.default_rng(16)
X = np.array([[-3.0, -1.0, -0.25, 0.0], [0.5, 2.0, 6.5, 30.0]])


def _erf(a):
    return np.vectorize(math.erf)(a)


REFERENCE = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.minimum(np.maximum(x, 0), 6),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "softplus": lambda x: np.logaddexp(0, x),
    "softmax": lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(
        x - x.max(-1, keepdims=True)).sum(-1, keepdims=True),
    "log_softmax": lambda x: x - x.max(-1, keepdims=True) - np.log(np.exp(
        x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)),
}


def _both(fn, *args):
    """fn eagerly and staged in an rt.function: they must agree exactly."""
    eager = fn(*[rt.constant(a) for a in args])
    staged = rt.function(fn)(*[rt.constant(a) for a in args])
    for e, s in zip(rt.nest.flatten(eager), rt.nest.flatten(staged)):
        np.testing.assert_array_equal(e.numpy(), s.numpy())
        assert e.dtype is s.dtype and e.shape == s.shape
    return eager


@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations_match_numpy(name, dtype):
    x = X.astype(dtype)
    got = _both(getattr(rt.nn, name), x)
    assert got.dtype is rt.as_dtype(dtype)
    rtol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got.numpy(), REFERENCE[name](x.astype(np.float64)), rtol=rtol,
                               atol=1e-7 if dtype == np.float32 else 1e-15)


def test_from_runtime_import_nn_and_integer_inputs():
    assert nn is rt.nn and rt.nn.sigmoid is rt.sigmoid
    assert rt.nn.relu([-1, 2]).numpy().tolist() == [0, 2]
    assert rt.nn.relu([-1, 2]).dtype is rt.int32
    assert rt.nn.leaky_relu([-1, 2]).dtype is rt.float32  # TensorFlow casts ints to float32
    with pytest.raises(InvalidArgumentError, match="Softmax does not accept int32"):
        rt.nn.softmax([1, 2])
    with pytest.raises(InvalidArgumentError, match="Elu"):
        rt.nn.elu([1, 2])


def test_gelu_approximate_and_leaky_alpha():
    x = X.astype(np.float32)
    want = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(_both(lambda t: rt.nn.gelu(t, approximate=True), x).numpy(),
                               want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(rt.nn.leaky_relu(X, alpha=0.01).numpy(),
                               np.where(X > 0, X, 0.01 * X))


def test_stable_forms_do_not_overflow_or_lose_small_values():
    big = np.array([-1000.0, -100.0, -20.0, 0.0, 20.0, 100.0, 1000.0], np.float32)
    np.testing.assert_allclose(rt.nn.softplus(big).numpy(), np.logaddexp(0, big.astype(np.float64)),
                               rtol=1e-6, atol=1e-44)  # float32's denormals near exp(-100)
    logits = np.array([[1000.0, 0.0, -1000.0]], np.float32)
    np.testing.assert_allclose(rt.nn.softmax(logits).numpy(), [[1.0, 0.0, 0.0]])
    np.testing.assert_allclose(rt.nn.log_softmax(logits).numpy(), [[0.0, -1000.0, -2000.0]])
    z = np.ones_like(big)
    want = np.maximum(big, 0) - big * z + np.log1p(np.exp(-np.abs(big.astype(np.float64))))
    np.testing.assert_allclose(rt.nn.sigmoid_cross_entropy_with_logits(z, big).numpy(), want,
                               rtol=1e-6, atol=1e-44)


def test_softmax_axes():
    x = RNG.normal(size=(2, 3, 4))
    for axis in (0, 1, -1, 2, None):
        a = -1 if axis is None else axis
        e = np.exp(x - x.max(a, keepdims=True))
        np.testing.assert_allclose(rt.nn.softmax(x, axis=axis).numpy(), e / e.sum(a, keepdims=True),
                                   rtol=1e-13)
        np.testing.assert_allclose(rt.nn.log_softmax(x, axis=axis).numpy(),
                                   np.log(e / e.sum(a, keepdims=True)), rtol=1e-12)
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        rt.nn.softmax(1.0)


def test_cross_entropies_match_numpy():
    logits = RNG.normal(size=(5, 4))
    labels = np.array([0, 3, 1, 1, 2])
    lsm = REFERENCE["log_softmax"](logits)
    got = _both(rt.nn.sparse_softmax_cross_entropy_with_logits, labels.astype(np.int32), logits)
    np.testing.assert_allclose(got.numpy(), -lsm[np.arange(5), labels], rtol=1e-13)
    assert got.shape == rt.TensorShape([5]) and got.dtype is rt.float64
    soft = RNG.dirichlet(np.ones(4), size=5)
    got = _both(rt.nn.softmax_cross_entropy_with_logits, soft, logits)
    np.testing.assert_allclose(got.numpy(), -(soft * lsm).sum(-1), rtol=1e-13)
    got = rt.nn.softmax_cross_entropy_with_logits(soft.T, logits.T, axis=0)
    np.testing.assert_allclose(got.numpy(), -(soft * lsm).sum(-1), rtol=1e-13)
    z = RNG.uniform(size=(5, 4))
    got = _both(rt.nn.sigmoid_cross_entropy_with_logits, z, logits)
    p = 1 / (1 + np.exp(-logits))
    np.testing.assert_allclose(got.numpy(), -(z * np.log(p) + (1 - z) * np.log(1 - p)),
                               rtol=1e-12)
    # masked logits (-inf) are fine for the sparse form
    masked = np.array([[0.0, -np.inf, 1.0]])
    np.testing.assert_allclose(
        rt.nn.sparse_softmax_cross_entropy_with_logits([2], masked).numpy(),
        [np.log(1 + np.exp(-1.0))])


def test_cross_entropy_errors():
    with pytest.raises(InvalidArgumentError, match="outside the valid range of \\[0, 3\\)"):
        rt.nn.sparse_softmax_cross_entropy_with_logits([0, 3], np.zeros((2, 3)))
    f = rt.function(rt.nn.sparse_softmax_cross_entropy_with_logits)
    with pytest.raises(InvalidArgumentError, match="outside the valid range"):
        f(rt.constant([-1, 0]), rt.constant(np.zeros((2, 3))))
    with pytest.raises(ValueError, match="Rank mismatch"):
        rt.nn.sparse_softmax_cross_entropy_with_logits([[0]], np.zeros((1, 3)))
    with pytest.raises(ValueError, match="Shape mismatch"):
        rt.nn.sparse_softmax_cross_entropy_with_logits([0, 1], np.zeros((3, 3)))
    with pytest.raises(ValueError, match="int32 or int64"):
        rt.nn.sparse_softmax_cross_entropy_with_logits([0.0], np.zeros((1, 3)))
    with pytest.raises(ValueError, match="same shape"):
        rt.nn.softmax_cross_entropy_with_logits(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="same shape"):
        rt.nn.sigmoid_cross_entropy_with_logits(np.zeros(3), np.zeros(4))


def test_dropout():
    x = rt.ones([50, 40])
    assert rt.nn.dropout(x, 0.0) is x
    y = rt.nn.dropout(x, rate=0.25, seed=7).numpy()
    assert set(np.unique(y).tolist()) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.05
    rt.random.set_seed(5)
    a = rt.nn.dropout(x, 0.5, seed=1).numpy()
    rt.random.set_seed(5)
    b = rt.nn.dropout(x, 0.5, seed=1).numpy()
    np.testing.assert_array_equal(a, b)
    cols = rt.nn.dropout(x, 0.5, noise_shape=[1, 40], seed=2).numpy()
    assert np.all(cols == cols[:1])  # one decision per column
    t = rt.nn.dropout(x, rt.constant(0.5), seed=3).numpy()
    assert set(np.unique(t).tolist()) <= {0.0, 2.0}
    staged = rt.function(lambda v: rt.nn.dropout(v, 0.5, seed=4))(x).numpy()
    assert set(np.unique(staged).tolist()) <= {0.0, 2.0}
    nan = rt.nn.dropout(rt.constant([np.nan] * 64), 0.5, seed=1).numpy()
    assert np.any(nan == 0.0)  # dropped positions are 0 even for NaN (TF's where)
    with pytest.raises(ValueError, match="range \\[0, 1\\)"):
        rt.nn.dropout(x, 1.0)
    with pytest.raises(ValueError, match="floating point"):
        rt.nn.dropout(rt.constant([1, 2]), 0.5)
    g = rt.function(lambda v: rt.nn.dropout(v, 0.5),  # a mask of a run-time shape
                    input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    assert set(np.unique(g(np.ones((8, 3), np.float32)).numpy()).tolist()) <= {0.0, 2.0}


def test_l2_loss_moments_bias_add():
    x = RNG.normal(size=(3, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(_both(rt.nn.l2_loss, x).numpy(),
                               (x.astype(np.float64) ** 2).sum() / 2, rtol=1e-6)
    mean, var = _both(lambda t: rt.nn.moments(t, axes=[0, 2]), x)
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 2)), rtol=1e-5)
    np.testing.assert_allclose(var.numpy(), x.var((0, 2)), rtol=1e-5)
    mean, var = rt.nn.moments(x, axes=[1], keepdims=True)
    assert mean.shape == rt.TensorShape([3, 1, 5]) and var.shape == rt.TensorShape([3, 1, 5])
    h_mean, h_var = rt.nn.moments(x.astype(np.float16), [0])
    assert h_mean.dtype is rt.float16 and h_var.dtype is rt.float16
    b = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(_both(rt.nn.bias_add, x, b).numpy(), x + b)
    c = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(rt.nn.bias_add(x, c, data_format="NCHW").numpy(),
                                  x + c[:, None])
    with pytest.raises(ValueError, match="must match"):
        rt.nn.bias_add(x, c)
    with pytest.raises(ValueError, match="1-D"):
        rt.nn.bias_add(x, np.zeros((1, 5), np.float32))
    with pytest.raises(ValueError, match="at least 2-D"):
        rt.nn.bias_add(b, b)


# -- conv2d and pooling --------------------------------------------------------------------

def conv_reference(x, w, strides, pads, dilations):
    (sh, sw), ((pt, pb), (pl, pr)), (dh, dw) = strides, pads, dilations
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    kh, kw = w.shape[:2]
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for a in range(oh):
        for b in range(ow):
            for i in range(kh):
                for j in range(kw):
                    out[:, a, b] += xp[:, a * sh + i * dh, b * sw + j * dw] @ w[i, j]
    return out


def same_pads(n, k, s, d=1):
    out = -(-n // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


CONV = [(1, "VALID", None, (1, 1), ((0, 0), (0, 0)), (1, 1)),
        (2, "SAME", None, (2, 2), None, (1, 1)),
        ([2, 1], "SAME", [1, 2], (2, 1), None, (1, 2)),
        ([1, 3, 2, 1], [[0, 0], [2, 1], [0, 3], [0, 0]], 1, (3, 2), ((2, 1), (0, 3)), (1, 1)),
        (3, "SAME", 2, (3, 3), None, (2, 2))]


@pytest.mark.parametrize("strides,padding,dilations,s,pads,d", CONV)
def test_conv2d_matches_a_loop_reference(strides, padding, dilations, s, pads, d):
    x, w = RNG.normal(size=(2, 7, 8, 3)), RNG.normal(size=(3, 2, 3, 4))
    if pads is None:
        pads = (same_pads(7, 3, s[0], d[0]), same_pads(8, 2, s[1], d[1]))
    got = _both(lambda a, b: rt.nn.conv2d(a, b, strides, padding, dilations=dilations), x, w)
    want = conv_reference(x, w, s, pads, d)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    got32 = rt.nn.conv2d(x.astype(np.float32), w.astype(np.float32), strides, padding,
                         dilations=dilations)
    assert got32.dtype is rt.float32
    np.testing.assert_allclose(got32.numpy(), want, rtol=1e-4, atol=1e-5)
    nchw = rt.nn.conv2d(x.transpose(0, 3, 1, 2), w, strides if not isinstance(strides, list)
                        or len(strides) != 4 else [1, 1, 3, 2],
                        padding if isinstance(padding, str) else
                        [[0, 0], [0, 0], [2, 1], [0, 3]], data_format="NCHW",
                        dilations=dilations)
    np.testing.assert_allclose(nchw.numpy(), want.transpose(0, 3, 1, 2), rtol=1e-12, atol=1e-12)


def test_conv2d_shapes_and_errors():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [None, 9, None, 3])
        w = rt.placeholder(rt.float32, [3, 3, 3, 8])
        assert rt.nn.conv2d(x, w, 2, "SAME").shape == rt.TensorShape([None, 5, None, 8])
        assert rt.nn.conv2d(x, w, 1, "VALID").shape == rt.TensorShape([None, 7, None, 8])
        assert rt.nn.max_pool2d(x, 3, 2, "VALID").shape == rt.TensorShape([None, 4, None, 3])
        assert rt.nn.avg_pool2d(x, 2, 2, "SAME").shape == rt.TensorShape([None, 5, None, 3])
    f = rt.function(lambda a, b: rt.nn.conv2d(a, b, 2, "SAME"),
                    input_signature=[rt.TensorSpec([None, None, None, 2], rt.float64),
                                     rt.TensorSpec([2, 2, 2, 1], rt.float64)])
    x, w = RNG.normal(size=(1, 5, 4, 2)), RNG.normal(size=(2, 2, 2, 1))
    np.testing.assert_allclose(f(rt.constant(x), rt.constant(w)).numpy(),
                               conv_reference(x, w, (2, 2), ((0, 1), (0, 0)), (1, 1)))
    ones = np.ones((1, 4, 4, 2), np.float32)
    with pytest.raises(InvalidArgumentError, match="depth"):
        rt.nn.conv2d(ones, np.ones((2, 2, 3, 1), np.float32), 1, "VALID")
    with pytest.raises(ValueError, match="length 1, 2 or 4"):
        rt.nn.conv2d(ones, np.ones((2, 2, 2, 1), np.float32), [1, 1, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="batch and depth"):
        rt.nn.conv2d(ones, np.ones((2, 2, 2, 1), np.float32), [2, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="'SAME' or 'VALID'"):
        rt.nn.conv2d(ones, np.ones((2, 2, 2, 1), np.float32), 1, "FULL")
    # TensorFlow's (span + stride) / stride toward zero: larger by one stride is empty,
    # by two an error
    assert rt.nn.conv2d(ones, np.ones((5, 5, 2, 1), np.float32), 1, "VALID").shape[1:3] == [0, 0]
    with pytest.raises(InvalidArgumentError, match="output size would be negative"):
        rt.nn.conv2d(ones, np.ones((6, 6, 2, 1), np.float32), 1, "VALID")
    with pytest.raises(InvalidArgumentError, match="4-dimensional"):
        rt.nn.conv2d(ones[0], np.ones((2, 2, 2, 1), np.float32), 1, "VALID")
    with pytest.raises(InvalidArgumentError, match="int32"):
        rt.nn.conv2d(ones.astype(np.int32), np.ones((2, 2, 2, 1), np.int32), 1, "VALID")
    with pytest.raises(ValueError, match="data_format"):
        rt.nn.conv2d(ones, np.ones((2, 2, 2, 1), np.float32), 1, "VALID", data_format="HWC")


def pool_reference(x, k, s, padding, how):
    pads = [same_pads(x.shape[1 + i], k[i], s[i]) if padding == "SAME" else (0, 0)
            for i in range(2)]
    oh = (x.shape[1] + sum(pads[0]) - k[0]) // s[0] + 1
    ow = (x.shape[2] + sum(pads[1]) - k[1]) // s[1] + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    for a in range(oh):
        for b in range(ow):
            h0, w0 = a * s[0] - pads[0][0], b * s[1] - pads[1][0]
            win = x[:, max(h0, 0):h0 + k[0], max(w0, 0):w0 + k[1]]
            out[:, a, b] = win.max((1, 2)) if how == "max" else win.mean((1, 2))
    return out


@pytest.mark.parametrize("ksize,strides,padding,k,s", [
    (2, 2, "VALID", (2, 2), (2, 2)), (3, 2, "SAME", (3, 3), (2, 2)),
    ([2, 3], [1, 2], "SAME", (2, 3), (1, 2)), ([1, 3, 3, 1], [1, 1, 1, 1], "SAME", (3, 3), (1, 1)),
    (4, 3, "SAME", (4, 4), (3, 3))])
def test_pools_match_a_loop_reference(ksize, strides, padding, k, s):
    x = RNG.normal(size=(2, 7, 8, 3))
    for pool, how in ((rt.nn.max_pool2d, "max"), (rt.nn.avg_pool2d, "avg")):
        got = _both(lambda a: pool(a, ksize, strides, padding), x)
        np.testing.assert_allclose(got.numpy(), pool_reference(x, k, s, padding, how),
                                   rtol=1e-13)
        nchw_k, nchw_s = [[1, 1, *v[1:3]] if isinstance(v, list) and len(v) == 4 else v
                          for v in (ksize, strides)]
        nchw = pool(x.transpose(0, 3, 1, 2), nchw_k, nchw_s, padding, data_format="NCHW")
        np.testing.assert_allclose(nchw.numpy(), pool_reference(x, k, s, padding, how).transpose(
            0, 3, 1, 2), rtol=1e-13)
    ints = (x * 10).astype(np.int32)
    np.testing.assert_array_equal(rt.nn.max_pool2d(ints, ksize, strides, padding).numpy(),
                                  pool_reference(ints, k, s, padding, "max"))


def test_avg_pool_same_leaves_padding_out_of_the_count():
    got = rt.nn.avg_pool2d(np.ones((1, 3, 3, 1), np.float32), 2, 2, "SAME")
    np.testing.assert_array_equal(got.numpy(), np.ones((1, 2, 2, 1)))
    with pytest.raises(InvalidArgumentError, match="AvgPool does not accept int32"):
        rt.nn.avg_pool2d(np.ones((1, 3, 3, 1), np.int32), 2, 2, "SAME")
    with pytest.raises(ValueError, match="'SAME' or 'VALID'"):
        rt.nn.max_pool2d(np.ones((1, 3, 3, 1)), 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])


def test_onnx_export_of_conv_and_pools():
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")

    def model(x, w):
        y = rt.nn.relu(rt.nn.conv2d(x, w, 2, "SAME", dilations=1))
        z = rt.nn.conv2d(x, w, [1, 2], [[0, 0], [1, 2], [0, 1], [0, 0]], dilations=[2, 1])
        return (rt.nn.max_pool2d(y, 3, 2, "SAME"), rt.nn.avg_pool2d(y, [2, 3], 1, "SAME"),
                rt.nn.avg_pool2d(x, 2, 2, "VALID"), z, rt.nn.gelu(z), rt.nn.softmax(z))

    for spec in ([2, 9, 8, 3], [None, None, None, 3]):
        cf = rt.function(model).get_concrete_function(rt.TensorSpec(spec, rt.float32),
                                                      rt.TensorSpec([3, 2, 3, 4], rt.float32))
        proto = rt.onnx.export(cf)
        sess = ort.InferenceSession(proto.SerializeToString())
        x = RNG.normal(size=(2, 9, 8, 3)).astype(np.float32)
        w = RNG.normal(size=(3, 2, 3, 4)).astype(np.float32)
        names = [i.name for i in sess.get_inputs()]
        got = sess.run(None, dict(zip(names, [x, w])))
        want = cf(rt.constant(x), rt.constant(w))
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b.numpy(), rtol=1e-4, atol=1e-5)


def test_saved_function_with_conv_and_pools_loads_and_agrees(tmp_path):
    class Model:
        pass

    @rt.function(input_signature=[rt.TensorSpec([None, 6, 6, 2], rt.float32)])
    def f(x):
        w = rt.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 2, 2, 3))
        y = rt.nn.conv2d(x, w, [1, 2], [[0, 0], [1, 0], [0, 1], [0, 0]], dilations=[2, 1])
        return rt.nn.avg_pool2d(rt.nn.max_pool2d(rt.nn.gelu(y), 2, 1, "SAME"), 2, 2, "SAME")

    m = Model()
    m.f = f
    rt.saved.save(m, str(tmp_path))
    loaded = rt.saved.load(str(tmp_path))
    x = rt.constant(RNG.normal(size=(3, 6, 6, 2)).astype(np.float32))
    np.testing.assert_array_equal(loaded.f(x).numpy(), f(x).numpy())


def test_silu_batch_normalization_l2_normalize():
    x = RNG.normal(size=(6, 3))
    np.testing.assert_allclose(_both(rt.nn.silu, x).numpy(), x / (1 + np.exp(-x)), rtol=1e-13)
    np.testing.assert_allclose(rt.nn.swish(x, beta=2.0).numpy(), x / (1 + np.exp(-2 * x)),
                               rtol=1e-13)
    assert rt.nn.tanh is rt.tanh
    mean, var = rt.nn.moments(x, [0])
    scale, offset = np.array([1.0, 2.0, 0.5]), np.array([0.0, -1.0, 3.0])
    got = _both(lambda a, m, v: rt.nn.batch_normalization(a, m, v, offset, scale, 1e-3),
                x, mean.numpy(), var.numpy())
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3) * scale + offset
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    plain = rt.nn.batch_normalization(x, mean, var, None, None, 1e-3).numpy()
    np.testing.assert_allclose(plain, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), atol=1e-12)
    np.testing.assert_allclose(_both(lambda a: rt.nn.l2_normalize(a, axis=1), x).numpy(),
                               x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-13)
    np.testing.assert_allclose(rt.nn.l2_normalize([3.0, 4.0]).numpy(), [0.6, 0.8], rtol=1e-6)
    assert rt.nn.l2_normalize([0.0, 0.0]).numpy().tolist() == [0.0, 0.0]
