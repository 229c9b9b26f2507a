"""Conversion cost: is converting code fast, and linear in the size of the code?

    python tools/bench/bench_conversion.py            # the full run (about 40 s)
    python tools/bench/bench_conversion.py --quick    # a smoke run (about 10 s)

Three figures, side by side in one run:

1. Per-line cost of `ag.to_graph` on one long function of about 50, 200, 800 and 3,200
   lines: a body of realistic code made by repeating varied blocks (loops with
   `if`/`elif`/`else`, `break`/`continue`, `return` in loops, calls, attribute and item
   writes), each block with its own names. Printed: ms per conversion, us per line, and
   the per-line cost relative to the 200-line function (1.0x is linear; the largest
   one's ratio is the figure to watch). Also shown: how much of it is Python's own
   `compile()` of the generated code. CPython's compiler is not linear in the depth of
   nested functions (for each nested scope it copies the names bound in every enclosing
   function, and it hashes each code object, nested code included, as it adds it to
   its parent's constants), and each `return` inside a loop nests the rest of the
   function one function deeper (as TensorFlow's AutoGraph does).
2. A 10-line fizzbuzz converted as `rt.function` converts it (`ag.for_staging`: the
   converted body alone) and by `ag.to_graph` (also the original body): best of many
   conversions after the first in the process.
3. `autograph convert` (`module_converter.convert_source`) over a few standard-library
   files: lines per CPU second.

Times are CPU times of this process (`time.process_time_ns`; fizzbuzz also shows the
best wall time), so that other processes on a shared machine move them less. Every
conversion is fresh: the conversion caches (`autograph.api.code_cache`, and the ones
kept on each function: `autograph.operators.calls.forget_all`) are cleared before each one, and the garbage collector is paused
around it (as `timeit` does; `to_graph` pauses it itself too). A time shown is the
best (minimum) over the repetitions: on a shared, noisy machine the best of several
runs is the least disturbed estimate of a deterministic workload's cost. Each
generated function is checked to convert (AUTOGRAPH_STRICT is set: a failure raises)
and to return what the original returns.
"""
from __future__ import annotations

import argparse
import gc
import linecache
import os
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import autograph as ag  # noqa: E402
from autograph import api, module_converter  # noqa: E402
from autograph.operators import calls  # noqa: E402


# -- generated long functions --------------------------------------------------------------

_BLOCKS = [
    # a `for` with if/elif/else and `continue`
    """\
    total{k} = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        elif i % 5 == {m}:
            total{k} += i
        else:
            total{k} -= 1
    acc.append(total{k})
""",
    # a `while` with `break`, item writes
    """\
    j{k} = 0
    while j{k} < n:
        j{k} += 1
        if j{k} > limit + {m}:
            break
        state["count"] += j{k}
""",
    # `return` in a loop, attribute writes
    """\
    for x in items:
        if x == target + {k}:
            return x
        obj.value = x + {m}
""",
    # calls and branches
    """\
    s{k} = helper(len(acc), {m})
    if s{k} > 10:
        r{k} = min(s{k}, 100)
    else:
        r{k} = max(s{k}, -100)
        obj.other = r{k}
    acc.extend([r{k}, s{k}])
""",
    # nested loops with `break` and a flag
    """\
    found{k} = False
    for a in range(3):
        for b in range(4):
            if a * b == {m}:
                found{k} = True
                break
        if found{k}:
            state["found"] = (a, b)
            break
""",
]


def long_source(name: str, lines: int) -> str:
    """A function `name(n, items, target, limit, acc, state, obj)` of about `lines` lines."""
    out = [f"def {name}(n, items, target, limit, acc, state, obj):\n"]
    count, k = 1, 0
    while count < lines - 1:
        block = _BLOCKS[k % len(_BLOCKS)].format(k=k, m=k % 7)
        out.append(block)
        count += block.count("\n")
        k += 1
    out.append("    return acc, state['count']\n")
    return "".join(out)


def helper(a, b):
    return a + b


class Obj:
    value = other = 0


def define(source: str, name: str, filename: str):
    """The function `name` defined by `source`, its text registered with linecache (as a
    file would be) so that autograph can read it."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"helper": helper, "__name__": "bench_conversion_generated"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def _args():
    return (12, [5, 6, 7], 1000, 8, [], {"count": 0, "found": None}, Obj())


FIZZBUZZ = '''\
def fizzbuzz(n):
    count = 0
    for i in range(n):
        if i % 15 == 0:
            count += 3
        elif i % 5 == 0:
            count += 2
        elif i % 3 == 0:
            count += 1
        else:
            count -= 1
    return count
'''


# -- timing -------------------------------------------------------------------------------

def _clear_caches():
    api.code_cache.clear()
    calls.forget_all()


class _CompileClock:
    """CPU time spent in Python's own `compile()` of the generated code (installed as
    `autograph.api.compile`, which then shadows the builtin): the part of a conversion
    that is CPython's bytecode compiler, not autograph."""

    def __init__(self):
        self.ns = 0

    def __call__(self, *args, **kwargs):
        t0 = time.process_time_ns()
        try:
            return compile(*args, **kwargs)
        finally:
            self.ns += time.process_time_ns() - t0


def convert_time(fn, repeats: int, clock=time.process_time_ns, split: bool = False,
                 convert=None):
    """Best time (s) of `ag.to_graph(fn)` (or `convert(fn)`) over `repeats` fresh
    conversions; with `split`, (best time, the compile() time of that conversion)."""
    convert = convert or ag.to_graph
    best = None
    timer = _CompileClock()
    if split:
        api.compile = timer
    try:
        for _ in range(repeats):
            _clear_caches()
            gc.collect()
            gc.disable()
            timer.ns = 0
            try:
                t0 = clock()
                convert(fn)
                t = clock() - t0
            finally:
                gc.enable()
            if best is None or t < best[0]:
                best = (t, timer.ns)
    finally:
        if split:
            del api.compile
    return (best[0] / 1e9, best[1] / 1e9) if split else best[0] / 1e9


def _check(fn):
    _clear_caches()
    converted = ag.to_graph(fn)
    assert converted is not fn, f"{fn.__name__} did not convert"
    expected, got = fn(*_args()), converted(*_args())
    assert repr(got) == repr(expected), f"{fn.__name__}: {got!r} != {expected!r}"


STDLIB_FILES = ["heapq.py", "textwrap.py", "fractions.py", "difflib.py", "argparse.py",
                "configparser.py", "tokenize.py", "shlex.py"]


def module_rate(files: list, repeats: int) -> tuple:
    """(lines, best CPU seconds of converting all `files`) with convert_source."""
    stdlib = sysconfig.get_paths()["stdlib"]
    sources = []
    for name in files:
        path = os.path.join(stdlib, name)
        with open(path, encoding="utf-8") as f:
            sources.append((f.read(), path))
    lines = sum(s.count("\n") for s, _ in sources)
    best = None
    for _ in range(repeats):
        total = 0
        for source, path in sources:
            gc.collect()
            t0 = time.process_time()
            module_converter.convert_source(source, path)
            total += time.process_time() - t0
        best = total if best is None else min(best, total)
    return lines, best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~10 s smoke run")
    opts = parser.parse_args(argv)
    quick = opts.quick
    os.environ["AUTOGRAPH_STRICT"] = "1"      # a conversion failure raises

    # The first conversion in a process also pays one-off setup (imports, caches).
    fizz = define(FIZZBUZZ, "fizzbuzz", "<bench_conversion fizzbuzz>")
    convert_time(fizz, 1)

    sizes = [50, 200, 800, 3200]
    rows = []
    for size in sizes:
        name = f"long_{size}"
        source = long_source(name, size)
        fn = define(source, name, f"<bench_conversion {name}>")
        _check(fn)
        lines = source.count("\n")
        repeats = (2 if size >= 3200 else 3) if quick else (3 if size >= 3200 else 7)
        rows.append((lines, *convert_time(fn, repeats, split=True)))
    base, base_rest = next((t / n, (t - c) / n) for n, t, c in rows if n >= 200)
    print(f"ag.to_graph of one long function: CPU time, best of several fresh conversions "
          f"({'quick' if quick else 'full'} run); 'compile()': of which Python's bytecode "
          f"compiler, 'rest': the remainder")
    print(f"{'lines':>6}  {'ms':>9}  {'us/line':>8}  {'vs 200-line':>11}  "
          f"{'compile() us/line':>17}  {'rest vs 200-line':>16}")
    for n, t, c in rows:
        print(f"{n:6d}  {t * 1e3:9.2f}  {t / n * 1e6:8.1f}  {t / n / base:10.2f}x  "
              f"{c / n * 1e6:17.1f}  {(t - c) / n / base_rest:15.2f}x")
    largest = rows[-1]
    print(f"per-line cost, {largest[0]}-line function / ~200-line function: "
          f"{largest[1] / largest[0] / base:.2f}x (without compile(): "
          f"{(largest[1] - largest[2]) / largest[0] / base_rest:.2f}x)")
    print()

    for what, convert in (("ag.for_staging (as rt.function)", ag.for_staging),
                          ("ag.to_graph (both bodies)", ag.to_graph)):
        fizz_cpu = convert_time(fizz, 50 if quick else 300, convert=convert)
        fizz_wall = convert_time(fizz, 20 if quick else 100, time.perf_counter_ns,
                                 convert=convert)
        print(f"fizzbuzz ({FIZZBUZZ.count(chr(10))} lines) {what}: {fizz_cpu * 1e3:.3f} ms "
              f"CPU (best), {fizz_wall * 1e3:.3f} ms wall (best)")
    print()

    files = STDLIB_FILES[:3] if quick else STDLIB_FILES
    lines, cpu = module_rate(files, 1 if quick else 3)
    print(f"module conversion (convert_source) of {len(files)} stdlib files, {lines} lines: "
          f"{cpu:.2f} s CPU (best), {lines / cpu:,.0f} lines/s")


if __name__ == "__main__":
    main()
