"""`ag__.print_` (Feature.BUILTIN_FUNCTIONS) through the staging protocol, on the fake
backend: a staged value anywhere in the arguments goes to `backend.print`."""
import io

import autograph as ag
from fake_backend import BACKEND, sym

FEATURE = ag.experimental.Feature.BUILTIN_FUNCTIONS


def shows(x, sink):
    print("x", [x, 2], sep=":", end="|", file=sink)
    return x


def test_staged_values_go_to_the_backend_and_python_values_to_print():
    f = ag.to_graph(shows, experimental_optional_features=FEATURE)
    before = BACKEND.counts["print"]
    sink = io.StringIO()
    f(sym(3), sink)
    assert BACKEND.counts["print"] == before + 1
    assert sink.getvalue() == "x:[Sym(array(3, dtype=int32)), 2]|"   # sep, end, file kept
    sink = io.StringIO()
    f(3, sink)
    assert BACKEND.counts["print"] == before + 1
    assert sink.getvalue() == "x:[3, 2]|"


def test_without_the_feature_the_backend_is_not_asked():
    before = BACKEND.counts["print"]
    sink = io.StringIO()
    ag.to_graph(shows)(sym(3), sink)
    assert BACKEND.counts["print"] == before
