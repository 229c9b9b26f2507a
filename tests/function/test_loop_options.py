"""`ag.experimental.set_loop_options(...)` in a loop body: the staged loop gets the
options (maximum_iterations caps it, shape_invariants fix its variables' shapes); a loop
that runs as Python runs as written, as in TensorFlow."""
import inspect
import types

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph.experimental import set_loop_options

tf = types.ModuleType("tf")          # `tf.autograph.experimental.set_loop_options`
tf.autograph = ag


def _plain(value):
    return np.asarray(value.numpy()).tolist() if hasattr(value, "numpy") else value


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def count_for(n):
    s = 0
    for i in range(n):
        ag.experimental.set_loop_options(maximum_iterations=3)
        s += i
    return s


def count_while(n):
    i = 0
    while i < n:
        tf.autograph.experimental.set_loop_options(parallel_iterations=1, swap_memory=False,
                                                   maximum_iterations=4)
        i += 1
    return i


def count_nested(n):
    s = 0
    for i in range(n):
        j = 0
        while j < n:
            j += 1
            set_loop_options(maximum_iterations=2)      # anywhere directly in the body
            s += 1
        set_loop_options(5)                             # positional: parallel_iterations
    return s


@pytest.mark.parametrize("fn,n,python,staged", [
    (count_for, 10, 45, 3), (count_for, 2, 1, 1),
    (count_while, 10, 10, 4), (count_while, 3, 3, 3),
    (count_nested, 4, 16, 8)])
def test_maximum_iterations_caps_a_staged_loop_only(fn, n, python, staged):
    assert fn(n) == python
    assert ag.to_graph(fn)(n) == python                  # a Python loop: options ignored
    f = rt.function(fn)
    assert _plain(f(rt.constant(n))) == staged
    assert _plain(f(rt.constant(n))) == staged           # the graph again


def test_the_call_leaves_the_body_and_becomes_opts():
    code = ag.to_code(count_while)
    assert "set_loop_options" not in code
    assert "opts={'parallel_iterations': 1, 'swap_memory': False, 'maximum_iterations': 4}" in code
    code = ag.to_code(count_nested)
    assert "set_loop_options" not in code
    assert "opts={'maximum_iterations': 2}" in code and "opts={'parallel_iterations': 5}" in code


def grow(n):
    x = rt.constant([1.0])
    for i in rt.range(n):
        ag.experimental.set_loop_options(shape_invariants=[(x, rt.TensorShape([None]))])
        x = rt.concat([x, [2.0]], 0)
    return x


def test_shape_invariants_relax_a_staged_variable():
    expected = [1.0, 2.0, 2.0, 2.0]
    assert _plain(grow(3)) == expected
    assert _plain(ag.to_graph(grow)(3)) == expected
    f = rt.function(grow)
    assert _plain(f(rt.constant(3))) == expected
    assert _plain(f(rt.constant(0))) == [1.0]


def test_a_shape_invariant_less_specific_than_needed_is_kept():
    seen = {}

    def keep(n):
        x = rt.zeros([2, 3])
        y = rt.zeros([2, 3])
        i = 0
        while i < n:
            ag.experimental.set_loop_options(shape_invariants=[(x, rt.TensorShape([None, 3]))])
            x = x + 1.0
            y = y + 1.0
            i += 1
        seen["x"], seen["y"] = x.shape, y.shape
        return x
    assert _plain(rt.function(keep)(rt.constant(2))) == [[2.0] * 3] * 2
    assert seen["x"].as_list() == [None, 3]       # the invariant, not the value's (2, 3)
    assert seen["y"].as_list() == [2, 3]


def test_a_shape_that_breaks_its_invariant_is_an_error_at_the_loop():
    def bad(n):
        x = rt.constant([1.0])
        for i in rt.range(n):
            ag.experimental.set_loop_options(shape_invariants=[(x, rt.TensorShape([1]))])
            x = rt.concat([x, [2.0]], 0)
        return x
    assert _plain(bad(2)) == [1.0, 2.0, 2.0]          # Python: nothing to check
    line = _line_of(bad, "for i in")
    with pytest.raises(ValueError, match=rf"test_loop_options.py:{line}: 'x' has shape \(2,\) "
                                         r"after one iteration, which does not conform to the "
                                         r"shape invariant \(1,\)"):
        rt.function(bad)(rt.constant(2))


def test_an_invariant_that_does_not_fit_the_initial_value_is_an_error():
    def bad(n):
        x = rt.constant([1.0, 2.0])
        while n > 0:
            ag.experimental.set_loop_options(shape_invariants=[(x, rt.TensorShape([None, 2]))])
            x = x * 2.0
            n -= 1
        return x
    with pytest.raises(ValueError, match=r"'x' has shape \(2,\) before the loop, which does not "
                                         r"fit its shape invariant"):
        rt.function(bad)(rt.constant(2))


def not_state(n):
    x = rt.constant([1.0])
    y = rt.constant([0.0])
    for i in rt.range(n):
        ag.experimental.set_loop_options(shape_invariants=[(y, rt.TensorShape([None]))])
        x = x + y
    return x


def not_a_name(n):
    xs = [rt.constant([1.0])]
    i = 0
    while i < n:
        ag.experimental.set_loop_options(shape_invariants=[(xs[0], rt.TensorShape([None]))])
        i += 1
    return i


def not_a_literal(n):
    x = rt.constant([1.0])
    invariants = [(x, rt.TensorShape([None]))]
    for i in rt.range(n):
        ag.experimental.set_loop_options(shape_invariants=invariants)
        x = rt.concat([x, x], 0)
    return x


@pytest.mark.parametrize("fn,head,message", [
    (not_state, "for i in", r"shape invariant for `y`, which is not a variable of this staged "
                            r"loop \(its variables: x\)"),
    (not_a_name, "while i < n", r"shape invariant for `xs\[0\]`, which is not a variable"),
    (not_a_literal, "for i in", r"must be written in the call as a list of \(variable, shape\) "
                                r"pairs")])
def test_invariants_that_name_no_loop_variable_are_errors_at_the_loop(fn, head, message):
    ag.to_graph(fn)(2)                                   # a Python loop: ignored
    line = _line_of(fn, head)
    with pytest.raises(ValueError, match=rf"test_loop_options.py:{line}: .*{message}"):
        rt.function(fn)(rt.constant(2))


def test_a_call_python_rejects_stays_in_the_body():
    def wrong(n):
        s = 0
        for i in range(n):
            ag.experimental.set_loop_options(max_iterations=3)
            s += i
        return s
    assert "set_loop_options(max_iterations=3)" in ag.to_code(wrong)
    for f in (wrong, ag.to_graph(wrong)):
        with pytest.raises(TypeError, match="max_iterations"):
            f(3)


def test_a_local_function_named_like_it_is_not_taken():
    def body_only(n):
        calls = []
        set_loop_options = calls.append
        for i in range(n):
            set_loop_options(i)
        return calls
    assert ag.to_graph(body_only)(3) == [0, 1, 2]

    def only_options(n):
        i = 0
        for i in rt.range(n):
            set_loop_options(maximum_iterations=2)
        return i
    assert only_options(5) == ag.to_graph(only_options)(5) == 4
    assert _plain(rt.function(only_options)(rt.constant(5))) == 1   # two iterations


def test_a_loop_staged_without_options_is_unchanged():
    def plain(n):
        s = 0
        for i in rt.range(n):
            s += i
        return s
    assert "opts" not in ag.to_code(plain)
    assert _plain(rt.function(plain)(rt.constant(5))) == 10
