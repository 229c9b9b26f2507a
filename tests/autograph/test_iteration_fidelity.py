"""A converted `for` over a Python iterator (its converted body runs while staging: here
inside Staging(), as tests/autograph run) calls `iter` once and `next` until the first
StopIteration, as Python's `for` does, also past the iterations after which a loop
unrolled into a graph is watched (autograph.operators.unrolling)."""
import pytest

import autograph as ag
import iteration_programs as programs

CASES = [pytest.param(fn, arg, id=f"{fn.__name__}-{arg}")
         for fn, args in programs.CASES for arg in args]


@pytest.mark.parametrize("fn, arg", CASES)
@pytest.mark.parametrize("convert", [ag.to_graph, ag.for_staging])
def test_the_converted_loop_iterates_as_python(fn, arg, convert):
    assert convert(fn)(arg) == fn(arg)
