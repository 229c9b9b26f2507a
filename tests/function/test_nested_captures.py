"""A value captured through several nested sub-graphs stays fed.

A sub-graph may meet one outer value twice: as the tensor itself, and as the placeholder
an enclosing branch captured it into (a dataset made of a loop variable hands that
placeholder back, and a branch returns it unchanged). Both are one input of the sub-graph;
a second placeholder for it used to replace the first in the graph's captures, and the
first was left unfed when the graph ran. Plain Python (the dataset's element is the value
itself) is the reference for rt.function on the numpy backend and under jit_compile."""
import pytest

import runtime as rt

try:
    import jax  # noqa: F401
    JITS = (False, True)
except ImportError:  # pragma: no cover - the jax extra is optional
    JITS = (False,)


def _element(value):
    """`value`, handed back by a dataset made of it (in a graph: the placeholder the
    current branch captured it into)."""
    return next(iter(rt.data.Dataset.from_tensors(value)))


def cond_program(n, x, pick=_element, cond=rt.cond, loop=rt.while_loop):
    def body(i, acc):
        def inner():
            e = pick(acc)
            return cond(i > 2, lambda: e + acc, lambda: acc * 2)
        return i + 1, cond(i > 0, lambda: cond(i > 1, inner, lambda: acc + 10),
                           lambda: acc + 100)
    return loop(lambda i, a: i < n, body, (0 * n, x))


def _py_cond(pred, t, f):
    return t() if pred else f()


def _py_loop(test, body, state):
    while test(*state):
        state = body(*state)
    return state


def unchanged_program(n, x, y, pick=_element):
    """The innermost branch gives the loop variable back unchanged, beside the dataset's
    element of it; `y` is captured from outside the loop."""
    i = 0 * n
    while i < n:
        if i > 0:
            if i > 1:
                e = pick(x)
                if i > 2:
                    x, z = x, e + y
                else:
                    x, z = e * 2, x
            else:
                z = x + 10
        else:
            z = x + 100
        x = x + z % 7
        i += 1
    return i, x


def _plain(result):
    return [int(v.numpy()) if hasattr(v, "numpy") else int(v) for v in result]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("jit", JITS)
def test_rt_cond_nested_three_deep(n, jit):
    want = _plain(cond_program(n, 3, pick=lambda v: v, cond=_py_cond, loop=_py_loop))
    f = rt.function(cond_program, jit_compile=jit)
    assert _plain(f(rt.constant(n), rt.constant(3))) == want


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("jit", JITS)
def test_converted_if_nested_three_deep(n, jit):
    want = _plain(unchanged_program(n, 4, 5, pick=lambda v: v))
    f = rt.function(unchanged_program, jit_compile=jit)
    assert _plain(f(rt.constant(n), rt.constant(4), rt.constant(5))) == want
    assert _plain(unchanged_program(rt.constant(n), rt.constant(4), rt.constant(5))) == want


def test_graph_capture_of_a_capture_is_one_input():
    g0 = rt.Graph("outer")
    with g0.as_default():
        x = rt.placeholder(rt.int32, [], name="x")
    g1 = rt.Graph("branch", outer=g0)
    g2 = rt.Graph("inner_branch", outer=g1)
    p1 = g1.capture(x)
    first = g2.capture(p1)
    assert g2.capture(x) is first
    assert g2.capture(p1) is first
    [(outer_t, inner)] = g2.captured_inputs()
    assert outer_t is p1 and inner is first


def test_interleave_of_loop_variable_datasets():
    ds = rt.data.Dataset.range(1, 4).interleave(
        lambda x: rt.data.Dataset.from_tensors(x).repeat(2), cycle_length=2, block_length=1)
    want = [1, 2, 1, 2, 3, 3]
    assert [int(v) for v in ds.as_numpy_iterator()] == want
    staged = rt.function(lambda: ds.reduce(rt.constant(0, rt.int64), lambda s, v: s * 10 + v))
    assert int(staged()) == int("".join(map(str, want)))
