"""Map vectorisation (as tf.data's): a `map` function whose traced graph is elementwise
over its element is applied to a whole batch of elements at once, where the input can
give one (`_vget`, random access): the same values as applying it to each element.

Elementwise here: every op of the graph is a constant, an argument, or an op with the
`elementwise` trait (docs/architecture.md, "Ops") whose inputs that come from the
arguments have exactly its output's shape, and whose constant inputs have no more
dimensions than that (they broadcast over a leading batch dimension alike). Anything
else (a reduction, a reshape, a print, a captured tensor) keeps the per-element map.
"""
from __future__ import annotations

from .. import nest
from ..core import walk
from ..core.apply import apply_op


def vectorized(traced, rows: bool = False):
    """A function of batched arguments applying `traced` (a TracedFunction) to each row,
    or None where its graph is not elementwise (see above). `rows`: `traced` takes
    batches already (its arguments' first dimension is the rows, of any number): the
    function is then the same on many batches' rows at once, where every constant
    broadcasts alike over any number of rows (fewer dimensions, or a first one of 1)."""
    if traced.graph.captured_inputs():
        return None
    known = _rows_known if rows else _known
    varying = {id(p) for p in traced.inputs}     # tensors carrying the batch dimension
    ops = []
    for op in walk.schedule(traced.graph):
        d = op.opdef
        if d.feedable:
            continue
        if d.constant:
            ops.append(op)
            continue
        if not d.elementwise or len(op.outputs) != 1:
            return None
        shape = op.outputs[0].shape
        if not known(shape):
            return None
        batched = False
        for t in op.inputs:
            if id(t) in varying:
                if not known(t.shape) or t.shape.as_list() != shape.as_list():
                    return None
                batched = True
            elif t.shape.rank is None or t.shape.rank > shape.rank or (
                    rows and t.shape.rank == shape.rank and t.shape.as_list()[0] != 1):
                return None
        if batched:
            varying.add(id(op.outputs[0]))
        ops.append(op)
    if not all(id(t) in varying for t in nest.flatten(traced.outputs)):
        return None

    def run(*args):
        mapping = {id(p): a for p, a in zip(traced.inputs, nest.flatten(list(args)))}
        for op in ops:
            out = apply_op(op.opdef, [mapping[id(t)] for t in op.inputs], dict(op.attrs))
            mapping[id(op.outputs[0])] = out
        return nest.map_structure(lambda t: mapping[id(t)], traced.outputs)
    return run


def _known(shape) -> bool:
    return shape.is_fully_defined()


def _rows_known(shape) -> bool:
    """A shape of rows: its rank and every dimension but the first known."""
    return shape.rank is not None and shape.rank >= 1 and all(
        d is not None for d in shape.as_list()[1:])
