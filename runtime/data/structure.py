"""Element structures of datasets (nests of tensors and their TensorSpecs), and the
user functions of `map`/`filter`/`reduce` traced once and replayed wherever they are used.

A function given to `Dataset.map` is converted with autograph and traced ONCE, into a
ConcreteFunction whose graph is then copied into each graph that uses the dataset (the
staged loop of a `for` over it, the eager iterator's graph): its Python runs once, as
TensorFlow's does, however many elements flow and however many loops read it.
"""
from __future__ import annotations

import numpy as np

import autograph as ag

from .. import nest
from ..core import dtypes, walk
from ..core.apply import in_graph
from ..core.graph import Graph, current_graph
from ..core.opdef import placeholder_op
from ..core.shapes import TensorShape, TensorSpec
from ..ops.core import convert_to_tensor
from ..ops.makers import fill


def spec_of(value) -> TensorSpec:
    return TensorSpec(value.shape, value.dtype)


def structure_of(value):
    """The nest of TensorSpecs of a nest of tensors."""
    return nest.map_structure(spec_of, value)


def to_tensors(value):
    """A user's element structure (tuples, dicts, lists as tensors) as a nest of tensors.
    A list becomes one tensor, as `tf.data` does (`from_tensor_slices([1, 2])`)."""
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(to_tensors(v) for v in value)
    if isinstance(value, tuple):
        return type(value)(*(to_tensors(v) for v in value))
    if isinstance(value, dict):
        return {k: to_tensors(v) for k, v in value.items()}
    return convert_to_tensor(value)


def zeros_for(spec_structure):
    """A placeholder element (zeros; unknown dimensions 0) of a structure of specs: the
    value a staged iterator holds before its first element."""
    def one(spec):
        dims = [0 if d is None else d for d in spec.shape.as_list()] \
            if spec.shape.rank is not None else [0]
        if spec.dtype is dtypes.string:
            return fill(dims, convert_to_tensor("", dtype=dtypes.string))
        return convert_to_tensor(np.zeros(dims, dtype=spec.dtype.np_dtype), dtype=spec.dtype)
    return nest.map_structure(one, spec_structure)


def relaxed(a, b):
    """The most specific spec structure that both `a` and `b` fit."""
    return nest.map_structure(
        lambda x, y: TensorSpec(x.shape.most_specific_common(y.shape), x.dtype), a, b)


def _signature(spec):
    """The input_signature calling a dataset function on one element: a tuple element is
    spread over positional arguments (as tf.data does), anything else is one argument."""
    if isinstance(spec, tuple) and not hasattr(spec, "_fields"):
        return list(spec)
    return [spec]


class TracedFunction:
    """`fn` on elements of `spec`, converted by autograph and traced once; `__call__`
    copies its graph into the current graph (eagerly it calls `fn`).

    Traced inside a function, `fn` may read that function's tensors (a `map` scaling by an
    argument): they are captured, as a cond's branch captures them, and each copy reads
    them from the graph it is copied into (that graph, or one of its loops' bodies)."""

    def __init__(self, fn, args_spec, what: str, spread: bool = True):
        if not callable(fn):
            raise TypeError(f"{what} must be callable, got {fn!r}")
        self.what = what
        self.fn = fn
        self._spread_args = spread
        sig = _signature(args_spec) if spread else [args_spec]
        converted = ag.for_staging(fn)
        outer = current_graph()
        graph = Graph(getattr(fn, "__name__", "fn"), outer=outer)
        graph.building_function = True
        with graph.as_default():
            flat = [placeholder_op(graph, s.dtype, s.shape, name="args")
                    for s in nest.flatten(sig)]
            out = converted(*nest.pack_sequence_as(sig, flat))
            out = nest.map_structure(lambda t: in_graph(graph, convert_to_tensor(t)), out)
        self.graph, self.inputs, self.outputs = graph, flat, out
        self.output_spec = nest.map_structure(spec_of, out)

    def __call__(self, *args):
        graph = current_graph()
        if graph is None:
            return nest.map_structure(convert_to_tensor, self.fn(*args))
        feeds = {id(p): in_graph(graph, convert_to_tensor(a))
                 for p, a in zip(self.inputs, nest.flatten(list(args)))}
        for outer_t, inner in self.graph.captured_inputs():
            feeds[id(inner)] = in_graph(graph, outer_t)
        mapping = _copy_ops(self.graph, graph, feeds)
        return nest.map_structure(lambda t: mapping[id(t)], self.outputs)


def _copy_ops(source, target, feeds: dict) -> dict:
    """Copies every op of `source` (side effects included) into `target`, its
    placeholders fed by `feeds` ({id(placeholder tensor): tensor}). Returns
    {id(source tensor): copy}."""
    mapping = dict(feeds)
    for op in walk.schedule(source):
        d = op.opdef
        if d.feedable:
            continue
        inputs = []
        for t in op.inputs:
            m = mapping.get(id(t))
            inputs.append(m if m is not None else in_graph(target, t))
        new = target.add_op(d, inputs, op.attrs, [(o.shape, o.dtype) for o in op.outputs],
                            op.name)
        for o, n in zip(op.outputs, new.outputs):
            mapping[id(o)] = n
    return mapping


def shape_known(spec_structure) -> bool:
    return all(s.shape.is_fully_defined() for s in nest.flatten(spec_structure))


def batched_spec(spec_structure, size):
    return nest.map_structure(
        lambda s: TensorSpec(TensorShape([size] + s.shape.as_list()), s.dtype), spec_structure)
