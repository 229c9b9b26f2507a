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


def test_varargs_with_input_signature_gets_every_argument():
    def total(*xs):
        return sum(xs)

    fn = rt.function(total, input_signature=[rt.TensorSpec([], rt.float32)] * 2)
    assert float(fn(1.0, 2.0)) == total(1.0, 2.0) == 3.0


@pytest.mark.skipif(not HAS_ORT, reason="needs onnx and onnxruntime")
def test_onnx_string_equality_is_refused_or_right():
    fn = rt.function(lambda s: s == "c", input_signature=[rt.TensorSpec([None], rt.string)])
    cf = fn.get_concrete_function()
    strings = np.array([b"ab", b"c"], dtype=object)
    try:
        (out,) = _onnx_run(cf, strings)
    except rt.onnx.ExportError:
        return
    assert out.tolist() == [False, True]


@pytest.mark.parametrize("make", [lambda: rt.optimizers.SGD(0.1), lambda: rt.optimizers.Adam(0.1)],
                         ids=["SGD", "Adam"])
def test_optimizer_refuses_an_integer_variable(make):
    # SGD(0.1) cast the rate to int32 (0) and left the Variable as it was; Adam failed in
    # its own Sqrt. Keras's optimizers update floating Variables only.
    v = rt.Variable(5)
    with pytest.raises(TypeError, match="floating"):
        make().apply_gradients([(rt.constant(2), v)])
    assert int(v.numpy()) == 5


def test_optimizer_checks_every_pair_before_updating_any():
    a, b = rt.Variable([1.0, 2.0]), rt.Variable([3.0])
    opt = rt.optimizers.SGD(0.5)
    with pytest.raises(rt.errors.InvalidArgumentError, match="shape"):
        opt.apply_gradients([(rt.constant([1.0, 1.0]), a), (rt.constant([1.0, 1.0]), b)])
    assert a.numpy().tolist() == [1.0, 2.0] and int(opt.iterations.numpy()) == 0


def test_saved_transpose_of_unknown_rank_loads(tmp_path):
    # rt.transpose without perm of a tensor of unknown rank records perm=None (reverse
    # whatever the rank is when it runs): the file was written, then refused when loaded
    fn = rt.function(lambda x: rt.transpose(x), input_signature=[rt.TensorSpec(None, rt.float32)])
    path = str(tmp_path / "t")
    rt.saved_model.save(fn.get_concrete_function(), path)
    loaded = rt.saved_model.load(path).signatures["serving_default"]
    for x in (np.ones([2, 3], np.float32), np.zeros([0], np.float32), np.float32(2.0),
              np.arange(24, dtype=np.float32).reshape(2, 3, 4)):
        np.testing.assert_array_equal(loaded(rt.constant(x)).numpy(), x.T)


def test_saved_lambda_function_is_the_loaded_objects_call(tmp_path):
    # rt.function(lambda ...) is named '<lambda>', which no attribute can be: saving it
    # alone raised; as TensorFlow saves it, it is now the loaded object's call
    fn = rt.function(lambda x: x * 2.0, input_signature=[rt.TensorSpec([None], rt.float32)])
    path = str(tmp_path / "f")
    rt.saved_model.save(fn.get_concrete_function(), path)
    loaded = rt.saved_model.load(path)
    x = rt.constant([1.0, 2.0])
    assert loaded(x).numpy().tolist() == [2.0, 4.0]
    assert loaded.signatures["serving_default"](x).numpy().tolist() == [2.0, 4.0]


def test_method_of_a_temporary_object():
    class Shift:
        def __init__(self):
            self.bias = 1.0

        @rt.function
        def apply(self, x):
            return x + self.bias

    result = Shift().apply(rt.constant(1.0))   # (not inside the assert: pytest keeps its parts)
    assert float(result) == 2.0


def test_a_held_object_keeps_one_bound_method_and_its_traces():
    traces = []

    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.w = rt.Variable(2.0)

        @rt.function
        def __call__(self, x):
            traces.append(1)
            return x * self.w

    model, models = Model(), [Model()]
    for _ in range(4):
        assert float(model(rt.constant(1.0))) == 2.0
        assert float(models[0](rt.constant(1.0))) == 2.0
    assert len(traces) == 2
    assert float(Model()(rt.constant(3.0))) == 6.0


def test_a_bound_method_does_not_keep_its_object_alive():
    import gc
    import weakref

    class Shift:
        @rt.function
        def apply(self, x):
            return x + 1.0

    s = Shift()
    s.apply(rt.constant(1.0))
    ref = weakref.ref(s)
    del s
    gc.collect()
    assert ref() is None


@pytest.mark.skipif(not HAS_ORT, reason="needs onnx and onnxruntime")
def test_onnx_max_pool_keeps_nan_as_rt_does():
    fn = rt.function(lambda x: rt.nn.max_pool2d(x, 2, 2, "VALID"),
                     input_signature=[rt.TensorSpec([None, None, None, 1], rt.float32)])
    x = np.array([np.nan, 1.0, 2.0, 3.0], np.float32).reshape(1, 2, 2, 1)
    ours = fn(rt.constant(x)).numpy()
    assert np.isnan(ours).all()
    (theirs,) = _onnx_run(fn.get_concrete_function(), x)
    np.testing.assert_array_equal(theirs, ours)


@pytest.mark.skipif(not HAS_ORT, reason="needs onnx and onnxruntime")
def test_onnx_integer_pow_wraps_as_rt_does():
    fn = rt.function(lambda x, y: x ** y, input_signature=[rt.TensorSpec([None], rt.int32)] * 2)
    x, y = np.array([2, -2, 3], np.int32), np.array([3, 3, 20], np.int32)
    ours = fn(rt.constant(x), rt.constant(y)).numpy()
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(ours, x ** y)
    (theirs,) = _onnx_run(fn.get_concrete_function(), x, y)
    np.testing.assert_array_equal(theirs, ours)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_eye_of_a_size_known_only_when_the_graph_runs(n):
    # rt.eye(rt.shape(a)[0]) inside rt.function raised TypeError (int() of a graph
    # tensor), where tf.eye takes a scalar tensor
    fn = rt.function(lambda a: (rt.eye(rt.shape(a)[0]), rt.linalg.eye(rt.shape(a)[0], 2)),
                     input_signature=[rt.TensorSpec([None, None], rt.float32)])
    square, wide = fn(rt.zeros([n, n]))
    np.testing.assert_array_equal(square.numpy(), np.eye(n, dtype=np.float32))
    np.testing.assert_array_equal(wide.numpy(), np.eye(n, 2, dtype=np.float32))
    assert square.dtype == rt.float32 and square.shape == (n, n)


def test_eye_of_a_negative_size_known_only_when_the_graph_runs_raises():
    fn = rt.function(lambda k: rt.eye(k, dtype=rt.int32),
                     input_signature=[rt.TensorSpec([], rt.int32)])
    assert fn(rt.constant(2)).numpy().tolist() == [[1, 0], [0, 1]]
    with pytest.raises(rt.errors.InvalidArgumentError):
        fn(rt.constant(-1))


@pytest.mark.parametrize("make", [
    lambda: rt.fill([2.5], 1),
    lambda: rt.zeros([2.5]),
    lambda: rt.reshape(rt.constant([1, 2]), [2.7]),
    lambda: rt.expand_dims(rt.constant([1]), 0.5),
    lambda: rt.reduce_sum(rt.constant([[1, 2]]), axis=1.5),
], ids=["fill", "zeros", "reshape", "expand_dims", "reduce_sum"])
def test_a_non_integral_shape_or_axis_is_refused(make):
    # int() truncated them: zeros([2.5]) had two elements, axis=1.5 summed axis 1;
    # TensorFlow refuses a float where a shape or an axis goes
    with pytest.raises((TypeError, rt.errors.InvalidArgumentError), match="integer"):
        make()
    with pytest.raises((TypeError, rt.errors.InvalidArgumentError), match="integer"):
        rt.function(make)()


@pytest.mark.parametrize("make", [
    lambda: rt.math.top_k(rt.constant([1.0, 2.0, 3.0]), 1.5),
    lambda: rt.roll(rt.constant([1, 2, 3]), 1.5, 0),
    lambda: rt.reverse(rt.constant([[1, 2]]), [1.5]),
    lambda: rt.eye(2.5),
    lambda: rt.one_hot([0], 2.5),
    lambda: rt.linspace(0.0, 1.0, 2.5),
    lambda: rt.function(lambda n: rt.linspace(0.0, 1.0, n),
                        input_signature=[rt.TensorSpec([], rt.float32)])(2.5),
], ids=["top_k", "roll", "reverse", "eye", "one_hot", "linspace", "linspace_staged"])
def test_a_non_integral_count_shift_or_axis_is_refused(make):
    with pytest.raises(TypeError, match="integer"):
        make()


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.int8, rt.uint8])
def test_cast_of_nan_and_out_of_range_floats_agrees_under_jit_compile(dtype):
    # XLA's convert saturates (NaN -> 0, 1e10 -> INT_MAX); the numpy executor, ONNX and
    # TensorFlow's CPU kernel give the lowest int32/int64 (narrower types through int32)
    def to_int(x):
        return rt.cast(x, dtype)

    spec = [rt.TensorSpec([None], rt.float32)]
    x = rt.constant([np.nan, 1e10, -1e10, 2.7, -2.7, np.inf, 3e9, 200.0, -1.0], rt.float32)
    staged = rt.function(to_int, input_signature=spec)(x).numpy()
    compiled = rt.function(to_int, input_signature=spec, jit_compile=True)(x).numpy()
    np.testing.assert_array_equal(compiled, staged)
