"""Trace-time errors point at the user's line; unconvertible functions run as they are."""
import logging
import traceback

import pytest

import autograph as ag
from autograph import api
import corpus
from fake_backend import FakeRuntimeError, sym, value


def _line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def branches_with_different_dtypes(x):
    if x > 0:
        y = 1
    else:
        y = 2.5
    return y


def loop_var_changes_dtype(n):
    i = 0
    x = 1
    while i < n:
        x = x / 2
        i += 1
    return x


def returns_nothing_on_one_path(x):
    if x > 0:
        return x


def test_branch_dtype_mismatch_names_variable_file_and_line():
    with pytest.raises(ag.StagingError) as info:
        ag.to_graph(branches_with_different_dtypes)(sym(1))
    message = str(info.value)
    assert f"test_errors.py:{_line_of(branches_with_different_dtypes, 'if x > 0')}" in message
    assert "'y'" in message and "int32" in message and "float32" in message
    assert "same dtype" in message


def test_loop_variable_dtype_change():
    with pytest.raises(ag.StagingError) as info:
        ag.to_graph(loop_var_changes_dtype)(sym(3))
    message = str(info.value)
    assert f"test_errors.py:{_line_of(loop_var_changes_dtype, 'while i < n')}" in message
    assert "'x'" in message and "before the loop" in message


def test_path_returning_nothing():
    with pytest.raises(ag.StagingError, match=r"test_errors.py:\d+: the return value is None"):
        ag.to_graph(returns_nothing_on_one_path)(sym(1))


def test_python_values_keep_python_errors():
    with pytest.raises(UnboundLocalError, match="'y'"):
        ag.to_graph(corpus.defined_in_one_branch)(-1)


def test_undefined_on_taken_path_raises_at_run_time():
    staged = ag.to_graph(corpus.defined_in_one_branch)
    assert value(staged(sym(2))) == 3
    with pytest.raises(FakeRuntimeError, match=r"name 'y' is used at .*corpus.py:\d+"):
        staged(sym(-2))


def test_traceback_points_at_user_line():
    converted = ag.to_graph(corpus.raises_in_branch)
    with pytest.raises(ValueError) as info:
        converted(1)
    frames = traceback.extract_tb(info.tb)
    user = [f for f in frames if f.filename.endswith("corpus.py")]
    assert user and user[-1].lineno == _line_of(corpus.raises_in_branch, "raise ValueError")
    assert user[-1].line.strip() == "raise ValueError('positive')"


def a_generator(n):
    for i in range(n):
        if i:
            yield i


def test_generator_runs_unconverted_with_warning(caplog, monkeypatch):
    monkeypatch.delenv("AUTOGRAPH_STRICT")           # (tests/conftest.py sets it)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert ag.to_graph(a_generator) is a_generator
    assert "generator" in caplog.text
    assert list(ag.to_graph(a_generator)(3)) == [1, 2]


def test_strict_mode_raises(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_STRICT", "1")
    with pytest.raises(Exception, match="generator"):
        ag.to_graph(corpus.generator_fn)


def test_the_suite_converts_strictly():
    """tests/conftest.py sets AUTOGRAPH_STRICT for the whole run (on every Python): a
    conversion failure raises, rather than leaving a function to run unconverted, where
    a comparison with the original would pass without testing anything."""
    assert api.strict()
    with pytest.raises(Exception, match="generator"):
        ag.to_graph(corpus.generator_fn)


def test_source_not_available_runs_unconverted(caplog):
    """Code made by exec or eval (a dataclass's `__init__`) has no source: it runs as it
    is, said at verbosity 1, not as a warning."""
    namespace = {}
    exec(compile("def k(x):\n    return x + 1\n", "<no-source>", "exec"), namespace)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert ag.to_graph(namespace["k"])(1) == 2
    assert not caplog.text
    with caplog.at_level(logging.INFO, logger="autograph"):
        api.convert_function(namespace["k"], features=frozenset({"again"}))
    assert "k has no source to convert (made by exec or eval: <no-source>)" in caplog.text


def test_a_dataclass_init_called_from_converted_code_does_not_warn(caplog):
    import dataclasses

    @dataclasses.dataclass
    class Point:
        x: int
        y: int = 2

    class Labelled(Point):
        def __init__(self, x):
            super().__init__(x, 3)
            if x > 1:
                self.label = "far"

    def make(n):
        out = []
        for i in range(n):
            out.append(Labelled(i))
            Point.__init__(out[-1], i, i)
        return [(p.x, p.y, getattr(p, "label", None)) for p in out]
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert ag.to_graph(make)(3) == make(3)
        assert ag.to_graph(Labelled.__init__) is not Labelled.__init__
    assert not caplog.text


def test_exec_with_linecache_source_is_converted():
    import linecache
    source = "def h(n):\n    s = 0\n    for i in range(n):\n        if i % 2:\n            s += i\n    return s\n"
    linecache.cache["<cell-1>"] = (len(source), None, source.splitlines(True), "<cell-1>")
    namespace = {}
    exec(compile(source, "<cell-1>", "exec"), namespace)
    assert "ag__.for_stmt" in ag.to_code(namespace["h"])
    assert ag.to_graph(namespace["h"])(10) == 25


def _break_in_finally(xs):
    for x in xs:
        try:
            x = x + 1
        finally:
            if x > 2:
                break       # discards an exception in flight: the loop stays Python
    return x


def test_verbosity_logs_decisions(caplog):
    ag.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger="autograph"):
            ag.to_code(_break_in_finally)
        assert "left to Python" in caplog.text
    finally:
        ag.set_verbosity(0)


class Scaler:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        if x > 0:
            return x * self.k
        return 0


def test_callable_objects_builtins_and_classes():
    converted = ag.to_graph(Scaler(3))
    assert converted(2) == 6 and converted(-1) == 0
    assert value(converted(sym(2))) == 6
    assert ag.to_graph(len) is len and ag.to_graph(Scaler) is Scaler
