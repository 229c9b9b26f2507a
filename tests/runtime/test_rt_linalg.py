"""rt.linalg (and rt.norm) as TensorFlow's tf.linalg: against numpy, eager against staged
(rt.function on the numpy backend), batch dimensions, static shapes, errors."""
import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

A = np.array([[4., 1., 2.], [1., 5., 3.], [2., 3., 6.]])
B = np.stack([A, A.T + np.eye(3), 2 * A])          # a batch of invertible matrices
R = np.arange(6.0).reshape(3, 2) - 2.0


def both(fn, *arrays, rtol=1e-12):
    eager = fn(*[rt.constant(a) for a in arrays])
    staged = rt.function(fn)(*[rt.constant(a) for a in arrays])
    assert eager.dtype is staged.dtype and eager.shape == staged.shape
    np.testing.assert_allclose(eager.numpy(), staged.numpy(), rtol=rtol)
    return eager


@pytest.mark.parametrize("m", [A, B, A.astype(np.float32)])
def test_inv_det_solve_match_numpy(m):
    tol = 1e-5 if m.dtype == np.float32 else 1e-12
    got = both(rt.linalg.inv, m)
    np.testing.assert_allclose(got.numpy(), np.linalg.inv(m), rtol=tol, atol=tol)
    assert got.dtype.np_dtype == m.dtype
    got = both(rt.linalg.det, m)
    np.testing.assert_allclose(got.numpy(), np.linalg.det(m), rtol=tol)
    assert got.shape == rt.TensorShape(m.shape[:-2]) and got.dtype.np_dtype == m.dtype
    rhs = np.ones(m.shape[:-1] + (2,), m.dtype) * np.arange(1, 3, dtype=m.dtype)
    got = both(lambda a, b: rt.linalg.solve(a, b), m, rhs)
    np.testing.assert_allclose(got.numpy(), np.linalg.solve(m, rhs), rtol=tol, atol=tol)
    got = both(lambda a, b: rt.linalg.solve(a, b, adjoint=True), m, rhs)
    np.testing.assert_allclose(got.numpy(), np.linalg.solve(np.swapaxes(m, -1, -2), rhs),
                               rtol=tol, atol=tol)
    got = rt.linalg.inv(rt.constant(m), adjoint=True)
    np.testing.assert_allclose(got.numpy(), np.linalg.inv(np.swapaxes(m, -1, -2)), rtol=tol,
                               atol=tol)


def test_singular_and_bad_input():
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        rt.linalg.inv(np.zeros((2, 2)))
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        rt.linalg.solve(np.zeros((2, 2)), np.ones((2, 1)))
    f = rt.function(rt.linalg.inv)
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        f(rt.constant(np.ones((2, 2))))
    assert rt.linalg.det(np.ones((2, 2))).numpy() == 0.0
    with pytest.raises(InvalidArgumentError, match="square"):
        rt.linalg.inv(np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="square"):
        rt.linalg.det(np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError):
        rt.linalg.inv(rt.constant([[1, 0], [0, 1]]))      # integers: TensorFlow refuses them
    with pytest.raises(InvalidArgumentError):
        rt.linalg.inv(np.ones(3))
    with pytest.raises(InvalidArgumentError, match="rows"):
        rt.linalg.solve(A, np.ones((2, 1)))
    with pytest.raises(InvalidArgumentError):
        rt.linalg.solve(A, np.ones(3))
    g = rt.function(lambda m: rt.linalg.inv(m), input_signature=[rt.TensorSpec([None, None], rt.float64)])
    with pytest.raises(InvalidArgumentError):
        g(rt.constant(np.ones((2, 3))))


def test_matmul_matvec_transpose_eye():
    np.testing.assert_allclose(both(lambda a, b: rt.linalg.matmul(a, b, adjoint_a=True),
                                    R, R).numpy(), R.T @ R)
    np.testing.assert_allclose(both(lambda a, v: rt.linalg.matvec(a, v), A, R[:, 0]).numpy(),
                               A @ R[:, 0])
    np.testing.assert_allclose(both(lambda a, v: rt.linalg.matvec(a, v, transpose_a=True),
                                    B, np.ones((3, 3))).numpy(),
                               np.einsum("bji,bj->bi", B, np.ones((3, 3))))
    got = both(rt.linalg.matrix_transpose, B[:, :, :2])
    np.testing.assert_array_equal(got.numpy(), np.swapaxes(B[:, :, :2], -1, -2))
    assert rt.linalg.transpose is rt.linalg.matrix_transpose
    with pytest.raises(ValueError):
        rt.linalg.matrix_transpose([1.0, 2.0])
    assert rt.linalg.eye(2, 3, dtype=rt.int32).numpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    e = rt.linalg.eye(2, batch_shape=[3])
    assert e.shape == rt.TensorShape([3, 2, 2]) and e.dtype is rt.float32
    np.testing.assert_array_equal(e.numpy(), np.broadcast_to(np.eye(2), (3, 2, 2)))
    assert rt.linalg.einsum("ij->ji", R).shape == rt.TensorShape([2, 3])


def test_diag_diag_part_trace():
    got = both(rt.linalg.diag, np.array([[1., 2.], [3., -0.5]]))
    np.testing.assert_array_equal(got.numpy(), [np.diag([1., 2.]), np.diag([3., -0.5])])
    assert rt.linalg.diag(rt.constant([np.inf, 1.0])).numpy().tolist() == [[np.inf, 0], [0, 1]]
    assert rt.linalg.diag([1, 2]).dtype is rt.int32
    for m in (A, B, R, np.arange(24.0).reshape(2, 3, 4)):
        np.testing.assert_array_equal(both(rt.linalg.diag_part, m).numpy(),
                                      np.diagonal(m, axis1=-2, axis2=-1))
        np.testing.assert_array_equal(both(rt.linalg.trace, m).numpy(),
                                      np.trace(m, axis1=-2, axis2=-1))
    f = rt.function(lambda m: (rt.linalg.diag_part(m), rt.linalg.diag(m[0])),
                    input_signature=[rt.TensorSpec([None, None], rt.float64)])
    d, dd = f(rt.constant(R))
    np.testing.assert_array_equal(d.numpy(), np.diagonal(R))
    np.testing.assert_array_equal(dd.numpy(), np.diag(R[0]))
    g = rt.function(lambda m: rt.linalg.diag_part(m), input_signature=[rt.TensorSpec([None, 3, 2])])
    assert g.get_concrete_function().outputs[0].shape == rt.TensorShape([None, 2])
    with pytest.raises(ValueError):
        rt.linalg.diag_part([1.0, 2.0])
    with pytest.raises(ValueError, match="k=0"):
        rt.linalg.diag([1.0], k=1)


@pytest.mark.parametrize("ord,axis,keepdims", [
    ("euclidean", None, False), ("euclidean", None, True), (1, None, False),
    (2, 1, False), (np.inf, 0, True), (3, -1, False), (0.5, 0, False),
    ("fro", (0, 1), False), ("euclidean", (-2, -1), True), (1, (0, 1), False),
    (np.inf, (0, 1), False), (1, (1, 0), True), ("euclidean", [1], False),
])
def test_norm_matches_numpy(ord, axis, keepdims):
    x = np.cos(np.arange(12.0)).reshape(3, 4)
    got = both(lambda t: rt.norm(t, ord=ord, axis=axis, keepdims=keepdims), x)
    np_axis = tuple(axis) if isinstance(axis, (tuple, list)) and len(axis) == 2 else \
        (axis[0] if isinstance(axis, list) else axis)
    np_ord = None if ord == "euclidean" else ord
    if np_axis is None:
        want = np.linalg.norm(x.reshape(-1), np_ord)
        want = np.reshape(want, (1, 1)) if keepdims else want
    else:
        want = np.linalg.norm(x, np_ord, axis=np_axis, keepdims=keepdims)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    assert got.shape == rt.TensorShape(np.shape(want))
    assert rt.linalg.norm is rt.norm


def test_norm_errors():
    with pytest.raises(ValueError):
        rt.norm([1.0], ord=0)
    with pytest.raises(ValueError):
        rt.norm([1.0], ord="fro")
    with pytest.raises(ValueError):
        rt.norm(np.ones((2, 2)), ord=3, axis=(0, 1))
    with pytest.raises(ValueError):
        rt.norm(np.ones((2, 2)), axis=(0, 0))
    with pytest.raises(ValueError):
        rt.norm(np.ones((2, 2)), axis=(0, 1, 2))
    with pytest.raises(ValueError, match="2-norm"):
        rt.norm(np.ones((2, 2)), ord=2, axis=(0, 1))
    with pytest.raises(InvalidArgumentError):
        rt.norm(rt.constant([1, 2]))


def test_cholesky():
    for m in (A, B, A.astype(np.float32)):
        got = both(rt.linalg.cholesky, m, rtol=1e-6)
        np.testing.assert_allclose(got.numpy(), np.linalg.cholesky(m), rtol=1e-6)
        assert got.dtype.np_dtype == m.dtype
    upper_ignored = np.triu(np.full((3, 3), 100.0), 1) + np.tril(A)
    np.testing.assert_allclose(rt.linalg.cholesky(upper_ignored).numpy(), np.linalg.cholesky(A))
    with pytest.raises(InvalidArgumentError, match="Cholesky"):
        rt.linalg.cholesky(-A)
    with pytest.raises(InvalidArgumentError, match="square"):
        rt.linalg.cholesky(np.ones((2, 3)))
