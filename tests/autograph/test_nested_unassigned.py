"""A nested function, lambda, comprehension or class body that reads a variable of the
function that some path leaves unassigned raises as Python does, also in the converted
body (as while staging), where the variable holds autograph's marker until assigned:
its reads there go through `ag__.ld_free` (and functions defined by a converted body
are not converted again from their source, which would lose that)."""
import pytest

import autograph as ag
import nested_unassigned as programs
from autograph.operators import Staging, calls

pytestmark = pytest.mark.python_path


def outcome(fn, arg):
    try:
        result = fn(arg)
        if callable(result):
            result = ("closure", _outcome_of_call(result))
        return ("ok", result)
    except Exception as e:
        return ("raised", type(e).__name__, str(e))


def _outcome_of_call(g):
    try:
        return g()
    except Exception as e:
        return (type(e).__name__, str(e))


CASES = [pytest.param(fn, arg, id=f"{fn.__name__}-{arg}")
         for fn, args in programs.CASES + [(programs.closure_returned, [True, False])]
         for arg in args]


@pytest.mark.parametrize("fn, arg", CASES)
@pytest.mark.parametrize("convert", [ag.to_graph, ag.for_staging])
def test_the_converted_body_raises_as_python_does(fn, arg, convert):
    expected = outcome(fn, arg)
    with Staging():
        got = outcome(convert(fn), arg)
    assert got == expected


@pytest.mark.parametrize("fn, arg", CASES)
def test_for_staging_outside_staging_too(fn, arg):
    assert outcome(ag.for_staging(fn), arg) == outcome(fn, arg)


def test_a_closure_the_converted_body_defines_is_not_converted_again():
    with Staging():
        g = ag.for_staging(programs.closure_returned)(True)
        assert calls.converted(g) is g
        assert g() == 2


def test_a_closure_the_original_body_defines_is_converted_when_staged():
    g = ag.to_graph(programs.closure_returned)(True)      # outside staging: the original's
    with Staging():
        assert calls.converted(g) is not g and calls.converted(g)() == 2
