"""The benchmark suite: the guides' workloads, numpy by hand vs our eager mode vs rt.function.

    python tools/bench/run.py            # the full run (about a minute)
    python tools/bench/run.py --quick    # a smoke run: few, short timings
    python tools/bench/run.py --blas-threads 2   # BLAS threads (default 1, see below)
    python tools/bench/run.py --passes   # also rt.function without the optimisation passes

Every workload is written three ways and run side by side in one process (the runtime one
also compiled with XLA: the jit column):
- numpy by hand: the honest best plain-numpy program for the same job. Vectorisable work
  is vectorised; a loop the function stages (tanh_loop, fizzbuzz, dynamic_rnn) is the same
  Python loop over numpy values of the same dtypes, written tightly.
- eager: the plain Python function called with eager tensors (no rt.function).
- rt.function: the same function traced once, then called.
- jit: `rt.function(f, jit_compile=True)`, the same function compiled with XLA through JAX
  (runtime/backends/xla/backend.py), when JAX is installed (without it the column shows "—":
  pip install -e '.[jax]'). Below the table, each workload's first jit call: the trace
  (and graph optimisation, get_concrete_function), then JAX's trace, lowering and XLA's
  compilation (the first call less one later call).
All are checked to give the same results (to float tolerance) before anything is timed.
Timings are taken in interleaved rounds (numpy, eager, function, jit, numpy, ...); a time
shown is the median over the rounds, a ratio the median of the per-round ratios to numpy
by hand, so the load of a shared machine, which drifts between rounds, moves the ratios little.

Then the peak memory (tracemalloc) of the large dense workload, ours against numpy, and
the time to convert, trace, optimise and compile a fresh fizzbuzz (a new function with its own source, so
no conversion cache hits).
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import timeit
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

BLAS_THREADS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _set_blas_threads(argv) -> str:
    """BLAS threads are fixed before numpy loads: one by default, since on a shared,
    loaded machine threaded BLAS calls swing by 2x or more from one timing to the next
    (threads wait for cores), which would drown the ratios of the large workload. Both
    sides call the same BLAS, so the ratios hold for any thread count."""
    n = "1"
    for i, a in enumerate(argv):
        if a == "--blas-threads" and i + 1 < len(argv):
            n = argv[i + 1]
        elif a.startswith("--blas-threads="):
            n = a.split("=", 1)[1]
    for var in BLAS_THREADS_ENV:
        os.environ[var] = n
    return n


if __name__ == "__main__":
    _set_blas_threads(sys.argv)

import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402
from examples import programs  # noqa: E402


# -- the workloads, written for the runtime (eager and rt.function run the same code) ------

def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


tanh_loop = programs.tanh_loop


def fresh_fizzbuzz(k: int):
    """A new fizzbuzz function object with its own source (so no cache can hit)."""
    return programs.fresh_copy(programs.fizzbuzz_counts, k)


fizzbuzz = fresh_fizzbuzz(0)


def next_collatz(x):
    return rt.where(x % 2 == 0, x // 2, 3 * x + 1)


def one_op(x):
    return x + 1.0


def rnn_step(inp, state):  # the guide's step
    return inp + state


def dynamic_rnn(input_data, initial_state):
    input_data = rt.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = rt.TensorArray(rt.float32, size=max_seq_len)
    state = initial_state
    for i in rt.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return rt.transpose(states.stack(), [1, 0, 2])


def dense2(x, w1, b1, w2, b2):
    h = rt.maximum(rt.matmul(x, w1) + b1, 0.0)
    return rt.matmul(h, w2) + b2


def dense2_grads(x, t, w1, b1, w2, b2):
    """A training step's work (the update is one subtraction more): forward, tape, gradient.
    tools/bench/bench_train.py times the whole step, Variables and updates included."""
    with rt.GradientTape() as tape:
        tape.watch([w1, b1, w2, b2])
        h = rt.tanh(rt.matmul(x, w1) + b1)
        loss = rt.reduce_mean(rt.square(rt.matmul(h, w2) + b2 - t))
    return (loss, *tape.gradient(loss, [w1, b1, w2, b2]))


# -- the same jobs in numpy by hand ---------------------------------------------------------

def power_np(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = x @ result
    return result


def tanh_loop_np(x):
    while x.sum() > 1:
        x = np.tanh(x)
    return x


def fizzbuzz_np(n):
    fizz = buzz = fizzbuzz = numbers = 0
    for i in np.arange(1, n + 1, dtype=np.int32):
        if i % 15 == 0:
            fizzbuzz += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
        else:
            numbers += 1
    return fizz, buzz, fizzbuzz, numbers


def next_collatz_np(x):
    return np.where(x % 2 == 0, x // 2, 3 * x + 1)


def one_op_np(x):
    return x + np.float32(1.0)


def dynamic_rnn_np(input_data, initial_state):
    input_data = input_data.transpose(1, 0, 2)
    states = np.empty(input_data.shape, input_data.dtype)
    state = initial_state
    for i in range(input_data.shape[0]):
        state = input_data[i] + state
        states[i] = state
    return states.transpose(1, 0, 2)


def dense2_np(x, w1, b1, w2, b2):
    h = x @ w1
    h += b1
    np.maximum(h, 0, out=h)
    out = h @ w2
    out += b2
    return out


def dense2_grads_np(x, t, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    d = h @ w2 + b2 - t
    gy = d * np.float32(2.0 / d.size)
    gpre = (gy @ w2.T) * (1 - h * h)
    return np.mean(d * d), x.T @ gpre, gpre.sum(axis=0), h.T @ gy, gy.sum(axis=0)


# -- measuring ------------------------------------------------------------------------------

def jax_installed() -> bool:
    """Whether `rt.function(jit_compile=True)` can run (JAX is an optional dependency)."""
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


class Workload:
    def __init__(self, name, np_fn, np_args, rt_fn, rt_args, target, tf=None):
        self.name, self.target, self.tf = name, target, tf
        self.np_call = lambda: np_fn(*np_args)
        self.eager_call = lambda: rt_fn(*rt_args)
        traced = rt.function(rt_fn)
        self.function = traced
        self.fn_call = lambda: traced(*rt_args)
        self._rt_fn, self._rt_args = rt_fn, rt_args
        self.jit_call = None        # set by `jit_first_call` (JAX installed)
        self.jit_times = None       # (trace s, first call s, later call s)

    def jit_first_call(self):
        """Makes `jit_call` (`rt.function(f, jit_compile=True)`) and times its first call:
        (trace and optimise, JAX trace + lowering + XLA compile + one run, one later run)."""
        jitted = rt.function(self._rt_fn, jit_compile=True)
        args = self._rt_args
        t0 = timeit.default_timer()
        cf = jitted.get_concrete_function(*args)
        cf._optimized()
        t1 = timeit.default_timer()
        cf(*args)  # the plan is made; jax.jit traces, lowers and compiles, then runs
        t2 = timeit.default_timer()
        cf(*args)
        t3 = timeit.default_timer()
        self.jit_call = lambda: jitted(*args)
        self.jit_times = (t1 - t0, t2 - t1, t3 - t2)

    def unoptimised_call(self):
        """A call of the same function compiled without the graph optimisation passes."""
        plain = rt.function(self._rt_fn)
        rt.config.optimize_graphs(False)
        try:
            plain(*self._rt_args)  # traced and compiled now, as traced
        finally:
            rt.config.optimize_graphs(True)
        return lambda: plain(*self._rt_args)


def _arrays(result):
    """A result (tensor, array, number or tuple of them) as a list of numpy arrays."""
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in _arrays(r)]
    return [np.asarray(result.numpy() if hasattr(result, "numpy") else result)]


def check_same(w: Workload):
    expected = _arrays(w.np_call())
    calls = [("eager", w.eager_call), ("rt.function", w.fn_call)]
    if w.jit_call is not None:
        calls.append(("rt.function(jit_compile=True)", w.jit_call))
    for label, call in calls:
        got = _arrays(call())
        ok = len(got) == len(expected) and all(
            g.shape == e.shape and np.allclose(g, e, rtol=1e-5, atol=1e-5)
            for g, e in zip(got, expected))
        if not ok:
            raise AssertionError(f"{w.name}: {label} gives {got}, numpy by hand {expected}")


def _number_for(call, budget) -> int:
    """How many calls make one timing of about `budget` seconds."""
    t = timeit.timeit(call, number=1)
    if t < budget / 10:
        t = timeit.timeit(call, number=10) / 10
    return max(1, int(budget / max(t, 1e-9)))


def time_side_by_side(calls, rounds, budget) -> tuple:
    """(per-call medians in seconds, medians of the per-round ratios to the first call).
    Each round times every call back to back, so a ratio compares timings taken moments
    apart: on a shared machine the load drifts between rounds, far less within one."""
    numbers = [_number_for(c, budget) for c in calls]
    samples = [[] for _ in calls]
    for _ in range(rounds):
        for c, n, s in zip(calls, numbers, samples):
            s.append(timeit.timeit(c, number=n) / n)
    ratios = [statistics.median(s[i] / b for i, b in enumerate(samples[0])) for s in samples]
    return [statistics.median(s) for s in samples], ratios


def peak_memory(call) -> int:
    """Peak bytes traced while `call` runs (inputs already exist)."""
    call()  # warm: traces, compiles, caches
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    call()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak - base


def _fmt_time(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:8.1f} us"
    if t < 1:
        return f"{t * 1e3:8.2f} ms"
    return f"{t:8.2f} s "


def workloads() -> list:
    rng = np.random.default_rng(0)
    x_pow = rng.integers(-1, 2, size=(10, 10)).astype(np.int32)
    x_tanh = np.array([0.666458249, 0.713946581, 0.723879576, 0.330758929, 0.184087753],
                      np.float32)
    x_collatz = rng.integers(1, 10000, size=1000).astype(np.int32)
    x_one = np.float32(1.5)
    rnn_in = rng.standard_normal((2, 100, 4)).astype(np.float32)
    rnn_state = np.zeros((2, 4), np.float32)
    dense = [rng.standard_normal(s).astype(np.float32) * 0.05
             for s in [(512, 512), (512, 512), (512,), (512, 512), (512,)]]
    c = rt.constant
    return [
        Workload("power(x, 100)", power_np, (x_pow, 100), power, (c(x_pow), 100),
                 1.1, 2.2),
        Workload("tanh_loop", tanh_loop_np, (x_tanh,), tanh_loop, (c(x_tanh),), 2.0, 14.6),
        Workload("fizzbuzz n=1000", fizzbuzz_np, (1000,), fizzbuzz, (c(1000),), 3.0, 171),
        Workload("next_collatz 1000", next_collatz_np, (x_collatz,), next_collatz,
                 (c(x_collatz),), 1.5, 24),
        Workload("one op (x + 1.0)", one_op_np, (x_one,), one_op, (c(x_one),), None),
        Workload("dynamic_rnn 100 steps", dynamic_rnn_np, (rnn_in, rnn_state), dynamic_rnn,
                 (c(rnn_in), c(rnn_state)), None),
        Workload("dense 2-layer 512", dense2_np, dense, dense2, [c(a) for a in dense], 1.05),
        Workload("train step grads 512", dense2_grads_np, [dense[0]] + dense, dense2_grads,
                 [c(dense[0])] + [c(a) for a in dense], 1.2),
    ]


def conversion_and_trace(n: int):
    """Median seconds to convert, to trace (conversion excluded), to optimise and to
    compile a fresh fizzbuzz."""
    convert, trace, optimise, compile_ = [], [], [], []
    for k in range(1, n + 1):
        fresh = fresh_fizzbuzz(1000 + k)
        t0 = timeit.default_timer()
        ag.to_graph(fresh)
        convert.append(timeit.default_timer() - t0)
        fn = rt.function(fresh)  # converted above (cached): this times the trace alone
        t1 = timeit.default_timer()
        cf = fn.get_concrete_function(rt.TensorSpec([], rt.int32))
        t2 = timeit.default_timer()
        cf._optimized()
        t3 = timeit.default_timer()
        cf._compiled()
        t4 = timeit.default_timer()
        trace.append(t2 - t1)
        optimise.append(t3 - t2)
        compile_.append(t4 - t3)
    return [statistics.median(v) for v in (convert, trace, optimise, compile_)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--passes", action="store_true",
                        help="also time rt.function without the graph optimisation passes")
    parser.add_argument("--blas-threads", default="1",
                        help="BLAS threads (set before numpy loads; default 1)")
    args = parser.parse_args(argv)
    print(f"BLAS threads: {os.environ.get(BLAS_THREADS_ENV[0], 'default')}, "
          f"{'quick' if args.quick else 'full'} run\n")
    rounds, budget = (3, 0.002) if args.quick else (15, 0.02)

    jit = jax_installed()
    if not jit:
        print("jit column: JAX is not installed (rt.function(jit_compile=True) compiles with "
              "XLA through JAX): pip install -e '.[jax]'\n")
    header = (f"{'workload':<24}| {'numpy by hand':>13} | {'eager (ratio)':>22} | "
              f"{'rt.function (ratio)':>22} | {'jit (ratio)':>22} | target (TF 2.21)")
    print(header)
    print("-" * len(header))
    all_ws = workloads()
    misses = []
    for w in all_ws:
        if jit:
            w.jit_first_call()
        check_same(w)
        calls = [w.np_call, w.eager_call, w.fn_call] + ([w.jit_call] if jit else [])
        times, ratios = time_side_by_side(calls, rounds, budget)
        (t_np, t_eager, t_fn), (_, r_eager, r_fn) = times[:3], ratios[:3]
        jit_col = f"{ratios[3]:8.2f}x ({_fmt_time(times[3])})" if jit else "—"
        target = "—" if w.target is None else f"<= {w.target:g}x"
        if w.tf is not None:
            target += f" (TF {w.tf:g}x)"
        if w.target is not None and r_fn > w.target:
            misses.append(w.name)
            target += "  MISSED"
        print(f"{w.name:<24}| {_fmt_time(t_np):>13} | {r_eager:8.2f}x ({_fmt_time(t_eager)}) | "
              f"{r_fn:8.2f}x ({_fmt_time(t_fn)}) | {jit_col:>22} | {target}", flush=True)

    if jit:
        print()
        print("jit_compile=True, first call of each workload (a fresh rt.function):")
        print(f"  {'workload':<24} {'trace+optimise':>14} {'XLA compile':>12} "
              f"{'first call':>11} {'later call':>11}")
        for w in all_ws:
            trace, first, later = w.jit_times
            print(f"  {w.name:<24} {trace * 1e3:11.1f} ms {max(first - later, 0) * 1e3:9.1f} ms "
                  f"{first * 1e3:8.1f} ms {_fmt_time(later):>11}")
        print("  (XLA compile: the first call (plan, JAX trace, lowering, XLA's compilation, "
              "one run) less one later call)")

    if args.passes:
        print()
        print("graph optimisation passes (runtime/optimize): rt.function ratio to numpy by hand")
        for w in all_ws:
            _, (_, r_on, r_off) = time_side_by_side(
                [w.np_call, w.fn_call, w.unoptimised_call()], rounds, budget)
            print(f"  {w.name:<24} with {r_on:6.2f}x   without {r_off:6.2f}x", flush=True)

    dense = all_ws[-1]
    mem_np = peak_memory(dense.np_call)
    mem_fn = peak_memory(dense.fn_call)
    mem_eager = peak_memory(dense.eager_call)
    print()
    print("peak memory, dense 2-layer 512 (tracemalloc, inputs excluded):")
    print(f"  numpy by hand {mem_np / 2**20:7.2f} MiB")
    print(f"  eager         {mem_eager / 2**20:7.2f} MiB   {mem_eager / mem_np:5.2f}x")
    print(f"  rt.function   {mem_fn / 2**20:7.2f} MiB   {mem_fn / mem_np:5.2f}x   target <= 1.2x"
          + ("  MISSED" if mem_fn / mem_np > 1.2 else ""))

    convert, trace, optimise, compile_ = conversion_and_trace(3 if args.quick else 15)
    print()
    print("fresh fizzbuzz (median):")
    print(f"  convert (ag.to_graph)                        {convert * 1e3:8.3f} ms")
    print(f"  trace (get_concrete_function, no conversion) {trace * 1e3:8.3f} ms")
    print(f"  optimise (first call, runtime/optimize)      {optimise * 1e3:8.3f} ms")
    print(f"  compile (first call, executor)               {compile_ * 1e3:8.3f} ms")
    if misses:
        print(f"\ntargets missed: {', '.join(misses)}")


if __name__ == "__main__":
    main()
