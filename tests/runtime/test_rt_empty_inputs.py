"""Zero elements: map_fn, scan, foldl, foldr, TensorArrays, slices and gathers over an empty
dimension give TensorFlow's answer eagerly, staged on the numpy backend and under
jit_compile, for known and unknown lengths (XLA compiles the loop body even when it does
not run, so a slice of a zero-size dimension must compile there and raise only if run)."""
import numpy as np
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    WAYS = ("eager", "numpy", "numpy unknown", "jit", "jit unknown")
except ImportError:  # pragma: no cover - the jax extra is optional
    WAYS = ("eager", "numpy", "numpy unknown")

try:
    import onnx  # noqa: F401
    import onnxruntime
    # checked with onnxruntime 1.32 and later (see tests/agreement.py)
    HAVE_ONNX = tuple(int(p) for p in onnxruntime.__version__.split(".")[:2]) >= (1, 32)
except ImportError:  # pragma: no cover - the onnx extra is optional
    HAVE_ONNX = False

ZERO_ROWS = np.zeros((0, 3), np.float32)
ROWS = np.arange(6, dtype=np.float32).reshape(2, 3)


def _onnx(fn, *arrays):
    """The function exported for unknown dims and run by onnxruntime: numpy results."""
    specs = [rt.TensorSpec([None] * a.ndim, rt.as_dtype(a.dtype)) for a in arrays]
    model = rt.onnx.export(rt.function(fn).get_concrete_function(*specs))
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4
    session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, arrays)))


def _call(way, fn, *arrays):
    if way == "onnx":
        return _onnx(fn, *arrays)
    if way == "eager":
        return fn(*[rt.constant(a) for a in arrays])
    signature = None
    if way.endswith("unknown"):
        signature = [rt.TensorSpec([None] * a.ndim, rt.as_dtype(a.dtype)) for a in arrays]
    f = rt.function(fn, jit_compile=way.startswith("jit"), input_signature=signature)
    return f(*[rt.constant(a) for a in arrays])


def _every_way(fn, *arrays, may_refuse=()):
    """The eager results (numpy, a list); every way must agree with eager in shape and
    value, but the ways in `may_refuse`, which may instead raise InvalidArgumentError
    asking for a full element shape."""
    out = {}
    for way in WAYS + (("onnx",) if HAVE_ONNX else ()):
        try:
            result = _call(way, fn, *arrays)
        except rt.errors.InvalidArgumentError as e:
            if way not in may_refuse:
                raise
            assert "element shape" in str(e) and "fn_output_signature" in str(e), e
            continue
        except Exception as e:  # onnxruntime's error: where the numpy backend refuses too
            if way != "onnx" or "numpy unknown" not in may_refuse or \
                    "element shape is not fully known" not in str(e):
                raise
            continue
        out[way] = [np.asarray(r) for r in rt.nest.flatten(result)]
    for way, values in out.items():
        for got, want in zip(values, out["eager"]):
            assert got.shape == want.shape and got.dtype == want.dtype, (way, got, want)
            np.testing.assert_array_equal(got, want, err_msg=way)
    return out["eager"]


PROGRAMS = {
    "map_fn": lambda x: rt.map_fn(lambda r: r * 2.0, x),
    "map_fn_signature": lambda x: rt.map_fn(lambda r: r * 2.0, x, fn_output_signature=(
        rt.TensorSpec([3], rt.float32))),
    "map_fn_nested": lambda x: rt.map_fn(lambda p: (p[0] + p[1], p[0] > 1.0), (x, x),
                                         fn_output_signature=(rt.TensorSpec([3], rt.float32),
                                                              rt.TensorSpec([3], rt.bool))),
    "scan": lambda x: rt.scan(lambda a, r: a + r, x, initializer=rt.zeros([3])),
    "scan_reverse": lambda x: rt.scan(lambda a, r: a + r, x, initializer=rt.zeros([3]),
                                      reverse=True),
    "foldl": lambda x: rt.foldl(lambda a, r: a + r, x, initializer=rt.ones([3])),
    "foldr": lambda x: rt.foldr(lambda a, r: a * r, x, initializer=rt.ones([3])),
}


def _reference(name, x):
    x = x.astype(np.float32)
    return {
        "map_fn": [x * 2.0],
        "map_fn_signature": [x * 2.0],
        "map_fn_nested": [x + x, x > 1.0],
        "scan": [np.cumsum(x, axis=0).reshape(x.shape)],
        "scan_reverse": [np.cumsum(x[::-1], axis=0)[::-1].reshape(x.shape)],
        "foldl": [np.ones(3, np.float32) + x.sum(axis=0)],
        "foldr": [np.prod(x, axis=0) * np.ones(3, np.float32)],
    }[name]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("x", [ZERO_ROWS, ROWS[:1], pytest.param(ROWS, marks=pytest.mark.slow)],
                         ids=["zero", "one", "two"])
def test_functional_ops_every_way(name, x):
    # Over no rows of unknown length, map_fn's element shape is unknown while tracing,
    # and the loop that would tell it does not run: the numpy backend raises, as
    # TensorFlow's graphs do, asking for fn_output_signature (XLA knows every shape).
    refuse = ("numpy unknown",) if name.startswith("map_fn") and "signature" not in name \
        and not len(x) else ()
    got = _every_way(PROGRAMS[name], x, may_refuse=refuse)
    for g, want in zip(got, _reference(name, x)):
        assert g.shape == want.shape, (name, g.shape, want.shape)
        np.testing.assert_allclose(g, want)


@pytest.mark.parametrize("op", ["scan", "foldl", "foldr"])
def test_no_elements_and_no_initializer_raises(op):
    fn = lambda x: getattr(rt, op)(lambda a, r: a + r, x)  # noqa: E731
    for way in WAYS:
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            _call(way, fn, ZERO_ROWS)
        if "unknown" not in way:  # the length is known while tracing: said so at once
            assert "needs an initializer" in str(info.value), way


def test_map_fn_eagerly_over_no_elements_has_tensorflows_shape():
    # [0] + the element shape of fn_output_signature; a dtype alone gives no shape: (0,)
    x = rt.constant(ZERO_ROWS)
    assert rt.map_fn(lambda r: r, x).shape == (0, 3)
    assert rt.map_fn(lambda r: r[0], x, fn_output_signature=rt.TensorSpec([], rt.float32)
                     ).shape == (0,)
    assert rt.map_fn(lambda r: r, x, fn_output_signature=rt.TensorSpec([3], rt.float32)
                     ).shape == (0, 3)
    assert rt.map_fn(lambda r: r, x, fn_output_signature=rt.float32).shape == (0,)


# -- TensorArrays with nothing written ------------------------------------------------------

TENSOR_ARRAYS = {
    "no_element_shape": (lambda: rt.TensorArray(rt.float32, size=0).stack(), (0,)),
    "element_shape": (lambda: rt.TensorArray(rt.float32, size=0, element_shape=[3]).stack(),
                      (0, 3)),
    "dynamic": (lambda: rt.TensorArray(rt.int32, size=0, dynamic_size=True).stack(), (0,)),
    "concat": (lambda: rt.TensorArray(rt.float32, size=0, element_shape=[2, 3]).concat(),
               (0, 3)),
    "unstack": (lambda: rt.TensorArray(rt.float32, size=0).unstack(rt.zeros([0, 3])).stack(),
                (0, 3)),
}


@pytest.mark.parametrize("name", sorted(TENSOR_ARRAYS))
def test_tensor_array_with_no_elements(name):
    fn, shape = TENSOR_ARRAYS[name]
    for way in ("eager", "numpy", "jit") if "jit" in WAYS else ("eager", "numpy"):
        assert _call(way, fn).shape == shape, way


def _written_in_loop(x):
    ta = rt.TensorArray(rt.float32, size=3, element_shape=[3])
    for i in rt.range(rt.shape(x)[0]):
        ta = ta.write(i, x[i] * 2.0)
    ta2 = rt.TensorArray(rt.float32, size=0)
    for i in rt.range(rt.shape(x)[0]):   # a loop that never writes past size 0 here
        ta2 = ta2.write(i, x[i])
    return ta.stack(), ta2.size()


def test_tensor_array_writes_in_a_loop_that_does_not_run():
    # elements never written are zeros of the element shape; a size-0 array stays empty
    got = _every_way(_written_in_loop, ZERO_ROWS)
    np.testing.assert_array_equal(got[0], np.zeros((3, 3), np.float32))
    assert got[1] == 0


def test_tensor_array_concat_joins_elements():
    def f(x):
        ta = rt.TensorArray(rt.float32, size=2, element_shape=[2, 3])
        ta = ta.write(0, x).write(1, x + 1.0)
        return ta.concat()
    got = _every_way(f, ROWS)
    np.testing.assert_array_equal(got[0], np.concatenate([ROWS, ROWS + 1.0]))


# -- slices and gathers of an empty dimension, in code that does not run --------------------

def _first_row_if_any(x):
    if rt.shape(x)[0] > 0:
        y = x[0] + x[-1] + rt.gather(x, [0])[0]
    else:
        y = rt.zeros([3])
    return y


def test_item_of_an_empty_dimension_in_a_branch_that_does_not_run():
    # traced for unknown dims (for a known shape (0, 3) x[0] is refused while tracing, as
    # TensorFlow does); XLA compiles for the shape it is given, (0, 3)
    for x, want in ((ZERO_ROWS, np.zeros(3)), (ROWS, ROWS[0] * 2 + ROWS[1])):
        for way in WAYS:
            if way in ("numpy", "jit"):
                continue
            got = _call(way, _first_row_if_any, x)
            np.testing.assert_array_equal(got.numpy(), want.astype(np.float32), err_msg=way)


@pytest.mark.parametrize("fn", [lambda x: x[0], lambda x: x[-1], lambda x: rt.gather(x, [0]),
                                lambda x: x[rt.shape(x)[0]]])
def test_item_of_an_empty_dimension_that_runs_raises(fn):
    for way in WAYS:
        if way in ("numpy", "jit"):
            continue   # known shape (0, 3): refused while tracing for a constant index
        with pytest.raises((rt.errors.InvalidArgumentError, IndexError)) as info:
            _call(way, fn, ZERO_ROWS)
        assert "out of bounds" in str(info.value) or "not in [0, 0)" in str(info.value), way
