"""Plain Python under `ag.jax.jit` against the same programs written with lax by hand.

    python tools/bench/bench_jax_autograph.py            # the full run (about a minute)
    python tools/bench/bench_jax_autograph.py --quick    # a smoke run: few, short timings

Each workload is written twice: (a) as plain Python (`if`, `while`, `for`, `break`,
`return` on traced values), compiled with `ag.jax.jit`; (b) by hand with `lax.cond`,
`lax.while_loop`, `lax.fori_loop` and `lax.scan`, compiled with `jax.jit` (the direct
translation a JAX user writes today: an `if` on a traced value becomes `lax.cond`, a loop
`while_loop`/`fori_loop`/`scan` with its state threaded through a tuple).

For each it prints:
- per call: the median over interleaved rounds (hand, ours, ours, hand, ...) of each
  round's time per call, arrays already on the device, every result `block_until_ready`;
  the ratio is the median of the per-round ratios (goal: <= 1.05x);
- first call: trace + convert + lower + compile + run of a fresh function object (its own
  source and code, so no cache of conversions or traces hits), the median over a few
  interleaved tries (goal: <= 1.2x);
- HLO ops: the instructions of the compiled (optimised) HLO module, and in brackets the
  ops of the lowered StableHLO (goal: equal or fewer).
Both versions are first checked to give the same results. Without `ag.jax` (or where a
workload does not convert) the "ours" columns say "—" and the reason is printed below.
"""
from __future__ import annotations

import argparse
import inspect
import linecache
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

try:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
except ImportError:            # the bench needs JAX: say how to get it
    jax = None

import autograph as ag  # noqa: E402


# -- (a) plain Python -----------------------------------------------------------------------

def fizzbuzz(n):
    fizz = 0
    buzz = 0
    fizzbuzz = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            fizzbuzz += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
    return fizz, buzz, fizzbuzz


def collatz(x):
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps


def tanh_loop(x):
    while jnp.sum(x) > 1:
        x = jnp.tanh(x)
    return x


def first_above(xs, t):
    for i, x in enumerate(xs):
        if x > t:
            return i
    return -1


def piecewise(x):
    if x < 0:
        return 0.5 * x
    elif x < 1:
        return x * x
    return 2.0 * x - 1.0


def mse(w, X, y):
    return jnp.mean((X @ w - y) ** 2)


def train_to_tolerance(w, X, y):
    loss = mse(w, X, y)
    steps = 0
    while loss > 1e-3 and steps < 500:
        w = w - 0.05 * jax.grad(mse)(w, X, y)
        loss = mse(w, X, y)
        steps += 1
    return w, loss, steps


def huber(w, xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        err = jnp.dot(x, w) - y
        if jnp.abs(err) < 1.0:
            total = total + 0.5 * err * err
        else:
            total = total + jnp.abs(err) - 0.5
    return total / xs.shape[0]


def sgd_step(w, xs, ys):
    return w - 0.1 * jax.grad(ag.jax.convert(huber))(w, xs, ys)


# -- (b) the same, with lax by hand ---------------------------------------------------------

def fizzbuzz_lax(n):
    def body(i, counts):
        fizz, buzz, fb = counts
        return lax.cond(
            i % 15 == 0, lambda: (fizz, buzz, fb + 1),
            lambda: lax.cond(
                i % 3 == 0, lambda: (fizz + 1, buzz, fb),
                lambda: lax.cond(i % 5 == 0, lambda: (fizz, buzz + 1, fb),
                                 lambda: (fizz, buzz, fb))))
    zero = jnp.zeros((), jnp.int32)
    return lax.fori_loop(1, n + 1, body, (zero, zero, zero))


def collatz_lax(x):
    def body(state):
        x, steps = state
        x = lax.cond(x % 2 == 0, lambda: x // 2, lambda: 3 * x + 1)
        return x, steps + 1
    return lax.while_loop(lambda s: s[0] != 1, body, (x, jnp.zeros((), jnp.int32)))[1]


def tanh_loop_lax(x):
    return lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x)


def first_above_lax(xs, t):
    n = xs.shape[0]
    i = lax.while_loop(lambda i: (i < n) & (xs[i] <= t), lambda i: i + 1, jnp.zeros((), jnp.int32))
    return jnp.where(i < n, i, -1)


def piecewise_lax(x):
    return lax.cond(x < 0, lambda: 0.5 * x,
                    lambda: lax.cond(x < 1, lambda: x * x, lambda: 2.0 * x - 1.0))


def train_to_tolerance_lax(w, X, y):
    def body(state):
        w, _, steps = state
        w = w - 0.05 * jax.grad(mse)(w, X, y)
        return w, mse(w, X, y), steps + 1
    return lax.while_loop(lambda s: (s[1] > 1e-3) & (s[2] < 500), body,
                          (w, mse(w, X, y), jnp.zeros((), jnp.int32)))


def huber_lax(w, xs, ys):
    def body(total, xy):
        err = jnp.dot(xy[0], w) - xy[1]
        return lax.cond(jnp.abs(err) < 1.0, lambda: total + 0.5 * err * err,
                        lambda: total + jnp.abs(err) - 0.5), None
    total, _ = lax.scan(body, jnp.zeros((), xs.dtype), (xs, ys))
    return total / xs.shape[0]


def sgd_step_lax(w, xs, ys):
    return w - 0.1 * jax.grad(huber_lax)(w, xs, ys)


# -- the table ------------------------------------------------------------------------------

def vmapped(fn):
    return jax.vmap(fn)


def workloads():
    """(name, plain, by hand, wrap, args): `wrap` turns the function into the one compiled
    (jax.vmap for the piecewise row, else the function itself)."""
    rng = np.random.default_rng(0)
    xs = rng.uniform(0.0, 1.0, 100_000).astype(np.float32)
    xs[70_000] = 2.0
    X = rng.normal(size=(256, 8)).astype(np.float32)
    w_true = rng.normal(size=8).astype(np.float32)
    y = X @ w_true
    rows = rng.normal(size=(64, 8)).astype(np.float32)
    targets = rows @ w_true + rng.normal(scale=2.0, size=64).astype(np.float32)
    same = None
    put = jax.device_put
    return [
        ("fizzbuzz(10000)", fizzbuzz, fizzbuzz_lax, same, (put(np.int32(10_000)),)),
        ("collatz(77031)", collatz, collatz_lax, same, (put(np.int32(77_031)),)),
        ("tanh_loop(64)", tanh_loop, tanh_loop_lax, same,
         (put(np.linspace(0.0, 1.0, 64, dtype=np.float32)),)),
        ("first_above(1e5)", first_above, first_above_lax, same,
         (put(xs), put(np.float32(1.5)))),
        ("vmap piecewise(1e5)", piecewise, piecewise_lax, vmapped,
         (put(rng.uniform(-2, 3, 100_000).astype(np.float32)),)),
        ("train to tolerance", train_to_tolerance, train_to_tolerance_lax, same,
         (put(np.zeros(8, np.float32)), put(X), put(y))),
        ("sgd step, grad(for+if)", sgd_step, sgd_step_lax, same,
         (put(np.zeros(8, np.float32)), put(rows), put(targets))),
    ]


def fresh(fn, k: int):
    """A new function object made from fn's source, filed under its own name: no cache of
    conversions or traces can hit (what the first-call column times)."""
    filename = f"<bench-jax-{fn.__name__}-{k}>"
    source = inspect.getsource(fn)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(globals())
    exec(compile(source, filename, "exec"), namespace)
    return namespace[fn.__name__]


def compile_ours(fn, wrap):
    return ag.jax.jit(fn) if wrap is None else jax.jit(wrap(ag.jax.convert(fn)))


def compile_hand(fn, wrap):
    return jax.jit(fn if wrap is None else wrap(fn))


def block(result):
    return jax.block_until_ready(result)


def agree(a, b) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(la) == len(lb) and all(
        np.shape(u) == np.shape(v) and np.allclose(np.asarray(u), np.asarray(v), rtol=1e-4,
                                                   atol=1e-5) for u, v in zip(la, lb))


_HLO_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?[\w.\-]+ = ")
_STABLEHLO_OP = re.compile(r"^\s*(%[\w#:, %]+ = )?\"?(stablehlo|chlo|func)\.")


def hlo_ops(jitted, args) -> str:
    """Instructions of the compiled HLO module [ops of the lowered StableHLO]."""
    lowered = jitted.lower(*args)
    mlir = sum(1 for line in lowered.as_text().splitlines() if _STABLEHLO_OP.match(line))
    hlo = sum(1 for line in lowered.compile().as_text().splitlines()
              if _HLO_INSTRUCTION.match(line))
    return f"{hlo} [{mlir}]"


def per_call(fns, args, rounds: int, target_s: float):
    """Median time per call of each of fns, and the median per-round ratio of each to the first."""
    calls = 1
    while True:                          # calls per round: about target_s for the first
        start = time.perf_counter()
        for _ in range(calls):
            block(fns[0](*args))
        if time.perf_counter() - start >= target_s or calls >= 1 << 16:
            break
        calls *= 2
    samples = [[] for _ in fns]
    for r in range(rounds):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            fn = fns[i]
            start = time.perf_counter()
            for _ in range(calls):
                block(fn(*args))
            samples[i].append((time.perf_counter() - start) / calls)
    ratios = [statistics.median(s[r] / samples[0][r] for r in range(rounds)) for s in samples]
    return [statistics.median(s) for s in samples], ratios


def first_call(make, args, tries: int):
    """Median over tries of: build the compiled function from a fresh copy, call it once."""
    times = []
    for k in range(tries):
        start = time.perf_counter()
        block(make(k)(*args))
        times.append(time.perf_counter() - start)
    return times


def row(name, plain, hand, wrap, args, opts, notes):
    jit_hand = compile_hand(hand, wrap)
    expected = block(jit_hand(*args))
    ours = None
    if getattr(ag, "jax", None) is None:
        notes.append(f"{name}: ag.jax is not there yet")
    else:
        try:
            ours = compile_ours(plain, wrap)
            got = block(ours(*args))
        except Exception as e:      # a construct that does not stage yet: reported, not fatal
            notes.append(f"{name}: ag.jax failed: {type(e).__name__}: {str(e).splitlines()[0]}")
            ours = None
        else:
            if not agree(got, expected):
                raise AssertionError(f"{name}: ag.jax gives {got}, lax by hand {expected}")
    fns = [jit_hand] + ([ours] if ours is not None else [])
    times, ratios = per_call(fns, args, opts.rounds, opts.target_s)
    ops = [hlo_ops(jit_hand, args)] + ([hlo_ops(ours, args)] if ours is not None else [])
    first_hand, first_ours = [], []
    for k in range(opts.first_tries):            # interleaved: hand, ours, hand, ...
        first_hand += first_call(lambda j: compile_hand(fresh(hand, 2 * k + j), wrap), args, 1)
        if ours is not None:
            first_ours += first_call(
                lambda j: compile_ours(fresh(plain, 2 * k + j), wrap), args, 1)
    dash = "—"
    us = [f"{t * 1e6:.1f}" for t in times] + [dash] * (2 - len(times))
    ratio = f"{ratios[1]:.2f}x" if ours is not None else dash
    fh = statistics.median(first_hand)
    fo = f"{statistics.median(first_ours) * 1e3:.0f}" if first_ours else dash
    fr = (f"{statistics.median(o / h for o, h in zip(first_ours, first_hand)):.2f}x"
          if first_ours else dash)
    ops += [dash] * (2 - len(ops))
    return [name, us[0], us[1], ratio, f"{fh * 1e3:.0f}", fo, fr, ops[0], ops[1]]


HEADER = ["workload", "hand us", "ours us", "ratio (<=1.05x)", "first hand ms", "first ours ms",
          "ratio (<=1.2x)", "HLO hand", "HLO ours"]


def print_table(rows):
    widths = [max(len(str(r[i])) for r in [HEADER] + rows) for i in range(len(HEADER))]
    for r in [HEADER] + rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few, short timings")
    parser.add_argument("--only", help="run the workloads whose name contains this")
    opts = parser.parse_args(argv)
    if jax is None:
        print("JAX is not installed: pip install -e '.[jax]'")
        return 0
    opts.rounds, opts.target_s, opts.first_tries = (3, 0.005, 1) if opts.quick else (15, 0.05, 3)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; per call: median of "
          f"{opts.rounds} interleaved rounds; first call: median of {opts.first_tries}")
    rows, notes = [], []
    for name, plain, hand, wrap, args in workloads():
        if opts.only and opts.only not in name:
            continue
        rows.append(row(name, plain, hand, wrap, args, opts, notes))
    print_table(rows)
    print("HLO: instructions of the compiled module [ops of the lowered StableHLO]")
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
