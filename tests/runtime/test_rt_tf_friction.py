"""What a newcomer from TensorFlow meets first, made to behave as TensorFlow does: a function
with no readable source is said to run unconverted; numpy operands of a tensor's operators
take its dtype; numpy scalars keep theirs; errors of eager ops end at the user's line."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FOR_OVER_A_TENSOR = textwrap.dedent("""
    import runtime as rt
    @rt.function(input_signature=[rt.TensorSpec([None], rt.int32)])
    def total(x):
        s = 0
        for v in x:
            s += v
        return s
    for _ in range(2):
        try:
            total(rt.constant([1, 2, 3]))
        except TypeError as e:
            print("ERROR", type(e).__name__, *getattr(e, "__notes__", ()))
    """)

IF_ON_A_TENSOR = textwrap.dedent("""
    import dataclasses
    import runtime as rt

    @dataclasses.dataclass
    class Box:
        v: object

    def helper(x):
        return Box(x).v
    @rt.function
    def absolute(x):
        if helper(x) > 0:
            return x
        return -x
    try:
        absolute(rt.constant(3))
    except TypeError as e:
        print("ERROR", type(e).__name__, *getattr(e, "__notes__", ()))
    """)


def _python(args, stdin=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("AUTOGRAPH_VERBOSITY", None)
    out = subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                         env=env, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout, out.stderr


def test_python_c_warns_once_that_the_function_runs_unconverted_and_the_error_says_why():
    out, err = _python(["-c", FOR_OVER_A_TENSOR])
    if sys.version_info >= (3, 13):
        # Python 3.13 keeps the text of `python -c` (linecache "<string>"): it converts
        assert "autograph could not convert" not in err and "ERROR" not in out, (out, err)
        return
    assert err.count("autograph could not convert") == 1, err      # once, at the first call
    assert "could not convert total (<string>:3)" in err
    assert "source code could not be read" in err and "put the function in a file" in err
    assert out.count("ERROR OperatorNotAllowedInGraphError") == 2, out
    assert out.count("total was not converted by autograph (<string>:3)") == 2, out
    assert out.count("put the function in a file") == 2


def test_python_reading_stdin_warns_for_the_traced_function():
    out, err = _python(["-"], stdin=IF_ON_A_TENSOR)
    # (what it calls runs as Python, unconverted, as in TensorFlow: nothing to say of it)
    assert err.count("autograph could not convert") == 1, err
    assert "could not convert absolute (<stdin>:11)" in err
    assert "ERROR OperatorNotAllowedInGraphError" in out, out
    assert "absolute was not converted by autograph (<stdin>:" in out


def test_the_same_program_in_a_file_converts_and_warns_of_nothing(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(FOR_OVER_A_TENSOR.replace("ERROR", "NEVER") + "print(total(rt.constant([1, 2, 3])))\n")
    out, err = _python([str(script)])
    assert err == "" and out.strip() == "rt.Tensor(6, shape=(), dtype=int32)"


def test_code_made_by_exec_without_a_file_warns_but_not_a_dataclass_or_namedtuple(caplog):
    import collections
    import dataclasses
    import logging

    import autograph as ag

    namespace = {}
    exec(compile("def typed_in(x):\n    return x\n", "<string>", "exec"), namespace)
    point = dataclasses.make_dataclass("Point", ["x"])
    pair = collections.namedtuple("Pair", "a b")
    with caplog.at_level(logging.WARNING, logger="autograph"):
        for made in (point.__init__, pair.__new__, point.__eq__):
            assert ag.to_graph(made) is made
        assert not caplog.text
        for _ in range(2):
            assert ag.to_graph(namespace["typed_in"])(5) == 5
            assert ag.for_staging(namespace["typed_in"])(5) == 5
    assert caplog.text.count("could not convert typed_in (<string>:1)") == 1


# -- numpy operands take the tensor's dtype ------------------------------------------------

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import runtime as rt  # noqa: E402


def _ways(fn, spec):
    """fn eagerly, staged on numpy, under jit_compile and exported to ONNX, each a callable
    of a numpy array."""
    staged = rt.function(fn, input_signature=[spec])
    ways = {"eager": lambda a: fn(rt.constant(a)), "staged": lambda a: staged(rt.constant(a))}
    try:
        import jax  # noqa: F401  (an optional extra)
        jitted = rt.function(fn, input_signature=[spec], jit_compile=True)
        ways["jit"] = lambda a: jitted(rt.constant(a))
    except ImportError:
        pass
    try:
        import onnxruntime as ort
    except ImportError:
        return ways
    model = rt.onnx.export(staged.get_concrete_function())
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ways["onnx"] = lambda a: session.run(None, {session.get_inputs()[0].name: a})[0]
    return ways


def _array(result):
    return np.asarray(result.numpy() if hasattr(result, "numpy") else result)


def mixed_with_numpy(t):
    return ((t + np.float64(0.5)) * np.array(2, np.int64) - np.ones((), np.float64)
            + np.array(3.0) / t + np.int64(1) * t - t / np.float64(4)
            + rt.cast(t < np.array(0.25), rt.float32) * rt.maximum(t, np.float64(1)))


INPUTS = [np.zeros(0, np.float32), np.array([2.0], np.float32),
          np.array([np.nan, -1.5, 1e-3, 7.0], np.float32)]


@pytest.mark.parametrize("data", INPUTS, ids=["empty", "one", "nan"])
def test_numpy_operands_take_a_float32_tensors_dtype_on_every_backend(data):
    x = data
    f32 = np.float32
    want = ((x + f32(0.5)) * f32(2) - f32(1) + f32(3.0) / x + f32(1) * x - x / f32(4)
            + (x < f32(0.25)).astype(f32) * np.maximum(x, f32(1)))
    with np.errstate(all="ignore"):
        for way, run in _ways(mixed_with_numpy, rt.TensorSpec([None], rt.float32)).items():
            got = _array(run(data))
            assert got.dtype == np.float32, way
            np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True, err_msg=way)


def integer_with_numpy(t):
    return t * np.array([3], np.int64) + np.uint8(1) - np.int16(2)


@pytest.mark.parametrize("data", [np.zeros(0, np.int32), np.array([5, -7], np.int32)],
                         ids=["empty", "two"])
def test_numpy_integers_take_an_int32_tensors_dtype_on_every_backend(data):
    want = data * np.int32(3) + np.int32(1) - np.int32(2)
    for way, run in _ways(integer_with_numpy, rt.TensorSpec([None], rt.int32)).items():
        got = _array(run(data))
        assert got.dtype == np.int32, way
        np.testing.assert_array_equal(got, want, err_msg=way)


@pytest.mark.parametrize("expr", [
    lambda t: t + np.array([2.5]), lambda t: np.array([2.5]) + t, lambda t: t * np.float64(2),
    lambda t: np.float32(2) - t, lambda t: t + np.array([True]), lambda t: np.bool_(1) * t,
], ids=["float array", "reversed", "float64 scalar", "float32 scalar", "bool", "numpy bool"])
def test_what_tensorflow_refuses_to_convert_stays_a_dtype_error_eager_and_staged(expr):
    # (TensorFlow's convert_to_tensor(v, dtype=int32) of a float or bool array: TypeError)
    with pytest.raises(rt.errors.DTypeMismatchError, match="int32"):
        expr(rt.constant([1, 2]))
    with pytest.raises(rt.errors.DTypeMismatchError, match="int32"):
        rt.function(expr)(rt.constant([1, 2]))


@pytest.mark.parametrize("expr", [lambda t: t + np.int64(2 ** 40),
                                  lambda t: np.array([-1]) + rt.cast(t, rt.uint8)],
                         ids=["int64", "negative into uint8"])
def test_an_integer_that_does_not_fit_the_tensors_dtype_is_an_error_not_a_wrapped_value(expr):
    # (TensorFlow wraps it; a silent wrong answer here would be worse)
    for run in (expr, rt.function(expr)):
        with pytest.raises(TypeError, match="out of range"):
            run(rt.constant([1, 2]))


def test_a_float_tensor_takes_integer_and_float64_arrays_in_any_operator():
    t = rt.constant([1.0, 4.0])
    ints = np.array([2, 3], np.int64)
    pairs = {"+": (t + ints, np.add), "-": (ints - t, lambda a, b: np.subtract(b, a)),
             "max": (rt.maximum(t, ints.astype(np.float64)), np.maximum),
             "<": (t < np.array([2.0, 2.0]), lambda a, b: a < np.float32(2)),
             "**": (t ** np.float64(2), lambda a, b: a ** np.float32(2))}
    for name, (got, numpy_op) in pairs.items():
        want = numpy_op(t.numpy(), ints.astype(np.float32))
        assert got.numpy().dtype == want.dtype and got.numpy().tolist() == want.tolist(), name


# -- numpy scalars keep their dtype; a list of eager tensors is packed ---------------------

NUMPY_SCALARS = [np.bool_(True), np.int8(-3), np.int16(300), np.int32(7), np.int64(2 ** 40),
                 np.uint8(200), np.float16(1.5), np.float32(2.5), np.float64(0.1)]


@pytest.mark.parametrize("value", NUMPY_SCALARS, ids=lambda v: type(v).__name__)
def test_a_numpy_scalar_keeps_its_dtype_eagerly_and_in_a_graph(value):
    want = rt.as_dtype(value.dtype)

    def make(_):
        return rt.constant(value), rt.convert_to_tensor(value), rt.constant([value, value])

    for t in make(None) + rt.function(make)(rt.constant(0)):
        assert t.dtype is want
        assert np.all(t.numpy() == value) and t.numpy().dtype == value.dtype


@pytest.mark.parametrize("value,dtype", [(0.1, rt.float32), (7, rt.int32), (2 ** 40, rt.int64),
                                         (True, rt.bool)])
def test_python_numbers_keep_tensorflows_defaults(value, dtype):
    assert rt.constant(value).dtype is dtype and rt.convert_to_tensor([value]).dtype is dtype
    assert rt.function(lambda: rt.constant(value))().dtype is dtype


def test_rt_constant_packs_a_list_of_eager_tensors_as_tensorflow_does():
    a, b = rt.constant(1.5), rt.constant(2.5)
    def pack():
        return rt.constant([a, b])

    for run in (pack, rt.function(pack)):
        got = run()
        assert got.dtype is rt.float32 and got.numpy().tolist() == [1.5, 2.5]
    nested = rt.constant([[rt.constant(1, rt.int64)], [2]])
    assert nested.dtype is rt.int64 and nested.numpy().tolist() == [[1], [2]]
    assert rt.constant([rt.constant([1, 2]), [3, 4]], dtype=rt.float64).dtype is rt.float64


def test_rt_constant_of_a_list_holding_a_symbolic_tensor_says_to_stack():
    @rt.function
    def pack(x):
        return rt.constant([x, x])

    with pytest.raises(TypeError, match="symbolic tensor .* use rt.stack"):
        pack(rt.constant(1.0))


# -- errors of eager ops and Dataset methods end at the user's line -------------------------

import traceback  # noqa: E402

RUNTIME_DIR = os.path.join(ROOT, "runtime") + os.sep


def _frames(call):
    with pytest.raises(Exception) as info:
        call()
    frames = traceback.extract_tb(info.value.__traceback__)
    return info.value, frames


def _user_lines_only(frames):
    assert frames, "no frame at all"
    if sys.version_info < (3, 11):
        # Python 3.10 re-raises an exception with the frame that re-raises it on top:
        # each public function's wrapper stays, one runtime frame a call
        frames = [f for f in frames if f.name != "user_frames_only"]
    assert not [f for f in frames if f.filename.startswith(RUNTIME_DIR)], frames
    assert frames[-1].filename == __file__
    return [f.line for f in frames]


@pytest.mark.parametrize("call, line, error", [
    (lambda x: rt.reshape(x, [5]), "rt.reshape(x, [5])", rt.errors.InvalidArgumentError),
    (lambda x: x + rt.constant([1, 2, 3]), "x + rt.constant([1, 2, 3])",
     rt.errors.DTypeMismatchError),
    (lambda x: rt.math.reduce_sum(x, axis=4), "rt.math.reduce_sum(x, axis=4)", Exception),
    (lambda x: x[7], "x[7]", Exception),
    (lambda x: rt.data.Dataset.from_tensor_slices(x).batch(0), ".batch(0)", Exception),
    (lambda x: next(iter(rt.data.Dataset.from_tensor_slices(x).map(lambda v: v[3]))),
     "v[3]", Exception),
], ids=["reshape", "operator", "rt.math", "getitem", "Dataset.batch", "map function"])
def test_an_eager_error_ends_at_the_users_line(call, line, error):
    x = rt.constant([1.0, 2.0, 3.0])
    raised, frames = _frames(lambda: call(x))
    assert isinstance(raised, error)
    assert line in _user_lines_only(frames)[-1]


def test_with_filtering_disabled_the_runtimes_frames_show():
    x = rt.constant([1.0, 2.0, 3.0])
    rt.debugging.disable_traceback_filtering()
    try:
        _, frames = _frames(lambda: rt.reshape(x, [5]))
    finally:
        rt.debugging.enable_traceback_filtering()
    assert any(f.filename.startswith(RUNTIME_DIR) for f in frames)
    _, frames = _frames(lambda: rt.reshape(x, [5]))
    _user_lines_only(frames)


def test_a_user_function_called_by_the_runtime_keeps_its_frames():
    def bad_row(v):
        return rt.reshape(v, [7])

    def pipeline():
        return rt.data.Dataset.range(3).map(bad_row)

    _, frames = _frames(pipeline)
    lines = _user_lines_only(frames)
    assert "rt.data.Dataset.range(3).map(bad_row)" in lines[-2]
    assert "rt.reshape(v, [7])" in lines[-1]


def test_the_public_api_stays_one_object_per_function():
    assert rt.math.add is rt.add and rt.math.reduce_sum is rt.reduce_sum
    assert rt.reshape.__wrapped__.__module__ == rt.reshape.__module__ == "runtime.ops.array_ops"
    assert rt.reshape.__name__ == "reshape" and "Args:" in rt.reshape.__doc__
