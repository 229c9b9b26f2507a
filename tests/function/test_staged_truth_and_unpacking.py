"""Programs with one meaning that staging once refused: Python's truth value of a tensor
(`if x:` of a number or of a one-element tensor), Python's iteration of a tensor of
known length (unpacking, zip), `len()` of a TensorArray and a staged list read as a
tensor; and the error, at the user's line, for `x.shape[0]` unknown while tracing used as
a number.

Each is run as plain Python on eager tensors (the reference), staged on the numpy
backend, staged for unknown dimensions and under `jit_compile=True` (tests/agreement.py),
with empty, one-element and NaN inputs; where eager raises, staging raises the same
class of error.
"""
import re

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.agreement import HAVE_JAX, agree

JIT_MODES = [False, True] if HAVE_JAX else [False]   # jit_compile needs the jax extra

f32 = np.float32


def _if(x):
    if x:
        y = 1
    else:
        y = 2
    return y


def _while_not_zero(x):
    n = 0
    while x:
        x = x - 1
        n += 1
    return n


def _while_below(x):
    n = 0
    while x < 3.0:
        x = x + 1.0
        n += 1
    return n


def _expressions(x, y):
    return x and y, x or y, not x, (1.0 if x else 2.0)


def _asserts(x):
    assert x
    return x * 2


# -- Python's truth value -----------------------------------------------------------------

@pytest.mark.parametrize("value", [
    np.array([2.0], f32), np.array([[0.0]], f32), np.array([np.nan], f32),
    np.array([[[-1.5]]], f32), np.array([1.0, 2.0], f32), np.zeros([0], f32),
    np.array(0.0, f32), np.array(3.5, f32),
], ids=["[2]", "[[0]]", "[nan]", "[[[-1.5]]]", "two", "empty", "0.0", "3.5"])
def test_if_on_a_tensor_takes_its_truth_value_as_python(value):
    """One element: its truth (NaN is true); more or none: an error, as eagerly (the
    variants run zero rows, one row and NaN too, and unknown dimensions: checked when
    the graph runs)."""
    agree(_if, (value,))


@pytest.mark.parametrize("value", [np.array(3, np.int32), np.array(0, np.int32),
                                   np.array(2.0, f32), np.array(5, np.int64)])
def test_while_on_a_number_runs_while_it_is_not_zero(value):
    agree(_while_not_zero, (value,), which=("given",))     # (NaN - 1 is never zero)


@pytest.mark.parametrize("value", [np.array([0.0], f32), np.array([[1.5]], f32),
                                   np.array([5.0], f32), np.array([0.0, 1.0], f32)])
def test_while_on_a_one_element_comparison(value):
    agree(_while_below, (value,))


@pytest.mark.parametrize("x", [np.array(0.0, f32), np.array(2.0, f32),
                               np.array(np.nan, f32), np.array([0.0], f32),
                               np.array([[4.0]], f32), np.array([1.0, 2.0], f32)])
def test_and_or_not_and_conditional_expressions_on_numbers(x):
    agree(_expressions, (x, np.full(x.shape, 5.0, f32)), which=("given",))


@pytest.mark.parametrize("x", [np.array(3, np.int32), np.array([2.0], f32),
                               np.array(np.nan, f32)])
def test_assert_on_a_true_number_passes(x):
    agree(_asserts, (x,), which=("given",))


@pytest.mark.parametrize("jit", JIT_MODES)
def test_assert_on_a_false_number_fails_when_the_graph_runs(jit):
    f = rt.function(_asserts, jit_compile=jit)
    with pytest.raises(AssertionError):
        _asserts(rt.constant(0))
    with pytest.raises(rt.errors.InvalidArgumentError, match="assertion failed at"):
        f(rt.constant(0))


@pytest.mark.parametrize("fn", [_if, _while_not_zero, _asserts, lambda x: not x],
                         ids=["if", "while", "assert", "not"])
@pytest.mark.parametrize("value", [[1.0, 2.0], []], ids=["two", "empty"])
def test_no_truth_value_is_the_same_error_class_as_eager_at_the_users_line(fn, value):
    x = rt.constant(np.array(value, f32))
    with pytest.raises(ValueError) as eager:
        fn(x)
    with pytest.raises(ValueError) as staged:
        rt.function(fn)(x)
    word = "more than one element" if value else "empty"
    assert word in str(eager.value).replace("array", "tensor")
    assert f"The truth value of {'a tensor with ' if value else 'an '}{word}" in str(staged.value)
    # the user's line: in the message, or in the note rt.function adds
    text = str(staged.value) + "".join(getattr(staged.value, "__notes__", ()))
    assert __file__ in text


def test_unknown_number_of_elements_is_checked_when_the_graph_runs():
    for jit in JIT_MODES:
        f = rt.function(_if, input_signature=[rt.TensorSpec([None], rt.float32)],
                        jit_compile=jit)
        assert int(f(rt.constant([3.0]))) == 1 and int(f(rt.constant([0.0]))) == 2
        for bad in ([1.0, 2.0], []):
            with pytest.raises(rt.errors.InvalidArgumentError,
                               match=r"test_staged_truth_and_unpacking.py:\d+: The truth "
                                     r"value of a tensor with more than one element, or "
                                     r"none, is ambiguous"):
                f(rt.constant(np.array(bad, f32)))
    unknown_rank = rt.function(_if, input_signature=[rt.TensorSpec(None, rt.float32)])
    assert int(unknown_rank(rt.constant([[0.0]]))) == 2 == _if(rt.constant([[0.0]]))
    assert int(unknown_rank(rt.constant(7.0))) == 1


def test_strings_are_true_when_not_empty():
    for value in ["", "a", [""], [["ab"]]]:
        t = rt.constant(value)
        assert int(rt.function(_if)(t)) == _if(t)


def test_rt_cond_keeps_to_bool_conditions():
    """rt.cond and rt.while_loop (TensorFlow's functions, not Python's `if`) take bools
    only; of one element, as TensorFlow squeezes the predicate."""
    f = rt.function(lambda x: rt.cond(x, lambda: 1, lambda: 2))
    with pytest.raises(TypeError, match="scalar bool"):
        f(rt.constant(1))
    assert int(f(rt.constant([True]))) == 1 and int(f(rt.constant([[False]]))) == 2


def test_range_of_a_one_element_tensor_is_refused_as_eagerly():
    """Python's range() takes no one-element array (numpy 2 refuses it), eagerly or
    staged: a TypeError saying to index or reshape it."""
    def f(n):
        s = 0
        for i in range(n):
            s += i
        return s

    n = rt.constant([4])
    try:
        expected = f(n)
    except TypeError:
        with pytest.raises(TypeError, match=r"range\(\) takes scalar integers.*rt.reshape"):
            rt.function(f)(n)
    else:  # numpy before 2.3 takes a one-element array as an index: so does the graph
        assert int(rt.function(f)(n)) == int(expected) == 6
    assert int(rt.function(f)(n[0])) == f(int(n[0])) == 6


# -- Python's iteration of a tensor of known length ------------------------------------------

def _unpack_shape(x):
    a, b = rt.shape(x)
    return a * b + a


def _unpack_rows(t):
    s = 0.0
    for a, b, c in t:
        s += a + b * c
    return s


def _nested_and_starred(t):
    a, (b, c), *rest = t[0], t[1], t[2], t[0]
    first, *others = t
    return a + b + c + rest[1] + first + rt.add_n(others)


def _zip_and_list(t, w):
    total = 0.0
    for row, weight in zip(t, [1.0, 10.0]):
        total += rt.reduce_sum(row) * weight
    return total + rt.reduce_sum(rt.stack(list(w)))


def test_unpacking_the_shape_of_a_tensor_of_unknown_dimensions():
    agree(_unpack_shape, (np.zeros([2, 3], f32),), onnx="skip")


def test_unpacking_each_row_in_a_staged_loop():
    x = np.arange(12, dtype=f32).reshape(4, 3)
    # rows of static length 3: the row count may be unknown (a staged loop)
    agree(_unpack_rows, (x,), unknown=False, onnx="skip")    # (ONNX: unknown dims only)
    f = rt.function(_unpack_rows, input_signature=[rt.TensorSpec([None, 3], rt.float32)])
    assert float(f(rt.constant(x))) == float(_unpack_rows(rt.constant(x)))
    unknown_row = rt.function(_unpack_rows, input_signature=[rt.TensorSpec([None, None],
                                                                           rt.float32)])
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"shape \(None,\)\) whose length is unknown while tracing"):
        unknown_row(rt.constant(x))


def test_nested_and_starred_unpacking():
    x = np.arange(6, dtype=f32).reshape(3, 2)
    agree(_nested_and_starred, (x,), which=("given", "nan"), unknown=False, onnx="skip")


def test_zip_and_list_of_tensors():
    agree(_zip_and_list, (np.arange(6, dtype=f32).reshape(2, 3), np.ones([4, 2], f32)),
          which=("given", "nan"), unknown=False, onnx="skip")


def test_a_for_over_a_tensor_stays_one_staged_loop():
    """Only Python's own iteration unrolls: the graph of a converted `for` over 1000
    rows does not grow with them."""
    def total(t):
        s = 0.0
        for row in t:
            s += rt.reduce_sum(row)
        return s

    x = np.ones([1000, 2], f32)
    cf = rt.function(total).get_concrete_function(rt.constant(x))
    assert len(cf.graph.operations) < 30
    assert float(cf(rt.constant(x))) == 2000.0


# -- x.shape[0] unknown while tracing -----------------------------------------------------

@pytest.mark.parametrize("use", [
    lambda x: rt.zeros([x.shape[0] * 2]),
    lambda x: [i for i in range(x.shape[0])],
    lambda x: rt.zeros([None]),
    lambda x: rt.reshape(x, [None]),
    lambda x: rt.ones((x.shape[0], 2)),
], ids=["times", "range", "zeros", "reshape", "ones"])
def test_an_unknown_dimension_used_as_a_number_says_so_at_the_users_line(use):
    f = rt.function(use, input_signature=[rt.TensorSpec([None], rt.float32)])
    with pytest.raises(TypeError) as info:
        f(rt.zeros([2]))
    text = str(info.value)
    assert "NoneType" in text and "x.shape[0] is None" in text and "rt.shape(x)[0]" in text
    assert __file__ in "".join(getattr(info.value, "__notes__", ()))


def test_shape_0_is_none_still_asks_whether_it_is_known():
    def f(x):
        if x.shape[0] is None:
            return rt.shape(x)[0] * 2
        return x.shape[0] * 3

    unknown = rt.function(f, input_signature=[rt.TensorSpec([None], rt.float32)])
    assert int(unknown(rt.zeros([4]))) == 8
    assert int(rt.function(f)(rt.zeros([4]))) == 12 == f(rt.zeros([4]))


def test_a_none_error_without_unknown_dimensions_is_left_as_it_is():
    def f(x):
        return x * (None * 2)

    with pytest.raises(TypeError) as info:
        rt.function(f)(rt.zeros([2]))
    assert str(info.value) == "unsupported operand type(s) for *: 'NoneType' and 'int'"


# -- len() of a TensorArray, a staged list as a tensor -----------------------------------

@pytest.mark.parametrize("jit", JIT_MODES)
def test_len_of_a_tensor_array_is_its_size(jit):
    def f(n):
        fixed = rt.TensorArray(rt.float32, size=3)
        sized = rt.TensorArray(rt.float32, size=n)
        grown = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        for i in rt.range(4):
            grown = grown.write(i, rt.cast(i, rt.float32))
        return len(fixed), len(sized), len(grown)

    # (XLA needs the size while compiling: a Python 5 there, a tensor's value here)
    lengths = rt.function(f, jit_compile=jit)(5 if jit else rt.constant(5))
    assert [int(v) for v in lengths] == [3, 5, 4]
    with pytest.raises(TypeError):      # as TensorFlow's: no len() outside converted code
        len(rt.TensorArray(rt.float32, size=3))


def _staged_list_as_tensor(op):
    def f(n):
        out = []
        for i in rt.range(n):
            out.append(rt.reshape(rt.cast(rt.range(6), rt.float32) * rt.cast(i, rt.float32),
                                  [2, 3]))
        return op(out)

    def python(n):
        return op([rt.reshape(rt.cast(rt.range(6), rt.float32) * float(i), [2, 3])
                   for i in range(n)])
    return f, python


@pytest.mark.parametrize("op", [
    rt.stack, lambda l: rt.stack(l, axis=1), lambda l: rt.stack(l, axis=-1),
    lambda l: rt.concat(l, 0), lambda l: rt.concat(l, 1), lambda l: rt.concat(l, -2),
    rt.reduce_sum, rt.convert_to_tensor, lambda l: rt.constant(1.0) + l, ag.stack,
], ids=["stack", "stack1", "stack-1", "concat0", "concat1", "concat-2", "reduce_sum",
        "convert", "add", "ag.stack"])
def test_a_staged_list_read_as_a_tensor_is_its_elements_stacked(op):
    f, python = _staged_list_as_tensor(op)
    for n in (1, 3):
        got, want = rt.function(f)(rt.constant(n)), python(n)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_staged_list_of_another_dtype_is_a_type_error():
    def f(n):
        out = []
        for i in rt.range(n):
            out.append(i)
        return rt.convert_to_tensor(out, dtype=rt.float32)

    with pytest.raises(TypeError, match=re.escape("expected a float32 value, got a list of "
                                                  "int32 elements")):
        rt.function(f)(rt.constant(2))
