"""An input_signature for a function with *args: each spec is one argument's (fit zipped
the parameter names with the arguments, so every spec after the first was dropped and
the sum silently left out the rest)."""
import pytest

import runtime as rt


def total(*xs):
    return sum(xs)


def difference(a, *xs):
    return a - sum(xs)


def test_every_argument_of_star_args_is_taken():
    fn = rt.function(total, input_signature=[rt.TensorSpec([], rt.float32)] * 3)
    assert float(fn(1.0, 2.0, 4.0)) == total(1.0, 2.0, 4.0) == 7.0
    assert fn.experimental_get_tracing_count() == 1


def test_a_named_parameter_before_star_args():
    fn = rt.function(difference, input_signature=[rt.TensorSpec([None], rt.float32)] * 3)
    out = fn(rt.constant([10.0, 1.0]), rt.constant([2.0, 0.0]), rt.constant([3.0, 5.0]))
    assert out.numpy().tolist() == [5.0, -4.0]


def test_a_star_args_value_that_does_not_fit_is_named():
    fn = rt.function(difference, input_signature=[rt.TensorSpec([], rt.float32)] * 3)
    with pytest.raises(ValueError, match=r"argument 'xs\[1\]'"):
        fn(10.0, 2.0, "x")
    with pytest.raises(ValueError, match="expected 3 argument"):
        fn(10.0, 2.0)
