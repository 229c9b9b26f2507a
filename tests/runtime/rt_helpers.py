"""Helpers shared by the runtime tests: run a function eagerly and staged, and compare."""
from __future__ import annotations

import json
import os

import numpy as np

import runtime as rt


def as_array(value):
    """A tensor (or nested list of tensors) as numpy, for comparisons."""
    if isinstance(value, (list, tuple)):
        return [as_array(v) for v in value]
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def staged(fn, *values, shapes=None):
    """Runs `fn` on placeholders in a fresh graph, fed with `values`; returns
    (result of g.run, the symbolic output(s)). `shapes[i]` is the placeholder shape
    (default: the value's full shape; None: unknown rank)."""
    arrays = [v if isinstance(v, rt.Tensor) else rt.constant(v) for v in values]
    g = rt.Graph()
    with g.as_default():
        phs = []
        for i, a in enumerate(arrays):
            shape = a.shape.as_list() if shapes is None else shapes[i]
            phs.append(rt.placeholder(a.dtype, shape))
        out = fn(*phs)
    result = g.run(out, {p: a.numpy() for p, a in zip(phs, arrays)})
    return result, out


def assert_same(actual, expected, rtol=1e-6):
    """Same dtype and values (NaN-equal)."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, e, rtol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e)


def check_eager_and_staged(fn, *values, expected=None, unknown=False, exact_shape=True):
    """fn eagerly == expected (numpy); fn staged (known shapes, unknown dims and unknown
    rank) == eager, and the static shape/dtype fits the value."""
    eager = fn(*[rt.constant(v) for v in values])
    if expected is not None:
        assert_same(eager.numpy(), expected)
    variants = [None, "dims", "rank"] if unknown else [None]
    for variant in variants:
        shapes = None
        if variant == "dims":
            shapes = [[None] * np.ndim(v) for v in values]
        elif variant == "rank":
            shapes = [None] * len(values)
        result, sym = staged(fn, *values, shapes=shapes)
        assert sym.dtype is eager.dtype
        assert sym.shape.is_compatible_with(eager.shape), (variant, sym.shape, eager.shape)
        if variant is None and exact_shape:
            assert sym.shape == eager.shape, (sym.shape, eager.shape)
        assert result.dtype is eager.dtype
        assert_same(result.numpy(), eager.numpy())
    return eager


# -- a saved function's saved.json, read and edited (the rt.saved tests) --------------------

def saved_doc(path):
    """The parsed saved.json of the saved function at `path`."""
    with open(os.path.join(path, "saved.json")) as f:
        return json.load(f)


def write_saved_doc(path, doc):
    with open(os.path.join(path, "saved.json"), "w") as f:
        json.dump(doc, f)


def saved_nodes(doc):
    """The nodes of the first function's graph."""
    return doc["functions"][0]["graph"]["nodes"]


def saved_node(doc, op):
    """The first node of op type `op`."""
    return next(n for n in saved_nodes(doc) if n["op"] == op)
