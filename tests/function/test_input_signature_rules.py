"""One rule for arguments against an input_signature, whether the Function or one of its
concrete functions is called: Python values and numpy arrays convert to the spec's dtype
when no value changes; tensors are never cast; each argument that does not fit is named."""
import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError


@rt.function(input_signature=[rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([], rt.int32)])
def scaled_sum(x, k):
    return rt.reduce_sum(x) * rt.cast(k, rt.float32)


@rt.function(input_signature=[(rt.TensorSpec([2], rt.float32), rt.TensorSpec([], rt.float32))])
def pair_dot(pair):
    v, s = pair
    return rt.reduce_sum(v) * s


CONVERTED = [
    ([[1.0, 2.0, 3.0]], 2, 12.0),                               # nested Python lists
    (np.ones([2, 3]), np.int64(3), 18.0),                       # float64 data, int64 scalar
    (np.ones([1, 3], np.int32), 1, 3.0),                        # ints to a float spec
]


@pytest.mark.parametrize("x, k, expected", CONVERTED)
def test_python_values_and_arrays_convert_the_same_way_everywhere(x, k, expected):
    cf = scaled_sum.get_concrete_function()
    assert float(scaled_sum(x, k)) == expected
    assert float(cf(x, k)) == expected
    assert scaled_sum.experimental_get_tracing_count() == 1


def test_values_that_would_change_are_refused_everywhere():
    cf = scaled_sum.get_concrete_function()
    for k in (2.5, 2 ** 40, True):
        with pytest.raises(ValueError, match=r"scaled_sum\(\): argument 'k': expected int32\[\]"):
            scaled_sum([[1.0, 2.0, 3.0]], k)
        with pytest.raises((InvalidArgumentError, TypeError), match=r"\bk\b|input #1"):
            cf([[1.0, 2.0, 3.0]], k)


def test_tensors_are_never_cast_and_each_argument_is_named():
    with pytest.raises(ValueError) as info:
        scaled_sum(rt.ones([1, 3], rt.int32), rt.constant(2.0))
    text = str(info.value)
    assert text.startswith("Python inputs incompatible with input_signature:\n  inputs: (")
    assert ("scaled_sum(): argument 'x': expected float32[?,3], got int32[1,3] "
            "(a tensor is not cast: use rt.cast)") in text
    assert "scaled_sum(): argument 'k': expected int32[], got float32[]" in text
    with pytest.raises(ValueError, match=r"argument 'x': expected float32\[\?,3\], got float32\[2\]"):
        scaled_sum(rt.ones([2]), 1)


def test_nested_signatures_name_the_part():
    assert float(pair_dot(([1.0, 2.0], 3.0))) == 9.0
    assert float(pair_dot([np.ones(2), np.float64(2.0)])) == 4.0
    with pytest.raises(ValueError, match=r"argument 'pair'\[0\]: expected float32\[2\], got float32\[3\]"):
        pair_dot((rt.ones([3]), 1.0))
    with pytest.raises(ValueError, match=r"argument 'pair': expected a sequence of 2 item\(s\), "
                                         r"got a tuple of 3 item\(s\)"):
        pair_dot((rt.ones([2]), 1.0, 2.0))
