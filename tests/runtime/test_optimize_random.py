"""Random graphs through the optimiser: arithmetic over placeholders and constants chosen
to trigger every rewrite (units of every sign and shape, duplicates, double negations,
transposes, constant subtrees, conds on constant and computed predicates, while loops), run as traced
and optimised: the results must agree bit for bit (NaNs and signs of zero included)."""
import random

import numpy as np
import pytest

import runtime as rt
from runtime.optimize import PASSES, optimize

CONSTS = [0.0, -0.0, 1.0, 2.0, -1.0, float("nan"), float("inf")]
SHAPES = [(), (1,), (3,), (1, 3), (2, 3)]


def _const(rnd, dtype):
    shape = rnd.choice(SHAPES)
    if dtype is rt.int32:
        v = rnd.choice([0, 1, 2, -1, 7])
        return rt.constant(np.full(shape, v, np.int32))
    return rt.constant(np.full(shape, rnd.choice(CONSTS), np.float32))


def _expr(rnd, pool, dtype, depth):
    """A random expression over `pool` (tensors of `dtype`) and constants."""
    if depth == 0 or rnd.random() < 0.2:
        return rnd.choice(pool) if rnd.random() < 0.7 else _const(rnd, dtype)
    kind = rnd.choice(["bin", "bin", "bin", "neg", "transpose", "identity", "cond", "dup",
                       "while"])
    if kind == "while":
        start = _expr(rnd, pool, dtype, depth - 1)
        body_seed = rnd.random()

        def body(i, v):
            return i + 1, _expr(random.Random(body_seed), [v, *pool], dtype, depth - 1)
        _, out = rt.while_loop(lambda i, v: i < 3, body, [rt.constant(0), start])
        return out
    if kind == "bin":
        a, b = _expr(rnd, pool, dtype, depth - 1), _expr(rnd, pool, dtype, depth - 1)
        if rnd.random() < 0.5:
            a, b = b, a
        ops = [rt.add, rt.subtract, rt.multiply, rt.maximum]
        if dtype is rt.float32:
            ops.append(rt.divide)
        return rnd.choice(ops)(a, b)
    if kind == "neg":
        return rt.negative(rt.negative(_expr(rnd, pool, dtype, depth - 1)) if rnd.random() < 0.7
                           else _expr(rnd, pool, dtype, depth - 1))
    if kind == "transpose":
        x = _expr(rnd, pool, dtype, depth - 1)
        if x.shape.rank == 2:
            return rt.transpose(rt.transpose(x))
        return x
    if kind == "identity":
        return rt.identity(rt.identity(_expr(rnd, pool, dtype, depth - 1)))
    if kind == "dup":
        a = _expr(rnd, pool, dtype, depth - 1)
        return rt.add(rt.multiply(a, a), rt.multiply(a, a))
    pred_src = _expr(rnd, pool, dtype, depth - 1)
    pred = rt.reduce_sum(rt.cast(pred_src, rt.float32)) > 0.0 if rnd.random() < 0.7 else \
        rt.constant(rnd.random() < 0.5)
    a_seed, b_seed = rnd.random(), rnd.random()
    return rt.cond(pred, lambda: _expr(random.Random(a_seed), pool, dtype, depth - 1) * 1,
                   lambda: _expr(random.Random(b_seed), pool, dtype, depth - 1) + 0)


def _random_graph(seed):
    rnd = random.Random(seed)
    dtype = rnd.choice([rt.float32, rt.int32])
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(dtype, [2, 3])
        y = rt.placeholder(dtype, [3])
        outs = []
        for _ in range(3):
            try:
                outs.append(_expr(rnd, [x, y], dtype, 4))
            except (TypeError, ValueError, rt.errors.InvalidArgumentError):
                continue  # a branch pair that disagrees on shape: skip that output
    return g, outs, dtype


def _feeds(dtype, seed):
    r = np.random.default_rng(seed)
    if dtype is rt.int32:
        return r.integers(-5, 6, (2, 3)).astype(np.int32), r.integers(-5, 6, 3).astype(np.int32)
    x = r.standard_normal((2, 3)).astype(np.float32)
    x[0, 0] = -0.0
    y = np.array([np.nan, -0.0, 1.5], np.float32)
    return x, y


@pytest.mark.parametrize("seed", range(60))
def test_random_graph_optimised_agrees_with_traced(seed):
    g, outs, dtype = _random_graph(seed)
    if not outs:
        return
    reference = g.compile(g.inputs, outs)
    for p in [*PASSES, optimize]:
        new, new_outs = p(g, outs)
        plan = new.compile(new.inputs, new_outs)
        for feed_seed in range(2):
            args = _feeds(dtype, feed_seed)
            with np.errstate(all="ignore"):
                want = [np.array(a, copy=True) for a in reference(*args)]
                got = plan(*args)
            for a, b in zip(want, got):
                a, b = np.asarray(a), np.asarray(b)
                assert a.dtype == b.dtype and a.shape == b.shape, p.__name__
                assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), p.__name__
                if a.dtype.kind == "f":
                    assert np.array_equal(np.signbit(a), np.signbit(b)), p.__name__
