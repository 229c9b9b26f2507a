"""The compiled programs of tools/bench/bench_jit.py's rows, without the call path: the
XLA backend's jitted function (the optimised graph lowered as `rt.function(...,
jit_compile=True)` lowers it) against the same computation by hand in JAX, both called
on the same arrays and waited for, side by side; and, per program, the compiled HLO's
instruction count and its while loops (with XLA's known trip count where it found one).

    python tools/bench/bench_jit_plans.py [--quick] [--hlo] [name]

Where `ours/hand` here is about 1 and bench_jit's is not, the difference is the call
path (finding the trace, the arguments in, the results out), not the program.
`--hlo` prints both compiled programs.
"""
from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.backends.xla.backend import JaxBackend  # noqa: E402
from runtime.optimize import optimize  # noqa: E402

from bench_jit import per_call, ratio, rows  # noqa: E402


def plan_of(fn, args, extra):
    """The XLA plan of `fn` traced for `args` and the Python arguments `extra`, its graph
    optimised as a ConcreteFunction optimises it before compiling."""
    cf = rt.function(fn, jit_compile=True).get_concrete_function(*args, *extra)
    graph, outputs = optimize(cf.graph, list(cf.outputs))
    return JaxBackend().compile(graph, list(graph.inputs), outputs)


def hlo_summary(compiled_text: str) -> str:
    """Instructions, and each while loop's known trip count (`?` where XLA found none)."""
    text = re.sub(r", metadata=\{[^}]*\}", "", compiled_text)
    instructions = sum(1 for line in text.splitlines()
                       if re.match(r"\s+(ROOT )?%\S+ = ", line))
    trips = [m.group(1) if m else "?" for m in
             (re.search(r'"known_trip_count":\{"n":"(\d+)"', line)
              for line in text.splitlines() if re.search(r"\) while\(|\} while\(", line))]
    return f"{instructions} instr" + (f", while trips {'/'.join(trips)}" if trips else "")


def main(argv=None):
    argv = argv if argv is not None else sys.argv[1:]
    quick, show = "--quick" in argv, "--hlo" in argv
    only = next((a for a in argv if not a.startswith("--")), None)
    budget, repeat = (0.05, 5) if quick else (0.5, 15)
    print(f"{'compiled program, us':<30}{'ours':>9}{'by hand':>9}{'ours/hand':>11}"
          f"   {'HLO: ours':<32}by hand")
    ratios = []
    for name, fn, args, hand, extra in rows(np.random.default_rng(0)):
        if only and only not in name:
            continue
        jitted = plan_of(fn, args, extra).jitted
        ours, by_hand = jitted.lower(*args).compile(), hand.lower(*args).compile()
        np.testing.assert_allclose(np.asarray(jax.tree_util.tree_leaves(ours(*args))[0]),
                                   np.asarray(jax.tree_util.tree_leaves(hand(*args))[0]),
                                   rtol=1e-5, atol=1e-6)
        times = per_call([lambda: jax.block_until_ready(ours(*args)),
                          lambda: jax.block_until_ready(by_hand(*args))], budget, repeat)
        r = ratio(*times)
        ratios.append(r)
        print(f"{name:<30}{statistics.median(times[0]) * 1e6:9.1f}"
              f"{statistics.median(times[1]) * 1e6:9.1f}{r:10.2f}x"
              f"   {hlo_summary(ours.as_text()):<32}{hlo_summary(by_hand.as_text())}")
        if show:
            print(ours.as_text(), by_hand.as_text(), sep="\n")
    if ratios:
        print(f"worst ours/hand: {max(ratios):.2f}x")
    return ratios


if __name__ == "__main__":
    main()
