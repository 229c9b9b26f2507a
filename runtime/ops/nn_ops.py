"""The ops behind `rt.nn` that cannot be composed from others without being badly slow:
2-D convolution and pooling over NHWC tensors (TensorFlow's Conv2D, MaxPool, AvgPool and
their gradient ops), and Erf (for the exact GELU).

Every op takes its geometry as attributes: `strides` and `dilations` as (height, width)
pairs, and `padding` as "SAME", "VALID" or explicit ((top, bottom), (left, right)). The
pads of SAME are TensorFlow's: the output has ceil(size / stride) positions and the extra
padding, when odd, goes after (bottom/right). They are computed from the input's size when
the op runs, so spatial sizes unknown while building work.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..core.shapes import TensorShape
from ..errors import DTypeMismatchError, InvalidArgumentError
from .core import OpDef, apply_op, constant, constant_value
from .array_ops import shape as shape_of
from .math_ops import exp, square


# -- geometry ---------------------------------------------------------------------------------

def out_and_pads(size, k, stride, dilation, padding, opname):
    """(output size, (before, after)) along one spatial dimension of input size `size`;
    `padding` is "SAME", "VALID" or a (before, after) pair."""
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, (total // 2, total - total // 2)
    before, after = (0, 0) if padding == "VALID" else padding
    span = size + before + after - eff
    # TensorFlow's (span + stride) / stride, in C++'s division toward zero: a window
    # larger than the input by less than two strides gives no output, not an error
    out = int((span + stride) / stride) if span < 0 else span // stride + 1
    if out < 0:
        raise InvalidArgumentError(
            f"{opname}: the window ({k} with dilation {dilation}) is larger than the padded "
            f"input ({size} + {before + after}) by {-span} (at least twice the stride "
            f"{stride}): computed output size would be negative")
    return out, (before, after)


def geometry(opname, hw, khw, strides, dilations, padding):
    """[(out, pads)] for height and width."""
    return [out_and_pads(hw[i], khw[i], strides[i], dilations[i],
                         padding if isinstance(padding, str) else padding[i], opname)
            for i in range(2)]


def _spatial_out(opname, shape, khw, strides, dilations, padding):
    dims = []
    for i in range(2):
        n, k = shape[1 + i], khw[i]
        if n is None or k is None:
            dims.append(None)
        else:
            dims.append(out_and_pads(n, k, strides[i], dilations[i],
                                     padding if isinstance(padding, str) else padding[i],
                                     opname)[0])
    return dims


def _check_rank4(opname, t, what):
    if t.shape.rank is not None and t.shape.rank != 4:
        raise InvalidArgumentError(f"{opname}: {what} must be 4-dimensional, got shape {t.shape}")


def _check_float(opname, t, what):
    if not t.dtype.is_floating:
        raise InvalidArgumentError(f"{opname} does not accept {t.dtype.name} {what} (it needs "
                                   "float16, float32 or float64); use rt.cast to convert first")


def _windows(xp, khw, strides, dilations, out_hw):
    """(N, OH, OW, C, KH, KW): the windows of the padded input `xp`, as a view."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = khw, strides, dilations, out_hw
    if oh == 0 or ow == 0:      # a window larger than the input: no output (out_and_pads)
        return np.empty((xp.shape[0], oh, ow, xp.shape[3], kh, kw), xp.dtype)
    v = sliding_window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(1, 2))
    return v[:, :(oh - 1) * sh + 1:sh, :(ow - 1) * sw + 1:sw, :, ::dh, ::dw]


def _no_output(geo) -> bool:
    """Whether a window larger than the input leaves no output (out_and_pads): every
    gradient of the op is then zero."""
    return geo[0][0] == 0 or geo[1][0] == 0


def _pad_hw(x, pads, value=0):
    (pt, pb), (pl, pr) = pads
    if not (pt or pb or pl or pr):
        return x
    return np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=value)


def _scatter_target(x_shape, khw, strides, dilations, geo, dtype):
    """(zeros of the padded input's shape, views(i, j)): the (N, OH, OW, C) strided view
    of it that kernel position (i, j) reads."""
    n, h, w, c = x_shape
    (oh, (pt, pb)), (ow, (pl, pr)) = geo
    (kh, kw), (sh, sw), (dh, dw) = khw, strides, dilations
    hp, wp = max(h + pt + pb, (kh - 1) * dh + (oh - 1) * sh + 1), \
        max(w + pl + pr, (kw - 1) * dw + (ow - 1) * sw + 1)
    out = np.zeros((n, hp, wp, c), dtype=dtype)

    def views(i, j):
        return out[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw, :]
    return out, views


def _crop(out, x_shape, geo):
    (_, (pt, _)), (_, (pl, _)) = geo
    return out[:, pt:pt + x_shape[1], pl:pl + x_shape[2], :]


def _scatter_windows(cols, x_shape, khw, strides, dilations, geo, dtype):
    """The adjoint of `_windows`: cols (N, OH, OW, KH, KW, C) added back into an array of
    the input's shape (N, H, W, C) (padding cropped)."""
    out, views = _scatter_target(x_shape, khw, strides, dilations, geo, dtype)
    for i in range(khw[0]):
        for j in range(khw[1]):
            views(i, j)[...] += cols[:, :, :, i, j, :]
    return _crop(out, x_shape, geo)


def _known_sizes(t):
    """The value of a shape-like int tensor when known while building, as a list."""
    v = constant_value(t)
    return None if v is None else [int(d) for d in np.asarray(v).reshape(-1)]


def _shape_tensor(x):
    return shape_of(x) if not x.shape.is_fully_defined() else constant(
        np.asarray(x.shape.as_list(), np.int32))


def _sizes_shape(opname, sizes):
    if not sizes.dtype.is_integer:
        raise InvalidArgumentError(f"{opname}: sizes must be integers, got {sizes.dtype.name}")
    known = _known_sizes(sizes)
    if known is None:
        return TensorShape([None] * 4)
    if len(known) != 4:
        raise InvalidArgumentError(f"{opname}: sizes must have 4 values, got {known}")
    return TensorShape(known)


# -- Conv2D -----------------------------------------------------------------------------------

def _conv_infer(inputs, strides, padding, dilations):
    x, w = inputs
    _check_rank4("Conv2D", x, "input")
    _check_rank4("Conv2D", w, "filters")
    if x.dtype is not w.dtype:
        raise DTypeMismatchError(f"Conv2D: input and filters have different dtypes, "
                                 f"{x.dtype.name} and {w.dtype.name}")
    _check_float("Conv2D", x, "inputs")
    xs = x.shape.as_list() if x.shape.rank is not None else [None] * 4
    ws = w.shape.as_list() if w.shape.rank is not None else [None] * 4
    if xs[3] is not None and ws[2] is not None and xs[3] != ws[2]:
        raise InvalidArgumentError(
            f"Conv2D: input depth must equal the filters' input depth: input shape {x.shape} "
            f"has depth {xs[3]}, filters shape {w.shape} has {ws[2]}")
    oh, ow = _spatial_out("Conv2D", xs, ws[:2], strides, dilations, padding)
    return [(TensorShape([xs[0], oh, ow, ws[3]]), x.dtype)]


def _conv_kernel(x, w, strides, padding, dilations):
    if x.shape[3] != w.shape[2]:
        raise InvalidArgumentError(f"Conv2D: input depth {x.shape[3]} does not match the "
                                   f"filters' input depth {w.shape[2]}")
    geo = geometry("Conv2D", x.shape[1:3], w.shape[:2], strides, dilations, padding)
    win = _windows(_pad_hw(x, [p for _, p in geo]), w.shape[:2], strides, dilations,
                   [o for o, _ in geo])
    return np.tensordot(win, w, axes=([4, 5, 3], [0, 1, 2])).astype(x.dtype, copy=False)


CONV2D = OpDef("Conv2D", _conv_infer, _conv_kernel, allocates=True,
               grad=lambda inputs, outputs, grads, **attrs: [
                   conv2d_backprop_input(inputs[0], inputs[1], grads[0], attrs),
                   conv2d_backprop_filter(inputs[0], inputs[1], grads[0], attrs)])


def _bp_input_infer(inputs, strides, padding, dilations):
    sizes, w, g = inputs
    _check_float("Conv2DBackpropInput", g, "gradients")
    return [(_sizes_shape("Conv2DBackpropInput", sizes), g.dtype)]


def _bp_input_kernel(sizes, w, g, strides, padding, dilations):
    x_shape = tuple(int(d) for d in sizes)
    geo = geometry("Conv2DBackpropInput", x_shape[1:3], w.shape[:2], strides, dilations, padding)
    if _no_output(geo):
        return np.zeros(x_shape, g.dtype)
    kh, kw = w.shape[:2]
    out, views = _scatter_target(x_shape, (kh, kw), strides, dilations, geo, g.dtype)
    g2 = g.reshape(-1, g.shape[3])
    # One (N*OH*OW, O) x (O, C) product per kernel position, added where its window values
    # came from (faster than one product whose result is then added by strided slices).
    for i in range(kh):
        for j in range(kw):
            view = views(i, j)
            view += (g2 @ w[i, j].T).reshape(view.shape)
    return _crop(out, x_shape, geo)


# Both gradient ops are linear in each operand: their gradients are the other two ops.
CONV2D_BACKPROP_INPUT = OpDef(
    "Conv2DBackpropInput", _bp_input_infer, _bp_input_kernel, allocates=True,
    grad=lambda inputs, outputs, grads, **attrs: [
        None, conv2d_backprop_filter(grads[0], inputs[1], inputs[2], attrs),
        conv2d_op(grads[0], inputs[1], attrs)])


def _bp_filter_infer(inputs, strides, padding, dilations):
    x, sizes, g = inputs
    _check_float("Conv2DBackpropFilter", g, "gradients")
    return [(_sizes_shape("Conv2DBackpropFilter", sizes), g.dtype)]


def _bp_filter_kernel(x, sizes, g, strides, padding, dilations):
    khw = (int(sizes[0]), int(sizes[1]))
    geo = geometry("Conv2DBackpropFilter", x.shape[1:3], khw, strides, dilations, padding)
    if _no_output(geo):
        return np.zeros(khw + (x.shape[3], g.shape[3]), g.dtype)
    win = _windows(_pad_hw(x, [p for _, p in geo]), khw, strides, dilations,
                   [o for o, _ in geo])
    n, oh, ow, c, kh, kw = win.shape
    # im2col with the channels innermost (contiguous runs), then one matrix product
    cols = win.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, kh * kw * c)
    dw = cols.T @ g.reshape(n * oh * ow, -1)
    return dw.reshape(kh, kw, c, -1).astype(g.dtype, copy=False)


CONV2D_BACKPROP_FILTER = OpDef(
    "Conv2DBackpropFilter", _bp_filter_infer, _bp_filter_kernel, allocates=True,
    grad=lambda inputs, outputs, grads, **attrs: [
        conv2d_backprop_input(inputs[0], grads[0], inputs[2], attrs), None,
        conv2d_op(inputs[0], grads[0], attrs)])


def conv2d_op(x, w, attrs, name=None):
    return apply_op(CONV2D, [x, w], attrs, name=name)


def conv2d_backprop_input(x_like, w, g, attrs):
    out = apply_op(CONV2D_BACKPROP_INPUT, [_shape_tensor(x_like), w, g], attrs)
    out.set_shape(x_like.shape)
    return out


def conv2d_backprop_filter(x, w_like, g, attrs):
    out = apply_op(CONV2D_BACKPROP_FILTER, [x, _shape_tensor(w_like), g], attrs)
    out.set_shape(w_like.shape)
    return out



# -- pooling ----------------------------------------------------------------------------------

ONE = (1, 1)


def _pool_infer(opname, floats_only):
    def infer(inputs, ksize, strides, padding):
        x = inputs[0]
        _check_rank4(opname, x, "input")
        if floats_only:
            _check_float(opname, x, "inputs")
        elif not x.dtype.is_numeric:
            raise InvalidArgumentError(f"{opname} does not accept {x.dtype.name} tensors")
        xs = x.shape.as_list() if x.shape.rank is not None else [None] * 4
        oh, ow = _spatial_out(opname, xs, ksize, strides, ONE, padding)
        return [(TensorShape([xs[0], oh, ow, xs[3]]), x.dtype)]
    return infer


def _lowest(dtype):
    return -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _max_windows(x, ksize, strides, padding, opname):
    geo = geometry(opname, x.shape[1:3], ksize, strides, ONE, padding)
    win = _windows(_pad_hw(x, [p for _, p in geo], _lowest(x.dtype)), ksize, strides, ONE,
                   [o for o, _ in geo])
    return win, geo


def _max_pool_kernel(x, ksize, strides, padding):
    win, _ = _max_windows(x, ksize, strides, padding, "MaxPool")
    return win.max(axis=(4, 5))


def _first_max(win):
    """(N, OH, OW, C): the row-major index in its window of each window's first maximum."""
    n, oh, ow, c, kh, kw = win.shape
    return win.reshape(n, oh, ow, c, kh * kw).argmax(axis=-1)


def _max_pool_grad_kernel(x, g, ksize, strides, padding):
    win, geo = _max_windows(x, ksize, strides, padding, "MaxPoolGrad")
    if _no_output(geo):
        return np.zeros(x.shape, g.dtype)
    idx = _first_max(win)
    kh, kw = ksize
    cols = np.zeros(idx.shape[:3] + (kh, kw, idx.shape[3]), dtype=g.dtype)
    for k in range(kh * kw):
        cols[:, :, :, k // kw, k % kw, :] = np.where(idx == k, g, 0)
    return _scatter_windows(cols, x.shape, ksize, strides, ONE, geo, g.dtype)


def _max_pool_grad_grad_kernel(x, gg, ksize, strides, padding):
    """The gradient of MaxPoolGrad for its `g`: each window's value of `gg` at the position
    of its first maximum."""
    win, geo = _max_windows(x, ksize, strides, padding, "MaxPoolGradGrad")
    idx = _first_max(win)
    gwin = _windows(_pad_hw(gg, [p for _, p in geo]), ksize, strides, ONE, [o for o, _ in geo])
    n, oh, ow, c, kh, kw = gwin.shape
    return np.take_along_axis(gwin.reshape(n, oh, ow, c, kh * kw), idx[..., None],
                              axis=-1)[..., 0]


MAX_POOL = OpDef("MaxPool", _pool_infer("MaxPool", False), _max_pool_kernel, allocates=True,
                 grad=lambda inputs, outputs, grads, **attrs: [
                     _max_pool_grad(inputs[0], grads[0], attrs)])


def _like_infer(index):
    def infer(inputs, **attrs):
        return [(inputs[index].shape, inputs[index].dtype)]
    return infer


def _grad_grad_infer(inputs, ksize, strides, padding):
    return _pool_infer("MaxPoolGradGrad", False)([inputs[0]], ksize, strides, padding)


# MaxPoolGrad and MaxPoolGradGrad are linear in their second input and adjoint to each
# other (for a fixed x, whose windows' maxima choose the positions).
MAX_POOL_GRAD = OpDef("MaxPoolGrad", _like_infer(0), _max_pool_grad_kernel, allocates=True,
                      grad=lambda inputs, outputs, grads, **attrs: [
                          None, _max_pool_grad_grad(inputs[0], grads[0], attrs)])
MAX_POOL_GRAD_GRAD = OpDef(
    "MaxPoolGradGrad", _grad_grad_infer, _max_pool_grad_grad_kernel, allocates=True,
    grad=lambda inputs, outputs, grads, **attrs: [
        None, _max_pool_grad(inputs[0], grads[0], attrs)])


def avg_counts(hw, ksize, strides, padding):
    """(OH, OW) float64: how many input values (padding excluded) each window holds."""
    counts = []
    for i, (out, (before, _)) in enumerate(geometry("AvgPool", hw, ksize, strides, ONE, padding)):
        start = np.arange(out) * strides[i] - before
        counts.append(np.minimum(start + ksize[i], hw[i]) - np.maximum(start, 0))
    return np.outer(counts[0], counts[1]).astype(np.float64)


def _avg_pool_kernel(x, ksize, strides, padding):
    geo = geometry("AvgPool", x.shape[1:3], ksize, strides, ONE, padding)
    win = _windows(_pad_hw(x, [p for _, p in geo]), ksize, strides, ONE, [o for o, _ in geo])
    counts = avg_counts(x.shape[1:3], ksize, strides, padding)
    return (win.sum(axis=(4, 5)) / counts[None, :, :, None].astype(x.dtype)).astype(x.dtype)


AVG_POOL = OpDef("AvgPool", _pool_infer("AvgPool", True), _avg_pool_kernel, allocates=True,
                 grad=lambda inputs, outputs, grads, **attrs: [
                     _avg_pool_grad(inputs[0], grads[0], attrs)])


def _avg_grad_infer(inputs, ksize, strides, padding):
    return [(_sizes_shape("AvgPoolGrad", inputs[0]), inputs[1].dtype)]


def _avg_pool_grad_kernel(sizes, g, ksize, strides, padding):
    x_shape = tuple(int(d) for d in sizes)
    geo = geometry("AvgPoolGrad", x_shape[1:3], ksize, strides, ONE, padding)
    if _no_output(geo):
        return np.zeros(x_shape, g.dtype)
    share = g / avg_counts(x_shape[1:3], ksize, strides, padding)[None, :, :, None].astype(g.dtype)
    cols = np.broadcast_to(share[:, :, :, None, None, :], share.shape[:3] + tuple(ksize)
                           + share.shape[3:])
    return _scatter_windows(cols, x_shape, ksize, strides, ONE, geo, g.dtype)


AVG_POOL_GRAD = OpDef("AvgPoolGrad", _avg_grad_infer, _avg_pool_grad_kernel, allocates=True,
                      grad=lambda inputs, outputs, grads, **attrs: [
                          None, apply_op(AVG_POOL, [grads[0]], attrs)])


def _max_pool_grad(x, g, attrs):
    return apply_op(MAX_POOL_GRAD, [x, g], attrs)


def _max_pool_grad_grad(x, gg, attrs):
    return apply_op(MAX_POOL_GRAD_GRAD, [x, gg], attrs)


def _avg_pool_grad(x_like, g, attrs):
    out = apply_op(AVG_POOL_GRAD, [_shape_tensor(x_like), g], attrs)
    out.set_shape(x_like.shape)
    return out


# -- Erf --------------------------------------------------------------------------------------

_ERF = []


def _erf_kernel(x):
    """erf by scipy when it is installed (an optional speed-up, imported at first use),
    else by the standard library's math.erf element by element."""
    if not _ERF:
        try:
            from scipy.special import erf as fast  # noqa: PLC0415 - optional, lazy
        except ImportError:
            slow = np.frompyfunc(math.erf, 1, 1)
            fast = lambda a: np.asarray(slow(a), np.float64)  # noqa: E731 (a 0-d input: a float)
        _ERF.append(fast)
    return np.asarray(_ERF[0](x)).astype(x.dtype, copy=False)


def _erf_infer(inputs):
    _check_float("Erf", inputs[0], "inputs")
    return [(inputs[0].shape, inputs[0].dtype)]


def _erf_grad(inputs, outputs, grads):
    x = inputs[0]
    return [grads[0] * (exp(-square(x)) * constant(2 / math.sqrt(math.pi), x.dtype))]


ERF = OpDef("Erf", _erf_infer, _erf_kernel, grad=_erf_grad, elementwise=True)


OPS = [CONV2D, CONV2D_BACKPROP_INPUT, CONV2D_BACKPROP_FILTER, MAX_POOL, MAX_POOL_GRAD,
       MAX_POOL_GRAD_GRAD, AVG_POOL, AVG_POOL_GRAD, ERF]
