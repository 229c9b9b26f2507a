"""The shaping and structural ops and rt.linalg on the XLA backend against the numpy backend
(same dtypes and values), run-time errors raised the same way, gradients lowered, and
boolean_mask refused with its reason (its size is known only when the graph runs)."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import numpy as np

import runtime as rt
from runtime.backends.xla import analysis as jax_analysis
from runtime.errors import InvalidArgumentError
from runtime.backends.xla.backend import XlaLoweringError
from runtime.ops import registry
from xla_helpers import compare_fn, compare_traced

X = np.cos(np.arange(12.0) * 1.3).reshape(3, 4).astype(np.float32)
V = np.array([[3., 1., 2., 1.], [0., -1., 5., 5.], [2., 2., 2., 1.]], np.float32)
A = np.array([[4., 1., 2.], [1., 5., 3.], [2., 3., 6.]])
B = np.stack([A, A.T + np.eye(3), 2 * A])


def test_the_new_ops_lower():
    assert jax_analysis.check_table_covers(registry()) == []


def test_tile_split_slice_broadcast_one_hot():
    compare_fn(lambda x: rt.tile(x, [2, 3]), X)
    compare_fn(lambda x: rt.tile(x, [0, 1]), X)
    compare_fn(lambda x: rt.split(x, [1, -1, 2], axis=1), X)
    compare_fn(lambda x: rt.split(x, 3), X)
    compare_fn(lambda x: rt.slice(x, [1, 0], [-1, 2]), X)
    compare_fn(lambda x: rt.broadcast_to(x, [2, 3, 4]), X[:1])
    compare_fn(lambda i: rt.one_hot(i, 4, axis=0), np.array([[0, 3], [-1, 1]], np.int32))
    compare_fn(lambda i: rt.one_hot(i, 3, on_value=7, off_value=-1), np.array([2, 0], np.int64))
    compare_fn(lambda i: rt.one_hot(i, 300, axis=0), np.array([255, 0, 7], np.uint8))
    compare_traced(lambda x: rt.split(x, 2), [rt.TensorSpec([None, 4])], [X[:2]])


def test_tile_with_multiples_fed_at_run_time():
    f = rt.function(lambda x, m: rt.tile(x, m), jit_compile=True)
    with pytest.raises(XlaLoweringError, match="multiples"):
        f(rt.constant(X), rt.constant([2, 1]))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort(axis, direction):
    for v in (V, V.astype(np.int32), V.astype(np.float64)):
        compare_fn(lambda x: (rt.sort(x, axis=axis, direction=direction),
                              rt.argsort(x, axis=axis, direction=direction)), v)


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 2)]), ("ii->i", [(3, 3)]), ("ij->", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
])
def test_einsum(equation, shapes):
    arrays = [np.cos(np.arange(np.prod(s)) + k).reshape(s) for k, s in enumerate(shapes)]
    compare_fn(lambda *xs: rt.einsum(equation, *xs), *arrays, exact=False, rtol=1e-12)
    ints = [np.arange(np.prod(s), dtype=np.int32).reshape(s) for s in shapes]
    compare_fn(lambda *xs: rt.einsum(equation, *xs), *ints)


@pytest.mark.parametrize("m", [A, B, A.astype(np.float32)])
def test_linalg(m):
    rtol = 1e-5 if m.dtype == np.float32 else 1e-10
    rhs = np.ones(m.shape[:-1] + (2,), m.dtype)
    compare_fn(lambda a, b: (rt.linalg.inv(a), rt.linalg.det(a), rt.linalg.solve(a, b),
                             rt.linalg.trace(a), rt.linalg.diag_part(a),
                             rt.linalg.diag(a[..., 0]), rt.norm(a), rt.norm(a, 1, axis=(-2, -1)),
                             rt.linalg.matvec(a, b[..., 0])),
               m, rhs, exact=False, rtol=rtol)


def test_singular_matrices_raise_as_on_numpy():
    for fn in (rt.linalg.inv, lambda a: rt.linalg.solve(a, rt.ones([2, 1], rt.float64))):
        f = rt.function(fn, jit_compile=True)
        with pytest.raises(InvalidArgumentError, match="not invertible"):
            f(rt.constant(np.array([[1.0, 2.0], [2.0, 4.0]])))
        with pytest.raises(InvalidArgumentError, match="not invertible"):
            f(rt.constant(np.zeros((2, 2))))
        np.testing.assert_allclose(f(rt.constant(np.eye(2))).numpy(),
                                   rt.function(fn)(rt.constant(np.eye(2))).numpy())


def test_cholesky():
    upper_ignored = np.triu(np.full((3, 3), 100.0), 1) + np.tril(A)
    for m in (A, B, A.astype(np.float32), upper_ignored):
        compare_fn(rt.linalg.cholesky, m, exact=False, rtol=1e-5)
    f = rt.function(rt.linalg.cholesky, jit_compile=True)
    with pytest.raises(InvalidArgumentError, match="Cholesky"):
        f(rt.constant(-A))


def test_boolean_mask_is_refused_with_its_reason():
    f = rt.function(lambda x: rt.boolean_mask(x, x > 0.0), jit_compile=True)
    with pytest.raises(XlaLoweringError, match=r"boolean_mask.*test_xla_shaping_ops.py:\d+.*"
                                               r"depends on the values"):
        f(rt.constant(X))
    # without jit_compile the same function runs
    got = rt.function(lambda x: rt.boolean_mask(x, x > 0.0))(rt.constant(X))
    np.testing.assert_array_equal(got.numpy(), X[X > 0])


def test_gradients_lower():
    def grads(x, a):
        with rt.GradientTape() as tape:
            tape.watch([x, a])
            y = rt.reduce_sum(rt.tile(x, [2, 1]) * 1.5) + rt.reduce_sum(rt.sort(x, axis=0) ** 2)
            y += rt.reduce_sum(rt.einsum("ij,kj->ik", x, x)) + rt.reduce_sum(rt.split(x, 2, 1)[1])
            y += rt.linalg.det(a) + rt.reduce_sum(rt.linalg.inv(a)) + rt.norm(x)
            y += rt.reduce_sum(rt.linalg.cholesky(rt.linalg.matmul(a, a, transpose_b=True)))
            y += rt.reduce_sum(rt.linalg.solve(a, a[:, :1])) + rt.reduce_sum(rt.slice(x, [1, 1],
                                                                                       [1, 2]))
        return tape.gradient(y, [x, a])
    compare_traced(grads, [rt.TensorSpec([3, 4], rt.float64), rt.TensorSpec([3, 3], rt.float64)],
                   [X.astype(np.float64), A], exact=False, rtol=1e-9)
