"""TensorFlow's `tf.autograph.experimental` names: conversion features and loop options.

    for i in rt.range(n):
        ag.experimental.set_loop_options(maximum_iterations=10)
        ...

`set_loop_options` does nothing when it runs: the converter finds the call statement
directly in a loop body, removes it, and hands its arguments (evaluated before the loop)
to the loop when it is staged (`maximum_iterations`; `shape_invariants` as a list of
`(variable, shape)` pairs written in the call; `parallel_iterations` and `swap_memory`
are accepted and have no effect on a numpy backend): see converters/loop_options.py. A
loop that runs as Python ignores them, as in TensorFlow.
"""
from __future__ import annotations

import enum
from typing import Any


class Feature(enum.Enum):
    """Optional conversion features.

    Passed as `ag.to_graph(f, experimental_optional_features=...)` or
    `rt.function(f, experimental_autograph_options=...)`.

    BUILTIN_FUNCTIONS: Python's `print` of a staged value stages a print (run at every
    call of the graph) instead of printing the symbolic value once while tracing; the
    functions a converted function calls are converted with its features.
    `len`, `range`, `enumerate` and `in` of staged values stage whatever the features.
    The others are accepted for compatibility: what they switch on in TensorFlow is
    always on here (LISTS, ASSERT_STATEMENTS, EQUALITY_OPERATORS) or has no meaning
    (AUTO_CONTROL_DEPS: side effects always run in program order; NAME_SCOPES).

    >>> @rt.function(experimental_autograph_options=ag.experimental.Feature.BUILTIN_FUNCTIONS)
    ... def f(x):
    ...     print(x)
    ...     return x + 1
    >>> _ = f(rt.constant(1))
    1
    >>> _ = f(rt.constant(2))
    2
    """
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def features(value: Any) -> frozenset:
    """A Feature, a list/tuple of them, or None, as a frozenset (ALL expanded).

    Args:
      value: a Feature, a list or tuple of them, or None.

    Returns:
      A frozenset of Feature.

    Raises:
      TypeError: for something that is not a Feature.

    >>> ag.experimental.features([ag.experimental.Feature.LISTS])
    frozenset({<Feature.LISTS: 'LISTS'>})
    >>> len(ag.experimental.features(ag.experimental.Feature.ALL))
    7
    """
    if value is None:
        return frozenset()
    items = [value] if isinstance(value, Feature) else list(value)
    for item in items:
        if not isinstance(item, Feature):
            raise TypeError(f"expected autograph.experimental.Feature values, got {item!r}")
    if Feature.ALL in items:
        return frozenset(Feature)
    return frozenset(items)


LOOP_OPTIONS = ("parallel_iterations", "swap_memory", "maximum_iterations", "shape_invariants")


def set_loop_options(parallel_iterations: Any = None, swap_memory: Any = None,
                     maximum_iterations: Any = None, shape_invariants: Any = None) -> None:
    """Options for the staged loop whose body calls this (see the module docstring).

    Called as a statement of its own in the body of a `for` or `while`; the converter
    removes the call and hands its arguments to the staged loop. It has no effect at run
    time, and on a loop that runs as Python.

    Args:
      parallel_iterations: accepted; no effect here.
      swap_memory: accepted; no effect here.
      maximum_iterations: the most iterations the staged loop runs.
      shape_invariants: a list of (variable, shape) pairs: the shapes loop variables may
        take.

    Returns:
      None.

    >>> @rt.function
    ... def count(n):
    ...     i = 0
    ...     while i < n:
    ...         ag.experimental.set_loop_options(maximum_iterations=3)
    ...         i += 1
    ...     return i
    >>> print(count(rt.constant(10)))
    rt.Tensor(3, shape=(), dtype=int32)
    """
    return None


__all__ = ["Feature", "features", "set_loop_options"]


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from (typing.Any, enum)
