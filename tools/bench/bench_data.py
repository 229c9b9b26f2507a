"""rt.data throughput: `from_tensor_slices(x).map(v * 2 + 1).shuffle(1024, seed).batch(64)`,
one epoch, eagerly (`for b in ds`) and inside `rt.function` (a staged `for` summing the
batches), against the same work in numpy by hand (the transform, a permutation, batches
as slices of it), side by side in one run; each ratio is the median of per-round ratios.

    python tools/bench/bench_data.py [--quick]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402

BATCH, BUFFER = 64, 1024


def pipeline(x):
    return (rt.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2 + 1)
            .shuffle(BUFFER, seed=1).batch(BATCH))


def numpy_epoch(x, rng):
    y = x * 2 + 1
    y = y[rng.permutation(len(y))]
    total = np.float32(0)
    for i in range(0, len(y), BATCH):
        total += y[i:i + BATCH].sum()
    return total


def eager_epoch(ds):
    total = 0.0
    for b in ds:
        total += float(b.numpy().sum())
    return total


def timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def main(quick: bool):
    sizes = [1000, 16384] if quick else [1000, 16384, 100_000, 1_000_000]
    rounds = 2 if quick else 3
    print(f"{'rows':>9} | {'numpy by hand':>13} | {'eager':>20} | {'rt.function':>20}")
    for n in sizes:
        x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        ds = pipeline(x)

        @rt.function
        def staged(ds):
            s = rt.constant(0.0)
            for b in ds:
                s += rt.reduce_sum(b)
            return s

        rng = np.random.default_rng(0)
        skip_eager = n > 200_000 and not FAST_ENOUGH(ds)
        staged(ds)                   # trace
        eager_epoch(ds) if not skip_eager else None
        ratios_e, ratios_f, t_np, t_e, t_f = [], [], [], [], []
        for _ in range(rounds):
            a = timed(numpy_epoch, x, rng)
            e = timed(eager_epoch, ds) if not skip_eager else float("nan")
            f = timed(staged, ds)
            t_np.append(a)
            t_e.append(e)
            t_f.append(f)
            ratios_e.append(e / a)
            ratios_f.append(f / a)
        print(f"{n:>9} | {1e3 * min(t_np):10.2f} ms | {statistics.median(ratios_e):7.1f}x "
              f"({1e3 * min(t_e):8.1f} ms) | {statistics.median(ratios_f):7.1f}x "
              f"({1e3 * min(t_f):8.1f} ms)", flush=True)


def FAST_ENOUGH(ds):  # noqa: N802 - an old pipeline: a 10^6-row eager epoch takes a minute
    """Whether an eager epoch of 10^6 rows would take under 30 s, from the time of 64
    batches after the first (whose call traces the iterator's functions)."""
    it = iter(ds)
    next(it)
    t = time.perf_counter()
    for _ in range(64):
        next(it)
    return (time.perf_counter() - t) / 64 * (1_000_000 / BATCH) < 30


if __name__ == "__main__":
    main("--quick" in sys.argv)
