"""Random straight-line and branching tensor programs: eager and rt.function (optimised,
compiled, with buffers freed and reused in place) must give the same values.

The programs mix elementwise ops with broadcasting, matmul, reductions, reshapes and
slices (views of other values), staged conds and while loops, and returns of
intermediates: the cases where
writing into a dead buffer or freeing it early would show up as a wrong value."""
import numpy as np
import pytest

import runtime as rt

UNARY = [rt.tanh, rt.negative, rt.abs, rt.square, rt.sigmoid, rt.exp]
BINARY = [rt.add, rt.subtract, rt.multiply, rt.maximum, rt.minimum]


def random_program(seed):
    """A function of x (4x4 float32) and its source-free description."""
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(rng.integers(4, 12)):
        kind = rng.choice(["unary", "binary", "matmul", "reduce", "view", "cond", "const",
                           "loop"])
        steps.append((kind, int(rng.integers(0, 1 << 30))))
    n_out = int(rng.integers(1, 4))

    def program(x):
        values = [x]
        for kind, r in steps:
            pick = values[r % len(values)]
            other = values[(r // 7) % len(values)]
            if kind == "unary":
                v = UNARY[r % len(UNARY)](rt.tanh(pick))  # tanh keeps exp finite
            elif kind == "binary":
                v = BINARY[r % len(BINARY)](pick, other)
            elif kind == "matmul":
                v = rt.matmul(pick, other) * 0.1
            elif kind == "reduce":
                v = pick + rt.reduce_sum(other, axis=r % 2, keepdims=True)
            elif kind == "view":
                v = rt.reshape(rt.transpose(pick), [4, 4]) if r % 2 else pick[::-1]
            elif kind == "const":
                v = pick * 0.5 + 1.0
            elif kind == "loop":
                _, v = rt.while_loop(lambda i, acc: i < 1 + r % 3,
                                     lambda i, acc: (i + 1, rt.tanh(acc) * 0.5 + pick[::-1]),
                                     (0, other))
            else:
                v = rt.cond(rt.reduce_sum(pick) > 0, lambda: pick * 2.0, lambda: other - 1.0)
            values.append(v)
        return tuple(values[-1 - k] for k in range(n_out)) + (values[len(values) // 2],)

    return program


@pytest.mark.parametrize("seed", range(60))
def test_random_program_staged_equals_eager(seed):
    program = random_program(seed)
    staged = rt.function(program, autograph=False)
    for k in range(2):
        x = rt.constant(np.random.default_rng(seed * 10 + k).standard_normal((4, 4)),
                        dtype=rt.float32)
        before = x.numpy().copy()
        eager = program(x)
        got = staged(x)
        for e, g in zip(eager, got):
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(x.numpy(), before)  # inputs are never written
    assert staged.experimental_get_tracing_count() == 1
