"""Staged answers that once differed from Python's without an error: each
now agrees with Python or is refused with an error that says why."""
import math

import pytest

import runtime as rt
from autograph.errors import StagingError

# -- a `while` test runs once more when staged ------------------------------------------

COUNTER = rt.Variable(0)


def _counts_in_its_test(x):
    i = 0
    while COUNTER.assign_add(1) < x:
        i += 1
    return i


def _prints_in_its_test(x):
    n = 0
    while (rt.print("test", n) is None) and n < x:
        n += 1
    return n


@pytest.mark.parametrize("fn, line", [(_counts_in_its_test, "COUNTER.assign_add(1) < x"),
                                      (_prints_in_its_test, 'rt.print("test", n)')])
def test_a_while_test_with_an_effect_is_refused_at_its_line(fn, line):
    """Staged, the test runs once to find that the loop is staged and again as the loop's
    own test: a Variable's update or a print in it would happen once too often."""
    with pytest.raises(StagingError) as info:
        rt.function(fn)(rt.constant(3))
    message = str(info.value)
    assert "test of this staged `while`" in message and "once too often" in message
    lineno = next(i for i, text in enumerate(open(__file__).read().splitlines(), 1)
                  if line in text)
    assert f"{__file__}:{lineno}" in message


def _reads_in_its_test(x):
    n = 0
    total = 0
    while n < COUNTER.read_value() + x:
        total += n
        n += 1
    return total


def _stages_a_list_in_its_test(x):
    out = []
    for i in rt.range(x):
        out.append(i)
    n = 0
    while n < len(out):
        n += 1
    return n


def _python_test_with_an_effect(x):
    stack = [1, 2, 3]
    total = x * 0
    while stack.pop() != 1:       # Python values: runs once per iteration, as written
        total += x
    return total


@pytest.mark.parametrize("fn", [_reads_in_its_test, _stages_a_list_in_its_test,
                                _python_test_with_an_effect])
def test_a_while_test_that_reads_stages_as_python_runs(fn):
    COUNTER.assign(2)
    expected = fn(rt.constant(3))
    COUNTER.assign(2)
    assert rt.function(fn)(rt.constant(3)).numpy() == expected.numpy() \
        if hasattr(expected, "numpy") else expected


# -- tensors as dict keys and set items -------------------------------------------------

def _looks_up_a_chosen_mode(x):
    mode = 0
    if x > 0:
        mode = 1
    return {0: 10, 1: 20}.get(mode, -1)


def _tests_membership(x):
    return x in {1, 2}


def test_a_traced_tensor_is_unhashable_as_an_eager_one():
    """As in TensorFlow 2: `==` is elementwise, so a hash by identity would make lookups
    silently miss (the mode a staged `if` chose found nothing in the dict: -1, not 20)."""
    assert _looks_up_a_chosen_mode(rt.constant(1.0)) == 20       # (a Python `if` eagerly)
    with pytest.raises(TypeError, match="unhashable"):
        _tests_membership(rt.constant(1.0))
    for fn in (_looks_up_a_chosen_mode, _tests_membership):
        with pytest.raises(TypeError, match=r"unhashable.*ref\(\)"):
            rt.function(fn)(rt.constant(1.0))


def test_a_graph_built_by_hand_still_takes_a_feed_dict():
    g = rt.Graph()
    with g.as_default():
        x = rt.placeholder(rt.float32, [2])
        y = x * 2.0
    assert g.run(y, feed_dict={x: [1.0, 2.0]}).numpy().tolist() == [2.0, 4.0]


def test_ref_keys_a_dict_in_a_traced_function():
    @rt.function
    def f(x):
        seen = {x.ref(): 1}
        return x + seen[x.ref()]
    assert f(rt.constant(1.0)).numpy() == 2.0


# -- Python floats as arguments: -0.0 and NaN ---------------------------------------------

def test_minus_zero_and_zero_trace_apart():
    f = rt.function(lambda x, k: x * 0 + math.copysign(1.0, k))
    t = rt.constant(1.0)
    assert [f(t, 0.0).numpy(), f(t, -0.0).numpy(), f(t, 0.0).numpy()] == [1.0, -1.0, 1.0]
    g = rt.function(lambda x, k: x * 0 + math.copysign(1.0, k.real))
    assert [g(t, complex(0.0, 1)).numpy(), g(t, complex(-0.0, 1)).numpy()] == [1.0, -1.0]


def test_a_nan_argument_traces_once_and_runs():
    f = rt.function(lambda x, k: x + k)
    assert all(math.isnan(f(rt.constant(1.0), float("nan")).numpy()) for _ in range(3))
    assert len(f._cache) == 1


def test_copies_of_a_traced_tensor_are_the_tensor():
    """(a copy was a second tensor object of the same op: the optimiser then failed with
    a bare KeyError, a deep copy said the tensor belonged to another graph)"""
    import copy

    @rt.function
    def f(x):
        return copy.copy(x) + copy.deepcopy(x * 2)
    assert f(rt.constant(1.0)).numpy() == 3.0
