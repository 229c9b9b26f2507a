"""Eager iteration's steps without rt.function's per-call work: a dataset's `_next` traced
once as a function of its position's flat tensors, giving (valid, the element's flat
tensors, the position's flat tensors), and called on the position's arrays directly
(`ConcreteFunction.run_flat`): no binding, structure walk or signature match per element.

Where the position is the same kind of tensors after each step (dtypes and fully known
shapes the graph's shape inference guarantees) and the element and the position are
plain nests of tensors, `Steps` runs; elsewhere `steps_for` gives None and the iterator
keeps calling `_next` through rt.function.

`Steps.chunk` runs several steps in one call (`CHUNK` of them unrolled in one graph),
where the step's graph has no side effect and reads no Variable (nothing the caller
could see happen early, or change between elements): the iterator yields the elements
one by one. A chunk that raises is run again step by step from where it began, so
the error comes at the same element, after the elements before it.
"""
from __future__ import annotations

import numpy as np

from .. import nest
from ..core.tensor import EagerTensor, Tensor
from ..function import function as rt_function

CHUNK = 16      # the steps one chunk runs


class _Unsupported(Exception):
    pass


class Steps:
    """The flat step of one dataset whose position has `structure` (see above)."""

    def __init__(self, dataset, structure, flat, chunks: bool = True):
        self.structure = structure
        self.element = None
        self._dataset = dataset
        specs = [(t.dtype, tuple(t.shape.as_list())) for t in flat]
        self.single = self._trace(1, flat, specs)
        self.chunked = None
        if chunks and not has_effects(self.single):
            self.chunked = self._trace(CHUNK, flat, specs)
        self.specs = specs

    def _trace(self, k, flat, specs):
        dataset, structure = self._dataset, self.structure

        def steps(*flat):
            state = nest.pack_sequence_as(structure, list(flat))
            out = []
            for _ in range(k):
                valid, element, state = dataset._next(tuple(state))
                parts = nest.flatten(element)
                if not all(isinstance(t, Tensor) for t in parts):
                    raise _Unsupported
                if self.element is None:
                    self.element = element
                out += [valid, *parts]
            moved = nest.flatten(tuple(state))
            if (not nest.same_structure(tuple(state), structure) or
                    [(t.dtype, tuple(t.shape.as_list()) if t.shape.is_fully_defined()
                      else None) for t in moved] != specs):
                raise _Unsupported
            return tuple(out + moved)
        cf = rt_function(steps, autograph=False).get_concrete_function(*flat)
        return cf

    def run(self, cf, values):
        """The results of `cf` (one step or a chunk) on the position's arrays."""
        return cf.run_flat(values)

    def step(self, base):
        """((valid, element), the position's arrays after it) of one step from `base`."""
        out = self.single.run_flat(base)
        return self.elements(out, len(base))[0], [t._value for t in out[len(out) - len(base):]]

    def chunk(self, base):
        """([(valid, element)] of CHUNK steps from `base`, the position's arrays after
        them), or None where steps are not chunked."""
        if self.chunked is None:
            return None
        out = self.chunked.run_flat(base)
        return self.elements(out, len(base)), [t._value for t in out[len(out) - len(base):]]

    def elements(self, out, moved: int):
        """[(valid, element)] of a run's results (`moved`: the position's arrays)."""
        element = self.element
        width = len(nest.flatten(element)) + 1
        count = (len(out) - moved) // width
        if isinstance(element, Tensor):
            return [(out[i * width], out[i * width + 1]) for i in range(count)]
        return [(out[i * width], nest.pack_sequence_as(element, list(
            out[i * width + 1:(i + 1) * width]))) for i in range(count)]

    def fits(self, flat) -> bool:
        """Whether a position (flat tensors) is of the kind traced."""
        return [(t.dtype, np.shape(t._value)) for t in flat] == self.specs


def has_effects(cf) -> bool:
    """Whether a traced function's graph has an op whose running (or not, or early) the
    caller could see: a side effect, a host call, a Variable read or write."""
    for op in cf.graph.get_operations():
        d = op.opdef
        if (d.side_effect or d.calls_python or d.reads_variables or d.writes_variables or
                d.runs_subgraphs and _body_effects(op)):
            return True
    return False


def _body_effects(op) -> bool:
    """Whether a control-flow op's bodies hold an effect (any op of theirs, nested)."""
    if not op.opdef.body_attrs:
        return True                     # (a call whose function is not looked into)
    for name in op.opdef.body_attrs:
        body = op.attrs.get(name)
        graph = getattr(body, "graph", None)
        if graph is None:
            return True
        for inner in graph.get_operations():
            d = inner.opdef
            if (d.side_effect or d.calls_python or d.reads_variables or d.writes_variables or
                    d.runs_subgraphs and _body_effects(inner)):
                return True
    return False


def steps_for(dataset, position, chunks: bool = True):
    """The dataset's `Steps` (made once, kept on it) for an eager position, or None where
    they do not apply (see above); `chunks` False: no chunk traced (where blocks give
    the elements: eager_blocks.py)."""
    flat = nest.flatten(tuple(position))
    if not flat or not all(type(t) is EagerTensor for t in flat):   # (shapes all known)
        return None
    cached = dataset.__dict__.get("_flat_steps")
    if cached is None:
        try:
            cached = Steps(dataset, tuple(position), flat, chunks)
        except _Unsupported:
            cached = False
        dataset.__dict__["_flat_steps"] = cached
    # (a position is the output of the dataset's own traced `_init` or `_next`: its nest
    # is the one traced, and its leaves' kinds say whether the steps fit it)
    if cached is False or len(flat) != len(cached.specs) or not cached.fits(flat):
        return None
    return cached
