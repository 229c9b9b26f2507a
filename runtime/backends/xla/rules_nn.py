"""The XLA rules of the ops of `runtime/ops/nn_ops.py` (convolution, pooling, Erf).

Conv2D is `lax.conv_general_dilated` (NHWC / HWIO / NHWC) with the pads the numpy kernel
computes; its two gradient ops are the transposes of that linear map (`jax.vjp`). The
pools are `lax.reduce_window`; the max-pool gradients take each window's first maximum in
row-major order, as the numpy kernel does (so both backends route ties alike).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ...ops import nn_ops
from ..rule_tables import registrar

RULES: dict = {}
rule = registrar(RULES)

_DIMS = ("NHWC", "HWIO", "NHWC")


def _geo(opname, x_shape, khw, strides, dilations, padding):
    return nn_ops.geometry(opname, tuple(x_shape[1:3]), tuple(khw), strides, dilations, padding)


def _conv(x, w, strides, padding, dilations):
    geo = _geo("Conv2D", jnp.shape(x), jnp.shape(w)[:2], strides, dilations, padding)
    return lax.conv_general_dilated(
        x, w, window_strides=strides, padding=[p for _, p in geo], rhs_dilation=dilations,
        dimension_numbers=_DIMS, precision=lax.Precision.HIGHEST)


@rule(nn_ops.CONV2D)
def _conv2d(lw, op, x, w):
    return _conv(x, w, **op.attrs)


def _sizes(sizes):
    return tuple(int(d) for d in np.asarray(sizes))


@rule(nn_ops.CONV2D_BACKPROP_INPUT)
def _conv2d_backprop_input(lw, op, sizes, w, g):
    x0 = jnp.zeros(_sizes(sizes), jnp.result_type(g))
    _, vjp = jax.vjp(lambda x: _conv(x, w, **op.attrs), x0)
    return vjp(g)[0]


@rule(nn_ops.CONV2D_BACKPROP_FILTER)
def _conv2d_backprop_filter(lw, op, x, sizes, g):
    w0 = jnp.zeros(_sizes(sizes), jnp.result_type(g))
    _, vjp = jax.vjp(lambda w: _conv(x, w, **op.attrs), w0)
    return vjp(g)[0]


def _window_pads(geo):
    return ((0, 0), *[p for _, p in geo], (0, 0))


def _lowest(dtype):
    dtype = np.dtype(dtype)
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


@rule(nn_ops.MAX_POOL)
def _max_pool(lw, op, x):
    ksize, strides = op.attrs["ksize"], op.attrs["strides"]
    geo = _geo("MaxPool", jnp.shape(x), ksize, strides, nn_ops.ONE, op.attrs["padding"])
    x = jnp.asarray(x)
    return lax.reduce_window(x, np.array(_lowest(x.dtype), x.dtype), lax.max,
                             (1, *ksize, 1), (1, *strides, 1), _window_pads(geo))


def _patches(xp, ksize, strides, out_hw):
    """[(i, j, view)] for each kernel position: the (N, OH, OW, C) values it meets."""
    (sh, sw), (oh, ow) = strides, out_hw
    return [(i, j, xp[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :])
            for i in range(ksize[0]) for j in range(ksize[1])]


def _first_max(x, ksize, strides, padding, opname):
    geo = _geo(opname, jnp.shape(x), ksize, strides, nn_ops.ONE, padding)
    x = jnp.asarray(x)
    xp = jnp.pad(x, _window_pads(geo), constant_values=_lowest(x.dtype))
    stacked = jnp.stack([v for _, _, v in _patches(xp, ksize, strides, [o for o, _ in geo])],
                        axis=-1)
    return jnp.argmax(stacked, axis=-1), geo


def _scatter(parts, x_shape, ksize, strides, geo, dtype):
    """Each kernel position's (N, OH, OW, C) part added where its window values came
    from; the padding cropped."""
    n, h, w, c = x_shape
    (oh, (pt, pb)), (ow, (pl, pr)) = geo
    (sh, sw) = strides
    hp = max(h + pt + pb, ksize[0] - 1 + (oh - 1) * sh + 1)
    wp = max(w + pl + pr, ksize[1] - 1 + (ow - 1) * sw + 1)
    out = jnp.zeros((n, hp, wp, c), dtype)
    for (i, j), part in parts:
        out = out.at[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :].add(part)
    return out[:, pt:pt + h, pl:pl + w, :]


@rule(nn_ops.MAX_POOL_GRAD)
def _max_pool_grad(lw, op, x, g):
    ksize, strides = op.attrs["ksize"], op.attrs["strides"]
    g = jnp.asarray(g)
    if 0 in jnp.shape(g)[1:3]:          # a window larger than the input: no output
        return jnp.zeros(jnp.shape(x), g.dtype)
    idx, geo = _first_max(x, ksize, strides, op.attrs["padding"], "MaxPoolGrad")
    parts = [((k // ksize[1], k % ksize[1]), jnp.where(idx == k, g, jnp.zeros((), g.dtype)))
             for k in range(ksize[0] * ksize[1])]
    return _scatter(parts, jnp.shape(x), ksize, strides, geo, g.dtype)


@rule(nn_ops.MAX_POOL_GRAD_GRAD)
def _max_pool_grad_grad(lw, op, x, gg):
    ksize, strides = op.attrs["ksize"], op.attrs["strides"]
    idx, geo = _first_max(x, ksize, strides, op.attrs["padding"], "MaxPoolGradGrad")
    ggp = jnp.pad(jnp.asarray(gg), _window_pads(geo))
    stacked = jnp.stack([v for _, _, v in _patches(ggp, ksize, strides, [o for o, _ in geo])],
                        axis=-1)
    return jnp.take_along_axis(stacked, idx[..., None], axis=-1)[..., 0]


def _avg(x, ksize, strides, padding):
    geo = _geo("AvgPool", jnp.shape(x), ksize, strides, nn_ops.ONE, padding)
    x = jnp.asarray(x)
    sums = lax.reduce_window(x, np.zeros((), x.dtype), lax.add, (1, *ksize, 1),
                             (1, *strides, 1), _window_pads(geo))
    counts = nn_ops.avg_counts(tuple(jnp.shape(x)[1:3]), ksize, strides, padding)
    return sums / jnp.asarray(counts[None, :, :, None], x.dtype)


@rule(nn_ops.AVG_POOL)
def _avg_pool(lw, op, x):
    return _avg(x, **op.attrs)


@rule(nn_ops.AVG_POOL_GRAD)
def _avg_pool_grad(lw, op, sizes, g):
    x0 = jnp.zeros(_sizes(sizes), jnp.result_type(g))
    _, vjp = jax.vjp(lambda x: _avg(x, **op.attrs), x0)
    return vjp(g)[0]


@rule(nn_ops.ERF)
def _erf(lw, op, x):
    return lax.erf(jnp.asarray(x))
