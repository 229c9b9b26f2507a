"""`GradientTape.jacobian` and `batch_jacobian` (tape.py calls them with its backward
pass): one backward pass per element of the target (of a target row, for batch_jacobian),
each seeded with a one-hot output gradient, the results stacked.

Eagerly, and inside a trace where the number of passes is known and small
(`UNROLLED_PASSES`), the passes are a Python loop (the graph holds one backward pass per
element). Where a trace does not know it (a target of unknown shape), or there are more,
the passes are a staged `while_loop` writing a TensorArray.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..control_flow import while_loop
from ..core.graph import current_graph
from ..core.shapes import TensorShape
from ..ops import makers
from ..ops.array_ops import concat, reshape, shape, size, transpose
from ..ops.core import constant, stack
from ..ops.makers import zeros, zeros_like
from ..ops.math_ops import cast, equal
from ..ops.reduce_ops import reduce_prod
from ..ops.state_ops import Variable
from ..ops.tensor_array import TensorArray

# In a graph, up to this many backward passes are written out one after the other; more
# are one staged loop (the graph would otherwise grow with the target's size).
UNROLLED_PASSES = 32


def jacobian(target, sources: list, grads: Callable, unconnected: Optional[str]) -> list:
    """For each source, d target[i...] / d source[j...] shaped `target.shape +
    source.shape` (None, or zeros with `unconnected` "zero", for a source the target does
    not depend on). `grads(seed)` is the backward pass: for each source, the gradient of
    sum(target * seed)."""
    count = target.shape.num_elements()
    probe = _zero_seed(target)
    if count is None or (count > UNROLLED_PASSES and current_graph() is not None):
        flat_count = size(target)
        rows = _staged_rows(grads, probe, flat_count,
                            lambda i: reshape(_one_hot(i, flat_count, target.dtype),
                                              shape(target)))
    else:
        rows = _rows(grads, probe, [_seed(target, i, count) for i in range(count)])
    out = []
    for source, row in zip(sources, rows):
        full = _as_shape(_shape_of(target) + _shape_of(source))
        if row is None:
            out.append(zeros(full, source.dtype) if unconnected == "zero" else None)
        else:
            out.append(reshape(row, full))
    return out


def batch_jacobian(target, source, grads: Callable, unconnected: Optional[str]):
    """[b, y..., x...]: the jacobian of target[i] ([b, y...]) with respect to source[i]
    ([b, x...]) for each i. `grads(seed)` is the backward pass for the one source."""
    for what, t in (("target", target), ("source", source)):
        if t.shape.rank is not None and t.shape.rank < 2:
            raise ValueError(f"batch_jacobian needs a {what} of rank 2 or more ([batch, ...]), "
                             f"got shape {t.shape}")
    batch, source_batch = _dim0(target), _dim0(source)
    if batch is not None and source_batch is not None and batch != source_batch:
        raise ValueError(f"Need first dimension of target shape ({target.shape}) and source "
                         f"shape ({source.shape}) to match.")
    if source.shape.rank is None:
        raise ValueError(
            f"batch_jacobian inside rt.function needs the rank of the source, got shape "
            f"{source.shape}: give the function an input_signature with known ranks")
    per_row = (None if target.shape.rank is None
               else TensorShape(target.shape.as_list()[1:]).num_elements())
    probe = _zero_seed(target)
    if per_row is None or (per_row > UNROLLED_PASSES and current_graph() is not None):
        row_count = reduce_prod(shape(target)[1:])
        (columns,) = _staged_rows(lambda seed: [grads(seed)], probe, row_count,
                                  lambda j: _batch_seed(target, _one_hot(j, row_count,
                                                                         target.dtype)))
        if columns is not None:   # [row, b, x...] -> [b, row, x...]
            columns = transpose(columns, [1, 0] + list(range(2, source.shape.rank + 1)))
    else:
        (columns,) = _rows(lambda seed: [grads(seed)], probe,
                           [_batch_seed(target, _row(target, j, per_row))
                            for j in range(per_row)], axis=1)
    full = _as_shape(_shape_of(target) + _shape_of(source)[1:])
    if columns is None:
        return zeros(full, source.dtype) if unconnected == "zero" else None
    return reshape(columns, full)


def _rows(grads, probe_seed, seeds: list, axis: int = 0) -> list:
    """The backward pass for each seed, stacked on `axis` per source (None where the target
    does not reach the source; with no seeds, what a zero seed reaches)."""
    if not seeds:      # (an empty jacobian, of the dtype of each gradient reached)
        return [None if g is None else zeros([0], g.dtype) for g in grads(probe_seed)]
    passes = [grads(seed) for seed in seeds]
    return [None if passes[0][k] is None else stack([p[k] for p in passes], axis=axis)
            for k in range(len(passes[0]))]


def _staged_rows(grads, probe_seed, count, seed_of: Callable) -> list:
    """`_rows` for a number of passes known only when the graph runs: a staged loop writing
    each pass's gradients to a TensorArray per source (stacked: [count, ...])."""
    reached = grads(probe_seed)
    found = [k for k, g in enumerate(reached) if g is not None]
    # One element more, written first at index 0 (zeros): a TensorArray of no element
    # stacks only where its element shape is fully known, and the trace may not know it.
    # Every write is in order 0, 1, 2, ... (an exported TensorArray appends in order).
    arrays = [TensorArray(reached[k].dtype, size=count + 1, element_shape=reached[k].shape)
              .write(0, zeros_like(reached[k])) for k in found]

    def body(i, *arrays):
        passes = grads(seed_of(i))
        return (i + 1, *[a.write(i + 1, passes[k]) for a, k in zip(arrays, found)])

    _, *arrays = while_loop(lambda i, *_: i < count, body, [constant(0), *arrays])
    stacked = dict(zip(found, (a.stack()[1:] for a in arrays)))
    return [stacked.get(k) for k in range(len(reached))]


def _zero_seed(target):
    """A zero output gradient: what it reaches is what the target depends on."""
    if target.shape.is_fully_defined():
        return constant(np.zeros(target.shape.as_list(), target.dtype.np_dtype))
    return zeros(shape(target), target.dtype)


def _seed(target, i: int, count: int):
    """A one-hot output gradient of the target's shape (a constant): 1 at flat index i."""
    return _one_hot_constant(target, i, count, target.shape.as_list())


def _row(target, j: int, per_row: int):
    """One flat target row of `per_row` elements (a constant), 1 at index j."""
    return _one_hot_constant(target, j, per_row, [per_row])


def _one_hot_constant(target, i: int, count: int, shape: list):
    values = np.zeros(count, target.dtype.np_dtype)
    values[i] = 1
    return constant(values.reshape(shape))


def _batch_seed(target, row):
    """`row` (one flat target row, one-hot) in every row of the [b, y...] target's shape."""
    if target.shape.is_fully_defined():
        return reshape(zeros([target.shape.as_list()[0], 1], target.dtype) + row,
                       target.shape.as_list())
    return reshape(zeros(stack([shape(target)[0], 1]), target.dtype) + row, shape(target))


def _one_hot(i, count, dtype):
    return cast(equal(makers.range(count), i), dtype)


def _dim0(t) -> Optional[int]:
    return None if t.shape.rank is None else t.shape.as_list()[0]


def _shape_of(t) -> list:
    """The shape of a tensor or Variable: a list of ints where known, else of ints and
    scalar tensors (or one shape tensor for an unknown rank)."""
    static = t.shape
    if static.is_fully_defined():
        return static.as_list()
    dynamic = shape(t.read_value() if isinstance(t, Variable) else t)
    if static.rank is None:
        return [dynamic]
    return [d if d is not None else dynamic[k] for k, d in enumerate(static.as_list())]


def _as_shape(parts: list):
    """A shape for reshape/zeros from `_shape_of` parts: the list itself where all are
    ints, else one int32 shape tensor."""
    if all(isinstance(p, int) for p in parts):
        return parts
    return concat([reshape(p, [-1]) if not isinstance(p, int) else constant([p]) for p in parts],
                  axis=0)
