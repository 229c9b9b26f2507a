"""Python semantics the converter once got wrong, found by converting the standard library
(tools/stdlib_check.py): each function must give the same result converted as plain."""
import pytest

import autograph as ag


def first_that_works(fs):
    """A `return` whose value raises inside a `try` in a loop has not returned."""
    i = 0
    while i < len(fs):
        f = fs[i]
        i += 1
        try:
            return f()
        except ValueError:
            pass
    raise LookupError("none worked")


def _fails():
    raise ValueError


def _works():
    return 7


def setdefault_walrus(d, k):
    """A name the `if` test binds (walrus) is defined when the branches run."""
    if (r := d.get(k)) is None:
        d[k] = r = [k]
    return r


def last_seen(items):
    """A loop variable that a nested function writes through `nonlocal` is the
    function's cell: the loop must not take it over as local state."""
    result = None

    def setter(v):
        nonlocal result
        result = v

    for it in items:
        if it > 2:
            result = 0
        setter(it)
    return result


def counter(n):
    x = None

    def g():
        nonlocal x
        x = 1

    i = 0
    while i < n:
        x = 5
        g()
        i += 1
    return x


@pytest.mark.parametrize("fn, args", [
    (first_that_works, ([_fails, _works],)),
    (first_that_works, ([_works, _fails],)),
    (setdefault_walrus, ({}, "a")),
    (setdefault_walrus, ({"a": [1]}, "a")),
    (last_seen, ([1, 3, 2],)),
    (last_seen, ([],)),
    (counter, (3,)),
    (counter, (0,)),
])
def test_converted_matches_plain(fn, args):
    converted = ag.to_graph(fn)
    assert converted is not fn
    assert converted(*[a.copy() if isinstance(a, (dict, list)) else a for a in args]) == \
        fn(*[a.copy() if isinstance(a, (dict, list)) else a for a in args])


def test_return_value_raising_everywhere_falls_through():
    with pytest.raises(LookupError):
        ag.to_graph(first_that_works)([_fails, _fails])
