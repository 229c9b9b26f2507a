"""rt.nn.embedding_lookup, conv1d, conv2d_transpose and depthwise_conv2d against numpy and
jax.lax.conv_general_dilated, every way (tests/agreement.py), with gradients against JAX."""
import numpy as np
import pytest

import runtime as rt
from tests.agreement import agree

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", False)

R = np.random.RandomState(0)


def _f32(*shape):
    return R.randn(*shape).astype(np.float32)


def _ref_conv(x, w, strides, padding, dilations=(1, 1), groups=1):
    return np.asarray(lax.conv_general_dilated(
        jnp.asarray(x), jnp.asarray(w), strides, padding, rhs_dilation=dilations,
        dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=groups,
        precision=lax.Precision.HIGHEST))


# -- embedding_lookup ---------------------------------------------------------------------------

def test_embedding_lookup_matches_numpy_every_way():
    params = _f32(6, 3)
    ids = np.array([[0, 5], [2, 2]], np.int32)
    np.testing.assert_allclose(rt.nn.embedding_lookup(params, ids).numpy(), params[ids])
    agree(lambda p, i: rt.nn.embedding_lookup(p, i), (params, ids))


def test_embedding_lookup_max_norm_is_clip_by_norm():
    params = _f32(5, 4) * 3
    params[1] = 0.0
    ids = np.array([1, 0, 4, 0], np.int32)
    rows = params[ids]
    norm = np.sqrt((rows ** 2).sum(-1, keepdims=True))
    want = rows * 1.5 / np.maximum(norm, 1.5)
    got = rt.nn.embedding_lookup(params, ids, max_norm=1.5).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    agree(lambda p, i: rt.nn.embedding_lookup(p, i, max_norm=1.5), (params, ids))


def test_embedding_lookup_sharded_mod_and_bad_id():
    a, b = _f32(3, 2), _f32(3, 2)
    full = np.stack([a, b], 1).reshape(6, 2)   # id i -> shard i % 2, row i // 2
    ids = np.array([0, 1, 4, 5], np.int32)
    np.testing.assert_array_equal(rt.nn.embedding_lookup([a, b], ids).numpy(), full[ids])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.nn.embedding_lookup(a, np.array([3], np.int32))


def test_embedding_lookup_gradient_scatters_back():
    params = rt.Variable(_f32(4, 2))
    ids = rt.constant([1, 1, 3])
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(rt.nn.embedding_lookup(params, ids) * rt.constant([[1.0, 2.0]]))
    g = rt.convert_to_tensor(tape.gradient(y, params)).numpy()
    want = np.zeros((4, 2), np.float32)
    np.add.at(want, [1, 1, 3], [[1.0, 2.0]] * 3)
    np.testing.assert_allclose(g, want)


# -- conv1d ----------------------------------------------------------------------------------

@pytest.mark.parametrize("stride,padding,dilation", [(1, "VALID", 1), (2, "SAME", 1),
                                                     (1, "SAME", 2)])
def test_conv1d_matches_lax(stride, padding, dilation):
    x, w = _f32(2, 9, 3), _f32(3, 3, 4)
    want = _ref_conv(x[:, None], w[None], (1, stride), padding, (1, dilation))[:, 0]
    got = rt.nn.conv1d(x, w, stride, padding, dilations=dilation).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # (the filters are a constant: agree's variants cut leading dimensions, and a filter of
    # width 0 is not what this tests)
    # onnxruntime refuses conv2d's SAME padding (auto_pad) with dilation > 1: a limit of
    # conv2d's ONNX rule, not of conv1d
    agree(lambda x: rt.nn.conv1d(x, w, stride, padding, dilations=dilation), (x,), rtol=1e-4,
          onnx="skip" if dilation > 1 and padding == "SAME" else "optional")


def test_conv1d_ncw_and_gradient():
    x, w = _f32(2, 7, 3), _f32(2, 3, 2)
    nwc = rt.nn.conv1d(x, w, 1, "SAME").numpy()
    ncw = rt.nn.conv1d(np.transpose(x, [0, 2, 1]), w, 1, "SAME", data_format="NCW").numpy()
    np.testing.assert_allclose(np.transpose(ncw, [0, 2, 1]), nwc, rtol=1e-5)
    xt, wt = rt.constant(x), rt.constant(w)
    with rt.GradientTape() as tape:
        tape.watch([xt, wt])
        y = rt.reduce_sum(rt.square(rt.nn.conv1d(xt, wt, 2, "SAME")))
    gx, gw = tape.gradient(y, [xt, wt])
    f = lambda x, w: jnp.sum(jnp.square(lax.conv_general_dilated(  # noqa: E731
        x[:, None], w[None], (1, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        precision=lax.Precision.HIGHEST)))
    jx, jw = jax.grad(f, (0, 1))(x, w)
    np.testing.assert_allclose(gx.numpy(), jx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.numpy(), jw, rtol=1e-4, atol=1e-4)


# -- conv2d_transpose ---------------------------------------------------------------------------

@pytest.mark.parametrize("strides,padding", [(1, "VALID"), (2, "SAME"), (2, "VALID")])
def test_conv2d_transpose_is_the_vjp_of_conv2d(strides, padding):
    out_hw = (7, 6)
    w = _f32(3, 3, 2, 4)        # [h, w, out_channels, in_channels]
    x_shape = (2, *out_hw, 2)
    y0 = _ref_conv(np.zeros(x_shape, np.float32), w, (strides, strides), padding)
    g = _f32(*y0.shape)
    _, vjp = jax.vjp(lambda x: lax.conv_general_dilated(
        x, jnp.asarray(w), (strides, strides), padding,
        dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=lax.Precision.HIGHEST),
        jnp.zeros(x_shape, jnp.float32))
    want = np.asarray(vjp(jnp.asarray(g))[0])
    got = rt.nn.conv2d_transpose(g, w, list(x_shape), strides, padding).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    def fn(g):
        shape = rt.stack([rt.shape(g)[0], out_hw[0], out_hw[1], 2])
        return rt.nn.conv2d_transpose(g, w, shape, strides, padding)
    agree(fn, (g,), rtol=1e-4)


def test_conv2d_transpose_checks_output_shape_and_grads():
    with pytest.raises(ValueError, match="output_shape"):
        rt.nn.conv2d_transpose(rt.ones([1, 2, 2, 1]), rt.ones([2, 2, 1, 1]), [1, 5, 5, 1], 1,
                               "VALID")
    g, w = rt.constant(_f32(1, 3, 3, 2)), rt.constant(_f32(2, 2, 3, 2))
    with rt.GradientTape() as tape:
        tape.watch([g, w])
        y = rt.reduce_sum(rt.square(rt.nn.conv2d_transpose(g, w, [1, 4, 4, 3], 1, "VALID")))
    gg, gw = tape.gradient(y, [g, w])

    def f(g, w):
        _, vjp = jax.vjp(lambda x: lax.conv_general_dilated(
            x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"),
            precision=lax.Precision.HIGHEST), jnp.zeros((1, 4, 4, 3), w.dtype))
        return jnp.sum(jnp.square(vjp(g)[0]))
    jg, jw = jax.grad(f, (0, 1))(g.numpy(), w.numpy())
    np.testing.assert_allclose(gg.numpy(), jg, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.numpy(), jw, rtol=1e-4, atol=1e-4)


# -- depthwise_conv2d ---------------------------------------------------------------------------

@pytest.mark.parametrize("strides,padding,mult", [([1, 1, 1, 1], "VALID", 1),
                                                  ([1, 2, 2, 1], "SAME", 2)])
def test_depthwise_conv2d_matches_grouped_lax(strides, padding, mult):
    x, w = _f32(2, 6, 5, 3), _f32(3, 2, 3, mult)
    want = _ref_conv(x, w.reshape(3, 2, 1, 3 * mult), tuple(strides[1:3]), padding, groups=3)
    got = rt.nn.depthwise_conv2d(x, w, strides, padding).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    agree(lambda x: rt.nn.depthwise_conv2d(x, w, strides, padding), (x,), rtol=1e-4)


def test_depthwise_conv2d_gradient_matches_jax():
    x, w = _f32(1, 5, 5, 2), _f32(2, 2, 2, 2)
    xt, wt = rt.constant(x), rt.constant(w)
    with rt.GradientTape() as tape:
        tape.watch([xt, wt])
        y = rt.reduce_sum(rt.square(rt.nn.depthwise_conv2d(xt, wt, [1, 1, 1, 1], "SAME")))
    gx, gw = tape.gradient(y, [xt, wt])
    f = lambda x, w: jnp.sum(jnp.square(lax.conv_general_dilated(  # noqa: E731
        x, w.reshape(2, 2, 1, 4), (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=2, precision=lax.Precision.HIGHEST)))
    jx, jw = jax.grad(f, (0, 1))(x, w)
    np.testing.assert_allclose(gx.numpy(), jx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.numpy(), jw, rtol=1e-4, atol=1e-4)
