"""Gradients of gather_nd, scatter_nd, tensor_scatter_nd_update/add, reduce_logsumexp,
top_k's values, reverse and roll: against central finite differences (eagerly, with the
tape inside rt.function, and through an rt.function called under a tape), and, under
jit_compile, against jax.grad of the jax.numpy reference."""
import numpy as np
import pytest

import runtime as rt
from grad_helpers import check_gradients, weights
from tests.agreement import HAVE_JAX

RNG = np.random.default_rng(3)
P = RNG.normal(size=(3, 4, 2))
IDX = np.array([[2, 1], [0, 3], [2, 1]], np.int32)   # a repeated tuple: gradients add
ROWS = np.array([[1], [3], [1]], np.int32)

CASES = {
    "gather_nd": (lambda p, i: rt.gather_nd(p, i), [P, IDX]),
    "gather_nd_batch": (lambda p, i: rt.gather_nd(p, i, batch_dims=1),
                        [P, np.array([[1], [3], [0]], np.int32)]),
    "scatter_nd": (lambda i, u: rt.scatter_nd(i, u, [5, 2]), [ROWS, RNG.normal(size=(3, 2))]),
    "tensor_scatter_nd_update": (lambda t, i, u: rt.tensor_scatter_nd_update(t, i, u),
                                 [RNG.normal(size=(5, 2)), np.array([[4], [0]], np.int32),
                                  RNG.normal(size=(2, 2))]),
    "tensor_scatter_nd_add": (lambda t, i, u: rt.tensor_scatter_nd_add(t, i, u),
                              [RNG.normal(size=(5, 2)), ROWS, RNG.normal(size=(3, 2))]),
    "reduce_logsumexp": (lambda x: rt.reduce_logsumexp(x, axis=1), [RNG.normal(size=(3, 4))]),
    "reduce_logsumexp_all": (lambda x: rt.reduce_logsumexp(x * 50.0), [RNG.normal(size=(2, 3))]),
    "top_k_values": (lambda x: rt.math.top_k(x, k=2).values, [RNG.normal(size=(3, 5))]),
    "reverse": (lambda x: rt.reverse(x, [0, -1]), [P]),
    "roll": (lambda x: rt.roll(x, [1, -3], [0, 1]), [P]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    fn, arrays = CASES[name]
    check_gradients(fn, arrays, rtol=1e-5, atol=1e-7)


def test_logsumexp_gradient_is_softmax_even_where_exp_overflows():
    x = rt.constant([[1000.0, 1000.0, -np.inf], [0.0, np.log(3.0), -1e30]])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.reduce_logsumexp(x, axis=1))
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, [[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]], rtol=1e-6)


JAX_REFS = {
    "gather_nd": lambda jnp, p, i: p[i[:, 0], i[:, 1]],
    "reduce_logsumexp": lambda jnp, x: __import__("jax").nn.logsumexp(x, axis=1),
    "reverse": lambda jnp, x: jnp.flip(x, (0, 2)),
    "roll": lambda jnp, x: jnp.roll(x, (1, -3), (0, 1)),
    "tensor_scatter_nd_add": lambda jnp, t, i, u: t.at[i[:, 0]].add(u),
    "scatter_nd": lambda jnp, i, u: jnp.zeros((5, 2)).at[i[:, 0]].add(u),
}


@pytest.mark.skipif(not HAVE_JAX, reason="jit_compile needs JAX")
@pytest.mark.parametrize("name", sorted(JAX_REFS))
def test_jit_compile_gradient_matches_jax(name):
    import jax
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)      # (float64 references; put back after)
    try:
        check_against_jax(name)
    finally:
        jax.config.update("jax_enable_x64", old)


def check_against_jax(name):
    import jax
    import jax.numpy as jnp
    fn, arrays = CASES[name]
    floats = [k for k, a in enumerate(arrays) if a.dtype.kind == "f"]

    @rt.function(jit_compile=True)
    def grads(*xs):
        with rt.GradientTape() as tape:
            for k in floats:
                tape.watch(xs[k])
            y = fn(*xs)
            loss = rt.reduce_sum(y * rt.constant(weights(tuple(y.shape.as_list()))))
        return tape.gradient(loss, [xs[k] for k in floats])

    got = grads(*[rt.constant(a) for a in arrays])
    ref = JAX_REFS[name]

    def loss(*fs):
        xs = list(arrays)
        for k, f in zip(floats, fs):
            xs[k] = f
        y = ref(jnp, *[x if isinstance(x, jax.Array) else jnp.asarray(x) for x in xs])
        return jnp.sum(y * weights(tuple(y.shape)))
    want = jax.grad(loss, argnums=tuple(range(len(floats))))(*[arrays[k] for k in floats])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-6, atol=1e-9)
