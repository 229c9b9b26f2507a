"""`rt.pad`: against numpy (which TensorFlow's modes match), eager against staged, shape
inference with known and unknown paddings, errors, saving and ONNX export."""
import numpy as np
import pytest

import runtime as rt

X = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
PADDINGS = [[1, 1], [2, 2]]
NP_MODE = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect", "Symmetric",
                                  "constant"])
def test_eager_matches_numpy_and_mode_is_case_insensitive(mode):
    got = rt.pad(rt.constant(X), PADDINGS, mode=mode)
    want = np.pad(X, PADDINGS, mode=NP_MODE[mode.upper()])
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.dtype is rt.float32 and got.shape == rt.TensorShape(want.shape)


def test_tensorflow_documented_examples():
    t = rt.constant([[1, 2, 3], [4, 5, 6]])
    assert rt.pad(t, [[1, 1], [2, 2]], "REFLECT").numpy().tolist() == [
        [6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1], [6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1]]
    assert rt.pad(t, [[1, 1], [2, 2]], "SYMMETRIC").numpy().tolist() == [
        [2, 1, 1, 2, 3, 3, 2], [2, 1, 1, 2, 3, 3, 2], [5, 4, 4, 5, 6, 6, 5], [5, 4, 4, 5, 6, 6, 5]]


def test_constant_values_and_dtypes():
    got = rt.pad(rt.constant([1, 2]), [[2, 1]], constant_values=9)
    assert got.numpy().tolist() == [9, 9, 1, 2, 9] and got.dtype is rt.int32
    assert rt.pad(rt.constant([1.5]), [[1, 0]], constant_values=rt.constant(-1.0)).numpy().tolist() \
        == [-1.0, 1.5]
    assert rt.pad(rt.constant(["a"]), [[1, 1]]).numpy().tolist() == [b"", b"a", b""]
    assert rt.pad(rt.constant(["a"]), [[1, 0]], constant_values="z").numpy().tolist() == [b"z", b"a"]
    assert rt.pad(rt.constant([True]), [[0, 1]]).numpy().tolist() == [True, False]
    assert rt.pad(rt.constant(np.ones(2, np.float64)), [[1, 0]]).dtype is rt.float64


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_staged_matches_eager_with_known_and_unknown_shapes(mode):
    @rt.function
    def f(x, p):
        return rt.pad(x, p, mode=mode, constant_values=7.0)

    eager = rt.pad(rt.constant(X), PADDINGS, mode=mode, constant_values=7.0)
    for p in (PADDINGS, rt.constant(PADDINGS)):
        np.testing.assert_array_equal(f(rt.constant(X), p).numpy(), eager.numpy())
    cf = f.get_concrete_function(rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([2, 2], rt.int32))
    assert cf.outputs[0].shape == rt.TensorShape([None, None])
    np.testing.assert_array_equal(cf(rt.constant(X), rt.constant(PADDINGS)).numpy(), eager.numpy())


def test_shape_inference_with_static_paddings():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [None, 3])
        assert rt.pad(x, [[1, 2], [0, 4]]).shape == rt.TensorShape([None, 7])
        assert rt.pad(x, rt.constant([[1, 2], [0, 4]], rt.int64)).shape == rt.TensorShape([None, 7])
        unknown_rank = rt.placeholder(rt.float32, None)
        assert rt.pad(unknown_rank, [[1, 1]]).shape == rt.TensorShape([None])
        p = rt.placeholder(rt.int32, [2, 2])
        assert rt.pad(x, p).shape == rt.TensorShape([None, None])
        assert rt.pad(unknown_rank, p).shape == rt.TensorShape([None, None])
        n = rt.placeholder(rt.int32, [])
        y = rt.pad(x, [[0, n], [1, 0]])  # a list holding a tensor: packed as TensorFlow does
    assert y.shape == rt.TensorShape([None, None])
    assert g.run(y, {x: X, n: 2}).numpy().tolist() == np.pad(X, [[0, 2], [1, 0]]).tolist()


@pytest.mark.parametrize("make,error,match", [
    (lambda: rt.pad(rt.constant(X), PADDINGS, mode="wrap"), ValueError,
     '"CONSTANT", "REFLECT", or "SYMMETRIC".*wrap'),
    (lambda: rt.pad(rt.constant(X), [[1, 1]]), rt.errors.InvalidArgumentError,
     r"paddings has 1 rows but the input has rank 2"),
    (lambda: rt.pad(rt.constant(X), [1, 1]), rt.errors.InvalidArgumentError,
     "matrix with 2 columns"),
    (lambda: rt.pad(rt.constant(X), [[0, -1], [0, 0]]), rt.errors.InvalidArgumentError,
     "non-negative"),
    (lambda: rt.pad(rt.constant(X), [[2, 0], [0, 0]], "REFLECT"), rt.errors.InvalidArgumentError,
     "less than the dimension size: dimension 0 has size 2"),
    (lambda: rt.pad(rt.constant(X), [[0, 0], [0, 4]], "SYMMETRIC"), rt.errors.InvalidArgumentError,
     "at most the dimension size: dimension 1 has size 3"),
    (lambda: rt.pad(rt.constant(X), [[0.5, 0], [0, 0]]), rt.errors.InvalidArgumentError,
     "integers, got float32"),
    (lambda: rt.pad(rt.constant([1]), [[1, 1]], constant_values=0.5), TypeError, "int32"),
    (lambda: rt.pad(rt.constant([1.0]), [[1, 1]], constant_values=rt.constant([1.0, 2.0])),
     rt.errors.InvalidArgumentError, "scalar"),
])
def test_errors_say_what_to_change(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_bad_paddings_known_only_at_run_time_fail_clearly():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32), rt.TensorSpec([None, 2], rt.int32)])
    def f(x, p):
        return rt.pad(x, p, "REFLECT")

    assert f(rt.constant([1.0, 2.0]), rt.constant([[1, 1]])).numpy().tolist() == [2, 1, 2, 1]
    with pytest.raises(rt.errors.InvalidArgumentError, match="less than the dimension size"):
        f(rt.constant([1.0, 2.0]), rt.constant([[2, 0]]))
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"shape \[1, 2\]"):
        f(rt.constant([1.0, 2.0]), rt.constant([[0, 0], [0, 0]]))


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_saved_and_loaded(tmp_path, mode):
    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    def f(x):
        return rt.pad(x, PADDINGS, mode=mode)

    rt.saved.save(f, str(tmp_path / "m"))
    loaded = rt.saved.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded.f(rt.constant(X)).numpy(),
                                  np.pad(X, PADDINGS, mode=NP_MODE[mode]))


def _onnx_run(cf, *arrays):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    model = rt.onnx.export(cf)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, dict(zip(names, arrays)))


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT"])
def test_onnx_export_matches(mode):
    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([2, 2], rt.int32)])
    def f(x, p):
        return rt.pad(x, p, mode=mode, constant_values=-2.0)

    p = np.array(PADDINGS, np.int32)
    (got,) = _onnx_run(f.get_concrete_function(), X, p)
    np.testing.assert_array_equal(got, f(rt.constant(X), rt.constant(p)).numpy())


def test_onnx_export_of_the_constant_gradient_and_the_symmetric_reason():
    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.square(rt.pad(x, PADDINGS)))
        return tape.gradient(y, x)

    (got,) = _onnx_run(grad.get_concrete_function(), X)
    np.testing.assert_allclose(got, 2 * X)

    @rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    def sym(x):
        return rt.pad(x, PADDINGS, "SYMMETRIC")
    pytest.importorskip("onnx")
    with pytest.raises(rt.onnx.ExportError, match="MirrorPad .*SYMMETRIC"):
        rt.onnx.export(sym.get_concrete_function())
