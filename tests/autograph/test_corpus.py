"""Every corpus function, three ways: plain Python, converted on Python values, staged."""
import contextlib
import copy
import io

import pytest

import autograph as ag
import corpus
import corpus_python
from fake_backend import BACKEND, sym, value


def _run(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = ("ok", fn(*copy.deepcopy(args)))
        except Exception as e:        # the exception type and message must match too
            result = ("raised", type(e), str(e))
    return result, out.getvalue()


CASES = [pytest.param(fn, args, staged, id=f"{fn.__name__}-{i}")
         for fn, arg_sets, staged in corpus.PY for i, args in enumerate(arg_sets)]
CASES += [pytest.param(fn, args, False, id=f"python-{fn.__name__}-{i}")
          for fn, arg_sets in corpus_python.PY for i, args in enumerate(arg_sets)]


# to_graph's function (both bodies) and for_staging's (the converted body alone, as
# rt.function converts): the same results
CONVERT = pytest.mark.parametrize("convert", [ag.to_graph, ag.for_staging])


@CONVERT
@pytest.mark.parametrize("fn, args, staged", CASES)
def test_converted_matches_python(fn, args, staged, convert):
    assert _run(convert(fn), args) == _run(fn, args)


@CONVERT
@pytest.mark.parametrize("fn, args, staged", [c for c in CASES if c.values[2]])
def test_staged_matches_python(fn, args, staged, convert):
    expected = fn(*copy.deepcopy(args))
    before = sum(BACKEND.counts.values())
    result = convert(fn)(*sym(args))
    assert value(result) == value(sym(expected))
    assert sum(BACKEND.counts.values()) > before, "nothing was staged"


@pytest.mark.parametrize("fn", sorted({fn for fn, _, _ in corpus.PY}, key=lambda f: f.__name__))
def test_to_code_compiles(fn):
    compile(ag.to_code(fn), "<to_code>", "exec")
