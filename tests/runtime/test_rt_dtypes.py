"""dtype rules (TensorFlow's), conversion of Python/numpy values, and how tensors print
and behave as Python values (eager) or refuse to (symbolic)."""
import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("value,dtype", [
    (2, rt.int32), (-(2 ** 31), rt.int32), (2 ** 40, rt.int64), (2.0, rt.float32),
    (True, rt.bool), ("s", rt.string), (b"s", rt.string), ([1, 2], rt.int32),
    ([1, 2.5], rt.float32), ([[True], [False]], rt.bool), ([], rt.float32),
    (np.array([1, 2], np.int64), rt.int64), (np.array(1.5), rt.float64),
    (np.float16(1), rt.float16), (np.array([1], np.uint8), rt.uint8),
], ids=repr)
def test_inferred_dtype(value, dtype):
    t = rt.constant(value)
    assert t.dtype is dtype
    assert np.asarray(t).dtype == dtype.np_dtype


def test_explicit_dtype_conversions():
    assert rt.constant(2, dtype=rt.float64).numpy() == 2.0
    assert rt.constant(2.0, dtype=rt.int32).dtype is rt.int32  # integral floats are fine
    assert rt.constant([1, 2], dtype="float32").dtype is rt.float32
    assert rt.convert_to_tensor(3, dtype_hint=rt.float32).dtype is rt.float32
    assert rt.convert_to_tensor(2.5, dtype_hint=rt.int32).dtype is rt.float32  # hint only


@pytest.mark.parametrize("make", [
    lambda: rt.constant(2.5, dtype=rt.int32),
    lambda: rt.convert_to_tensor(2.5, dtype=rt.int32),
    lambda: rt.constant(2 ** 40, dtype=rt.int32),
    lambda: rt.constant(1, dtype=rt.bool),
    lambda: rt.constant("a", dtype=rt.int32),
    lambda: rt.convert_to_tensor(rt.constant(1), dtype=rt.float32),
], ids=["2.5->int32", "convert 2.5->int32", "too big", "int->bool", "str->int", "tensor"])
def test_lossy_conversions_raise_type_error(make):
    with pytest.raises(TypeError):
        make()


@pytest.mark.parametrize("value", [None, object(), {"a": 1}, [[1, 2], [3]], 2 ** 70])
def test_unconvertible_values(value):
    with pytest.raises((TypeError, ValueError), match="convert"):
        rt.constant(value)


def test_mixed_tensor_dtypes_raise_dtype_mismatch():
    with pytest.raises(rt.errors.InvalidArgumentError, match="int32 and float32"):
        rt.constant(1) + rt.constant(1.0)
    with pytest.raises(TypeError):  # DTypeMismatchError is both
        rt.multiply(rt.constant([1.0]), rt.constant([1.0], dtype=rt.float64))
    assert issubclass(rt.errors.DTypeMismatchError, rt.errors.InvalidArgumentError)
    assert issubclass(rt.errors.DTypeMismatchError, TypeError)


def test_python_numbers_adopt_the_tensor_dtype():
    assert (rt.constant(1.0) + 1).dtype is rt.float32
    assert (1 + rt.constant(1.0, dtype=rt.float64)).dtype is rt.float64
    assert (rt.constant(3, dtype=rt.int64) * 2).dtype is rt.int64
    assert (rt.constant(1.0, dtype=rt.float16) - 0.5).dtype is rt.float16
    assert rt.maximum(rt.constant([1, 5]), 3).numpy().tolist() == [3, 5]
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.float64, [])
        assert (p * 2).dtype is rt.float64
        assert (2 ** p).dtype is rt.float64


@pytest.mark.parametrize("expr", [
    lambda t: t + 2.5, lambda t: 2.5 * t, lambda t: t < 0.5, lambda t: rt.maximum(t, 1.5),
    lambda t: t + True,
], ids=["add", "rmul", "less", "maximum", "bool"])
def test_python_float_into_int_op_raises_type_error(expr):
    with pytest.raises(TypeError, match="int32"):
        expr(rt.constant([1, 2]))


def test_numpy_operands_take_the_tensors_dtype_where_tensorflow_converts_them():
    # (integers become any integer or floating dtype, floats any floating one: as
    # TensorFlow's convert_to_tensor(array, dtype=t.dtype); tests/runtime/test_rt_tf_friction.py)
    assert (rt.constant(1) + np.array(3, np.int64)).dtype is rt.int32
    with pytest.raises(rt.errors.DTypeMismatchError, match="int32 and float64"):
        rt.constant(1) + np.array(3.5)
    out = np.array([1, 2], np.int32) + rt.constant([1, 2])
    assert isinstance(out, rt.Tensor) and out.numpy().tolist() == [2, 4]


# -- printing -----------------------------------------------------------------------------

@pytest.mark.parametrize("value,text", [
    (2, "rt.Tensor(2, shape=(), dtype=int32)"),
    (2.5, "rt.Tensor(2.5, shape=(), dtype=float32)"),
    ([1, 2], "rt.Tensor([1 2], shape=(2,), dtype=int32)"),
    ([[1, 2], [3, 4]], "rt.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"),
    ("fizz", "rt.Tensor(b'fizz', shape=(), dtype=string)"),
    (True, "rt.Tensor(True, shape=(), dtype=bool)"),
    # from the guides
    (5.5, "rt.Tensor(5.5, shape=(), dtype=float32)"),
    (0.0, "rt.Tensor(0.0, shape=(), dtype=float32)"),
    ([1.0, 0.0], "rt.Tensor([1. 0.], shape=(2,), dtype=float32)"),
    ([0.0], "rt.Tensor([0.], shape=(1,), dtype=float32)"),
    ([1, 0, 4, 4, 7], "rt.Tensor([1 0 4 4 7], shape=(5,), dtype=int32)"),
])
def test_eager_str(value, text):
    assert str(rt.constant(value)) == text


def test_eager_repr():
    assert repr(rt.constant(2)) == "<rt.Tensor: shape=(), dtype=int32, numpy=2>"
    assert repr(rt.constant([1.5])) == (
        "<rt.Tensor: shape=(1,), dtype=float32, numpy=array([1.5], dtype=float32)>")


def test_symbolic_repr_and_names():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.int32, [None, 2], name="x")
        y = x + 1
        z = rt.add(x, y, name="total")
        parts = rt.unstack(rt.placeholder(rt.float32, [2]))
    assert repr(y) == 'Tensor("add:0", shape=(None, 2), dtype=int32)'
    assert str(y) == repr(y)
    assert z.name == "total:0" and z.op.name == "total" and z.op.type == "AddV2"
    assert [p.name for p in parts] == ["Unpack:0", "Unpack:1"]
    assert y.graph is g and x.op.inputs == ()
    assert y.op.inputs[0] is x


def test_shapes_and_specs():
    s = rt.TensorShape([None, 3])
    assert s.rank == 2 and not s.is_fully_defined() and s.as_list() == [None, 3]
    assert str(s) == "(None, 3)" and str(rt.TensorShape(None)) == "<unknown>"
    assert rt.TensorShape(None).rank is None
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    assert s.merge_with([5, None]) == rt.TensorShape([5, 3])
    with pytest.raises(ValueError):
        s.merge_with([1, 2, 3])
    spec = rt.TensorSpec([None], rt.int32, name="x")
    assert spec.is_compatible_with(rt.constant([1, 2]))
    assert not spec.is_compatible_with(rt.constant([1.0]))
    assert repr(spec) == "TensorSpec(shape=(None,), dtype=rt.int32, name='x')"


# -- tensors as Python values ------------------------------------------------------------------

def test_eager_tensors_behave_as_python_values():
    t = rt.constant([3, 4, 5])
    assert len(t) == 3
    assert [int(r) for r in t] == [3, 4, 5]
    assert bool(rt.constant(True)) and not bool(rt.constant(0))
    assert float(rt.constant(2.5)) == 2.5
    assert [10, 20, 30][rt.constant(1)] == 20
    assert f"{rt.constant(2.5):.2f}" == "2.50"
    with pytest.raises(TypeError, match="integer"):
        [1, 2][rt.constant(1.0)]
    with pytest.raises(TypeError):
        hash(t)
    assert {t.ref(): 1}[t.ref()] == 1
    with pytest.raises(AttributeError, match="eager"):
        t.name


@pytest.mark.parametrize("use,error,match", [
    (lambda p: bool(p > 0), rt.errors.OperatorNotAllowedInGraphError, "bool"),
    (lambda p: 1 if p > 0 else 2, rt.errors.OperatorNotAllowedInGraphError, "rt.cond"),
    (lambda p: p > 0 and p < 3, rt.errors.OperatorNotAllowedInGraphError, "bool"),
    (lambda p: [x for x in rt.boolean_mask(p, p > 0)],      # (of a length unknown)
     rt.errors.OperatorNotAllowedInGraphError, "Iterating"),
    (lambda p: len(p), TypeError, "rt.shape"),
    (lambda p: int(p), TypeError, "symbolic"),
    (lambda p: [1, 2, 3][p[0]], TypeError, "symbolic"),
    (lambda p: np.asarray(p), TypeError, "no value"),
    (lambda p: p.numpy(), AttributeError, "numpy"),
], ids=["bool", "if", "and", "iter", "len", "int", "index", "asarray", "numpy"])
def test_symbolic_tensors_refuse_python_use(use, error, match):
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.int32, [3])
        with pytest.raises(error, match=match):
            use(p)


def test_python_iteration_of_a_symbolic_tensor_of_known_length_gives_its_rows():
    """Unpacking, zip() and list() of a graph tensor whose first dimension is known while
    tracing give its rows, as eagerly (a `for` autograph converts stays a staged loop)."""
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.int32, [3, None])
        a, b, c = p
        rows = list(p)
        with pytest.raises(TypeError, match="scalar"):
            iter(p[0, 0])
    value = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    eager = [r.numpy().tolist() for r in rt.constant(value)]
    assert [g.run(t, {p: value}).numpy().tolist() for t in (a, b, c)] == eager
    assert [g.run(t, {p: value}).numpy().tolist() for t in rows] == eager
    assert a.shape.as_list() == [None]


def test_operator_not_allowed_is_a_type_error_with_advice():
    assert issubclass(rt.errors.OperatorNotAllowedInGraphError, TypeError)
    g = rt.Graph()
    with g.as_default():
        p = rt.placeholder(rt.bool, [])
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
            bool(p)
    assert "Placeholder:0" in str(info.value) and "while_loop" in str(info.value)
