"""Portable graphs, measured side by side in one run.

    python tools/bench/bench_portable.py

For a few workloads (the guide's Collatz loop, a staged dynamic RNN over a TensorArray, a
small MLP): the per-call time of the traced ConcreteFunction, of the same function saved
and loaded (rt.saved), and of its ONNX export under onnxruntime (one thread, when
installed), as ratios to the ConcreteFunction; then the time to save and to load, and the
size of the saved files.
Medians of repeated timings.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from examples import programs  # noqa: E402


def per_call(fn, number=200, repeat=7) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


collatz = programs.collatz_steps


def dynamic_rnn(x, state):
    x = rt.transpose(x, [1, 0, 2])
    states = rt.TensorArray(rt.float32, size=x.shape[0])
    for i in rt.range(x.shape[0]):
        state = rt.tanh(x[i] + state)
        states = states.write(i, state)
    return rt.transpose(states.stack(), [1, 0, 2])


W1 = np.random.default_rng(0).random((64, 128), np.float32)
W2 = np.random.default_rng(1).random((128, 10), np.float32)


def mlp(x):
    h = rt.maximum(x @ rt.constant(W1), 0.0)
    return rt.reduce_max(h @ rt.constant(W2), axis=1)


WORKLOADS = [
    ("collatz(27)", collatz, [rt.TensorSpec([], rt.int32)], [np.int32(27)]),
    ("dynamic_rnn 8x20x16", dynamic_rnn,
     [rt.TensorSpec([8, 20, 16], rt.float32), rt.TensorSpec([8, 16], rt.float32)],
     [np.random.rand(8, 20, 16).astype(np.float32), np.random.rand(8, 16).astype(np.float32)]),
    ("mlp 32x64", mlp, [rt.TensorSpec([None, 64], rt.float32)],
     [np.random.rand(32, 64).astype(np.float32)]),
]


def main():
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    print(f"{'workload':<22}{'concrete fn':>14}{'loaded':>10}{'onnxruntime':>13}"
          f"{'save ms':>10}{'load ms':>10}{'KB':>8}")
    for name, fn, specs, args in WORKLOADS:
        staged = rt.function(fn, input_signature=specs)
        cf = staged.get_concrete_function()
        tensors = [rt.constant(a) for a in args]
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            rt.saved.save(staged, d)
            t1 = time.perf_counter()
            loaded = rt.saved.load(d).signatures["serving_default"]
            t2 = time.perf_counter()
            size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)) / 1024
        base = per_call(lambda: cf(*tensors))  # the ConcreteFunction: what `loaded` is
        ratio_loaded = per_call(lambda: loaded(*tensors)) / base
        onnx_text = "-"
        if ort is not None:
            options = ort.SessionOptions()
            options.log_severity_level = 3
            options.intra_op_num_threads = 1
            sess = ort.InferenceSession(rt.onnx.export(cf).SerializeToString(), options,
                                        providers=["CPUExecutionProvider"])
            feeds = {i.name: np.asarray(a) for i, a in zip(sess.get_inputs(), args)}
            onnx_text = f"{per_call(lambda: sess.run(None, feeds)) / base:.2f}x"
        print(f"{name:<22}{base * 1e6:>11.1f} us{ratio_loaded:>9.2f}x{onnx_text:>13}"
              f"{(t1 - t0) * 1e3:>10.1f}{(t2 - t1) * 1e3:>10.1f}{size:>8.1f}")


if __name__ == "__main__":
    main()
