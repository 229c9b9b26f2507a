"""rt.linalg.svd, qr and eigh: reconstruction, agreement with numpy up to sign, every way
(tests/agreement.py), and gradients against JAX on sign-invariant functions."""
import numpy as np
import pytest

import runtime as rt
from tests.agreement import agree

jax = pytest.importorskip("jax")
jnp = jax.numpy

R = np.random.RandomState(1)


def _sym(*shape):
    a = R.randn(*shape)
    return ((a + np.swapaxes(a, -1, -2)) / 2).astype(np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4)])
def test_svd_reconstructs_and_matches_numpy(shape):
    x = R.randn(*shape).astype(np.float32)
    s, u, v = rt.linalg.svd(x)
    np.testing.assert_allclose(np.einsum("...ik,...k,...jk->...ij", u.numpy(), s.numpy(),
                                         v.numpy()), x, atol=1e-5)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(x, compute_uv=False), rtol=1e-5)
    un = np.linalg.svd(x, full_matrices=False)[0]
    np.testing.assert_allclose(np.abs(u.numpy()), np.abs(un), atol=1e-5)  # up to sign
    np.testing.assert_allclose(rt.linalg.svd(x, compute_uv=False).numpy(), s.numpy())
    agree(lambda x: rt.linalg.svd(x), (x,), rtol=1e-4, unknown=False)
    agree(lambda x: rt.linalg.svd(x, compute_uv=False), (x,), rtol=1e-4, unknown=False)


def test_svd_full_matrices_shapes_and_orthonormal():
    x = R.randn(5, 3).astype(np.float32)
    s, u, v = rt.linalg.svd(x, full_matrices=True)
    assert u.shape == (5, 5) and v.shape == (3, 3) and s.shape == (3,)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(5), atol=1e-5)


@pytest.mark.parametrize("shape,full", [((5, 3), False), ((3, 3), True), ((2, 3, 5), False)])
def test_qr_reconstructs_and_matches_numpy(shape, full):
    x = R.randn(*shape).astype(np.float32)
    q, r = rt.linalg.qr(x, full_matrices=full)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), x, atol=1e-5)
    rn = np.linalg.qr(x, mode="complete" if full else "reduced")[1]
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(rn), atol=1e-5)
    np.testing.assert_array_equal(np.triu(r.numpy()), r.numpy())
    assert (np.diagonal(r.numpy(), axis1=-2, axis2=-1) >= 0).all()
    agree(lambda x: rt.linalg.qr(x, full_matrices=full), (x,), rtol=1e-4, unknown=False)


@pytest.mark.parametrize("shape", [(4, 4), (3, 3, 3)])
def test_eigh_ascending_reconstructs_and_matches_numpy(shape):
    x = _sym(*shape)
    e, v = rt.linalg.eigh(x)
    en = np.linalg.eigh(x)[0]
    np.testing.assert_allclose(e.numpy(), en, rtol=1e-5, atol=1e-5)
    assert (np.diff(e.numpy(), axis=-1) >= 0).all()
    np.testing.assert_allclose(np.einsum("...ik,...k,...jk->...ij", v.numpy(), e.numpy(),
                                         v.numpy()), x, atol=1e-5)
    agree(lambda x: rt.linalg.eigh(x), (x,), rtol=1e-4, unknown=False)


def test_eigh_reads_the_lower_triangle_and_nan_gives_nan():
    x = _sym(3, 3)
    upper_garbage = x + np.triu(np.full((3, 3), 7.0, np.float32), 1)
    np.testing.assert_allclose(rt.linalg.eigh(upper_garbage)[0].numpy(),
                               rt.linalg.eigh(x)[0].numpy())
    x[0, 0] = np.nan
    for out in (*rt.linalg.eigh(x), *rt.linalg.svd(x), *rt.linalg.qr(x)):
        assert np.isnan(out.numpy()).all()


def test_decompositions_refuse_bad_input():
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.linalg.eigh(rt.ones([2, 3]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.linalg.svd(rt.ones([2, 3], dtype=rt.int32))
    with pytest.raises(ValueError):
        rt.linalg.qr(rt.ones([3]))


def _jax_grad64(f, x):
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        return np.asarray(jax.grad(f)(jnp.asarray(x, jnp.float64)))
    finally:
        jax.config.update("jax_enable_x64", old)


def _grad(fn, x):
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        y = fn(xt)
    return tape.gradient(y, xt).numpy()


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3)])
def test_svd_gradient_matches_jax(shape):
    x = R.randn(*shape).astype(np.float64)
    w = R.randn(min(shape)).astype(np.float64)

    def rt_f(a):
        s, u, v = rt.linalg.svd(a)
        return rt.reduce_sum(s * w) + rt.reduce_sum(rt.abs(u)) + rt.reduce_sum(rt.square(
            rt.linalg.matmul(u * rt.sqrt(s), v, transpose_b=True)))

    def jax_f(a):
        u, s, vh = jnp.linalg.svd(a, full_matrices=False)
        return jnp.sum(s * w) + jnp.sum(jnp.abs(u)) + jnp.sum(jnp.square((u * jnp.sqrt(s)) @ vh))
    want = _jax_grad64(jax_f, x)
    np.testing.assert_allclose(_grad(rt_f, x), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_grad(lambda a: rt.reduce_sum(rt.linalg.svd(
        a, compute_uv=False) * w), x), np.asarray(jax.grad(
            lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False) * w))(x)), rtol=1e-5)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3)])
def test_qr_gradient_matches_jax(shape):
    x = R.randn(*shape).astype(np.float64)
    c = R.randn(shape[1], shape[1])

    def rt_f(a):
        q, r = rt.linalg.qr(a)
        return rt.reduce_sum(rt.abs(q)) + rt.reduce_sum(rt.abs(r) * c)

    def jax_f(a):
        q, r = jnp.linalg.qr(a)
        return jnp.sum(jnp.abs(q)) + jnp.sum(jnp.abs(r) * c)
    want = _jax_grad64(jax_f, x)
    np.testing.assert_allclose(_grad(rt_f, x), want, rtol=1e-6, atol=1e-8)


@pytest.mark.slow
def test_eigh_gradient_matches_jax_through_a_symmetric_input():
    b = R.randn(4, 4)
    w = R.randn(4)

    def rt_f(b):
        e, v = rt.linalg.eigh(b + rt.linalg.matrix_transpose(b))
        return rt.reduce_sum(e * w) + rt.reduce_sum(rt.abs(v))

    def jax_f(b):
        e, v = jnp.linalg.eigh(b + b.T)
        return jnp.sum(e * w) + jnp.sum(jnp.abs(v))
    want = _jax_grad64(jax_f, b)
    np.testing.assert_allclose(_grad(rt_f, b), want, rtol=1e-6, atol=1e-8)


def test_decompositions_export_refusal_and_saving(tmp_path):
    def decompose(x):
        return rt.linalg.svd(x)[0] + rt.linalg.eigh(x)[0] + rt.linalg.qr(x)[1][0]
    f = rt.function(decompose, input_signature=[rt.TensorSpec([3, 3], rt.float32)])
    cf = f.get_concrete_function()
    reasons = {op.opdef.name: rt.onnx.unsupported_reason(op) for op in cf.graph.get_operations()}
    assert "singular value" in reasons["SvdUV"] and "eigen" in reasons["SelfAdjointEigV2"]
    x = _sym(3, 3)
    path = str(tmp_path / "m")
    rt.saved.save(f, path)
    loaded = rt.saved.load(path)
    np.testing.assert_allclose(loaded.decompose(rt.constant(x)).numpy(),
                               f(rt.constant(x)).numpy())
