"""`ag.for_staging`: the converted body alone, for callers that run it only while a graph
is built (rt.function, the functions converted code calls). It gives the results that
`to_graph`'s function gives, staged and on Python values (test_corpus runs both over the
corpus; outside staging too, where it runs its converted body), without compiling the
original body."""
import ast
import builtins
import inspect

import pytest

import autograph as ag
import corpus
import runtime as rt
from autograph import api, two_paths
from autograph.operators import calls
from test_corpus import CASES, _run

STAGED = calls.options_key(True, frozenset(), True)


@pytest.mark.python_path
@pytest.mark.parametrize("fn, args, staged", CASES[::7])
def test_outside_staging_its_converted_body_still_gives_the_originals_results(fn, args,
                                                                               staged):
    assert _run(ag.for_staging(fn), args) == _run(fn, args)


def _names(code):
    names, todo = set(), [code]
    while todo:
        c = todo.pop()
        names.update(c.co_names)
        todo.extend(k for k in c.co_consts if inspect.iscode(k))
    return names


def test_it_has_no_original_body_and_to_graph_has():
    fn = corpus.collatz_steps
    staged, both = ag.for_staging(fn), ag.to_graph(fn)
    assert staged is not both and staged is not fn
    assert "staging" in both.__code__.co_names          # `if ag__.staging:` ... original
    assert "staging" not in _names(staged.__code__)
    assert staged.__name__ == fn.__name__ and staged.__qualname__ == fn.__qualname__
    assert staged.__wrapped__ is fn
    assert ag.to_graph(staged) is staged                 # converted already


def test_converted_code_calls_the_staged_conversion(monkeypatch):
    def helper(x):
        if x > 0:
            return x
        return -x

    def caller(x):
        return helper(x) + 1

    joins = []
    real = two_paths.join
    monkeypatch.setattr(two_paths, "join", lambda *a, **k: (joins.append(a), real(*a, **k))[1])
    assert ag.for_staging(caller)(-3) == 4
    assert calls.converted(helper) is calls.cached(helper, STAGED) is ag.for_staging(helper)
    assert calls.cached(helper, True) is None and joins == []    # no original body compiled
    assert ag.to_graph(helper) is not ag.for_staging(helper) and len(joins) == 1


def test_rt_function_traces_the_staged_conversion():
    def f(x):
        total = 0
        for i in rt.range(x):
            if i % 2 == 0:
                total += i
        return total
    traced = rt.function(f)
    assert traced(rt.constant(5)).numpy() == 6
    assert calls.cached(f, STAGED) is not None
    assert calls.cached(f, True) is None        # rt.function compiled no original body


@pytest.mark.python_path
def test_a_closure_made_while_staging_works_on_python_values_later():
    def helper(x):
        while x > 10:
            x -= 10
        return x

    def make(k):
        def inner(x):
            return helper(x + k)     # converted code: `ag__.converted(helper)(x + k)`
        return inner

    with ag.operators.Staging():
        inner = ag.for_staging(make)(5)
    assert [inner(x) for x in (0, 7, 31)] == [5, 2, 6]
    # No graph is built now: `helper` runs as written, not converted for staging.
    assert calls.cached(helper, STAGED) is None
    with ag.operators.Staging():
        assert [inner(x) for x in (0, 7, 31)] == [5, 2, 6]
    assert calls.cached(helper, STAGED) is not None


def test_methods_and_callable_objects():
    class Counter:
        def __init__(self):
            self.n = 0

        def add(self, x):
            if x > 0:
                self.n += x
            return self.n

        def __call__(self, x):
            return self.add(x) * 2

    c = Counter()
    assert ag.for_staging(c.add)(3) == 3
    assert ag.for_staging(c)(2) == 10
    assert ag.for_staging(len) is len


def test_not_callable_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="for_staging expects a function or method, got int"):
        ag.for_staging(3)


def test_the_features_reach_it():
    def show(x):
        print(x)
        return x
    feature = ag.experimental.Feature.BUILTIN_FUNCTIONS
    fn = ag.for_staging(show, experimental_optional_features=feature)
    assert "print_" in _names(fn.__code__)
    assert "print_" not in _names(ag.for_staging(show).__code__)


def test_conversion_for_staging_is_cheaper_than_to_graph():
    """The work it saves: the parse is not copied, and the original body is not joined
    or compiled (counted, not timed: tools/bench times it)."""
    compiled = []

    def count(tree, *a, **k):
        compiled.append(sum(1 for _ in ast.walk(tree)))
        return builtins.compile(tree, *a, **k)
    api.compile = count       # (shadows the builtin in api's namespace)
    try:
        api._compile(corpus.collatz_steps, True, both_paths=False)
        api._compile(corpus.collatz_steps, True, both_paths=True)
    finally:
        del api.compile
    staged_nodes, both_nodes = compiled
    assert staged_nodes < both_nodes * 0.8, compiled


def test_its_code_starts_at_the_functions_first_line():
    def f(x):
        if x:
            return 1
        return 2
    assert ag.for_staging(f).__code__.co_firstlineno == f.__code__.co_firstlineno
