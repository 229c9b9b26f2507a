"""The shaping and structural ops in an rt.function (numpy backend) against the same work in
numpy by hand, side by side in one run: the ratio says what the composition (sort as
argsort + gather, one_hot as compare + select, boolean_mask as where + gather, ...) and
the graph cost.

    python tools/bench/bench_shaping_ops.py [--quick]
"""
from __future__ import annotations

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import runtime as rt  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.standard_normal((256, 512)).astype(np.float32)
IDX = RNG.integers(0, 100, size=4096).astype(np.int32)
A = (RNG.standard_normal((64, 64)) + 8 * np.eye(64)).astype(np.float64)


def _np_one_hot(i):
    out = np.zeros(i.shape + (100,), np.float32)
    out[np.arange(i.size), i] = 1
    return out


WORKLOADS = [  # name, rt function, numpy by hand, argument
    ("sort axis=-1 256x512", lambda x: rt.sort(x), lambda x: np.sort(x, axis=-1), X),
    ("sort axis=0 256x512", lambda x: rt.sort(x, axis=0), lambda x: np.sort(x, axis=0), X),
    ("argsort 256x512", lambda x: rt.argsort(x),
     lambda x: np.argsort(x, kind="stable").astype(np.int32), X),
    ("tile [2, 3]", lambda x: rt.tile(x, [2, 3]), lambda x: np.tile(x, [2, 3]), X),
    ("split 4 ways", lambda x: rt.split(x, 4, axis=1), lambda x: np.split(x, 4, axis=1), X),
    ("boolean_mask x > 0", lambda x: rt.boolean_mask(x, x > 0), lambda x: x[x > 0], X),
    ("one_hot 4096 x 100", lambda i: rt.one_hot(i, 100), _np_one_hot, IDX),
    ("einsum ij,kj->ik", lambda x: rt.einsum("ij,kj->ik", x, x),
     lambda x: x @ x.T, X[:128]),
    ("linalg.inv 64x64", rt.linalg.inv, np.linalg.inv, A),
    ("linalg.solve 64x64", lambda a: rt.linalg.solve(a, a), lambda a: np.linalg.solve(a, a), A),
    ("norm 256x512", lambda x: rt.norm(x), lambda x: np.sqrt(np.sum(np.square(x))), X),
]


def _best(fn, number, repeat=5):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main(quick: bool = False):
    number = 3 if quick else 20
    print(f"{'workload':24} | {'numpy by hand':>14} | {'rt.function (ratio)':>24}")
    for name, rt_fn, np_fn, arg in WORKLOADS:
        f = rt.function(rt_fn)
        t = rt.constant(arg)
        f(t)  # traced once, before timing
        by_hand = _best(lambda: np_fn(arg), number)
        staged = _best(lambda: f(t), number)
        print(f"{name:24} | {by_hand * 1e6:11.1f} us | {staged / by_hand:8.2f}x "
              f"({staged * 1e6:9.1f} us)")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
