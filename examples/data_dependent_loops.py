"""Loops whose trip count depends on the data, staged as one graph loop each.

    python examples/data_dependent_loops.py

Each function is plain Python. Called on tensors inside `rt.function`, every `while`,
`for`, `break` and `return` on a tensor becomes part of one graph, which runs without
the Python; the same functions on Python numbers run as Python.
"""
import numpy as np

import runtime as rt


def collatz_steps(n):
    """Steps of the Collatz map from n down to 1: a while loop with an if inside."""
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_index_above(xs, threshold):
    """The index of the first element above `threshold`, or -1: a for loop with an
    early return."""
    for i in rt.range(rt.shape(xs)[0]):
        if xs[i] > threshold:
            return i
    return -1


def running_max_until_drop(xs):
    """The running maxima of `xs` until the first drop by more than half: a list that
    a staged loop appends to, and a break."""
    best = xs[0]
    out = []
    for x in xs:
        if x < best / 2:
            break
        best = rt.maximum(best, x)
        out.append(best)
    return rt.autograph.stack(out)


def newton_sqrt(a, tolerance=1e-6):
    """Square root by Newton's method, iterating until the step is small."""
    x = a
    step = a
    while rt.abs(step) > tolerance:
        step = (x * x - a) / (2.0 * x)
        x = x - step
    return x


if __name__ == "__main__":
    staged = rt.function(collatz_steps)
    for n in (6, 27, 97):
        print(f"collatz_steps({n}): python {collatz_steps(n)}, staged {int(staged(rt.constant(n)))}")
    print("traced", staged.experimental_get_tracing_count(), "time(s) for three tensor calls")

    xs = rt.constant([0.5, 1.5, 3.0, 2.0, 0.2, 9.0])
    print("first_index_above(xs, 2.5):", int(rt.function(first_index_above)(xs, 2.5)))
    print("first_index_above(xs, 99.0):", int(rt.function(first_index_above)(xs, 99.0)))
    print("running_max_until_drop(xs):", rt.function(running_max_until_drop)(xs).numpy())
    root = rt.function(newton_sqrt)(rt.constant(2.0))
    print(f"newton_sqrt(2.0): {float(root):.6f} (numpy {np.sqrt(2.0):.6f})")
    concrete = rt.function(collatz_steps).get_concrete_function(rt.TensorSpec([], rt.int32))
    print(f"collatz_steps graph: {len(concrete.graph.operations)} nodes at the top level")
