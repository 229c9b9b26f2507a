"""Early exits that used to stay Python: many nested guards (flags instead of copies),
`break`/`continue`/`return` under `with` and `try`/`finally`, `return` in a loop's
`else`, and `while True:` left by `return`/`break`.

Each function runs four ways: plain Python, converted on Python values, `rt.function`
on `rt.constant` inputs, and converted on the fake backend's symbolic values. The
semantic corner cases of `finally` (a jump there discards a pending return or
exception) are checked plain against converted, with the order of every
`__enter__`/`__exit__`/`finally` recorded.
"""
import contextlib
import copy
import linecache

import numpy as np
import pytest

import autograph as ag
from fake_backend import BACKEND, sym, value

rt = pytest.importorskip("runtime")


def _define(name, source):
    filename = f"<jumps_staged_{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"contextlib": contextlib}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def _py(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_py(v) for v in x)
    if hasattr(x, "numpy"):
        v = np.asarray(x.numpy())
        return v.item() if v.ndim == 0 else v.tolist()
    return x


def _outcome(fn, args):
    try:
        return ("ok", fn(*copy.deepcopy(args)))
    except Exception as e:
        return ("raised", type(e), str(e).split(" (")[0])


def check_all_ways(fn, arg_sets, fake=True):
    """plain == converted on Python values == rt.function on tensors == fake backend."""
    converted = ag.to_graph(fn)
    staged = rt.function(fn)
    for args in arg_sets:
        expected = _outcome(fn, args)
        assert _outcome(converted, args) == expected, args
        assert expected[0] == "ok"
        got = staged(*[rt.constant(a) for a in args])
        assert _py(got) == _py(expected[1]), args
        if fake:
            before = sum(BACKEND.counts.values())
            assert value(converted(*sym(args))) == value(sym(expected[1])), args
            assert sum(BACKEND.counts.values()) > before, "nothing was staged"


def _lines(fn):
    return sum(1 for line in ag.to_code(fn).splitlines() if line.strip())


# --- 1. many nested early exits: flags, linear code ---------------------------------

def _guards(n, jump):
    """n partial exits in a row, each under two nested `if`s (copying the code after
    each would double it n times)."""
    pad = "        " if jump == "continue" else "    "
    lines = ["def f(x, y):", "    r = 0"]
    if jump == "continue":
        lines.append("    for i in range(y):")
    for k in range(n):
        exit_ = {"return": "return r + 1000", "continue": "continue",
                 "break": "break"}[jump]
        lines += [f"{pad}if x > {k}:", f"{pad}    if (y + {k}) % 3 == 0:", f"{pad}        {exit_}",
                  f"{pad}    r = r + {k + 1}", f"{pad}r = r * 2 % 1000"]
    lines += [f"{pad}r = r + 1", "    return r"]
    return _define("f", "\n".join(lines) + "\n")


def _loop_guards(n):
    """n sequential `break`s and `continue`s mixed in one loop body."""
    lines = ["def f(x, y):", "    r = 0", "    for i in range(y):"]
    for k in range(n):
        jump = "break" if k % 2 else "continue"
        lines += [f"        if x > {k}:", f"            if (i + {k}) % 4 == 3:",
                  f"                {jump}", f"            r = r + {k + 1}", "        r = r * 3 % 101"]
    lines += ["    return r"]
    return _define("f", "\n".join(lines) + "\n")


ARGS = [(x, y) for x in (0, 3, 7, 20) for y in (0, 1, 2, 5, 6)]


@pytest.mark.parametrize("n", [6, 8, 12])
@pytest.mark.parametrize("jump", ["return", "continue"])
def test_many_guards_stage_and_stay_linear(n, jump):
    fn = _guards(n, jump)
    check_all_ways(fn, ARGS, fake=n <= 8)
    assert _lines(fn) <= 17 * n + 30, ag.to_code(fn)


@pytest.mark.parametrize("n", [6, 12])
def test_many_breaks_and_continues_in_one_loop(n):
    fn = _loop_guards(n)
    check_all_ways(fn, ARGS, fake=False)
    assert _lines(fn) <= 25 * n + 30, ag.to_code(fn)


def test_guard_lines_grow_linearly():
    for jump in ("return", "continue"):
        sizes = [_lines(_guards(n, jump)) for n in (4, 8, 16)]
        assert sizes[2] - sizes[1] <= 2 * (sizes[1] - sizes[0]) + 4, sizes


# --- 2. jumps under `with` and `try`/`finally` -------------------------------------

FINALLY_RAN = []


def with_break(n):
    s = 0
    for i in range(n):
        with contextlib.nullcontext():
            if i > 3:
                break
            s += i
    return s


def with_continue(n):
    s = 0
    for i in range(n):
        with contextlib.nullcontext():
            if i % 3 == 0:
                continue
            s += i
        s = s * 2 % 1000
    return s


def with_return_in_loop(n):
    s = 1
    for i in range(n):
        with contextlib.nullcontext():
            if s > 20:
                return s * 100
            s += i
    return s


def with_return_mid_function(x):
    with contextlib.nullcontext():
        if x > 2:
            return x * 10
        x = x + 1
    x = x * 3
    return x


def try_finally_return(x):
    try:
        if x > 2:
            return x * 10
        x = x + 5
    finally:
        FINALLY_RAN.append(1)
    return x - 1


def try_finally_break(n):
    s = 0
    for i in range(n):
        try:
            if i * i > 10:
                break
            s += i
        finally:
            s = s + 100      # runs on every iteration, the one that breaks too
    return s


def try_finally_continue_in_while(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        try:
            if i % 2 == 0:
                continue
            s = s + i * 3
        finally:
            s = s + 100      # runs on every iteration, those that continue too
    return s


@pytest.mark.parametrize("fn", [with_break, with_continue, with_return_in_loop,
                                with_return_mid_function, try_finally_return, try_finally_break,
                                try_finally_continue_in_while], ids=lambda f: f.__name__)
def test_jumps_under_with_and_finally_stage(fn):
    check_all_ways(fn, [(0,), (1,), (3,), (6,), (9,)])


def test_finally_runs_while_tracing():
    FINALLY_RAN.clear()
    rt.function(try_finally_return)(rt.constant(7))
    assert FINALLY_RAN == [1]


class Rec:
    """A context manager that records its entry and exit (and what it saw)."""

    def __init__(self, log, name, suppress=False, raise_on_exit=None):
        self.log, self.name = log, name
        self.suppress, self.raise_on_exit = suppress, raise_on_exit

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self

    def __exit__(self, kind, exc, tb):
        self.log.append(("exit", self.name, kind.__name__ if kind else None))
        if self.raise_on_exit is not None:
            raise self.raise_on_exit("from exit")
        return self.suppress


def rec_break_continue(n, log):
    for i in range(n):
        with Rec(log, "outer"):
            log.append(("body", i))
            with Rec(log, "inner"):
                if i == 1:
                    continue
                if i == 3:
                    break
                log.append(("after", i))
            log.append(("between", i))
    else:
        log.append("else")
    return log


def rec_return(x, log):
    with Rec(log, "a"):
        if x > 1:
            with Rec(log, "b"):
                if x > 2:
                    return "early"
                log.append("b-rest")
        log.append("a-rest")
    return "late"


def finally_order(x, log):
    for i in range(4):
        try:
            log.append(("try", i))
            try:
                if i == x:
                    return ("returned", i)
                if i == 1:
                    continue
            finally:
                log.append(("inner finally", i))
            log.append(("rest", i))
        finally:
            log.append(("outer finally", i))
    return "end"


def return_value_raises(x, log):
    for i in range(3):
        try:
            if i == 1:
                return 10 // x
            log.append(i)
        except ZeroDivisionError:
            log.append("caught")
    return "fell through"


def try_else_skipped_by_break(n, log):
    for i in range(n):
        try:
            if i == 2:
                break
            log.append(("try", i))
        except ValueError:
            log.append("handler")
        else:
            log.append(("else", i))
        finally:
            log.append(("finally", i))
    return log


def break_in_handler(n, log):
    for i in range(n):
        try:
            if i == 2:
                raise ValueError(i)
            log.append(i)
        except ValueError:
            log.append("handled")
            if n > 3:
                break
            log.append("not broken")
    return log


# Python's own rules that a flag cannot follow: these must stay Python (or agree).

def return_in_finally_overrides(x, log):
    try:
        if x > 0:
            return "try"
        log.append("body")
    finally:
        log.append("finally")
        if x > 1:
            return "finally"
    return "end"


def break_in_finally_discards_return(x, log):
    for i in range(3):
        try:
            if i == x:
                return ("returned", i)
        finally:
            log.append(i)
            if i == 1:
                break
    return "after loop"


def continue_in_finally_discards_exception(x, log):
    for i in range(3):
        try:
            if i == x:
                raise ValueError(i)
            log.append(i)
        finally:
            continue
    return log


def exception_in_finally_replaces_return(x, log):
    try:
        if x > 0:
            return "try"
    finally:
        log.append("finally")
        if x > 1:
            raise KeyError("finally")
    return "end"


def exit_raising_after_break_is_caught(x, log):
    for i in range(4):
        try:
            with Rec(log, "r", raise_on_exit=ValueError if i == x else None):
                if i >= 1:
                    break
        except ValueError:
            log.append(("caught", i))
        log.append(("after try", i))
    return log


def exit_raising_after_break_is_suppressed(x, log):
    for i in range(4):
        with Rec(log, "s", suppress=True):
            with Rec(log, "r", raise_on_exit=ValueError if i == x else None):
                if i >= 1:
                    continue
                log.append(("inner rest", i))
        log.append(("after with", i))
    return log


PYTHON_CASES = [rec_break_continue, rec_return, finally_order, return_value_raises,
                try_else_skipped_by_break, break_in_handler, return_in_finally_overrides,
                break_in_finally_discards_return, continue_in_finally_discards_exception,
                exception_in_finally_replaces_return, exit_raising_after_break_is_caught,
                exit_raising_after_break_is_suppressed]


@pytest.mark.parametrize("fn", PYTHON_CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0, 1, 2, 3, 5])
def test_cleanup_order_and_finally_semantics(fn, x):
    plain_log, converted_log = [], []
    expected = _outcome(fn, (x, plain_log))
    got = _outcome(ag.to_graph(fn), (x, converted_log))
    assert (got, converted_log) == (expected, plain_log)


def test_flag_lowering_is_used_under_with_and_finally():
    for fn in (with_break, with_continue, try_finally_return, with_return_mid_function):
        code = ag.to_code(fn)
        assert "if_stmt" in code and ("break_" in code or "continue_" in code
                                      or "do_return" in code), code


# --- 3. `return` in a loop's `else` ------------------------------------------------

def for_else_return(n):
    for i in range(n):
        if i * i > 20:
            break
    else:
        return -1
    return i * 10


def while_else_return(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        s = s + i
        if s > 12:
            break
    else:
        return s * 100
    return s


def nested_for_else_return(n):
    total = 0
    for j in range(3):
        for i in range(n):
            if i + j > 4:
                break
            total += i
        else:
            return total + 1000
    return total


def for_else_return_always(n):
    for i in range(n):
        if i > 5:
            return i
    else:
        return -n


@pytest.mark.parametrize("fn", [for_else_return, while_else_return, nested_for_else_return,
                                for_else_return_always], ids=lambda f: f.__name__)
def test_return_in_loop_else(fn):
    check_all_ways(fn, [(0,), (2,), (4,), (6,), (9,)])


# --- 4. `while True:` left by `return` / `break` ------------------------------------

def while_true_return(n):
    i = 0
    while True:
        i += 1
        if i * i > n:
            return i


def while_true_break(n):
    i = 0
    s = 0
    while True:
        i += 1
        s = s + i
        if s > n:
            break
    return s * 2 + i


def while_true_return_in_for(n):
    total = 0
    for j in range(3):
        k = 0
        while True:
            k += 1
            if k > j + n:
                return total + k
            if k > 3:
                break
            total += k
    return total


def while_true_both(n):
    i = 0
    while True:
        i += 2
        if i > n:
            break
        if i == 6:
            return -i
    return i


@pytest.mark.parametrize("fn", [while_true_return, while_true_break, while_true_return_in_for,
                                while_true_both], ids=lambda f: f.__name__)
def test_while_true(fn):
    check_all_ways(fn, [(0,), (1,), (5,), (6,), (30,)])


def test_while_true_stages_one_loop():
    cf = rt.function(while_true_return).get_concrete_function(rt.TensorSpec([], rt.int32))
    assert "while" in str(cf.graph.as_graph_def()).lower()


# --- regressions found on the way ---------------------------------------------------

class Swallow:
    """A user's context manager that suppresses every exception."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def user_suppressing_with(x):
    y = 0
    with Swallow():
        if x > 0:
            y = 1
            raise ValueError(x)
    return y


def tuple_return_in_loop_reads_maybe_unassigned(xs, c):
    if c:
        d = 1
    for x in xs:
        if x > 2:
            return x, d
    return 0, 0


@pytest.mark.parametrize("args", [(1,), (0,)])
def test_a_users_context_manager_may_suppress(args):
    """A converted `if` inside it would hide `y = 1` from the code after the `with`."""
    assert _outcome(ag.to_graph(user_suppressing_with), args) == _outcome(user_suppressing_with,
                                                                          args)


@pytest.mark.parametrize("args", [([1, 3], True), ([1], False), ([1, 3], False)])
def test_tuple_return_in_loop_keeps_positions_for_ld(args):
    fn = tuple_return_in_loop_reads_maybe_unassigned
    assert _outcome(ag.to_graph(fn), args) == _outcome(fn, args)
