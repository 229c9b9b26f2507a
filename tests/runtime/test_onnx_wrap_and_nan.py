"""ONNX export where onnxruntime's nearest operator differs from ours: integer powers wrap
on overflow (onnxruntime's Pow saturates through floating point), a NaN anywhere in a
max-pool window gives NaN (onnxruntime's MaxPool skips one that comes first), and string
equality, which opset 17 lacks, is refused by name rather than written as a model
onnxruntime cannot load."""
import importlib.util

import numpy as np
import pytest

import runtime as rt

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("onnx") is None or importlib.util.find_spec("onnxruntime") is None,
    reason="needs onnx and onnxruntime")


def _onnx_run(cf, *arrays):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(rt.onnx.export(cf).SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
    return sess.run(None, dict(zip([i.name for i in sess.get_inputs()], arrays)))


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64], ids=["int32", "int64"])
def test_integer_power_of_tensors_wraps_as_numpy(dtype):
    np_dtype = dtype.np_dtype
    fn = rt.function(lambda x, y: x ** y, input_signature=[rt.TensorSpec([None], dtype)] * 2)
    x = np.array([2, -2, 3, 0, 7, -1, 5, 0], np_dtype)
    y = np.array([3, 3, 41, 0, 0, 41, 1, 5], np_dtype)
    with np.errstate(over="ignore"):
        expected = x ** y
    np.testing.assert_array_equal(fn(rt.constant(x), rt.constant(y)).numpy(), expected)
    (theirs,) = _onnx_run(fn.get_concrete_function(), x, y)
    np.testing.assert_array_equal(theirs, expected)
    empty = np.zeros(0, np_dtype)
    (theirs,) = _onnx_run(fn.get_concrete_function(), empty, empty)
    assert theirs.shape == (0,)


@pytest.mark.parametrize("exponent", [0, 1, 2, 21])
def test_integer_power_by_a_constant_wraps_as_numpy(exponent):
    fn = rt.function(lambda x: x ** exponent, input_signature=[rt.TensorSpec([None], rt.int32)])
    x = np.array([2, -3, 7, 0, 1], np.int32)
    with np.errstate(over="ignore"):
        expected = x ** exponent
    np.testing.assert_array_equal(fn(rt.constant(x)).numpy(), expected)
    (theirs,) = _onnx_run(fn.get_concrete_function(), x)
    np.testing.assert_array_equal(theirs, expected)


def test_integer_power_broadcasts_a_scalar_exponent_and_fails_on_a_negative_one():
    fn = rt.function(lambda x, y: x ** y,
                     input_signature=[rt.TensorSpec([None], rt.int32), rt.TensorSpec([], rt.int32)])
    cf = fn.get_concrete_function()
    x = np.array([2, 3], np.int32)
    (theirs,) = _onnx_run(cf, x, np.array(5, np.int32))
    np.testing.assert_array_equal(theirs, [32, 243])
    with pytest.raises(Exception, match="negative integer powers"):
        _onnx_run(cf, x, np.array(-1, np.int32))


@pytest.mark.parametrize("padding, ksize, strides", [("VALID", 2, 2), ("SAME", 3, 2),
                                                     ("VALID", 2, 1)])
def test_max_pool_gives_nan_for_a_window_holding_one(padding, ksize, strides):
    fn = rt.function(lambda x: rt.nn.max_pool2d(x, ksize, strides, padding),
                     input_signature=[rt.TensorSpec([None, 5, 5, 2], rt.float32)])
    x = np.random.default_rng(0).standard_normal((2, 5, 5, 2)).astype(np.float32)
    x[0, 0, 0, 0] = x[1, 4, 4, 1] = x[1, 2, 3, 0] = np.nan
    ours = fn(rt.constant(x)).numpy()
    assert np.isnan(ours).any() and not np.isnan(ours).all()
    (theirs,) = _onnx_run(fn.get_concrete_function(), x)
    np.testing.assert_array_equal(theirs, ours)
    (theirs,) = _onnx_run(fn.get_concrete_function(), x[:0])
    assert theirs.shape == (0,) + ours.shape[1:]


@pytest.mark.parametrize("compare", [lambda s: s == "c", lambda s: s != "c"],
                         ids=["equal", "not_equal"])
def test_string_equality_is_refused_by_name(compare):
    fn = rt.function(compare, input_signature=[rt.TensorSpec([None], rt.string)])
    with pytest.raises(rt.onnx.ExportError, match="opset 19"):
        rt.onnx.export(fn.get_concrete_function())
