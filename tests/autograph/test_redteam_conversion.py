"""Red-team programs for conversion: ordinary Python a TensorFlow user hands to
rt.function, each checked against the same program run as plain Python."""
import functools

import pytest

import runtime as rt


def _scaled(x, k):
    if x > 0:
        return x * k
    return -x


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_function_of_a_partial_converts_the_function_it_holds(x):
    # rt.function(functools.partial(f, k=...)) ran f unconverted: its `if` on a tensor
    # raised, where TensorFlow's autograph converts through partials
    scaled = functools.partial(_scaled, k=5.0)
    assert float(rt.function(scaled)(rt.constant(x))) == scaled(x)


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_partial_called_from_converted_code_is_converted(x):
    scaled = functools.partial(_scaled, k=5.0)

    def caller(v):
        return scaled(v) + 1.0

    assert float(rt.function(caller)(rt.constant(x))) == caller(x)


def test_partial_of_a_partial_and_of_a_method():
    class Scale:
        def __init__(self, k):
            self.k = k

        def apply(self, x, shift):
            if x > 0:
                return x * self.k + shift
            return shift - x

    twice = functools.partial(functools.partial(_scaled), k=2.0)
    method = functools.partial(Scale(3.0).apply, shift=1.0)
    for x in (4.0, -4.0):
        assert float(rt.function(twice)(rt.constant(x))) == twice(x)
        assert float(rt.function(method)(rt.constant(x))) == method(x)
