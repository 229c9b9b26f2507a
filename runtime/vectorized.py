"""`rt.vectorized_map` (TensorFlow's `tf.vectorized_map`): `fn` applied to every element of
`elems` along the first axis, the results stacked, without the caller giving fn's output
signature. TensorFlow vectorizes `fn` (pfor) and falls back to a while loop; here the
result is always that of the loop (`rt.map_fn`, one staged while loop in a graph), with
fn's output structure, dtypes and shapes found by tracing `fn` once on placeholders of one
element.
"""
from __future__ import annotations

from typing import Callable

from . import nest
from .core.graph import Graph, current_graph, placeholder
from .core.shapes import TensorShape, TensorSpec
from .functional_ops import element_tensors, map_fn
from .ops.core import convert_to_tensor, stack
from .ops.makers import zeros

__all__ = ["vectorized_map"]


def _signature(fn: Callable, leaves: list, elems):
    """fn's output for one element, as a nest of TensorSpecs (traced on placeholders in a
    graph of its own, which may read the current graph's tensors)."""
    graph = Graph("vectorized_map_signature", outer=current_graph())
    with graph.as_default():
        element = nest.pack_sequence_as(
            elems, [placeholder(t.dtype, t.shape[1:]) for t in leaves])
        out = fn(element)
        return nest.map_structure(
            lambda t: TensorSpec(convert_to_tensor(t).shape, convert_to_tensor(t).dtype), out)


def _empty(spec: TensorSpec):
    dims = [0 if d is None else d for d in (spec.shape.as_list() if spec.shape.rank is not None
                                            else [])]
    return zeros([0] + dims, spec.dtype)


def vectorized_map(fn: Callable, elems, fallback_to_while_loop: bool = True, warn: bool = True):
    """`stack([fn(e) for e in unstack(elems)])` for a tensor or nest of tensors `elems`
    sharing their first dimension (TensorFlow's `tf.vectorized_map`): fn takes one element
    (the nest of slices) and returns a tensor or nest of tensors; the results are stacked
    along a new first axis. No element gives zero-row results shaped as fn's output for one
    element. Gradients flow through it as through `rt.map_fn`.

    Args:
      fn: a callable of one element.
      elems: a tensor or a nest of tensors, unstacked along their first axis.
      fallback_to_while_loop: accepted for TensorFlow's signature (the loop is what runs).
      warn: accepted for TensorFlow's signature.

    Returns:
      fn's results stacked, in fn's output structure.

    >>> print(rt.vectorized_map(lambda x: rt.reduce_sum(x * x), rt.constant([[1., 2.], [3., 4.]])))
    rt.Tensor([ 5. 25.], shape=(2,), dtype=float32)
    >>> a, b = rt.vectorized_map(lambda e: (e[0] + e[1], e[0] > 1),
    ...                          (rt.constant([1, 2]), rt.constant([10, 20])))
    >>> print(a, b)
    rt.Tensor([11 22], shape=(2,), dtype=int32) rt.Tensor([False  True], shape=(2,), dtype=bool)
    >>> print(rt.vectorized_map(lambda x: x[:1] * 2.0, rt.zeros([0, 3])).shape)
    (0, 1)
    """
    leaves = element_tensors(elems, "vectorized_map: ")
    elems = nest.pack_sequence_as(elems, leaves)
    if current_graph() is None:
        n = leaves[0].shape[0]
        if any(t.shape[0] != n for t in leaves):
            raise ValueError("vectorized_map: all elems must have the same first dimension, "
                             f"got {[t.shape[0] for t in leaves]}")
        if n == 0:
            return nest.map_structure(_empty, _signature(fn, leaves, elems))
        results = [fn(nest.pack_sequence_as(elems, [t[i] for t in leaves])) for i in range(n)]
        columns = zip(*[[convert_to_tensor(v) for v in nest.flatten(r)] for r in results])
        return nest.pack_sequence_as(results[0], [stack(list(c)) for c in columns])
    signature = _signature(fn, leaves, elems)
    signature = nest.map_structure(
        lambda s: TensorSpec(s.shape if s.shape.is_fully_defined() else TensorShape(None),
                             s.dtype), signature)
    return map_fn(fn, elems, fn_output_signature=signature, infer_shape=False)
