"""Run-time errors on the XLA backend: a kernel's check (index out of range, integer
division by zero) stops the run where the numpy backend stops it: same error, the same
prints before it and none after, Variables as they were at that point; a cond computed
as a select never raises for the branch not taken; maximum_iterations."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import contextlib
import io

import numpy as np

import runtime as rt
from runtime.errors import InvalidArgumentError
from xla_helpers import compare_traced, plans, traced

I32 = rt.TensorSpec([], rt.int32)


def _outcomes(fn, specs, args, variables=()):
    g, ins, outs = traced(fn, *specs)
    found = []
    for plan in plans(g, ins, outs):
        for v in variables:
            v.assign(0)
        buf = io.StringIO()
        with pytest.raises(InvalidArgumentError) as e, contextlib.redirect_stdout(buf):
            plan(*args)
        found.append((str(e.value), buf.getvalue(), [int(v.numpy()) for v in variables]))
    return found


def test_index_out_of_range_in_a_loop_stops_there():
    total = rt.Variable(0)

    def f(x, n):
        i = 0
        while i < n:
            rt.print("reading", i)
            total.assign_add(x[i])
            i += 1
        rt.print("never")
        return i

    a, b = _outcomes(f, [rt.TensorSpec([4], rt.int32), I32],
                     [np.array([1, 2, 3, 4], np.int32), np.int32(9)], [total])
    assert a == b
    assert "out of bounds" in a[0] and "[[node" in a[0]
    assert a[1].splitlines()[-1] == "reading 4" and a[2] == [10]


def test_gather_and_division_errors_name_the_node():
    def f(x, i, d):
        rt.print("start")
        y = rt.gather(x, i)
        z = y // d
        rt.print("end")
        return z

    specs = [rt.TensorSpec([3], rt.int32), rt.TensorSpec([2], rt.int32), I32]
    x = np.array([5, 6, 7], np.int32)
    a, b = _outcomes(f, specs, [x, np.array([0, 3], np.int32), np.int32(2)])
    assert a == b and "indices[1] = 3 is not in [0, 3)" in a[0] and a[1] == "start\n"
    a, b = _outcomes(f, specs, [x, np.array([0, 2], np.int32), np.int32(0)])
    assert a == b and "Integer division by zero" in a[0]


def test_the_branch_not_taken_never_raises():
    def f(x, y):
        if y != 0:
            z = x // y
        else:
            z = x
        w = rt.where(y > 0, x, -x)
        return z + w

    for y in (0, 3, -2):
        compare_traced(f, [I32, I32], [np.int32(7), np.int32(y)])


def test_maximum_iterations():
    def f(n):
        return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0],
                             maximum_iterations=5)

    for n in (3, 10):
        compare_traced(f, [I32], [np.int32(n)])


def test_sixty_four_bit_values_are_exact():
    def f(x, y):
        return x * y + (x // 3), rt.cast(x, rt.float64) / 7.0, rt.reduce_mean(x)

    big = np.array([2 ** 40 + 1, -(2 ** 35), 12345678901], np.int64)
    compare_traced(f, [rt.TensorSpec([3], rt.int64), rt.TensorSpec([3], rt.int64)],
                   [big, np.array([3, 5, -7], np.int64)])


def test_a_loop_test_with_an_effect_keeps_its_order():
    def f(n):
        def test(i, s):
            rt.print("test", i)
            return i < n

        def body(i, s):
            rt.print("body", i)
            return i + 1, s + i
        return rt.while_loop(test, body, [0, 0])

    _, text = compare_traced(f, [I32], [np.int32(3)])
    assert text.splitlines()[:3] == ["test 0", "body 0", "test 1"]
