"""Long chains of early returns (converters/tail_chains.py): past a few levels, the
generated function that runs the rest of the function moves to the top, taking the
names it reads from the functions it was nested in as more state.

Every function here runs as plain Python, converted (on Python values, and staged on
the fake backend's values and through rt.function), and converted with the chains left
nested (`DEPTH` out of reach): all must agree. The converted code must also stay
shallow however many early returns the function has.
"""
import ast
import copy
import linecache

import pytest

import autograph as ag
from autograph.api import code_cache
from autograph.converters import tail_chains
from autograph.operators import calls
from fake_backend import BACKEND, sym, value

rt = pytest.importorskip("runtime")


def _define(name, source, key=""):
    filename = f"<tail_chains_{name}{key}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def _convert(fn, depth=None):
    """ag.to_graph(fn), with the chains moved past `depth` (None: the converter's)."""
    saved = tail_chains.DEPTH
    if depth is not None:
        tail_chains.DEPTH = depth
    code_cache.clear()
    calls.forget_all()
    try:
        return ag.to_graph(fn), ag.to_code(fn)
    finally:
        tail_chains.DEPTH = saved
        code_cache.clear()
        calls.forget_all()


def _outcome(fn, args):
    try:
        return ("ok", fn(*copy.deepcopy(args)))
    except Exception as e:       # noqa: BLE001  (the outcome compared)
        return ("raised", type(e))


def _nesting(code: str) -> int:
    """How deep functions nest in `code` (the converted function itself: 1)."""
    def depth(node, d):
        inner = d + isinstance(node, ast.FunctionDef)
        return max([inner] + [depth(c, inner) for c in ast.iter_child_nodes(node)])
    return depth(ast.parse(code), 0)


def _segments(n: int) -> str:
    """`f(x, y)`: n loops in a row, each with an early return, each reading values the
    ones before it computed (`a{k}`) and one they all update (`s`)."""
    lines = ["def f(x, y):", "    s = 0", "    a0 = x + 1"]
    for k in range(n):
        lines += ["    for i in range(y):",
                  f"        if a{k} * i > {40 + 7 * k}:",
                  f"            return a{k} + i + s",
                  f"    s = s + a{k}",
                  f"    a{k + 1} = a{k} * 2 - x if a{k} < 1000 else a{k} - {k}"]
    lines.append(f"    return s - a{n}")
    return "\n".join(lines) + "\n"


_ARGS = [(0, 0), (1, 3), (2, 5), (3, 9), (-4, 6), (7, 2), (5, 12)]


@pytest.mark.parametrize("n", [1, 3, 5, 6, 9, 14])
def test_a_chain_of_early_returns_agrees_every_way(n):
    fn = _define("f", _segments(n), n)
    converted, code = _convert(fn)
    nested, nested_code = _convert(fn, depth=10 ** 6)
    staged = rt.function(fn)
    for args in _ARGS:
        expected = _outcome(fn, args)
        assert expected[0] == "ok"
        assert _outcome(converted, args) == expected, args
        assert _outcome(nested, args) == expected, args
        before = sum(BACKEND.counts.values())
        assert value(converted(*sym(args))) == value(sym(expected[1])), args
        assert sum(BACKEND.counts.values()) > before, "nothing was staged"
        assert staged(*[rt.constant(a) for a in args]).numpy() == expected[1], args
    if n <= tail_chains.DEPTH:
        assert code == nested_code            # short chains are not changed
    elif n > tail_chains.DEPTH + 1:           # (the last link has no link to move)
        assert _nesting(code) < _nesting(nested_code)


def test_the_converted_code_stays_shallow():
    fn = _define("f", _segments(30), 30)
    _, code = _convert(fn)
    _, nested_code = _convert(fn, depth=10 ** 6)
    assert _nesting(nested_code) > 30
    assert _nesting(code) <= 2 * tail_chains.DEPTH + 2
    compile(code, "<code>", "exec")


def _with_try(n: int) -> str:
    """A chain whose links assign a name inside a Python `try` (it may be unbound at the
    link's end): what follows reads it, so the chain stays nested there."""
    lines = ["def g(x, y):", "    a0 = x"]
    for k in range(n):
        lines += ["    for i in range(y):",
                  f"        if a{k} > 50 + i:",
                  f"            return a{k}",
                  "    try:",
                  f"        t{k} = 100 // (x - {k})",
                  "    except ZeroDivisionError:",
                  "        pass",
                  f"    a{k + 1} = a{k} + {k}"]
    lines.append("    return " + " + ".join(f"t{k}" for k in range(n)))
    return "\n".join(lines) + "\n"


def test_a_name_a_link_may_leave_unbound_keeps_the_chain_nested():
    fn = _define("g", _with_try(8))
    converted, code = _convert(fn)
    nested, _ = _convert(fn, depth=10 ** 6)
    for args in [(20, 3), (3, 2), (0, 1), (60, 2), (-1, 4), (7, 0)]:
        expected = _outcome(fn, args)
        assert _outcome(converted, args) == expected, args
        assert _outcome(nested, args) == expected, args


def _closures(n: int) -> str:
    """A chain in a function whose nested function reads a variable the links change:
    generated code writes it through `nonlocal`, and the chain stays nested."""
    lines = ["def h(x, y):", "    c = x", "    def get():", "        return c"]
    for k in range(n):
        lines += ["    for i in range(y):",
                  "        if c > 30 + i:",
                  "            return get() + i",
                  f"    c = c + {k + 1}"]
    lines.append("    return get()")
    return "\n".join(lines) + "\n"


def test_chains_in_a_function_with_cells_agree():
    fn = _define("h", _closures(9))
    converted, code = _convert(fn)
    _, nested_code = _convert(fn, depth=10 ** 6)
    assert code == nested_code
    for args in [(1, 2), (25, 3), (5, 0), (29, 5)]:
        assert _outcome(converted, args) == _outcome(fn, args), args


@pytest.mark.slow
def test_random_programs_agree_with_every_chain_moved(monkeypatch):
    """The random programs (random_programs.py), converted with every link that can move
    moved (`DEPTH` 1): still as plain Python, on Python values and staged."""
    import random_programs
    from test_random_programs import (INPUTS, STAGED_INPUTS, _outcome as outcome,
                                      _python_outcome, _staged_outcome)
    monkeypatch.setattr(tail_chains, "DEPTH", 1)
    moved = 0
    for seed in range(200):
        for python in (False, True):
            source, fn = random_programs.make(seed, python=python)
            converted, code = _convert(fn)
            moved += code != _convert(fn, depth=10 ** 6)[1]
            for args in INPUTS:
                assert outcome(converted, args) == outcome(fn, args), (source, args)
            if not python:
                for args in STAGED_INPUTS:
                    assert _staged_outcome(converted, args) == _python_outcome(fn, args), (
                        source, args)
    assert moved >= 20, moved        # (the programs do have chains to move)
