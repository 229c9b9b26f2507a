"""rt.saved.load side by side with reading the same two files by hand.

    python tools/bench/bench_saved_load.py [--quick]

A model of dense layers (Variables and constants: 3 MB and 16 MB of weights) is saved;
then, in interleaved rounds, `rt.saved.load(path)` against the least a reader must do:
`json.load` of saved.json and `np.load` of every array in arrays.npz. The loader does
more (it checks every field, rebuilds the graphs, opens files without following links,
checks each zip member before reading it), so the ratio says what those cost. Also the
load with run guards (rt.saved.load(path, max_loop_iterations=..., deadline_seconds=...,
max_elements=...)), and a call of the loaded function with and without them. The loaded
function is checked to agree with the original first.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402

GUARDS = {"max_loop_iterations": 10 ** 6, "deadline_seconds": 10.0, "max_elements": 1 << 28}


def _model(layers: int, path: str):
    rng = np.random.default_rng(0)
    ws = [rt.Variable(rng.standard_normal((256, 256)).astype(np.float32)) for _ in range(layers)]
    bs = [rt.constant(rng.standard_normal((256,)).astype(np.float32)) for _ in range(layers)]

    @rt.function(input_signature=[rt.TensorSpec([None, 256], rt.float32)])
    def f(x):
        for w, b in zip(ws, bs):
            x = rt.tanh(rt.matmul(x, w) + b)
        return rt.reduce_sum(x, axis=1)

    rt.saved.save(f, path)
    return f


def _by_hand(path):
    with open(os.path.join(path, "saved.json"), "rb") as fh:
        json.load(fh)
    with np.load(os.path.join(path, "arrays.npz")) as z:
        return [z[k] for k in z.files]


def _median_ms(ts):
    return statistics.median(ts) * 1e3


def main(quick: bool):
    rounds = 5 if quick else 40
    for layers in (12, 60):
        path = tempfile.mkdtemp(prefix="bench-saved-")
        f = _model(layers, path)
        x = np.ones((4, 256), np.float32)
        plain, guarded = rt.saved.load(path), rt.saved.load(path, **GUARDS)
        want = f(x).numpy()
        np.testing.assert_allclose(plain.f(x).numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(guarded.f(x).numpy(), want, rtol=1e-6)
        size = sum(os.path.getsize(os.path.join(path, n)) for n in os.listdir(path))
        times = {"by hand": [], "load": [], "load, guards": [], "call": [], "call, guards": []}
        for _ in range(rounds):
            for name, run in (("by hand", lambda: _by_hand(path)),
                              ("load", lambda: rt.saved.load(path)),
                              ("load, guards", lambda: rt.saved.load(path, **GUARDS)),
                              ("call", lambda: plain.f(x)),
                              ("call, guards", lambda: guarded.f(x))):
                t = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - t)
        hand = _median_ms(times["by hand"])
        call = _median_ms(times["call"])
        print(f"{layers} layers, {size / 1e6:.1f} MB on disk:")
        print(f"  json.load + np.load by hand  {hand:8.2f} ms")
        for name in ("load", "load, guards"):
            print(f"  rt.saved.load{'' if name == 'load' else ' with guards':12s}   "
                  f"{_median_ms(times[name]):8.2f} ms   {_median_ms(times[name]) / hand:5.2f}x")
        print(f"  a call                       {call:8.3f} ms")
        print(f"  a call with guards           {_median_ms(times['call, guards']):8.3f} ms   "
              f"{_median_ms(times['call, guards']) / call:5.2f}x")


if __name__ == "__main__":
    main("--quick" in sys.argv)
