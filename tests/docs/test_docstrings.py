"""Every public function, class and op of `runtime` and `autograph` has a docstring with
its arguments, result and an example; the examples (`>>>` lines) run and print what
they say (doctest)."""
import doctest
import inspect
import types

import numpy as np
import pytest

import autograph as ag
import runtime as rt

NAMESPACES = {"rt": rt, "rt.math": rt.math, "rt.nn": rt.nn, "rt.linalg": rt.linalg,
              "rt.random": rt.random, "rt.data": rt.data, "rt.saved": rt.saved,
              "rt.onnx": rt.onnx, "rt.debugging": rt.debugging, "rt.strings": rt.strings,
              "rt.config": rt.config, "rt.optimizers": rt.optimizers,
              "rt.optimizers.schedules": rt.optimizers.schedules,
              "rt.distribute": rt.distribute, "rt.train": rt.train,
              "rt.saved_model": rt.saved_model, "rt.summary": rt.summary,
              "rt.summary.experimental": rt.summary.experimental,
              "ag": ag, "ag.experimental": ag.experimental}


def public_callables():
    seen, out = set(), []
    for prefix, ns in NAMESPACES.items():
        for name in dir(ns):
            if name.startswith("_"):
                continue
            obj = getattr(ns, name)
            if isinstance(obj, types.ModuleType) or not callable(obj):
                continue
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append((f"{prefix}.{name}", obj))
    return out


PUBLIC = public_callables()


def _examples(obj):
    doc = inspect.getdoc(obj) or ""
    return doctest.DocTestParser().get_examples(doc)


def test_every_public_callable_has_a_docstring_with_an_example():
    missing = [name for name, obj in PUBLIC if not _examples(obj)]
    assert missing == [], f"{len(missing)} without a >>> example: {missing}"


# The methods of rt.data.Dataset whose docstrings have examples run too (not every
# method has one yet).
METHODS = [(f"rt.data.Dataset.{name}", getattr(rt.data.Dataset, name))
           for name in dir(rt.data.Dataset)
           if not name.startswith("_") and callable(getattr(rt.data.Dataset, name))]
RUNNABLE = [(n, o) for n, o in PUBLIC + METHODS if _examples(o)]


@pytest.mark.parametrize("name, obj", RUNNABLE, ids=[n for n, _ in RUNNABLE])
def test_docstring_examples_run(name, obj):
    doc = inspect.getdoc(obj)
    test = doctest.DocTestParser().get_doctest(doc, {"rt": rt, "ag": ag, "np": np}, name,
                                               None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
