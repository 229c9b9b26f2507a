"""Converted code does not depend on `sys._getframe`: a program (or a test of one) may
delete or replace it, and an interpreter may have none. Converted `for` loops over
iterators, `while` loops and the unrolling check run the same without it, on Python
values, in the converted body, in modules written by `autograph convert`, and while
`rt.function` traces."""
import importlib.util
import logging
import sys

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph import errors, module_converter
from autograph.operators import Staging

pytestmark = pytest.mark.python_path
# jit_compile needs the jax extra (found, not imported: collecting stays light)
JIT_MODES = (False, True) if importlib.util.find_spec("jax") else (False,)


def over_iterators(n):
    total = 0
    for i in iter(range(n)):
        total += i
    for k, v in {"a": 1, "b": n}.items():
        total += v
    for x in (j * 2 for j in range(n)):
        if x > 6:
            break
        total += x
    for a, b in zip(range(n), map(abs, range(-n, 0))):
        total += a * b
    for i, c in enumerate(iter("xyz")):
        total += i
    while n > 0:
        n -= 1
        total += 1
    return total


MODULE = '''
def over_iterators(n):
    total = 0
    for i in iter(range(n)):
        total += i
    for x in (j * 2 for j in range(n)):
        if x > 6:
            break
        total += x
    while n > 0:
        n -= 1
        total += 1
    return total
'''


def module_function():
    text, report = module_converter.convert_source(MODULE, "frames_module.py")
    assert report.converted == ["over_iterators"]
    namespace = {"__name__": "frames_module"}
    exec(compile(text, "frames_module.py", "exec"), namespace)
    return namespace["over_iterators"]


@pytest.fixture(params=["deleted", "interpreter without frames"])
def no_getframe(request, monkeypatch):
    """`sys._getframe` gone from the program, or from the interpreter (as autograph
    saw it when imported). (JAX's lazy imports read it: they are done first.)"""
    try:
        rt.function(lambda x: x + 1.0, jit_compile=True)(rt.constant(1.0))
    except ImportError:  # no JAX (an optional extra): nothing of it to import later
        pass
    if request.param == "deleted":
        monkeypatch.delattr(sys, "_getframe")
    else:
        monkeypatch.setattr(errors, "_frame_getter", None)
        monkeypatch.setattr(sys, "_getframe", None)
        monkeypatch.setattr(logging, "_srcfile", None)   # (as logging sets it there)
    yield


EXPECTED = {n: over_iterators(n) for n in (0, 1, 5, 40)}


@pytest.mark.parametrize("n", sorted(EXPECTED))
def test_converted_loops_over_iterators_without_getframe(no_getframe, n):
    converted, from_module = ag.to_graph(over_iterators), module_function()
    assert converted(n) == EXPECTED[n]
    assert from_module(n) == module_reference(n)
    with Staging():                     # the converted bodies
        assert converted(n) == EXPECTED[n]
        assert from_module(n) == module_reference(n)


def module_reference(n):
    total = sum(range(n))
    for x in (j * 2 for j in range(n)):
        if x > 6:
            break
        total += x
    return total + max(n, 0)


def traced_loops(x):
    for i in iter(range(3)):           # a Python iterator, unrolled
        x = x + float(i)
    for v in (float(j) for j in range(2)):
        x = x * 2.0 + v
    n = 0
    while n < 2:
        n += 1
        x = x - 1.0
    return x


def plain(x):
    for i in range(3):
        x = x + float(i)
    for v in (float(j) for j in range(2)):
        x = x * 2.0 + v
    return x - 2.0


@pytest.mark.parametrize("value", [0.0, 1.5, -3.0, float("nan")])
def test_tracing_without_getframe(no_getframe, value):
    expected = plain(np.float32(value))
    for jit in JIT_MODES:
        got = rt.function(traced_loops, jit_compile=jit)(rt.constant(value)).numpy()
        assert got == expected or (np.isnan(got) and np.isnan(expected))


def test_tracing_unknown_length_without_getframe(no_getframe):
    f = rt.function(traced_loops, input_signature=[rt.TensorSpec([None], rt.float32)])
    for xs in ([], [1.0], [np.nan, 2.0, -1.0]):
        got = f(rt.constant(xs, rt.float32)).numpy()
        np.testing.assert_array_equal(got, plain(np.asarray(xs, np.float32)))


def long_generator_loop(x):
    for i in (k for k in range(1500)):
        x = x + 1.0
    return x


@pytest.mark.parametrize("no_getframe", ["interpreter without frames"], indirect=True)
def test_the_unrolling_warning_without_getframe(no_getframe, caplog):
    """(Where the program deletes `sys._getframe`, `logging` itself cannot log.)"""
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert float(rt.function(long_generator_loop)(rt.constant(0.0))) == 1500.0
    found = [r.getMessage() for r in caplog.records
             if r.name == "autograph" and "unrolled" in r.getMessage()]
    assert len(found) == 1 and found[0].startswith("<unknown>:0: a Python loop ran")
