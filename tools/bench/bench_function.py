"""rt.function overheads, measured side by side in one run.

    python tools/bench/bench_function.py

Prints, for a one-op function, the per-call cost of numpy by hand, of our eager mode and
of a traced rt.function (and the overhead over numpy in microseconds), then the time to
convert (as rt.function does, and with `ag.to_graph`'s two bodies) and to trace the
guide's fizzbuzz. Medians of repeated timings, so a shared,
noisy machine disturbs the ratios little.
"""
from __future__ import annotations

import statistics
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402
from examples import programs  # noqa: E402


def per_call(fn, number=20000, repeat=7) -> float:
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number


def fresh_fizzbuzz(k: int):
    """A new function object with its own code (so no conversion cache can hit)."""
    return programs.fresh_copy(programs.fizzbuzz, k)


def main():
    x_np = np.float32(1.5)
    x = rt.constant(1.5)
    one_op = rt.function(lambda x: x + 1.0)
    one_op(x)
    t_np = per_call(lambda: np.add(x_np, np.float32(1.0)))
    t_eager = per_call(lambda: x + 1.0)
    t_fn = per_call(lambda: one_op(x))
    print("one-op function (x + 1.0 on a scalar), per call:")
    print(f"  numpy by hand   {t_np * 1e6:8.2f} us   1.00x")
    print(f"  rt eager        {t_eager * 1e6:8.2f} us   {t_eager / t_np:5.2f}x")
    print(f"  rt.function     {t_fn * 1e6:8.2f} us   {t_fn / t_np:5.2f}x   "
          f"overhead {(t_fn - t_np) * 1e6:.2f} us")

    convert, both, trace = [], [], []
    for k in range(15):
        fresh = fresh_fizzbuzz(k)
        t0 = timeit.default_timer()
        ag.for_staging(fresh)       # what rt.function converts with
        t1 = timeit.default_timer()
        ag.to_graph(fresh)          # (also the original body, for Python values)
        t2 = timeit.default_timer()
        convert.append(t1 - t0)
        both.append(t2 - t1)
        fn = rt.function(fresh)  # converted above: this times the trace alone
        t3 = timeit.default_timer()
        fn.get_concrete_function(rt.TensorSpec([], rt.int32))
        trace.append(timeit.default_timer() - t3)
    print("fizzbuzz (fresh function each time, median of 15):")
    print(f"  convert for rt.function (ag.for_staging) {statistics.median(convert) * 1e3:7.3f} ms")
    print(f"  convert with both bodies (ag.to_graph)   {statistics.median(both) * 1e3:7.3f} ms")
    print(f"  trace (get_concrete_function, conversion excluded) "
          f"{statistics.median(trace) * 1e3:7.3f} ms")


if __name__ == "__main__":
    main()
