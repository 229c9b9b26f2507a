"""Shared by the gradient tests: central finite differences in float64, and the three
ways of taking a gradient (eager tape; tape inside an rt.function; an rt.function called
eagerly under a tape), which must agree with each other and with the differences."""
from __future__ import annotations

import numpy as np

import runtime as rt


def weights(shape) -> np.ndarray:
    """Fixed, varied weights for reducing an output to a scalar (so every output element
    gets its own gradient)."""
    n = int(np.prod(shape)) if shape else 1
    return (np.cos(np.arange(n) * 0.7 + 0.3) + 0.1).reshape(shape)


def _loss(y):
    if isinstance(y, (list, tuple)):
        return sum(_loss(t) * (i + 1.0) for i, t in enumerate(y))
    w = weights(tuple(y.shape.as_list()))
    return rt.reduce_sum(y * rt.constant(w, dtype=y.dtype))


def loss_value(fn, arrays) -> float:
    return float(_loss(fn(*[rt.constant(a) for a in arrays])).numpy())


def numeric_grads(fn, arrays, eps=1e-6) -> list:
    """d loss / d each array, by central differences."""
    arrays = [np.asarray(a) for a in arrays]
    grads = []
    for k, a in enumerate(arrays):
        if a.dtype.kind != "f":
            grads.append(None)
            continue
        g = np.zeros(a.shape, dtype=np.float64)
        for idx in np.ndindex(*a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (loss_value(fn, plus) - loss_value(fn, minus)) / (2 * eps)
        grads.append(g)
    return grads


def eager_grads(fn, arrays) -> list:
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        loss = _loss(fn(*xs))
    return tape.gradient(loss, xs)


def staged_grads(fn, arrays) -> list:
    """The tape inside an rt.function: forward and backward are one graph."""
    @rt.function
    def step(xs):
        with rt.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            loss = _loss(fn(*xs))
        return tape.gradient(loss, xs)
    return step([rt.constant(a) for a in arrays])


def function_call_grads(fn, arrays) -> list:
    """An rt.function called eagerly under a tape: one tape entry, a backward graph."""
    f = rt.function(lambda xs: _loss(fn(*xs)))
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        loss = f(xs)
    return tape.gradient(loss, xs)


def as_numpy(g):
    return None if g is None else np.asarray(g.numpy(), dtype=np.float64)


def check_gradients(fn, arrays, rtol=1e-5, atol=1e-7):
    """Every way of differentiating `fn` matches finite differences."""
    arrays = [np.asarray(a) for a in arrays]
    expected = numeric_grads(fn, arrays)
    for how in (eager_grads, staged_grads, function_call_grads):
        got = how(fn, arrays)
        for k, (e, g) in enumerate(zip(expected, got)):
            if e is None:
                assert g is None, f"{how.__name__}: input {k} is not float, gradient {g!r}"
                continue
            assert g is not None, f"{how.__name__}: no gradient for input {k}"
            np.testing.assert_allclose(as_numpy(g), e, rtol=rtol, atol=atol,
                                       err_msg=f"{how.__name__}, input {k}")
