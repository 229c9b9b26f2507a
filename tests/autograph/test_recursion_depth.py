"""Recursion depth of converted code. Outside tracing a converted function runs its
original body: it recurses exactly as deep as the original. While a graph is built its
converted body runs, each level through its operators and generated functions (three
frames a level, four in a module written by `autograph convert`): a recursion on Python
values that runs out of depth there says so, naming the function, the frames a level and
what to do, and following that advice (a higher recursion limit) works."""
import sys

import pytest

import autograph as ag
import runtime as rt
from autograph import module_converter
from autograph.operators import Staging

pytestmark = pytest.mark.python_path


def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


def total(xs):
    if not xs:
        return 0
    return xs[0] + total(xs[1:])


MODULE = '''
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)
'''


def module_fact():
    text, report = module_converter.convert_source(MODULE, "recursion_module.py")
    assert report.converted == ["fact"]
    namespace = {"__name__": "recursion_module"}
    exec(compile(text, "recursion_module.py", "exec"), namespace)
    return namespace["fact"]


def deepest(call, hi):
    """The largest n <= hi for which call(n) returns (rather than running out of depth)."""
    lo = 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            call(mid)
            lo = mid
        except (RecursionError, ag.StagingError):
            hi = mid - 1
    return lo


def staged(fn, arg):
    with Staging():
        return fn(arg)


@pytest.fixture
def limit():
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield 1000
    sys.setrecursionlimit(saved)


@pytest.mark.parametrize("which", ["to_graph", "autograph convert"])
def test_outside_tracing_the_converted_function_recurses_as_deep_as_the_original(limit, which):
    converted = ag.to_graph(fact) if which == "to_graph" else module_fact()
    original = deepest(fact, limit)
    assert original > limit * 0.9
    assert deepest(converted, limit) == original
    assert deepest(lambda n: total(list(range(n))), limit) == deepest(
        lambda n: ag.to_graph(total)(list(range(n))), limit)


@pytest.mark.parametrize("which, per_level", [("to_graph", 3), ("autograph convert", 4)])
def test_out_of_depth_while_staging_says_why(limit, which, per_level):
    converted = ag.to_graph(fact) if which == "to_graph" else module_fact()
    reached = deepest(lambda n: staged(converted, n), limit)
    assert limit // (per_level + 1) < reached < limit // per_level + 1
    with pytest.raises(RecursionError) as caught:
        staged(converted, reached + 10)
    message = str(caught.value)
    assert message.startswith("maximum recursion depth exceeded")
    assert "fact (" in message and f"{per_level} frames a level" in message
    assert "sys.setrecursionlimit" in message and "as a loop" in message
    # The advice works: a limit that many times the depth needed.
    sys.setrecursionlimit(per_level * (reached + 10) + 200)
    assert staged(converted, reached + 10) == fact(reached + 10)


def test_a_handler_for_recursion_error_still_catches_it(limit):
    def guarded(n):
        try:
            return fact(n)
        except RecursionError:
            return -1
    converted = ag.to_graph(guarded)
    assert converted(900) == guarded(900) == fact(900)
    # While staging, 900 levels are out of depth (the converted body's frames): the
    # handler sees a RecursionError, as Python's does for a recursion that deep.
    assert staged(converted, 900) == -1
    assert staged(converted, 100) == fact(100)


def test_recursion_errors_outside_converted_bodies_keep_their_message(limit):
    with pytest.raises(RecursionError) as caught:
        ag.to_graph(fact)(5000)
    assert "frames a level" not in str(caught.value)


def test_tracing_names_the_function_and_the_frames_a_level(limit):
    converted = ag.to_graph(fact)

    @rt.function
    def traced(x):
        return x * float(converted(600))

    with pytest.raises(ag.StagingError) as caught:
        traced(rt.constant(1.0))
    message = str(caught.value)
    assert "tracing traced reached Python's recursion limit" in message
    assert "fact (" in message and "3 frames a level" in message
    assert "sys.setrecursionlimit" in message
    sys.setrecursionlimit(3 * 600 + 300)

    @rt.function
    def traced_again(x):
        return x * float(converted(600) > 0)

    assert float(traced_again(rt.constant(2.0))) == 2.0


def test_tracing_a_recursion_within_its_depth(limit):
    @rt.function
    def traced(x):
        return x + float(fact(100) % 7)

    assert float(traced(rt.constant(1.0))) == 1.0 + fact(100) % 7
