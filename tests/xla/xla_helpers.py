"""Differential helpers: a graph run on the numpy backend and on the XLA backend."""
from __future__ import annotations

import contextlib
import io

import numpy as np

import runtime as rt
from runtime.backends.xla.backend import JaxBackend


def run(plan, args):
    """(outputs, printed text) of one call of `plan`."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        results = plan(*args)
    return results, out.getvalue()


def plans(graph, inputs, outputs):
    return graph.compile(inputs, outputs), JaxBackend().compile(graph, inputs, outputs)


def traced(fn, *specs):
    """(graph, inputs, outputs) of `rt.function(fn)` traced for `specs`."""
    cf = rt.function(fn).get_concrete_function(*specs)
    return cf.graph, list(cf.inputs), list(cf.outputs)


def staged(fn, *values, shapes=None):
    """(graph, inputs, outputs, feeds): `fn` on placeholders of a fresh graph."""
    arrays = [np.asarray(v) for v in values]
    g = rt.Graph()
    with g.as_default():
        phs = [rt.placeholder(rt.as_dtype(a.dtype), list(a.shape) if shapes is None
                              else shapes[i]) for i, a in enumerate(arrays)]
        out = fn(*phs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return g, phs, outs, arrays


def assert_same(actual, expected, exact=True, rtol=1e-6):
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    if exact or a.dtype.kind not in "fc":
        np.testing.assert_array_equal(a, e)
    else:
        np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-6, equal_nan=True)


def compare(graph, inputs, outputs, args, exact=True, rtol=1e-6, printed=True):
    """Runs both backends on `args`; their outputs (and printed text) must agree."""
    numpy_plan, xla_plan = plans(graph, inputs, outputs)
    expected, expected_text = run(numpy_plan, args)
    actual, text = run(xla_plan, args)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert_same(a, e, exact, rtol)
    if printed:
        assert text == expected_text
    return actual, text


def compare_fn(fn, *values, exact=True, rtol=1e-6, shapes=None):
    g, phs, outs, arrays = staged(fn, *values, shapes=shapes)
    return compare(g, phs, outs, arrays, exact, rtol)


def compare_traced(fn, specs, args, exact=True, rtol=1e-6, printed=True):
    g, ins, outs = traced(fn, *specs)
    return compare(g, ins, outs, args, exact, rtol, printed)
