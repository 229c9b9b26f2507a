"""rt.data throughput: `from_tensor_slices(x).map(v * 2 + 1).shuffle(1024, seed).batch(64)`,
one epoch, eagerly (`for b in ds`) and inside `rt.function` (a staged `for` summing the
batches; also with `jit_compile=True` where JAX is installed: n/a where XLA cannot compile
it, a partial last batch having a shape known only when it runs), against the same work
in numpy by hand (the transform, a permutation, batches as slices of it), side by side
in one run; each ratio is the median of per-round ratios.
Where TensorFlow is importable, the same pipeline in tf.data, eagerly and inside
`tf.function`, is timed in the same rounds and the ratios ours/tf.data printed (the goal:
<= 0.5). TensorFlow pins its own numpy, so keep it out of the project's environment:

    python -m venv /tmp/tfenv && /tmp/tfenv/bin/pip install tensorflow-cpu numpy gast
    PYTHONPATH=. /tmp/tfenv/bin/python tools/bench/bench_data.py

    python tools/bench/bench_data.py [--quick]

`--pipelines`: other ordinary pipelines over 16,384 rows of 8 floats, batches of 64
(a batch of slices, maps before and after it, a range, a zip, a repeat then a shuffle,
a shuffle repeated forever, a filter), each epoch eagerly and in an rt.function's
staged `for`, per batch, beside the same work in numpy by hand:

    python tools/bench/bench_data.py --pipelines
"""
from __future__ import annotations

import importlib
import os
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


def import_tensorflow():
    """TensorFlow, or None where it is not installed (its log lines silenced)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        return importlib.import_module("tensorflow")
    except ImportError:
        return None


def tf_epochs(tf, x):
    """(eager epoch, tf.function epoch) of the same pipeline in tf.data."""
    ds = (tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2 + 1)
          .shuffle(BUFFER, seed=1).batch(BATCH))

    @tf.function
    def staged(ds):
        s = tf.constant(0.0)
        for b in ds:
            s += tf.reduce_sum(b)
        return s

    staged.get_concrete_function(ds)    # traced, not run: an epoch of tf.data is slow
    return TotalKept(lambda: eager_epoch(ds)), TotalKept(lambda: float(staged(ds).numpy()))


class TotalKept:
    """An epoch whose total is kept (`last`) to be checked after it is timed."""

    def __init__(self, epoch):
        self.epoch, self.last = epoch, float("nan")

    def __call__(self):
        self.last = self.epoch()


def check_total(label, got, expected, tolerance):
    """Every way of running the pipeline sums the same values, in another order."""
    if not abs(got - expected) <= tolerance:
        raise AssertionError(f"{label}: an epoch sums to {got}, numpy to {expected}")


def eager_epoch(ds):
    total = 0.0
    for b in ds:
        total += float(b.numpy().sum())
    return total


def timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def staged_epoch(jit_compile=False):
    """A fresh rt.function summing a dataset's batches in a staged `for`."""
    @rt.function(jit_compile=jit_compile)
    def staged(ds):
        s = rt.constant(0.0)
        for b in ds:
            s += rt.reduce_sum(b)
        return s
    return staged


def measure(n: int, rounds: int, tf=None, tf_rounds=None) -> dict:
    """An epoch of `n` rows, timed in interleaved rounds: numpy by hand, our eager epoch,
    our rt.function epoch, and (with `tf`, in the first `tf_rounds` rounds: an epoch of
    tf.data costs tens of microseconds a row on a loaded machine) tf.data eager and in
    tf.function. Times are the fastest round's (seconds); ratios the medians of the
    per-round ratios (NaN where not timed)."""
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    ds = pipeline(x)
    staged = staged_epoch()
    rng = np.random.default_rng(0)
    skip_eager = n > 200_000 and not FAST_ENOUGH(ds)
    y = x.astype(np.float64) * 2 + 1    # every epoch's total, to float32 rounding
    expected, tolerance = y.sum(), 1e-5 * np.abs(y).sum()
    check_total("rt.function", float(staged(ds).numpy()), expected, tolerance)   # traced
    if not skip_eager:
        check_total("eager", eager_epoch(ds), expected, tolerance)
    jitted = staged_epoch(jit_compile=True) if importlib.util.find_spec("jax") else None
    try:
        if jitted:
            check_total("jit_compile", float(jitted(ds).numpy()), expected, tolerance)
    except rt.errors.InvalidGraphError:   # XLA cannot compile a partial last batch: n/a
        jitted = None
    tf_eager, tf_function = tf_epochs(tf, x) if tf else (None, None)
    tf_rounds = rounds if tf_rounds is None else tf_rounds
    t: dict = {k: [] for k in ("numpy", "eager", "function", "jit", "tf_eager", "tf_function")}
    r: dict = {k: [] for k in ("eager", "function", "jit", "eager_vs_tf", "function_vs_tf")}
    for i in range(rounds):
        a = timed(numpy_epoch, x, rng)
        e = timed(eager_epoch, ds) if not skip_eager else float("nan")
        f = timed(staged, ds)
        if jitted:
            t["jit"].append(timed(jitted, ds))
            r["jit"].append(t["jit"][-1] / a)
        if tf_eager and tf_function and i < tf_rounds:
            t["tf_eager"].append(timed(tf_eager))
            t["tf_function"].append(timed(tf_function))
            if i == 0:      # their totals, checked (not before: an epoch of tf.data is slow)
                check_total("tf.data eager", tf_eager.last, expected, tolerance)
                check_total("tf.function", tf_function.last, expected, tolerance)
            r["eager_vs_tf"].append(e / t["tf_eager"][-1])
            r["function_vs_tf"].append(f / t["tf_function"][-1])
        t["numpy"].append(a)
        t["eager"].append(e)
        t["function"].append(f)
        r["eager"].append(e / a)
        r["function"].append(f / a)
    nan = float("nan")
    return ({k: min(v) if v else nan for k, v in t.items()}
            | {k + "_ratio": statistics.median(v) if v else nan for k, v in r.items()})


TF_MISSING = ("tf.data columns: TensorFlow is not importable; to compare, in a separate "
              "venv: pip install tensorflow-cpu numpy gast, then run this file with that "
              "python and PYTHONPATH set to the repository root")


def main(quick: bool):
    sizes = [1000, 16384] if quick else [1000, 16384, 100_000, 1_000_000]
    rounds = 2 if quick else 3
    tf = import_tensorflow()
    print(f"{'rows':>9} | {'numpy by hand':>13} | {'eager':>20} | {'rt.function':>20} | "
          f"{'jit_compile':>20}"
          + (f" | {'tf.data eager':>13} | {'tf.function':>11} | ours/tf.data: eager"
             "  function (goal <= 0.5)" if tf else ""))
    for n in sizes:
        m = measure(n, rounds, tf, tf_rounds=1 if n > 100_000 else None)
        print(f"{n:>9} | {1e3 * m['numpy']:10.2f} ms | {m['eager_ratio']:7.1f}x "
              f"({1e3 * m['eager']:8.1f} ms) | {m['function_ratio']:7.1f}x "
              f"({1e3 * m['function']:8.1f} ms) | "
              + (f"{m['jit_ratio']:7.1f}x ({1e3 * m['jit']:8.1f} ms)" if m["jit"] == m["jit"]
                 else f"{'n/a':>20}")
              + (f" | {1e3 * m['tf_eager']:10.1f} ms | {1e3 * m['tf_function']:8.1f} ms | "
                 f"{m['eager_vs_tf_ratio']:17.2g}x {m['function_vs_tf_ratio']:8.2g}x"
                 if tf else ""), flush=True)
    if not tf:
        print(TF_MISSING)


def FAST_ENOUGH(ds):  # noqa: N802 - an old pipeline: a 10^6-row eager epoch takes a minute
    """Whether an eager epoch of 10^6 rows would take under 30 s, from the time of 64
    batches after the first (whose call traces the iterator's functions)."""
    it = iter(ds)
    next(it)
    t = time.perf_counter()
    for _ in range(64):
        next(it)
    return (time.perf_counter() - t) / 64 * (1_000_000 / BATCH) < 30


def pipelines(rows: int = 16384, rounds: int = 3):
    """(name, make the dataset, the same batches in numpy by hand) of `--pipelines`."""
    x = np.random.default_rng(0).standard_normal((rows, 8)).astype(np.float32)
    y = np.arange(rows, dtype=np.int32)
    d = rt.data.Dataset
    starts = range(0, rows, BATCH)

    def by_hand(source, order=None):
        def epoch():
            for i in starts:
                b = source(i if order is None else order[i:i + BATCH])
            return b
        return epoch

    perm = np.random.default_rng(1).permutation(rows)
    perm2 = np.random.default_rng(1).permutation(2 * rows)
    return [
        ("slices.batch", lambda: d.from_tensor_slices(x).batch(BATCH),
         by_hand(lambda i: x[i:i + BATCH])),
        ("slices.map(v*2+1).batch", lambda: d.from_tensor_slices(x).map(lambda v: v * 2 + 1)
         .batch(BATCH), by_hand(lambda i: x[i:i + BATCH] * 2 + 1)),
        ("slices.batch.map(v*2+1)", lambda: d.from_tensor_slices(x).batch(BATCH)
         .map(lambda v: v * 2 + 1), by_hand(lambda i: x[i:i + BATCH] * 2 + 1)),
        ("slices((x,y)).shuffle.batch", lambda: d.from_tensor_slices((x, y))
         .shuffle(BUFFER, seed=1).batch(BATCH), by_hand(lambda at: (x[at], y[at]), perm)),
        ("range.map(i*2).batch", lambda: d.range(rows).map(lambda i: i * 2).batch(BATCH),
         by_hand(lambda i: np.arange(i, min(i + BATCH, rows), dtype=np.int64) * 2)),
        ("zip(slices(x),slices(y)).batch", lambda: d.zip(
            d.from_tensor_slices(x), d.from_tensor_slices(y)).batch(BATCH),
         by_hand(lambda i: (x[i:i + BATCH], y[i:i + BATCH]))),
        ("slices.repeat(2).shuffle.batch", lambda: d.from_tensor_slices(x).repeat(2)
         .shuffle(BUFFER, seed=1).batch(BATCH),
         lambda: [x[perm2[i:i + BATCH] % rows] for i in range(0, 2 * rows, BATCH)]),
        ("slices.shuffle.repeat().batch.take", lambda: d.from_tensor_slices(x)
         .shuffle(BUFFER, seed=1).repeat().batch(BATCH).take(rows // BATCH),
         by_hand(lambda at: x[at], perm)),
        ("slices.filter(v%2==0).batch", lambda: d.from_tensor_slices(y)
         .filter(lambda v: v % 2 == 0).batch(BATCH),
         lambda: [k[i:i + BATCH] for k in [y[y % 2 == 0]]
                  for i in range(0, rows // 2, BATCH)]),
    ]


def count_batches(ds):
    n = 0
    for _ in ds:
        n += 1
    return n


def staged_count():
    """A staged `for` counting the batches (and summing each one's first part: the
    batches are computed, not pruned from the graph)."""
    @rt.function
    def count(ds):
        n = rt.constant(0)
        s = rt.constant(0.0)
        for b in ds:
            n += 1
            s += rt.cast(rt.reduce_sum(rt.nest.flatten(b)[0]), rt.float32)
        return n, s
    return count


def main_pipelines(rounds: int = 3):
    print(f"{'pipeline (16384 rows of 8, batch 64)':38s} | {'numpy by hand':>13} | "
          f"{'eager':>20} | {'rt.function':>20}   (per batch)")
    for name, make, numpy_epoch_of in pipelines():
        ds, staged = make(), staged_count()
        batches = count_batches(ds)
        if int(staged(ds)[0]) != batches:
            raise AssertionError(f"{name}: staged and eager epochs differ in batches")
        a, e, f = [], [], []
        for _ in range(rounds):
            a.append(timed(numpy_epoch_of))
            e.append(timed(count_batches, ds))
            f.append(timed(staged, ds))
        per = 1e6 / batches
        print(f"{name:38s} | {min(a) * per:10.1f} us | {min(e) / min(a):7.1f}x "
              f"({min(e) * per:7.1f} us) | {min(f) / min(a):7.1f}x ({min(f) * per:7.1f} us)",
              flush=True)


if __name__ == "__main__":
    if "--pipelines" in sys.argv:
        main_pipelines()
    else:
        main("--quick" in sys.argv)
