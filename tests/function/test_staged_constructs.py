"""Constructs with one meaning that stage: plain Python, converted on Python values, and
rt.function on tensors agree."""
import numpy as np
import pytest

import autograph as ag
import runtime as rt


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy()).tolist()
    return value


def _agree(fn, *args):
    expected = _plain(fn(*args))
    assert _plain(ag.to_graph(fn)(*args)) == expected
    assert _plain(rt.function(fn)(*[rt.constant(a) for a in args])) == expected
    return expected


def walrus_in_while_test(x):
    n = 0
    while (y := x // 2) > 0:
        x = y
        n += 1
    return n, x, y


def walrus_in_while_test_with_continue(x):
    n = 0
    while (y := x - 1) > 0:
        x = y
        if x % 2 == 0:
            continue
        n += x
    return n, y


@pytest.mark.parametrize("x", [0, 1, 20, 37])
def test_walrus_in_a_staged_while_test(x):
    _agree(walrus_in_while_test, x)
    _agree(walrus_in_while_test_with_continue, x)
    assert "while_stmt" in ag.to_code(walrus_in_while_test)
