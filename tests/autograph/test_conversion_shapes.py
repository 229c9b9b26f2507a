"""Shapes the converter must take as they are, and the shortcuts conversion takes for
speed (tools/bench/bench_conversion.py): each function converts (conftest runs with
AUTOGRAPH_STRICT, so a conversion failure raises) and gives the original's results."""
import pytest

import autograph as ag
from autograph import module_converter


def last_of(xs):
    """`last` is unbound before the first iteration: an empty `xs` raises."""
    for x in xs:
        last = x
    return (last,)


def last_of_nested(xss):
    out = []
    for xs in xss:
        for x in xs:
            last = x
        out.append((last,))
    return out


def returns_at_top(n):
    """Every `return` is a statement of the body: the code after the first never runs."""
    total = 0
    for i in range(n):
        if i % 2:
            total += i
    return total
    total = -1       # noqa: unreachable on purpose
    return total


def returns_in_loops(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            return i
    for i, x in enumerate(xs):
        if x == -target:
            return -i
    return None


class Box:
    def __init__(self):
        self.value = 0
        self.other = 0


def deep_places(n, box, d, acc):
    """Attribute, item and in-place writes at every depth of nested constructs: each
    construct carries the places written inside it (cached per statement)."""
    for i in range(n):
        if i % 2:
            box.value += i
            if i % 3:
                d["k"] = d.get("k", 0) + 1
                for j in range(i):
                    if j == 2:
                        acc.append(j)
                        box.other = j
                    else:
                        acc.extend([j])
            else:
                d["m"] = i
        else:
            acc.append(-i)
    return box.value, box.other, dict(d), list(acc)


def _error(fn, *args):
    try:
        return fn(*args)
    except Exception as e:          # noqa: BLE001 — the same error is the same result
        return type(e)


@pytest.mark.parametrize("args", [([1, 2, 3],), (["a"],), ([],)])
def test_loop_variable_unbound_before_the_first_iteration(args):
    converted = ag.to_graph(last_of)
    assert converted is not last_of
    assert _error(converted, *args) == _error(last_of, *args)


def test_loop_variable_unbound_nested():
    converted = ag.to_graph(last_of_nested)
    assert converted is not last_of_nested
    for xss in ([[1, 2], [3]], [[1], []], []):
        assert _error(converted, xss) == _error(last_of_nested, xss)


def test_loop_variable_unbound_in_a_converted_module():
    source = ("def f(xs):\n"
              "    for x in xs:\n"
              "        last = x\n"
              "    return (last,)\n")
    text, report = module_converter.convert_source(source, "shapes.py")
    assert report.converted == ["f"]
    namespace: dict = {}
    exec(compile(text, "shapes.py", "exec"), namespace)
    assert namespace["f"]([4, 5]) == (5,)
    with pytest.raises(UnboundLocalError):
        namespace["f"]([])


@pytest.mark.parametrize("n", [0, 1, 7])
def test_returns_at_the_top(n):
    assert ag.to_graph(returns_at_top)(n) == returns_at_top(n)


@pytest.mark.parametrize("xs, target", [([1, 2, 3], 2), ([1, -2], 2), ([], 1)])
def test_returns_in_loops(xs, target):
    assert ag.to_graph(returns_in_loops)(xs, target) == returns_in_loops(xs, target)


@pytest.mark.parametrize("n", [0, 5, 12])
def test_places_written_at_every_depth(n):
    expected = deep_places(n, Box(), {}, [])
    assert ag.to_graph(deep_places)(n, Box(), {}, []) == expected


def test_places_listed_once_per_receiver():
    """A receiver changed in place by several calls is one entry of the construct's
    `composite=` (each entry says the same: it must not be a Python container)."""
    code = ag.to_code(deep_places)
    outer = next(line for line in code.splitlines() if "for_stmt(ag__.range_(n)" in line)
    assert outer.count("'acc', lambda: acc, None") == 1
