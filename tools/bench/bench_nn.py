"""rt.nn's conv2d and pooling kernels side by side with numpy written by hand.

    python tools/bench/bench_nn.py [--quick]

For each shape: the Conv2D kernel (sliding_window_view + one tensordot, im2col with no
Python loop over positions), rt.nn.conv2d called eagerly and in an rt.function, and its
two gradient kernels, against a plain numpy convolution written by hand: a loop over the
kernel positions, each adding one (N*OH*OW, C) x (C, O) matrix product (the usual
"shift and matmul" form, which is what one writes without im2col). MaxPool against the
reshape-and-max a numpy user writes for non-overlapping windows. Times are medians of
repeated timings in one process; `ratio` is ours / by hand (below 1: ours is faster).
All results are checked to agree before anything is timed.
"""
from __future__ import annotations

import statistics
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.ops import nn_ops  # noqa: E402


def conv_by_hand(x, w, stride, pads):
    """Plain numpy: pad, then for each kernel position a strided slice times its matrix."""
    (pt, pb), (pl, pr) = pads
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    kh, kw, c, o = w.shape
    oh = (xp.shape[1] - kh) // stride + 1
    ow = (xp.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, o), x.dtype)
    for i in range(kh):
        for j in range(kw):
            out += xp[:, i:i + (oh - 1) * stride + 1:stride,
                      j:j + (ow - 1) * stride + 1:stride, :] @ w[i, j]
    return out


def median_time(fn, number, repeat):
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main(quick=False):
    number, repeat = (2, 3) if quick else (5, 7)
    cases = [((32, 28, 28, 1), (5, 5, 1, 32), 1, "SAME"),
             ((32, 14, 14, 32), (3, 3, 32, 64), 1, "SAME"),
             ((16, 32, 32, 64), (3, 3, 64, 64), 2, "SAME")]
    if quick:
        cases = cases[:2]
    rng = np.random.default_rng(0)
    print(f"{'workload':66} | {'by hand':>10} | {'ours':>10} | ratio")
    for xs, ws, stride, padding in cases:
        x = rng.normal(size=xs).astype(np.float32)
        w = rng.normal(size=ws).astype(np.float32)
        attrs = {"strides": (stride, stride), "padding": padding, "dilations": (1, 1)}
        geo = nn_ops.geometry("bench", xs[1:3], ws[:2], (stride, stride), (1, 1), padding)
        pads = [p for _, p in geo]
        want = conv_by_hand(x, w, stride, pads)
        ours = nn_ops._conv_kernel(x, w, **attrs)
        np.testing.assert_allclose(ours, want, rtol=1e-3, atol=1e-3)
        xt, wt = rt.constant(x), rt.constant(w)
        f = rt.function(lambda a, b: rt.nn.conv2d(a, b, stride, padding))
        np.testing.assert_allclose(f(xt, wt).numpy(), want, rtol=1e-3, atol=1e-3)
        g = rng.normal(size=ours.shape).astype(np.float32)
        sizes = np.asarray(xs, np.int32)
        hand = median_time(lambda: conv_by_hand(x, w, stride, pads), number, repeat)
        name = f"conv2d x{list(xs)} w{list(ws)} s{stride}:"
        rows = [("kernel", lambda: nn_ops._conv_kernel(x, w, **attrs)),
                ("eager rt.nn.conv2d", lambda: rt.nn.conv2d(xt, wt, stride, padding)),
                ("rt.function", lambda: f(xt, wt)),
                ("backprop input kernel", lambda: nn_ops._bp_input_kernel(sizes, w, g, **attrs)),
                ("backprop filter kernel",
                 lambda: nn_ops._bp_filter_kernel(x, np.asarray(ws), g, **attrs))]
        for label, fn in rows:
            t = median_time(fn, number, repeat)
            print(f"{name + ' ' + label:66} | {hand * 1e3:8.2f}ms | {t * 1e3:8.2f}ms | "
                  f"{t / hand:.2f}x")
    x = rng.normal(size=(32, 28, 28, 32)).astype(np.float32)
    by_hand = lambda: x.reshape(32, 14, 2, 14, 2, 32).max(axis=(2, 4))  # noqa: E731
    np.testing.assert_array_equal(nn_ops._max_pool_kernel(x, (2, 2), (2, 2), "VALID"), by_hand())
    hand = median_time(by_hand, number, repeat)
    t = median_time(lambda: nn_ops._max_pool_kernel(x, (2, 2), (2, 2), "VALID"), number, repeat)
    print(f"{'max_pool2d 2x2/2 x[32, 28, 28, 32] kernel':66} | {hand * 1e3:8.2f}ms | "
          f"{t * 1e3:8.2f}ms | {t / hand:.2f}x")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
