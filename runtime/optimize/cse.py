"""Common subexpression elimination: two pure ops of one graph with the same op, the same
inputs and equal attributes compute the same values, so the second is dropped and its
users read the first.

Constants with equal values (same dtype, shape and bytes) merge the same way. Attributes
are compared safely: numbers, strings, dtypes and shapes by value (1, 1.0 and True are
different), numpy arrays by dtype, shape and contents, anything else (a Body, a random
generator) by identity. Ops that are not pure (random draws, variable reads, TensorArray
ops, side effects) are never merged. Each sub-graph is deduplicated on its own.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import DType
from ..core.shapes import TensorShape
from .rewrite import is_pure, rebuild

MAX_CONST_BYTES = 1 << 16  # larger constants are compared by identity, not contents


def eliminate_common_subexpressions(graph, outputs: list) -> tuple:
    """(new graph, new outputs) with duplicate pure ops merged."""
    new, outs, _ = rebuild(graph, outputs, CSE().rule)
    return new, outs


class CSE:
    """The ops seen so far, per new graph, by (op, inputs, attributes)."""

    def __init__(self):
        # id(graph) -> (graph, {key: op}); holding the graph keeps its id from being
        # reused by a later graph while the pass runs (an inlined branch's graph is freed)
        self._seen: dict = {}

    def _table(self, graph) -> dict:
        entry = self._seen.get(id(graph))
        if entry is None:
            entry = self._seen[id(graph)] = (graph, {})
        return entry[1]

    def rule(self, ctx, op, inputs, attrs):
        if not is_pure(op):
            return None
        seen = self._table(ctx.graph)
        key = _key(op.opdef, inputs, attrs)
        first = seen.get(key)
        if first is not None:
            return list(first.outputs)
        new = ctx.copy(op, inputs, attrs)
        seen[key] = new
        return list(new.outputs)

    def dedupe(self, ctx, new_op) -> list:
        """The outputs of `new_op` (just added to the new graph by another rewrite), or of
        an equal op seen before."""
        if not is_pure(new_op):
            return list(new_op.outputs)
        seen = self._table(ctx.graph)
        key = _key(new_op.opdef, new_op.inputs, new_op.attrs)
        first = seen.setdefault(key, new_op)
        return list(first.outputs)


def _key(opdef, inputs, attrs) -> tuple:
    return (id(opdef), tuple((id(t.op), t.value_index) for t in inputs), _attrs_key(attrs))


def _attrs_key(attrs) -> tuple:
    return tuple(sorted((k, _value_key(v)) for k, v in attrs.items()))


def _value_key(v):
    if v is None or isinstance(v, (bool, int, float, str, bytes, complex)):
        if isinstance(v, float) and v != v:
            return ("nan",)
        return (type(v).__name__, v, _sign(v))
    if isinstance(v, (DType, TensorShape)):
        return (type(v).__name__, repr(v))
    if isinstance(v, (tuple, list)):
        return (type(v).__name__,) + tuple(_value_key(x) for x in v)
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        if a.dtype == object:
            if a.size > 4096:
                return ("id", id(v))
            return ("obj", a.shape, tuple(_value_key(x) for x in a.reshape(-1).tolist()))
        if a.nbytes > MAX_CONST_BYTES:
            return ("id", id(v))
        return ("array", a.dtype.str, a.shape, a.tobytes())
    return ("id", id(v))


def _sign(v):
    """0.0 and -0.0 are equal but not the same constant."""
    if isinstance(v, float):
        return str(v)
    return None
