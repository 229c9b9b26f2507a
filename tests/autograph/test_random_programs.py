"""Random programs (random_programs.py) agree plain, converted, and staged."""
import pytest

import autograph as ag
import random_programs
from fake_backend import sym, value

SEEDS = range(300)
INPUTS = [(0, 0), (5, 3), (13, 6), (40, 2)]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(seed):
    source, fn = random_programs.make(seed)
    converted = ag.to_graph(fn)
    assert converted is not fn, source
    for x, n in INPUTS:
        expected = fn(x, n)
        assert converted(x, n) == expected, (source, x, n)
        assert value(converted(*sym((x, n)))) == expected, (source, x, n)
