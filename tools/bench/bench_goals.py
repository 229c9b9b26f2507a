"""Every speed goal in one run: each a ratio measured side by side, with PASS or MISS.

    python tools/bench/bench_goals.py            # the default run (about 3 minutes)
    python tools/bench/bench_goals.py --quick    # a smoke run (under a minute)
    python tools/bench/bench_goals.py --full     # also 10^7 rows of rt.data, tf.data at 10^6
    python tools/bench/bench_goals.py --tf-python /tmp/tfenv/bin/python

The goals, each measured here with the workloads and timing loops of the benches that
own them (imported, not copied):
1. `rt.function(jit_compile=True)` called as users call it vs `jax.jit` by hand
   (tools/bench/bench_jit.py's programs and hand-written JAX): <= 1.1x. Rows of large
   arrays show the memory-bandwidth floor beside them: a numpy copy of the same bytes.
2. The numpy backend's staged loops vs the same loop in numpy by hand (as in
   tools/bench/run.py: a Python loop over numpy scalars of the same dtypes): fizzbuzz
   and Collatz <= 1.3x; a staged scalar `while i < n: i += 1` per iteration <= 3x, the
   loop on Python ints shown beside.
3. An rt.data pipeline epoch (tools/bench/bench_data.py) vs numpy by hand <= 3x, and vs
   tf.data <= 0.5x where TensorFlow is importable. TensorFlow pins its own numpy, so it
   lives in a separate venv: `--tf-python` runs this section in that interpreter (the
   repository on its PYTHONPATH), the other timings of the section side by side with it.
4. Data parallel across processes: a note pointing to its test (no speed goal).

Each ratio is the median of per-round ratios over rounds that alternate the two sides,
so the load of a shared machine, which drifts between rounds, weighs on both alike.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(BENCH)]
if __name__ == "__main__":   # before numpy loads; as run.py: steadier on a loaded machine
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import bench_data  # noqa: E402
import run as suite  # noqa: E402
import runtime as rt  # noqa: E402
from examples import programs  # noqa: E402

JIT_GOAL, LOOP_GOAL, SCALAR_LOOP_GOAL, DATA_GOAL, TF_DATA_GOAL = 1.1, 1.3, 3.0, 3.0, 0.5


def goal_row(name, ours, reference, ratio, goal, note="") -> dict:
    """One goal: our time and the reference's (seconds, NaN where not shown), the median
    per-round ratio ours/reference, and the goal that ratio must not exceed."""
    return {"name": name, "ours": ours, "reference": reference, "ratio": ratio,
            "goal": goal, "note": note}


def fmt_time(t: float) -> str:
    if t != t:
        return "—"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t * 1e9:.3g} ns"


def print_row(row: dict) -> None:
    ratio, goal = row["ratio"], row["goal"]
    status = "—" if ratio != ratio else ("PASS" if ratio <= goal else "MISS")
    shown_ratio = ("—" if ratio != ratio else f"{ratio:.2f}x" if ratio >= 0.1
                   else f"{ratio:.2g}x")
    print(f"  {row['name']:<42}{fmt_time(row['ours']):>10}{fmt_time(row['reference']):>10}"
          f"{shown_ratio:>9}   <= {goal:<4g}{status:>5}  {row['note']}", flush=True)


def shown(rows: list) -> list:
    for row in rows:
        print_row(row)
    return rows


# -- 1. rt.function(jit_compile=True) vs jax.jit by hand ------------------------------------

def jit_rows(quick: bool) -> list:
    """One row per program of bench_jit; the large affine rows with the floor beside."""
    import bench_jit

    budget, repeat = (0.05, 5) if quick else (0.7, 21)
    rng = np.random.default_rng(0)
    scalar = np.int32
    programs_ = [
        ("fizzbuzz count n=1000", programs.fizzbuzz_counts, [scalar(1000)],
         bench_jit.fizzbuzz_count_jax),
        ("tanh loop, 10 floats", programs.tanh_loop, [np.ones(10, np.float32)],
         bench_jit.tanh_loop_jax),
        ("collatz steps of 77031", bench_jit.collatz, [scalar(77031)], bench_jit.collatz_jax),
        ("staged while, 10 iterations", bench_jit.count_up, [scalar(10)],
         bench_jit.count_up_jax),
    ] + [(f"x*2+1, 10^{k} float32", bench_jit.affine,
          [rng.normal(size=10 ** k).astype(np.float32)], bench_jit.affine_jax)
         for k in (1, 3, 5, 7)]
    rows = []
    for name, fn, args, hand in programs_:
        ours = rt.function(fn, jit_compile=True)
        for a, b in zip(bench_jit.to_numpy(ours(*args)), bench_jit.to_numpy(hand(*args))):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        calls = [lambda: ours(*args), lambda: bench_jit.to_numpy(hand(*args))]
        large = args[0].size >= 1 << 16
        if large:      # the floor: the same bytes read and written by a numpy copy
            out = np.empty_like(args[0])
            calls.append(lambda: np.copyto(out, args[0]))
        times = bench_jit.per_call(calls, budget, repeat)
        t_ours, t_hand = (float(np.median(t)) for t in times[:2])
        note = f"floor {fmt_time(float(np.median(times[2])))} (numpy copy)" if large else ""
        rows.append(goal_row(name, t_ours, t_hand, bench_jit.ratio(times[0], times[1]),
                             JIT_GOAL, note))
    train = "MLP train step 64-64-8, batch 32"
    with contextlib.redirect_stdout(io.StringIO()) as line:   # bench_jit's row, read back
        r = bench_jit.train_row(train, budget, repeat)
    rows.append(goal_row(train, *row_times(line.getvalue()), r, JIT_GOAL,
                         "losses and weights checked"))
    return rows


def row_times(line: str) -> tuple[float, float]:
    """(ours, by hand) in seconds from a row bench_jit.report printed (a 34-character name,
    then microseconds); NaN if the line is not one."""
    try:
        ours, hand = line[34:].split()[:2]
        return float(ours) * 1e-6, float(hand) * 1e-6
    except ValueError:
        return float("nan"), float("nan")


# -- 2. the numpy backend's staged loops vs numpy by hand -------------------------------------

def count_up(n):
    """The staged scalar loop whose per-iteration cost is the goal (bench_jit's, which
    imports JAX: this section runs without it)."""
    i = 0
    while i < n:
        i += 1
    return i


def count_up_np(n):
    i = np.int32(0)
    while i < n:
        i += 1
    return i


def loop_rows(quick: bool) -> list:
    rounds, budget = (3, 0.01) if quick else (11, 0.05)
    cases = [
        ("fizzbuzz n=1000", suite.fizzbuzz, suite.fizzbuzz_np, 1000, LOOP_GOAL),
        # (by hand: the same Python on a numpy int32 scalar, as a numpy user runs it)
        ("collatz steps of 77031", programs.collatz_steps, programs.collatz_steps, 77031,
         LOOP_GOAL),
    ] + [(f"while i < n: i += 1, n=10^{k}", count_up, count_up_np, 10 ** k,
          SCALAR_LOOP_GOAL) for k in (1, 3, 5)]
    rows = []
    for name, fn, by_hand, n, goal in cases:
        staged, arg, hand_arg = rt.function(fn), rt.constant(n), np.int32(n)
        result = staged(arg)
        values = result if isinstance(result, tuple) else (result,)
        np.testing.assert_array_equal([v.numpy() for v in values], by_hand(hand_arg))
        calls = [lambda: by_hand(hand_arg), lambda: staged(arg)]
        per_iteration = fn is count_up
        if per_iteration:   # beside it, the same loop on Python ints (no numpy scalars)
            calls.append(lambda: count_up(n))
        times, (_, r, *_) = suite.time_side_by_side(calls, rounds, budget)
        t_np, t_ours = times[:2]
        note = (f"per iteration: {fmt_time(t_ours / n)} vs {fmt_time(t_np / n)} "
                f"(Python ints {fmt_time(times[2] / n)})" if per_iteration else "")
        rows.append(goal_row(name, t_ours, t_np, r, goal, note))
    return rows


# -- 3. rt.data vs numpy by hand and tf.data ------------------------------------------------

def data_rows(sizes, tf_sizes, quick: bool):
    """Per size, as it is measured, the rows of an epoch eagerly and in rt.function against
    numpy by hand, and against tf.data (eager, tf.function) at `tf_sizes` where TensorFlow
    is importable: one round of tf.data above 10^4 rows (an epoch costs it tens of
    microseconds a row here)."""
    tf = bench_data.import_tensorflow()
    rounds = 2 if quick else 3
    for n in sizes:
        rows = []
        with_tf = tf if n in tf_sizes else None
        m = bench_data.measure(n, rounds, with_tf, tf_rounds=1 if n > 10_000 else None)
        size = f"10^{len(str(n)) - 1}"
        for mode in ("eager", "function"):
            label = "rt.function" if mode == "function" else mode
            rows.append(goal_row(f"{size} rows, {label} vs numpy", m[mode], m["numpy"],
                                 m[f"{mode}_ratio"], DATA_GOAL))
            if with_tf:
                rows.append(goal_row(f"{size} rows, {label} vs tf.data", m[mode],
                                     m[f"tf_{mode}"], m[f"{mode}_vs_tf_ratio"], TF_DATA_GOAL))
        yield rows


def data_rows_elsewhere(python: str, argv: list):
    """The data section run by another interpreter (one with TensorFlow), each size's rows
    back as a line of JSON as it is measured: all of the section's timings are taken in
    that one process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    with tempfile.TemporaryFile("w+") as errors, subprocess.Popen(
            [python, __file__, "--data-json", *argv], stdout=subprocess.PIPE,
            stderr=errors, text=True, env=env, cwd=ROOT) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("["):
                yield json.loads(line)
        if proc.wait() != 0:
            errors.seek(0)
            raise RuntimeError(f"{python} could not run the data section:\n{errors.read()}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run (under a minute)")
    parser.add_argument("--full", action="store_true", help="also 10^7 rows of rt.data")
    parser.add_argument("--tf-python", help="an interpreter with TensorFlow, to run the "
                        "rt.data section in (the repository goes on its PYTHONPATH)")
    parser.add_argument("--data-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = [10 ** k for k in range(3, 6 if args.quick else 8 if args.full else 7)]
    # an epoch of tf.data costs it tens of microseconds a row here: 10^6 rows only with
    # --full, 10^7 never
    tf_sizes = sizes[:2] if args.quick else sizes[:4] if args.full else sizes[:3]
    if args.data_json:
        for size_rows in data_rows(sizes, tf_sizes, args.quick):
            print(json.dumps(size_rows), flush=True)
        return []

    print(f"{'goal (ours vs reference)':<44}{'ours':>10}{'ref':>10}{'ratio':>9}   "
          f"{'goal':<7}{'':>5}")
    rows = []
    print("1. rt.function(jit_compile=True) vs jax.jit by hand (tools/bench/bench_jit.py)")
    if suite.jax_installed():
        rows += shown(jit_rows(args.quick))
    else:
        print("  skipped: JAX is not installed: pip install -e '.[jax]'")
    print("2. numpy backend, staged loops vs numpy by hand (tools/bench/run.py)")
    rows += shown(loop_rows(args.quick))
    print("3. rt.data: from_tensor_slices.map.shuffle(1024).batch(64), one epoch "
          "(tools/bench/bench_data.py)")
    data_argv = [a for a in ("--quick", "--full") if getattr(args, a[2:])]
    by_size = (data_rows_elsewhere(args.tf_python, data_argv) if args.tf_python
            else data_rows(sizes, tf_sizes, args.quick))
    data = [row for size_rows in by_size for row in shown(size_rows)]
    rows += data
    if not any("tf.data" in r["name"] for r in data):
        print(f"  TensorFlow is not importable in {args.tf_python}" if args.tf_python
              else f"  {bench_data.TF_MISSING}; or pass --tf-python")
    else:
        print(f"  (tf.data up to 10^{len(str(tf_sizes[-1])) - 1} rows"
              + ("" if args.full else "; --full: up to 10^6") + ")")
    print("4. data parallel across processes (rt.distribute.initialize): no speed goal; "
          "its test: pytest tests/xla/test_distribute_processes.py")
    missed = [r["name"] for r in rows if r["ratio"] > r["goal"]]
    print(f"\n{len(rows) - len(missed)} of {len(rows)} goals met"
          + (f"; missed: {'; '.join(missed)}" if missed else ""))
    return rows


if __name__ == "__main__":
    main()
