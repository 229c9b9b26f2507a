"""A staged training step against the same step written by hand in numpy, side by side.

    python tools/bench/bench_train.py [--quick]

The model: a 2-layer network on a 512x512 batch (512 features, 512 hidden units with
tanh, 512 outputs), mean squared error, plain gradient descent. The rt.function step is
forward, GradientTape, gradient and `assign_sub` on four Variables, traced once and run
as one graph. The numpy step computes the same forward and backward by hand (the
gradients written out) and updates the arrays in place. Both run in float32 from the
same starting weights; their losses are printed to show they compute the same thing.
Timings are medians (and minima) of alternating repeats, so machine noise hits both alike;
CPU time (all threads, BLAS included) is printed too, as it moves less on a loaded machine.
"""
from __future__ import annotations

import statistics
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402

N, D, H, O = 512, 512, 512, 512
LR = 0.05


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, D)).astype(np.float32)
    t = np.tanh(x @ rng.normal(scale=D ** -0.5, size=(D, O))).astype(np.float32)
    w1 = rng.normal(scale=D ** -0.5, size=(D, H)).astype(np.float32)
    w2 = rng.normal(scale=H ** -0.5, size=(H, O)).astype(np.float32)
    return x, t, w1, np.zeros(H, np.float32), w2, np.zeros(O, np.float32)


def numpy_step_factory(w1, b1, w2, b2):
    def step(x, t):
        nonlocal w1, b1, w2, b2  # updated in place
        h = np.tanh(x @ w1 + b1)
        y = h @ w2 + b2
        d = y - t
        loss = np.mean(d * d)
        gy = d * np.float32(2.0 / d.size)
        gw2 = h.T @ gy
        gb2 = gy.sum(axis=0)
        gpre = (gy @ w2.T) * (1 - h * h)
        gw1 = x.T @ gpre
        gb1 = gpre.sum(axis=0)
        w1 -= LR * gw1
        b1 -= LR * gb1
        w2 -= LR * gw2
        b2 -= LR * gb2
        return loss
    return step


def rt_step_factory(w1, b1, w2, b2):
    v = [rt.Variable(a.copy()) for a in (w1, b1, w2, b2)]

    @rt.function
    def step(x, t):
        with rt.GradientTape() as tape:
            h = rt.tanh(x @ v[0] + v[1])
            y = h @ v[2] + v[3]
            loss = rt.reduce_mean(rt.square(y - t))
        grads = tape.gradient(loss, v)
        for var, g in zip(v, grads):
            var.assign_sub(g * LR)
        return loss
    return step


def main(quick: bool = False):
    x, t, *weights = data()
    np_step = numpy_step_factory(*[w.copy() for w in weights])
    rt_step = rt_step_factory(*weights)
    xt, tt = rt.constant(x), rt.constant(t)
    np_losses = [float(np_step(x, t)) for _ in range(3)]
    rt_losses = [float(rt_step(xt, tt).numpy()) for _ in range(3)]
    print(f"2-layer network, batch {N}x{D}, hidden {H}, outputs {O}, float32")
    print("  losses, first 3 steps: numpy " + " ".join(f"{v:.6f}" for v in np_losses)
          + " | rt " + " ".join(f"{v:.6f}" for v in rt_losses))
    number, repeat = (2, 5) if quick else (5, 15)
    wall = {"np": [], "rt": []}
    cpu = {"np": [], "rt": []}
    for _ in range(repeat):  # alternate, so drifts in machine load hit both
        for key, fn in (("np", lambda: np_step(x, t)), ("rt", lambda: rt_step(xt, tt))):
            c0 = time.process_time()
            wall[key].append(timeit.timeit(fn, number=number) / number)
            cpu[key].append((time.process_time() - c0) / number)
    a, b = statistics.median(wall["np"]), statistics.median(wall["rt"])
    ca, cb = statistics.median(cpu["np"]), statistics.median(cpu["rt"])
    print("                         wall ms/step (median, best)      CPU ms/step (median)")
    print(f"  numpy by hand          {a * 1e3:8.2f} {min(wall['np']) * 1e3:8.2f}   1.00x"
          f"        {ca * 1e3:8.2f}   1.00x")
    print(f"  rt.function + tape     {b * 1e3:8.2f} {min(wall['rt']) * 1e3:8.2f}   {b / a:5.2f}x"
          f"        {cb * 1e3:8.2f}   {cb / ca:5.2f}x")
    print(f"  traces: {rt_step.experimental_get_tracing_count()}")
    return b / a


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
