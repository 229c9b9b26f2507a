"""Random programs with composite state (random_programs.py, composite=True): attributes,
dict and list items with fixed keys, a `global`, and lambdas reading loop variables,
written and read inside if/while/for. Plain Python, converted, staged on the fake
backend, and staged by rt.function on tensors must agree."""
import pytest

import autograph as ag
import random_programs
# the same inputs and the same ways of comparing outcomes as the plain random programs
from test_random_programs import (INPUTS, STAGED_INPUTS, _outcome, _python_outcome,
                                  _staged_outcome)

SEEDS = range(500)
RUNTIME_SEEDS = range(120)
RUNTIME_INPUTS = [(0, 0), (5, 3), (13, 6)]


def _runtime_outcome(fn, args):
    """rt.function's graph checks at run time that `d` was assigned on the path taken
    (InvalidArgumentError naming it), where Python raises UnboundLocalError."""
    import runtime as rt
    try:
        return ("ok", int(fn(*(rt.constant(a) for a in args))))
    except (rt.errors.InvalidArgumentError, UnboundLocalError) as e:
        return ("raised", "unbound", "'d'" in str(e))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_composite_program(seed):
    source, fn = random_programs.make(seed, composite=True)
    converted = ag.to_graph(fn)
    assert converted is not fn, source
    for x, n in INPUTS:
        assert _outcome(converted, (x, n)) == _outcome(fn, (x, n)), (source, x, n)
    for x, n in STAGED_INPUTS:
        assert _staged_outcome(converted, (x, n)) == _python_outcome(fn, (x, n)), (source, x, n)


@pytest.mark.parametrize("seed", RUNTIME_SEEDS)
def test_random_composite_program_in_the_runtime(seed):
    import runtime as rt
    source, fn = random_programs.make(seed, composite=True)
    staged = rt.function(ag.to_graph(fn))
    for x, n in RUNTIME_INPUTS:
        assert _runtime_outcome(staged, (x, n)) == _python_outcome(fn, (x, n)), (source, x, n)
    assert staged.experimental_get_tracing_count() <= 1, source    # one trace serves every value


def test_default_programs_are_unchanged_by_the_options():
    """The options draw from the generator only when on: pinned seeds keep their programs."""
    for seed in range(50):
        plain = random_programs.Generator(seed).program("f")
        assert "o.v" not in plain and "global G" not in plain and "lambda" not in plain
        assert random_programs.Generator(seed, composite=True).program("f").startswith("class O")

