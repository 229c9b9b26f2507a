"""The converted body (as while staging) on Python values gives the
original's results and errors, for `del` of a local or a parameter on some path, a `:=`
in a `for`'s iterable, and zero-argument `super()` (after `self` is rebound, in a nested
function, in a generator expression)."""
import pytest

import autograph as ag
import converted_body_cases as programs


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("raised", type(e).__name__, str(e))


@pytest.mark.parametrize("convert", [ag.to_graph, ag.for_staging])
@pytest.mark.parametrize("fn, args", [pytest.param(fn, args, id=f"{fn.__name__}-{i}")
                                      for fn, arg_sets in programs.CASES
                                      for i, args in enumerate(arg_sets)])
def test_functions(fn, args, convert):
    assert outcome(convert(fn), *args) == outcome(fn, *args)


@pytest.mark.parametrize("convert", [ag.to_graph, ag.for_staging])
@pytest.mark.parametrize("method, args", [pytest.param(m, args, id=f"{m.__name__}-{i}")
                                          for m, arg_sets in programs.METHODS
                                          for i, args in enumerate(arg_sets)])
def test_zero_argument_super(method, args, convert):
    obj = programs.Derived("self")
    bound = getattr(obj, method.__name__)
    assert outcome(convert(bound), *args) == outcome(bound, *args)
