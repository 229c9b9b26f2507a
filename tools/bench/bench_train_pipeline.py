"""The examples/train.py epoch (rt.data pipeline, rt.Module, rt.nn, GradientTape,
rt.optimizers.Adam, one rt.function call per epoch) against the same epoch written by
hand in numpy (shuffle, batches, forward, softmax cross-entropy, backprop and Adam's
update written out), side by side in one run.

    python tools/bench/bench_train_pipeline.py [--quick]

First both run one epoch without shuffling from the same weights, and their losses and
weights are compared (they compute the same thing). Then epochs alternate with numpy's
(machine load hits both alike), the ratio the median of per-round ratios: in order, with
a full shuffle each epoch (rt.data's seeded buffer shuffle in the graph against
`np.random.permutation`), and with `jit_compile=True` when JAX is installed.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from train import CLASSES, MLP, N, make_data, make_training  # noqa: E402

BATCH, LR, B1, B2, EPS = 64, 0.01, 0.9, 0.999, 1e-7


class NumpyAdamMLP:
    """The same model and Adam (Keras 2's form) by hand."""

    def __init__(self, model: MLP):
        self.p = [v.numpy().copy() for v in (model.w1, model.b1, model.w2, model.b2)]
        self.m = [np.zeros_like(p) for p in self.p]
        self.v = [np.zeros_like(p) for p in self.p]
        self.t = 0

    def step(self, x, y):
        w1, b1, w2, b2 = self.p
        pre = x @ w1 + b1
        h = np.maximum(pre, 0)
        logits = h @ w2 + b2
        z = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        n = x.shape[0]
        loss = np.mean(np.log(e.sum(axis=1)) - z[np.arange(n), y])
        g = p
        g[np.arange(n), y] -= 1
        g /= n
        gw2, gb2 = h.T @ g, g.sum(axis=0)
        gh = (g @ w2.T) * (pre > 0)
        gw1, gb1 = x.T @ gh, gh.sum(axis=0)
        self.t += 1
        lr_t = LR * np.sqrt(1 - B2 ** self.t) / (1 - B1 ** self.t)
        for k, grad in enumerate((gw1, gb1, gw2, gb2)):
            self.m[k] += (grad - self.m[k]) * (1 - B1)
            self.v[k] += (grad * grad - self.v[k]) * (1 - B2)
            self.p[k] -= self.m[k] * lr_t / (np.sqrt(self.v[k]) + EPS)
        return loss

    def epoch(self, x, y, rng=None):
        order = rng.permutation(N) if rng is not None else np.arange(N)
        total = 0.0
        batches = N // BATCH
        for b in range(batches):
            idx = order[b * BATCH:(b + 1) * BATCH]
            total += self.step(x[idx], y[idx])
        return np.float32(total / batches)


def main(quick: bool = False) -> float:
    x, y = make_data()
    # the same thing computed: one epoch in order, from the same weights
    model = MLP()
    by_hand = NumpyAdamMLP(model)
    ours = make_training(model, rt.optimizers.Adam(learning_rate=LR))
    plain = rt.data.Dataset.from_tensor_slices((x, y)).batch(BATCH, drop_remainder=True)
    loss_ours, loss_hand = float(ours(plain)), float(by_hand.epoch(x, y))
    weights = [v.numpy() for v in (model.w1, model.b1, model.w2, model.b2)]
    worst = max(float(np.max(np.abs(a - b))) for a, b in zip(weights, by_hand.p))
    print(f"MLP {x.shape[1]}-{model.w1.shape[1]}-{CLASSES}, {N} examples, batches of {BATCH}, Adam")
    print(f"  one epoch in order: loss rt {loss_ours:.6f} | numpy {loss_hand:.6f}; "
          f"largest weight difference {worst:.2e}")
    assert abs(loss_ours - loss_hand) < 1e-4 and worst < 1e-4, "they differ"
    # timing: epochs alternating between the contenders (machine load hits all alike)
    shuffled = (rt.data.Dataset.from_tensor_slices((x, y)).shuffle(N, seed=0)
                .batch(BATCH, drop_remainder=True))
    jitted = rt.function(ours.python_function, jit_compile=True) if _has_jax() else None
    rng = np.random.default_rng(0)
    rows = [("rt.function, in order", lambda: ours(plain), lambda: by_hand.epoch(x, y)),
            ("rt.function, shuffled", lambda: ours(shuffled), lambda: by_hand.epoch(x, y, rng))]
    if jitted is not None:
        rows.append(("jit_compile=True, in order", lambda: jitted(plain),
                     lambda: by_hand.epoch(x, y)))
    for _, run, _ in rows:
        run()                                   # (traces and compiles)
    rounds = 5 if quick else 15
    print("                                  ms/epoch, median: ours   numpy by hand   ratio")
    worst = 0.0
    for label, run, hand in rows:
        ratios, mine, theirs = [], [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            hand()
            t1 = time.perf_counter()
            run()
            t2 = time.perf_counter()
            theirs.append(t1 - t0)
            mine.append(t2 - t1)
            ratios.append((t2 - t1) / (t1 - t0))
        ratio = statistics.median(ratios)
        worst = max(worst, ratio)
        print(f"  {label:30s} {statistics.median(mine) * 1e3:14.2f} "
              f"{statistics.median(theirs) * 1e3:15.2f} {ratio:7.2f}x")
    print(f"  traces of the epoch function: {ours.experimental_get_tracing_count()} "
          "(one per dataset)")
    return worst


def _has_jax() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
