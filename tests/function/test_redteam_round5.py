"""Red-team round 5: programs that failed or differed from Python, staged by rt.function
(and, where JAX is installed, with jit_compile=True)."""
import numpy as np
import pytest

import runtime as rt


def _functions():
    yield rt.function
    try:
        import jax  # noqa: F401
    except ImportError:
        return
    yield lambda f: rt.function(f, jit_compile=True)


FUNCTIONS = list(_functions())


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_chained_comparison_with_expression_operands_stages(function):
    def f(x):
        r = 0
        if 0 < abs(x) < 6:
            r = 1
        return r, 0 < x + 1 < 6, -3 <= x * 2 < rt.constant(5) <= 9

    traced = function(f)
    for x in (-7, -2, 0, 3, 5, 9):
        got = [np.asarray(t).item() for t in traced(rt.constant(x))]
        assert got == [int(0 < abs(x) < 6), 0 < x + 1 < 6, -3 <= x * 2 < 5 <= 9], x
