"""Random programs (random_programs.py) agree plain, converted, and staged."""
import pytest

import autograph as ag
import random_programs
from fake_backend import FakeRuntimeError, sym, value

SEEDS = range(200)
INPUTS = [(0, 0), (5, 3), (13, 6), (40, 2)]
STAGED_INPUTS = [(0, 0), (13, 6)]      # the fake backend runs both branches: keep it short


def _outcome(fn, args):
    try:
        return ("ok", fn(*args))
    except Exception as e:          # same exception type and message, or the same value
        return ("raised", type(e), str(e))


def _staged_outcome(fn, args):
    """A staged run raises FakeRuntimeError where Python raises UnboundLocalError (a name
    defined on some paths only), unless the path that skips it was Python too."""
    try:
        return ("ok", value(fn(*sym(args))))
    except (FakeRuntimeError, UnboundLocalError) as e:
        return ("raised", "unbound", "'d'" in str(e))


def _python_outcome(fn, args):
    try:
        return ("ok", fn(*args))
    except UnboundLocalError as e:
        return ("raised", "unbound", "'d'" in str(e))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(seed):
    source, fn = random_programs.make(seed)
    converted = ag.to_graph(fn)
    assert converted is not fn, source
    for x, n in INPUTS:
        assert _outcome(converted, (x, n)) == _outcome(fn, (x, n)), (source, x, n)
    for x, n in STAGED_INPUTS:
        assert _staged_outcome(converted, (x, n)) == _python_outcome(fn, (x, n)), (source, x, n)




@pytest.mark.parametrize("seed", range(200))
def test_random_python_program(seed):
    source, fn = random_programs.make(seed, python=True)
    converted = ag.to_graph(fn)
    assert converted is not fn, source
    for x, n in INPUTS:
        assert _outcome(converted, (x, n)) == _outcome(fn, (x, n)), (source, x, n)
