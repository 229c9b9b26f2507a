"""Train a small model with a staged training loop, printing the loss as it falls.

    python tools/train_example.py [STEPS]

A 2-layer tanh network learns y = sin(3x) on [-1, 1]. The whole loop is one rt.function:
autograph stages the `for` over `rt.range`, and each iteration opens a GradientTape,
computes the loss, takes the gradients of the four Variables and applies them with
`assign_sub`. Forward, backward and update of every step run in one graph; `rt.print`
reports the loss while the graph runs.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402


class Model:
    def __init__(self, hidden: int = 32, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.w1 = rt.Variable(rng.normal(size=(1, hidden)).astype(np.float32), name="w1")
        self.b1 = rt.Variable(np.zeros(hidden, np.float32), name="b1")
        self.w2 = rt.Variable((rng.normal(size=(hidden, 1)) / np.sqrt(hidden))
                              .astype(np.float32), name="w2")
        self.b2 = rt.Variable(np.zeros(1, np.float32), name="b2")
        self.variables = [self.w1, self.b1, self.w2, self.b2]

    def __call__(self, x):
        return rt.tanh(x @ self.w1 + self.b1) @ self.w2 + self.b2


def make_train(model: Model, learning_rate: float = 0.1, print_every: int = 100):
    @rt.function
    def train(x, y, steps):
        losses = rt.TensorArray(rt.float32, size=steps)
        for step in rt.range(steps):
            with rt.GradientTape() as tape:
                loss = rt.reduce_mean(rt.square(model(x) - y))
            grads = tape.gradient(loss, model.variables)
            for var, grad in zip(model.variables, grads):
                var.assign_sub(grad * learning_rate)
            losses = losses.write(step, loss)
            if step % print_every == 0:
                rt.print("step", step, "loss", loss)
        return losses.stack()
    return train


def main(steps: int = 1000, print_every: int = 100) -> np.ndarray:
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(-1, 1)
    y = np.sin(3 * x)
    model = Model()
    train = make_train(model, print_every=print_every)
    losses = train(rt.constant(x), rt.constant(y), rt.constant(steps)).numpy()
    print(f"loss: {losses[0]:.5f} at the start, {losses[-1]:.5f} after {steps} steps "
          f"(traced {train.experimental_get_tracing_count()} time)")
    return losses


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
