"""Red-team programs over the public API: ordinary programs a TensorFlow user writes,
each run the ways a user runs it (eagerly, through rt.function, exported to ONNX, saved
and loaded) and checked against plain Python/numpy. Each test here is a bug one such
program found: it either holds now, or is an xfail naming where the fix belongs."""
import importlib.util

import numpy as np
import pytest

import runtime as rt

HAS_ORT = (importlib.util.find_spec("onnx") is not None
           and importlib.util.find_spec("onnxruntime") is not None)


def _onnx_run(cf, *arrays):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(rt.onnx.export(cf).SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, dict(zip(names, arrays)))


@pytest.mark.xfail(strict=True, reason="runtime/signature.py fit() zips the parameter names "
                   "with the arguments, so a *args parameter takes only the first of the "
                   "input_signature's specs and the rest are dropped without an error")
def test_varargs_with_input_signature_gets_every_argument():
    def total(*xs):
        return sum(xs)

    fn = rt.function(total, input_signature=[rt.TensorSpec([], rt.float32)] * 2)
    assert float(fn(1.0, 2.0)) == total(1.0, 2.0) == 3.0


@pytest.mark.skipif(not HAS_ORT, reason="needs onnx and onnxruntime")
@pytest.mark.xfail(strict=True, reason="runtime/backends/onnx/rules_elementwise.py exports "
                   "Equal of strings as ONNX Equal, which opset 17 has only for numbers: the "
                   "model written is one onnxruntime refuses to load, not an ExportError")
def test_onnx_string_equality_is_refused_or_right():
    fn = rt.function(lambda s: s == "c", input_signature=[rt.TensorSpec([None], rt.string)])
    cf = fn.get_concrete_function()
    strings = np.array([b"ab", b"c"], dtype=object)
    try:
        (out,) = _onnx_run(cf, strings)
    except rt.onnx.ExportError:
        return
    assert out.tolist() == [False, True]
