"""VALID convolutions and pools whose window is larger than the input: TensorFlow's output
size is (span + stride) / stride in C++'s division toward zero, so a window larger than
the input by less than two strides gives an empty output (no error), and a larger one
raises. Eagerly, staged, under jit_compile, through gradients and in ONNX."""
import importlib.util

import numpy as np
import pytest

import runtime as rt

HAS_JAX = importlib.util.find_spec("jax") is not None
HAS_ORT = (importlib.util.find_spec("onnx") is not None
           and importlib.util.find_spec("onnxruntime") is not None)
W = np.random.default_rng(1).standard_normal((4, 4, 2, 3)).astype(np.float32)
OPS = {
    "max_pool": lambda v: rt.nn.max_pool2d(v, 4, 2, "VALID"),
    "avg_pool": lambda v: rt.nn.avg_pool2d(v, 4, 2, "VALID"),
    "conv_stride_2": lambda v: rt.nn.conv2d(v, W, 2, "VALID"),
    "conv_stride_1": lambda v: rt.nn.conv2d(v, W, 1, "VALID"),
}
X = np.random.default_rng(0).standard_normal((2, 3, 3, 2)).astype(np.float32)


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_window_larger_than_the_input_gives_no_output(name):
    f = OPS[name]
    expected = (2, 0, 0, 3 if name.startswith("conv") else 2)
    assert f(rt.constant(X)).shape == expected
    assert rt.function(f)(rt.constant(X)).shape == expected
    if HAS_JAX:
        assert rt.function(f, jit_compile=True)(rt.constant(X)).shape == expected


@pytest.mark.parametrize("name", sorted(OPS))
def test_its_gradients_are_zero(name):
    f = OPS[name]
    x = rt.Variable(X)
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(f(x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.zeros_like(X))

    @rt.function
    def grads(v):
        with rt.GradientTape() as tape:
            tape.watch(v)
            out = rt.reduce_sum(f(v))
        return tape.gradient(out, v)
    np.testing.assert_array_equal(grads(rt.constant(X)).numpy(), np.zeros_like(X))
    if HAS_JAX:
        compiled = rt.function(grads.python_function, jit_compile=True)
        np.testing.assert_array_equal(compiled(rt.constant(X)).numpy(), np.zeros_like(X))


def test_a_window_larger_by_two_strides_is_an_error():
    with pytest.raises(rt.errors.InvalidArgumentError, match="output size would be negative"):
        rt.nn.max_pool2d(rt.constant(X[:, :1, :1]), 4, 1, "VALID")


@pytest.mark.skipif(not HAS_ORT, reason="needs onnx and onnxruntime")
@pytest.mark.parametrize("name", ["max_pool", "avg_pool"])
@pytest.mark.parametrize("spatial", [3, 5, None], ids=["static_3", "static_5", "unknown"])
def test_onnx_pools_agree_on_small_inputs(name, spatial):
    import onnxruntime as ort
    fn = rt.function(OPS[name], input_signature=[rt.TensorSpec([None, spatial, spatial, 2],
                                                               rt.float32)])
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(rt.onnx.export(fn.get_concrete_function()).SerializeToString(),
                                options, providers=["CPUExecutionProvider"])
    sizes = [spatial] if spatial is not None else [1, 3, 4, 5, 8]
    for hw in sizes:
        x = np.random.default_rng(hw).standard_normal((2, hw, hw, 2)).astype(np.float32)
        ours = fn(rt.constant(x)).numpy()
        (theirs,) = sess.run(None, {sess.get_inputs()[0].name: x})
        assert theirs.shape == ours.shape
        np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not HAS_ORT, reason="needs onnx and onnxruntime")
def test_onnx_fails_where_ours_raises():
    import onnxruntime as ort
    fn = rt.function(lambda v: rt.nn.max_pool2d(v, 4, 1, "VALID"),
                     input_signature=[rt.TensorSpec([None, None, None, 2], rt.float32)])
    options = ort.SessionOptions()
    options.log_severity_level = 4
    sess = ort.InferenceSession(rt.onnx.export(fn.get_concrete_function()).SerializeToString(),
                                options, providers=["CPUExecutionProvider"])
    x = np.zeros((1, 1, 1, 2), np.float32)
    with pytest.raises(rt.errors.InvalidArgumentError, match="output size would be negative"):
        fn(rt.constant(x))
    with pytest.raises(Exception, match="output size would be negative"):
        sess.run(None, {sess.get_inputs()[0].name: x})
    (theirs,) = sess.run(None, {sess.get_inputs()[0].name: np.zeros((1, 3, 3, 2), np.float32)})
    assert theirs.shape == (1, 0, 0, 2)
