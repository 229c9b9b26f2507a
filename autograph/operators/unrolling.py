"""A warning when a Python loop is unrolled into the graph being built.

A `for` over a Python iterable, or a `while` whose test stays a Python bool, runs as
Python while a graph is traced: each iteration adds its ops to the graph again. For a
few iterations that is what the user wants (the loop is "unrolled"); for thousands it
makes tracing slow and the graph huge, silently. So once a Python loop has run
`ITERATIONS` iterations while staging, the next one is watched: if it adds ops to the
graph, a warning names the loop's file and line (once per loop) and says how to stage it
as one loop instead.

The backend says how large the graph being built is (`register_graph_size`); without
one, nothing is checked.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Optional

from autograph.errors import caller_frame

ITERATIONS = 1000       # iterations a Python loop runs while tracing before one is watched

_graph_size: list = [lambda: None]   # () -> ops in the graph being built, or None
_warned: set = set()                 # (file, line) of the loops warned about


def register_graph_size(fn: Callable[[], Optional[int]]) -> None:
    """`fn()`: the number of ops in the graph being built now, or None (a backend
    registers it when imported)."""
    _graph_size[0] = fn


def location(depth: int = 2) -> tuple:
    """(file, line) of the converted code that called the operator calling this
    (`("<unknown>", 0)` where the interpreter gives no frames)."""
    frame = caller_frame(depth)
    if frame is None:
        return "<unknown>", 0
    return frame.f_code.co_filename, frame.f_lineno


def watched(iterable: Iterable) -> Iterator:
    """`iterable`'s items, for `for_stmt`; the iteration after the first `ITERATIONS`
    is checked for ops added to the graph (the body runs between two items). As Python's
    `for` does, it calls `iter` once and `next` until the first StopIteration, no more
    (an iterator may give items again after one, and `__iter__` and `__next__` may count
    their calls). The loop's location is looked up only when a graph is being built."""
    items = iter(iterable)
    count = 0
    while True:
        try:
            item = next(items)
        except StopIteration:
            return
        count += 1
        if count == ITERATIONS + 1:
            before = _graph_size[0]()
            # (run by the `next` of for_stmt: its caller is the loop's converted code)
            where = location(3) if before is not None else None
            yield item
            check(before, count, where)
        else:
            yield item


def check(before: Optional[int], iterations: int, where: tuple) -> None:
    """Warns (once per loop) when the graph grew since it had `before` ops."""
    if before is None or where in _warned:
        return
    after = _graph_size[0]()
    if after is None or after <= before:
        return
    _warned.add(where)
    import logging     # (not imported by converted code until a warning is due)
    file, line = where
    logging.getLogger("autograph").warning(
        "%s:%d: a Python loop ran %d iterations while tracing, each adding ops to the "
        "graph (%d so far): it is unrolled into the graph, which makes tracing slow and "
        "the graph large. To stage it as one loop, iterate over a tensor (`for i in "
        "rt.range(n)`, a tensor argument) or make the `while` condition a tensor.",
        file, line, iterations, after)


def graph_size() -> Any:
    return _graph_size[0]()
