"""Random programs (random_programs.py) agree plain, converted, and staged."""
import pytest

import autograph as ag
import random_programs
from fake_backend import sym, value

SEEDS = range(200)
INPUTS = [(0, 0), (5, 3), (13, 6), (40, 2)]
STAGED_INPUTS = [(0, 0), (13, 6)]      # the fake backend runs both branches: keep it short


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(seed):
    source, fn = random_programs.make(seed)
    converted = ag.to_graph(fn)
    assert converted is not fn, source
    for x, n in INPUTS:
        assert converted(x, n) == fn(x, n), (source, x, n)
    for x, n in STAGED_INPUTS:
        assert value(converted(*sym((x, n)))) == fn(x, n), (source, x, n)


def _outcome(fn, args):
    try:
        return ("ok", fn(*args))
    except Exception as e:          # same exception type and message, or the same value
        return ("raised", type(e), str(e))


@pytest.mark.parametrize("seed", range(200))
def test_random_python_program(seed):
    source, fn = random_programs.make(seed, python=True)
    converted = ag.to_graph(fn)
    assert converted is not fn, source
    for x, n in INPUTS:
        assert _outcome(converted, (x, n)) == _outcome(fn, (x, n)), (source, x, n)
