"""Feature.BUILTIN_FUNCTIONS: Python's `print` of a staged value stages a print that runs
at every call of the graph, in rt.print's format; without it `print` is Python's, run
once while tracing (the guides' "Python side effects happen only while tracing")."""
import io
import sys

import numpy as np
import pytest

import autograph as ag
import runtime as rt

FEATURE = ag.experimental.Feature.BUILTIN_FUNCTIONS


def shows(x):
    print(x)
    print("x is", x)
    print("x is", x, {"foo": "bar"})
    return x


EXPECTED = "[1 2 3]\nx is [1 2 3]\nx is [1 2 3] {'foo': 'bar'}\n"


def _printed(capsys, fn, *args):
    fn(*args)
    return capsys.readouterr().out


@pytest.mark.parametrize("make", [lambda: np.array([1, 2, 3]), lambda: rt.constant([1, 2, 3])])
def test_with_the_feature_print_runs_at_every_call(capsys, make):
    assert _printed(capsys, shows, np.array([1, 2, 3])) == EXPECTED       # plain Python
    f = rt.function(shows, experimental_autograph_options=FEATURE)
    assert _printed(capsys, f, make()) == EXPECTED                        # traced and run
    assert _printed(capsys, f, make()) == EXPECTED                        # the graph again
    assert _printed(capsys, f, make()) == EXPECTED
    g = ag.to_graph(shows, experimental_optional_features=FEATURE)
    assert _printed(capsys, g, np.array([1, 2, 3])) == EXPECTED           # Python values


def test_without_the_feature_print_runs_once_while_tracing(capsys):
    f = rt.function(shows)
    out = _printed(capsys, f, rt.constant([1, 2, 3]))
    assert out.count("\n") == 3 and "[1 2 3]" not in out and "Tensor(" in out
    assert out.splitlines()[2].endswith("{'foo': 'bar'}")
    assert _printed(capsys, f, rt.constant([1, 2, 3])) == ""
    assert "print_" not in ag.to_code(shows)
    assert "ag__.print_(x)" in ag.to_code(shows, experimental_optional_features=FEATURE)


def test_the_staged_print_has_rt_prints_format(capsys):
    def both(x):
        print("v", x * 0.5, [x, 1], sep="|", end="!\n")
        rt.print("v", x * 0.5, [x, 1], sep="|", end="!\n")
    rt.function(both, experimental_autograph_options=FEATURE)(rt.constant([1.0, 2.0]))
    mine, theirs = capsys.readouterr().out.splitlines()
    assert mine == theirs == "v|[0.5 1]|[[1 2], 1]!"


def test_keywords_sep_end_file_flush(capsys):
    sink = io.StringIO()

    def keywords(x):
        print(x, x + 1, sep=", ", end=";\n", file=sink, flush=True)
        print(x, file=sys.stderr)
    f = rt.function(keywords, experimental_autograph_options=FEATURE)
    for _ in range(2):
        f(rt.constant(7))
    assert sink.getvalue() == "7, 8;\n" * 2
    assert capsys.readouterr().err == "7\n" * 2
    keywords(7)
    assert sink.getvalue() == "7, 8;\n" * 3                  # as Python prints it


def test_python_values_print_exactly_as_python(capsys):
    def plain(a, b):
        print(a, b, sep=None, end=None)
        print(*[a, b], sep="-")
        print()
        print((a,), [b], {"k": a})
    expected = _printed(capsys, plain, 1, "two")
    assert _printed(capsys, ag.to_graph(plain, experimental_optional_features=FEATURE),
                    1, "two") == expected

    def wrong(a):
        print(a, sep=3)
    for fn in (wrong, ag.to_graph(wrong, experimental_optional_features=FEATURE)):
        with pytest.raises(TypeError, match="sep must be None or a string, not int"):
            fn(1)


def helper(x):
    print("helper", x + 1)


def calls_helper(x):
    helper(x)
    alias = print
    alias("alias", x)


def test_functions_called_from_a_converted_function_get_its_features(capsys):
    f = rt.function(calls_helper, experimental_autograph_options=FEATURE)
    for _ in range(2):
        f(rt.constant(1))
        assert capsys.readouterr().out == "helper 2\nalias 1\n"
    # the same helper, called from code converted without the feature: Python's print
    g = rt.function(calls_helper)
    g(rt.constant(1))
    assert "Tensor(" in capsys.readouterr().out
    g(rt.constant(1))
    assert capsys.readouterr().out == ""


def test_a_local_print_is_not_the_builtin(capsys):
    def shadowed(x):
        print = rt.print
        print("local", x)
    assert "print_" not in ag.to_code(shadowed, experimental_optional_features=FEATURE)
    f = rt.function(shadowed, experimental_autograph_options=FEATURE)
    f(rt.constant(2))
    f(rt.constant(2))
    assert capsys.readouterr().out == "local 2\n" * 2


def test_print_in_a_staged_loop_runs_each_iteration(capsys):
    def loop(n):
        for i in range(n):
            if i % 2 == 0:
                print("even", i)
        return n
    f = rt.function(loop, experimental_autograph_options=[FEATURE])
    f(rt.constant(5))
    assert capsys.readouterr().out == "even 0\neven 2\neven 4\n"
    for fn in (loop, ag.to_graph(loop, experimental_optional_features=FEATURE)):
        fn(5)
        assert capsys.readouterr().out == "even 0\neven 2\neven 4\n"
