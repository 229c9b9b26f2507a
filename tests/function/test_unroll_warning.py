"""A Python loop unrolled into a traced graph for thousands of iterations says so once,
with its file and line; loops that stay Python work, or are short, say nothing."""
import inspect
import logging

import runtime as rt


def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _warnings(caplog):
    return [r.getMessage() for r in caplog.records
            if r.name == "autograph" and r.levelno == logging.WARNING]


def unrolled_for(x):
    for i in range(1500):
        x = x + 1.0
    return x


def unrolled_while(x):
    i = 0
    while i < 1500:
        x = x * 1.0
        i += 1
    return x


def unrolled_with_break(x):
    for i in range(3000):
        if i == 2000:
            break
        x = x + 1.0
    return x


def python_work_only(x):
    s = 0
    for i in range(5000):
        s += i
    while s > 10:
        s //= 2
    return x + s


def short(x):
    for i in range(200):
        x = x + 1.0
    return x


def test_a_long_unrolled_for_warns_once_with_its_line(caplog):
    f = rt.function(unrolled_for)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert float(f(rt.constant(0.0))) == 1500.0
        f(rt.constant(0.0, rt.float64))          # a second trace: no second warning
    found = _warnings(caplog)
    assert len(found) == 1
    assert f"{__file__}:{_line_of(unrolled_for, 'for i in')}:" in found[0]
    assert "unrolled" in found[0] and "rt.range" in found[0]


def test_a_long_unrolled_while_warns(caplog):
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert float(rt.function(unrolled_while)(rt.constant(2.0))) == 2.0
    found = _warnings(caplog)
    assert len(found) == 1 and f":{_line_of(unrolled_while, 'while i')}:" in found[0]


def test_a_loop_with_break_warns(caplog):
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert float(rt.function(unrolled_with_break)(rt.constant(0.0))) == 2000.0
    assert len(_warnings(caplog)) == 1


def test_python_only_and_short_loops_say_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert float(rt.function(python_work_only)(rt.constant(1.0))) == python_work_only(1.0)
        assert float(rt.function(short)(rt.constant(0.0))) == 200.0
    assert _warnings(caplog) == []


def test_on_python_values_nothing_is_watched(caplog):
    import autograph as ag
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert ag.to_graph(unrolled_for)(0.0) == 1500.0
    assert _warnings(caplog) == []
