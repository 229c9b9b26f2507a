"""The shaping and structural ops (one_hot, tile, split, slice, broadcast_to, sort, argsort,
einsum, boolean_mask) as TensorFlow documents them: against numpy, eager against staged
(rt.function on the numpy backend), static shapes, dtypes, errors, ONNX export."""
import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

X = np.arange(12, dtype=np.float32).reshape(3, 4)
V = np.array([[3., 1., 2., 1.], [0., -1., 5., 5.], [2., 2., 2., 1.]], np.float32)


def both(fn, *arrays):
    """fn eagerly and inside rt.function: the results (numpy) must agree; returns them."""
    eager = fn(*[rt.constant(a) for a in arrays])
    staged = rt.function(fn)(*[rt.constant(a) for a in arrays])
    flat_e, flat_s = rt.nest.flatten(eager), rt.nest.flatten(staged)
    assert len(flat_e) == len(flat_s)
    for e, s in zip(flat_e, flat_s):
        assert e.dtype is s.dtype
        np.testing.assert_array_equal(e.numpy(), s.numpy())
    return eager


def staged_shape(fn, *specs):
    cf = rt.function(fn).get_concrete_function(*specs)
    return [t.shape for t in cf.outputs]


# -- one_hot ------------------------------------------------------------------------------------

def test_one_hot_tensorflow_examples():
    got = both(lambda i: rt.one_hot(i, 3), np.array([0, 1, 2], np.int32))
    np.testing.assert_array_equal(got.numpy(), np.eye(3, dtype=np.float32))
    assert got.dtype is rt.float32
    got = both(lambda i: rt.one_hot(i, 3, on_value=5.0, off_value=0.0, axis=-1),
               np.array([0, 2, -1, 1], np.int32))
    assert got.numpy().tolist() == [[5, 0, 0], [0, 0, 5], [0, 0, 0], [0, 5, 0]]
    got = both(lambda i: rt.one_hot(i, 3, axis=0), np.array([[0, 2], [1, -1]], np.int64))
    want = np.zeros((3, 2, 2), np.float32)
    want[0, 0, 0] = want[2, 0, 1] = want[1, 1, 0] = 1
    np.testing.assert_array_equal(got.numpy(), want)
    assert rt.one_hot([0, 1], 2, on_value=True, off_value=False).dtype is rt.bool
    assert rt.one_hot([0, 1], 2, dtype=rt.int64).dtype is rt.int64
    assert rt.one_hot([0, 3], 3, axis=1).numpy().tolist() == [[1, 0, 0], [0, 0, 0]]
    got = both(lambda i: rt.one_hot(i, 300), np.array([7, 0, 255], np.uint8))
    np.testing.assert_array_equal(got.numpy(), np.eye(300, dtype=np.float32)[[7, 0, 255]])
    f = rt.function(lambda i, d: rt.one_hot(i, d))
    assert f(rt.constant([2, -1]), rt.constant(3)).numpy().tolist() == [[0, 0, 1], [0, 0, 0]]


def test_one_hot_shapes_and_errors():
    assert staged_shape(lambda i: rt.one_hot(i, 4, axis=1),
                        rt.TensorSpec([None, 5], rt.int32)) == [rt.TensorShape([None, 4, 5])]
    g = rt.Graph()
    with g.as_default():  # indices of unknown rank
        p = rt.placeholder(rt.int32, None)
        y = rt.one_hot(p, 3)
    assert g.run(y, {p: [[0, 2], [1, -1]]}).numpy().tolist() == [
        [[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 0, 0]]]
    with pytest.raises(TypeError):
        rt.one_hot(rt.constant([1.0]), 3)
    with pytest.raises(TypeError):
        rt.one_hot([1], 3, on_value=rt.constant(1.0), dtype=rt.int32)
    with pytest.raises(InvalidArgumentError):
        rt.one_hot([1], -1)
    with pytest.raises(InvalidArgumentError):
        rt.one_hot([1], 3, axis=3)


# -- tile ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("multiples", [[1, 1], [2, 3], [0, 2], [3, 1]])
def test_tile_matches_numpy(multiples):
    got = both(lambda x: rt.tile(x, multiples), X)
    np.testing.assert_array_equal(got.numpy(), np.tile(X, multiples))
    assert got.shape == rt.TensorShape(np.tile(X, multiples).shape)


def test_tile_shapes_dtypes_and_errors():
    assert rt.tile(rt.constant([[1, 2]]), [2, 3]).numpy().tolist() == [[1, 2, 1, 2, 1, 2]] * 2
    assert rt.tile(rt.constant(["a"]), [2]).numpy().tolist() == [b"a", b"a"]
    assert staged_shape(lambda x: rt.tile(x, [2, 3]), rt.TensorSpec([None, 4])) == \
        [rt.TensorShape([None, 12])]
    assert staged_shape(lambda x, m: rt.tile(x, m), rt.TensorSpec([2, 4]),
                        rt.TensorSpec([2], rt.int32)) == [rt.TensorShape([None, None])]
    f = rt.function(lambda x, m: rt.tile(x, m))
    np.testing.assert_array_equal(f(rt.constant(X), rt.constant([2, 1])).numpy(), np.tile(X, [2, 1]))
    with pytest.raises(InvalidArgumentError, match="length 2"):
        rt.tile(X, [2])
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        rt.tile(X, [2, -1])
    with pytest.raises(InvalidArgumentError, match="integers"):
        rt.tile(X, rt.constant([2.0, 1.0]))
    with pytest.raises(InvalidArgumentError, match="length 2"):
        f(rt.constant(X), rt.constant([2, 1, 1]))


# -- split, slice ----------------------------------------------------------------------------------

def test_split_even_and_sizes():
    parts = both(lambda x: rt.split(x, 2, axis=1), X)
    for p, w in zip(parts, np.split(X, 2, axis=1)):
        np.testing.assert_array_equal(p.numpy(), w)
    parts = both(lambda x: rt.split(x, [1, -1, 1], axis=-1), X)
    assert [p.shape.as_list() for p in parts] == [[3, 1], [3, 2], [3, 1]]
    np.testing.assert_array_equal(parts[1].numpy(), X[:, 1:3])
    parts = both(lambda x: rt.split(x, rt.constant([2, 1])), X)
    np.testing.assert_array_equal(parts[0].numpy(), X[:2])


def test_split_unknown_dimension_and_errors():
    f = rt.function(lambda x: rt.split(x, 3), input_signature=[rt.TensorSpec([None], rt.int32)])
    assert [p.numpy().tolist() for p in f(rt.range(6))] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(InvalidArgumentError):
        f(rt.range(7))
    g = rt.function(lambda x: rt.split(x, [2, -1]),
                    input_signature=[rt.TensorSpec([None], rt.int32)])
    assert [p.numpy().tolist() for p in g(rt.range(5))] == [[0, 1], [2, 3, 4]]
    with pytest.raises(InvalidArgumentError, match="evenly divide"):
        rt.split(X, 3, axis=1)
    with pytest.raises(InvalidArgumentError):
        rt.split(X, [1, 1], axis=1)
    with pytest.raises(InvalidArgumentError):
        rt.split(X, [-1, -1], axis=1)
    with pytest.raises(InvalidArgumentError):
        rt.split(X, [2, 3, -1], axis=1)
    with pytest.raises(ValueError):
        rt.split(X, 0)


def test_slice_tensorflow_examples():
    t = np.array([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]],
                 np.int32)
    assert both(lambda x: rt.slice(x, [1, 0, 0], [1, 1, 3]), t).numpy().tolist() == [[[3, 3, 3]]]
    assert both(lambda x: rt.slice(x, [1, 0, 0], [1, 2, 3]), t).numpy().tolist() == \
        [[[3, 3, 3], [4, 4, 4]]]
    assert both(lambda x: rt.slice(x, [1, 0, 0], [2, 1, 3]), t).numpy().tolist() == \
        [[[3, 3, 3]], [[5, 5, 5]]]
    got = both(lambda x: rt.slice(x, [0, 1], [-1, 2]), X)
    np.testing.assert_array_equal(got.numpy(), X[:, 1:3])


def test_slice_with_tensor_bounds_and_errors():
    f = rt.function(lambda x, b, s: rt.slice(x, b, s))
    got = f(rt.constant(X), rt.constant([1, 1]), rt.constant([2, -1]))
    np.testing.assert_array_equal(got.numpy(), X[1:3, 1:])
    with pytest.raises(InvalidArgumentError):
        f(rt.constant(X), rt.constant([1, 1]), rt.constant([3, 1]))   # past the end
    with pytest.raises(InvalidArgumentError):
        f(rt.constant(X), rt.constant([-1, 0]), rt.constant([1, 1]))
    with pytest.raises(InvalidArgumentError, match="size"):
        rt.slice(X, [1, 0], [3, 1])   # TensorFlow raises; numpy would clip silently
    with pytest.raises(InvalidArgumentError, match="begin"):
        rt.slice(X, [-1, 0], [1, 1])
    with pytest.raises(InvalidArgumentError):
        rt.slice(X, [0], [1])
    g = rt.function(lambda x: rt.slice(x, [1, 0], [2, 2]),
                    input_signature=[rt.TensorSpec([None, 4])])
    with pytest.raises(InvalidArgumentError):
        g(rt.constant(X[:2]))


# -- broadcast_to -------------------------------------------------------------------------------------

def test_broadcast_to():
    got = both(lambda x: rt.broadcast_to(x, [2, 3]), np.array([1, 2, 3], np.int32))
    assert got.numpy().tolist() == [[1, 2, 3], [1, 2, 3]] and got.shape == rt.TensorShape([2, 3])
    got = both(lambda x: rt.broadcast_to(x, [2, 3, 4]), X[:1])
    np.testing.assert_array_equal(got.numpy(), np.broadcast_to(X[:1], (2, 3, 4)))
    f = rt.function(lambda x, s: rt.broadcast_to(x, s))
    np.testing.assert_array_equal(f(rt.constant([1.0, 2.0]), rt.constant([3, 2])).numpy(),
                                  np.ones((3, 2)) * [1, 2])
    assert rt.broadcast_to(rt.constant([True]), [2]).numpy().tolist() == [True, True]
    with pytest.raises(InvalidArgumentError, match="Unable to broadcast"):
        rt.broadcast_to([1, 2, 3], [3, 2])
    with pytest.raises(InvalidArgumentError):
        rt.broadcast_to(X, [4])


# -- sort, argsort --------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort_match_a_stable_numpy_sort(axis, direction):
    for dtype in (np.float32, np.int32, np.int64, np.float64):
        v = V.astype(dtype)
        idx = both(lambda x: rt.argsort(x, axis=axis, direction=direction), v).numpy()
        if direction == "ASCENDING":
            want = np.argsort(v, axis=axis, kind="stable")
        else:  # equal values keep their order (TensorFlow's top_k)
            want = np.argsort(-v.astype(np.float64), axis=axis, kind="stable")
        np.testing.assert_array_equal(idx, want)
        got = both(lambda x: rt.sort(x, axis=axis, direction=direction), v)
        np.testing.assert_array_equal(got.numpy(), np.take_along_axis(v, want, axis=axis))
        assert got.dtype.np_dtype == dtype


def test_sort_examples_shapes_and_errors():
    assert rt.sort([1, 10, 26.7, 2.8, 3.1, 4.5]).numpy().tolist() == pytest.approx(
        [1, 2.8, 3.1, 4.5, 10, 26.7])
    assert rt.argsort([1, 10, 26.7, 2.8, 3.1], direction="DESCENDING").numpy().tolist() == \
        [2, 1, 4, 3, 0]
    assert rt.argsort([1.0]).dtype is rt.int32
    assert staged_shape(lambda x: (rt.sort(x), rt.argsort(x, axis=0)),
                        rt.TensorSpec([None, 3])) == [rt.TensorShape([None, 3])] * 2
    f = rt.function(lambda x: rt.sort(x, axis=0, direction="DESCENDING"),
                    input_signature=[rt.TensorSpec([None, None])])
    np.testing.assert_array_equal(f(rt.constant(V)).numpy(), -np.sort(-V, axis=0))
    with pytest.raises(ValueError, match="direction"):
        rt.sort([1.0], direction="UP")
    with pytest.raises(InvalidArgumentError):
        rt.sort(rt.constant(1.0))
    with pytest.raises(InvalidArgumentError):
        rt.sort([True, False])
    with pytest.raises(InvalidArgumentError):
        rt.argsort(V, axis=2)


# -- einsum ----------------------------------------------------------------------------------------

EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 2)]), ("ij->ji", [(3, 4)]), ("ii->i", [(3, 3)]),
    ("ij->", [(3, 4)]), ("i,i->", [(4,), (4,)]), ("i,j->ij", [(3,), (2,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 2)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ijk->kj", [(2, 3, 4)]), ("ii", [(3, 3)]),
]


@pytest.mark.parametrize("equation,shapes", EQUATIONS)
def test_einsum_matches_numpy(equation, shapes):
    arrays = [np.cos(np.arange(np.prod(s)) + k).reshape(s) for k, s in enumerate(shapes)]
    got = both(lambda *xs: rt.einsum(equation, *xs), *arrays)
    want = np.einsum(equation, *arrays)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    assert got.shape == rt.TensorShape(want.shape)
    ints = [np.arange(np.prod(s), dtype=np.int32).reshape(s) for s in shapes]
    np.testing.assert_array_equal(rt.einsum(equation, *ints).numpy(), np.einsum(equation, *ints))


def test_einsum_shapes_and_errors():
    assert staged_shape(lambda a, b: rt.einsum("bij,jk->bik", a, b), rt.TensorSpec([None, 3, 4]),
                        rt.TensorSpec([4, 5])) == [rt.TensorShape([None, 3, 5])]
    with pytest.raises(InvalidArgumentError, match="sizes"):
        rt.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(InvalidArgumentError, match="operands"):
        rt.einsum("ij,jk->ik", np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="appears in no input"):
        rt.einsum("ij->ik", np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError):
        rt.einsum("ij->i", np.ones(3))
    with pytest.raises(Exception):
        rt.einsum("i,i->", rt.constant([1.0]), rt.constant([1]))
    with pytest.raises(InvalidArgumentError):
        rt.einsum("i->i", rt.constant([True]))


# -- boolean_mask ---------------------------------------------------------------------------------------

def test_boolean_mask():
    got = both(lambda x, m: rt.boolean_mask(x, m), np.array([0, 1, 2, 3]),
               np.array([True, False, True, False]))
    assert got.numpy().tolist() == [0, 2]
    m2 = np.array([[True, False, True, True], [False, False, True, False],
                   [True, True, False, False]])
    got = both(lambda x, m: rt.boolean_mask(x, m), X, m2)
    np.testing.assert_array_equal(got.numpy(), X[m2])
    got = both(lambda x, m: rt.boolean_mask(x, m, axis=1), X, m2[0])
    np.testing.assert_array_equal(got.numpy(), X[:, m2[0]])
    x3 = np.arange(24.0).reshape(2, 3, 4)
    got = both(lambda x, m: rt.boolean_mask(x, m, axis=1), x3, m2)
    np.testing.assert_array_equal(got.numpy(), x3[:, m2])
    assert staged_shape(lambda x, m: rt.boolean_mask(x, m), rt.TensorSpec([None, 4]),
                        rt.TensorSpec([None], rt.bool)) == [rt.TensorShape([None, 4])]


def test_boolean_mask_errors():
    with pytest.raises(ValueError, match="scalar"):
        rt.boolean_mask(X, True)
    with pytest.raises(ValueError, match="incompatible"):
        rt.boolean_mask(X, [True, False])
    with pytest.raises(TypeError):
        rt.boolean_mask(X, [1, 0, 1])


# -- ONNX -----------------------------------------------------------------------------------------------

def test_onnx_export_matches():
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")

    def fn(x, i):
        return (rt.tile(x, [2, 1]), rt.sort(x, direction="DESCENDING"), rt.argsort(x, axis=0),
                rt.einsum("ij,kj->ik", x, x), rt.split(x, [1, -1], axis=1)[1],
                rt.slice(x, [1, 0], [1, -1]), rt.broadcast_to(x[:1], [2, 3, 4]),
                rt.one_hot(i, 4), rt.boolean_mask(x, x > 2.0), rt.linalg.det(x[:, :3]))
    cf = rt.function(fn).get_concrete_function(rt.TensorSpec([3, 4]), rt.TensorSpec([2], rt.int32))
    model = rt.onnx.export(cf)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    args = [V, np.array([1, -1], np.int32)]
    ours = [t.numpy() for t in cf(*[rt.constant(a) for a in args])]
    theirs = sess.run(None, {n.name: a for n, a in zip(sess.get_inputs(), args)})
    for a, b in zip(theirs, ours):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_onnx_names_inv_and_solve():
    pytest.importorskip("onnx")
    cf = rt.function(lambda a: rt.linalg.inv(a)).get_concrete_function(rt.TensorSpec([2, 2]))
    with pytest.raises(Exception, match="matrix inverse"):
        rt.onnx.export(cf)


# -- saving ---------------------------------------------------------------------------------------------

def test_saved_and_loaded(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([3, 4]), rt.TensorSpec([2], rt.int32)])
    def fn(x, i):
        return (rt.tile(x, [2, 1]), rt.sort(x, direction="DESCENDING"), rt.argsort(x, axis=0),
                rt.einsum("ij,kj->ik", x, x), rt.one_hot(i, 4, axis=0),
                rt.linalg.inv(x[:, :3]), rt.linalg.det(x[:, :3]), rt.boolean_mask(x, x > 0.5),
                rt.linalg.cholesky(rt.linalg.matmul(x, x, transpose_b=True)),
                rt.linalg.solve(x[:, :3], x), rt.split(x, [1, -1], axis=1)[1])

    rt.saved.save(fn, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    x = V + 4 * np.eye(3, 4, dtype=np.float32)
    args = [rt.constant(x), rt.constant([1, -1])]
    for a, b in zip(fn(*args), loaded.fn(*args)):
        assert a.dtype is b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
