"""Converted code on Python values: ag.to_graph(f) against f itself, side by side in one run.

    python tools/bench/bench_converted.py            # the full run (about 25 s)
    python tools/bench/bench_converted.py --quick    # a smoke run (about 3 s)

A converted function called with plain Python values while nothing is staging runs its
original body (see autograph/operators/python_path.py); while a graph is being built it
runs its converted body, through autograph's operators (`ag__.converted`, `if_stmt`,
`for_stmt`, ...), on Python values too. This prints, for each control-flow shape, the
per-call time of the original, of the converted function as called, and of the same
call inside `Staging()` (the converted body), with their ratios to the original, then
the geometric means and worst ratios, and the time `ag.to_graph` took to convert each
function.

Every converted function is first checked to return the same value as the original, on
both paths.
Timing: rounds alternate original and converted (and which goes first), each round a
batch of calls timed with `time.perf_counter` with the garbage collector off (as
`timeit` does); a time shown is the best (minimum) per-call time over the rounds, the
ratio is best converted / best original. On a shared, noisy machine the best of many
short interleaved rounds is the least disturbed estimate of a deterministic workload's
cost, and both sides see the same load. Each original workload takes about 1-5 ms a call.
"""
from __future__ import annotations

import argparse
import gc
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import autograph as ag  # noqa: E402
from autograph.operators import Staging  # noqa: E402


# -- the workloads: plain Python, called with Python values ---------------------------------

def for_if_else(n):
    even = 0
    odd = 0
    for i in range(n):
        if i % 2 == 0:
            even += i
        else:
            odd += 1
    return even, odd


def while_continue(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        total += i
    return total


def nested_for_break(n):
    hits = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            hits += 1
    return hits


def loop_of_calls(n):
    total = 0
    for i in range(n):
        total += len(str(i))
    return total


def for_early_return(xs, target):
    for i in range(len(xs)):
        if xs[i] == target:
            return i
    return -1


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def comprehensions(n):
    squares = [i * i for i in range(n) if i % 3]
    index = {i: i % 7 for i in range(n)}
    residues = {i % 97 for i in range(n)}
    return len(squares), sum(index.values()), len(residues)


class Counter:
    def __init__(self):
        self.count = 0

    def step(self, k):
        self.count += k
        return self.count


def method_calls(n):
    c = Counter()
    last = 0
    for i in range(n):
        last = c.step(i % 5)
    return last


def while_break(n):
    i = 0
    total = 0
    while True:
        total += i
        i += 1
        if i >= n:
            break
    return total


def try_except_loop(xs):
    good = 0
    bad = 0
    for x in xs:
        try:
            good += 100 // x
        except ZeroDivisionError:
            bad += 1
    return good, bad


class Accumulator:
    def __init__(self):
        self.total = 0

    def run(self, d, n):
        self.total = 0
        d["k"] = 0
        for i in range(n):
            self.total += i
            d["k"] += i
        return self.total, d["k"]


def in_list_loop(xs, n):
    found = 0
    for i in range(n):
        if i in xs:
            found += 1
    return found


def len_loop(xs, n):
    total = 0
    for i in range(n):
        total += len(xs)
    return total


# (shape, function, args): sizes chosen so each original call takes ~1-5 ms on CPython 3.11
# (fib(18), as the issue names it, takes less: ~0.4 ms)
WORKLOADS = [
    ("for + if/else", for_if_else, (20000,)),
    ("while + continue", while_continue, (20000,)),
    ("nested for + break", nested_for_break, (300,)),
    ("loop of calls len(str(i))", loop_of_calls, (10000,)),
    ("for + early return", for_early_return, (list(range(60000)), 45000)),
    ("recursive fib(18)", fib, (18,)),
    ("list/dict/set comprehensions", comprehensions, (10000,)),
    ("method calls in a loop", method_calls, (12000,)),
    ("while + break", while_break, (20000,)),
    ("try/except in a loop", try_except_loop, ([i % 50 for i in range(25000)],)),
    ("self.total += i, d['k'] += i", Accumulator().run, ({}, 10000)),
    ("x in list in a loop", in_list_loop, (list(range(0, 40, 2)), 10000)),
    ("len(xs) in a loop", len_loop, (list(range(100)), 25000)),
]


def _warm_up(n):
    total = 0
    for i in range(n):
        if i:
            total += i
    return total


def _batch(fn, args, number):
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(number):
            fn(*args)
        return (time.perf_counter() - t0) / number
    finally:
        if gc_was_enabled:
            gc.enable()


def measure(fns, args, rounds, budget):
    """Best per-call time of each of `fns`, in interleaved rounds (the order turns each
    round). Each one's batch is sized from a warm-up call to take about `budget` seconds
    (one call at least)."""
    number = [max(1, int(budget / max(_batch(fn, args, 1), 1e-7))) for fn in fns]
    best = [math.inf] * len(fns)
    order = list(range(len(fns)))
    for r in range(rounds):
        for i in order[r % len(fns):] + order[:r % len(fns)]:
            best[i] = min(best[i], _batch(fns[i], args, number[i]))
    return best


def staging_path(converted):
    """`converted`, run with its converted body (as while a graph is built)."""
    def run(*args):
        with Staging():
            return converted(*args)
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~3 s smoke run")
    opts = parser.parse_args(argv)
    rounds, budget = (3, 0.02) if opts.quick else (15, 0.06)

    # The first conversion in a process also pays one-off setup; it is shown apart.
    t0 = time.perf_counter()
    ag.to_graph(_warm_up)
    warm_up = time.perf_counter() - t0
    rows, conversions = [], []
    for shape, fn, args in WORKLOADS:
        t0 = time.perf_counter()
        converted = ag.to_graph(fn)
        conversions.append((shape, time.perf_counter() - t0))
        staged = staging_path(converted)
        expected = fn(*args)
        for name, other in (("converted", converted), ("converted body", staged)):
            got = other(*args)
            assert got == expected, f"{shape}: {name} returned {got!r}, original {expected!r}"
        best_o, best_c, best_s = measure([fn, converted, staged], args, rounds, budget)
        rows.append((shape, best_o, best_c, best_c / best_o, best_s, best_s / best_o))

    print(f"ag.to_graph(f) vs f on Python values: best of {rounds} interleaved rounds, "
          f"time.perf_counter, gc off ({'quick' if opts.quick else 'full'} run)")
    print("'converted': as called (its original body runs: nothing is staging); 'converted "
          "body': the same call inside Staging(), as while rt.function traces")
    width = max(len(r[0]) for r in rows)
    print(f"{'shape':<{width}}  {'original us':>12}  {'converted us':>12}  {'ratio':>7}"
          f"  {'conv. body us':>13}  {'ratio':>7}")
    for shape, o, c, ratio, st, sratio in rows:
        print(f"{shape:<{width}}  {o * 1e6:12.1f}  {c * 1e6:12.1f}  {ratio:6.2f}x"
              f"  {st * 1e6:13.1f}  {sratio:6.2f}x")
    geomean = math.exp(sum(math.log(r[3]) for r in rows) / len(rows))
    geomean_s = math.exp(sum(math.log(r[5]) for r in rows) / len(rows))
    print(f"{'geometric mean of ratios':<{width}}  {'':>12}  {'':>12}  {geomean:6.2f}x"
          f"  {'':>13}  {geomean_s:6.2f}x")
    print(f"{'worst ratio':<{width}}  {'':>12}  {'':>12}  {max(r[3] for r in rows):6.2f}x"
          f"  {'':>13}  {max(r[5] for r in rows):6.2f}x")
    print()
    print("conversion time (ag.to_graph of each function, ms; the first conversion in the "
          f"process, of a throwaway function, took {warm_up * 1e3:.2f} ms):")
    for shape, t in conversions:
        print(f"  {shape:<{width}}  {t * 1e3:8.2f}")
    return geomean


if __name__ == "__main__":
    main()
