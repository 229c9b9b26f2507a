"""The staging switch is per thread: while one thread traces, converted functions called
in another run their original bodies (as the same functions unconverted would), and the
tracing thread runs its converted bodies.

A converted function's original body and its converted body give the same values on
Python values; what tells them apart is their frames: the original body calls `depth()`
from the function's own frame, the converted body through its generated loop and branch
functions and autograph's operators. `depth()` counts the frames of the calling stack.
"""
import inspect
import sys
import threading

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph import module_converter, operators
from autograph.operators import Staging, python_path

pytestmark = pytest.mark.python_path          # outside the tests' own staging scope


def depth():
    n, frame = 0, sys._getframe(1)
    while frame is not None:
        n, frame = n + 1, frame.f_back
    return n


def loops(n):
    out = []
    for i in range(n):
        if i % 2:
            out.append(depth())
    while n > 0:
        n -= 1
    return out


def sign(x):
    if x > 0:
        y = x * 2.0
    else:
        y = -x
    return y


# The same functions as a module that `autograph convert` writes (from their text above)
MODULE = "import sys\n\n\n" + "\n\n".join(inspect.getsource(f) for f in (depth, loops, sign))


def module_functions():
    text, report = module_converter.convert_source(MODULE, "threads_module.py")
    assert set(report.converted) >= {"loops", "sign"}
    namespace = {"__name__": "threads_module"}
    exec(compile(text, "threads_module.py", "exec"), namespace)
    return namespace


def converted_functions():
    namespace = module_functions()
    return [(ag.to_graph(loops), ag.to_graph(sign)), (namespace["loops"], namespace["sign"])]


@pytest.mark.parametrize("which", ["to_graph", "autograph convert"])
def test_the_converted_body_is_what_the_frames_tell_apart(which):
    """The check the thread tests rely on can fail: inside a staging scope in this thread,
    the converted body's frames differ from the original's."""
    converted, _ = converted_functions()[which == "autograph convert"]
    assert converted(6) == loops(6)
    with Staging():
        staged = converted(6)
        assert staged != loops(6)
        assert len(staged) == 3 and all(d > loops(6)[0] for d in staged)
    assert converted(6) == loops(6)


def run_in_thread(target):
    box = {}

    def run():
        try:
            box["value"] = target()
        except BaseException as e:     # (re-raised in the test's thread)
            box["error"] = e
    t = threading.Thread(target=run)
    t.start()
    return t, box


@pytest.mark.parametrize("which", ["to_graph", "autograph convert"])
def test_a_thread_that_builds_no_graph_runs_original_bodies_while_another_traces(which):
    converted_loops, converted_sign = converted_functions()[which == "autograph convert"]
    inside, release = threading.Event(), threading.Event()

    @rt.function
    def traced(x):
        inside.set()
        assert release.wait(10)            # the trace stays open here
        # ... and this thread's converted code still stages a tensor `if`:
        return converted_sign(x) + float(len(converted_loops(4)))

    tracer, box = run_in_thread(lambda: traced(rt.constant(-3.0)))
    try:
        assert inside.wait(10)
        assert python_path.scopes_open() == 0 and not operators.staging
        for _ in range(3):
            assert converted_loops(6) == loops(6)
        assert converted_sign(2.0) == sign(2.0) == 4.0
    finally:
        release.set()
        tracer.join(10)
    assert "error" not in box, box.get("error")
    assert float(box["value"]) == 3.0 + 2.0
    # The graph it traced stages the `if`: the other sign runs the other branch.
    assert float(traced(rt.constant(5.0))) == 10.0 + 2.0
    assert python_path.scopes_open() == 0 and not operators.staging


def test_a_thread_started_inside_a_trace_runs_original_bodies():
    """As TensorFlow's default graph, the staging switch does not pass to a new thread:
    a thread started while tracing runs converted functions as Python."""
    converted_loops = ag.to_graph(loops)
    seen = {}

    @rt.function
    def traced(x):
        t, box = run_in_thread(lambda: (converted_loops(6), loops(6)))
        t.join(10)
        seen.update(box)
        return x + 1.0

    assert float(traced(rt.constant(1.0))) == 2.0
    assert "error" not in seen, seen.get("error")
    got, expected = seen["value"]
    assert got == expected


def test_many_threads_staging_and_not_at_once():
    """Threads that open and close staging scopes while others call converted code: each
    sees its own switch, and the process-wide flag is off once all have closed."""
    converted_loops = ag.to_graph(loops)
    errors = []
    start = threading.Barrier(8)

    def worker(k):
        try:
            start.wait(10)
            for _ in range(200):
                if k % 2:
                    with Staging():
                        assert operators.staging and python_path.scopes_open() == 1
                        assert converted_loops(4) != loops(4)
                else:
                    assert python_path.scopes_open() == 0
                    assert converted_loops(4) == loops(4)
        except BaseException as e:       # (reported by the test's thread)
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors[0]
    assert not operators.staging and python_path.scopes_open() == 0


def test_the_tracing_thread_stages_nested_and_sequential_traces():
    converted_sign = ag.to_graph(sign)

    @rt.function
    def inner(x):
        return converted_sign(x)

    @rt.function
    def outer(x):
        return inner(x) + converted_sign(x - 10.0)

    for v in (-2.0, 0.0, 3.0, 12.0, float("nan")):
        expected = sign(v) + sign(v - 10.0)
        got = float(outer(rt.constant(v)))
        assert got == expected or (np.isnan(got) and np.isnan(expected))
    assert not operators.staging
    assert converted_sign(3.0) == 6.0
