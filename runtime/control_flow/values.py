"""What travels through staged control flow, shared by `cond` and `while_loop`: values
made tensors and back (TensorArrays and staged lists travel as their handle tensor), the
names of a structure's leaves, and the outer tensors that sub-graphs capture."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import nest
from ..core import dtypes
from ..core.apply import in_graph
from ..core.graph import Graph, current_graph
from ..core.tensor import Tensor
from ..ops.core import constant, convert_to_tensor
from ..ops.list_ops import StagedList
from ..ops.tensor_array import TensorArray

HANDLED = (TensorArray, StagedList)   # values that travel as their handle tensor


def path_names(structure, prefix) -> list:
    """Names for the leaves of a nested structure: 'loop_vars[0]', "x['a']", ..."""
    if isinstance(structure, dict):
        keys = sorted(structure, key=lambda k: (type(k).__name__, k) if not isinstance(k, (int, float)) else ("", k))
        return [n for k in keys for n in path_names(structure[k], f"{prefix}[{k!r}]")]
    if isinstance(structure, (list, tuple)):
        return [n for i, v in enumerate(structure) for n in path_names(v, f"{prefix}[{i}]")]
    parts = getattr(structure, "_rt_component_names", None)   # a composite: x.indices ...
    if parts is not None and nest.is_composite(structure):
        return [n for part, v in zip(parts, structure._rt_components())
                for n in path_names(v, f"{prefix}.{part}")]
    return [prefix]


def leaf_to_tensor(v, dtype_hint=None):
    """A loop/branch value as a tensor; TensorArrays and staged lists travel as their
    handle tensor."""
    if isinstance(v, HANDLED):
        return v.handle
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v, dtype_hint=dtype_hint)


def rebuild(template, tensor):
    if isinstance(template, HANDLED):
        return template._with_handle(tensor)
    return tensor


def is_tensorish(v) -> bool:
    """Whether `v` is a value a `cond` merges (a staged list is not: both branches give
    the one list, passed through as it is)."""
    if isinstance(v, StagedList):
        return False
    if isinstance(v, (Tensor, TensorArray)) or getattr(v, "_as_tensor", None) is not None:
        return True
    try:
        dtypes.infer_dtype(v)
        return True
    except TypeError:
        return False


def subgraph_inputs(graphs: Sequence[Graph]):
    """The outer tensors all `graphs` captured, in a stable order, and for each graph the
    placeholders fed by them (None where a graph does not use one)."""
    ext, index = [], {}
    for g in graphs:
        for outer_t, _ in g.captured_inputs():
            if id(outer_t) not in index:
                index[id(outer_t)] = len(ext)
                ext.append(outer_t)
    params = []
    for g in graphs:
        p = [None] * len(ext)
        for outer_t, inner in g.captured_inputs():
            p[index[id(outer_t)]] = inner
        params.append(p)
    return ext, params


def has_side_effects(*graphs) -> bool:
    return any(g.has_side_effects for g in graphs)


def describe(v) -> str:
    if v is None:
        return "None"
    return f"a {type(v).__name__}"


def in_graph_tensor(g, t):
    """`t` as a tensor owned by `g` (so the branch returns it from inside)."""
    with g.as_default():
        return in_graph(g, t)


def in_current_graph(t):
    """`t` as a tensor of the graph being built (a capture when it is an outer one):
    staging takes a node's direct inputs as they are."""
    return t if t is None else in_graph(current_graph(), t)


def placeholder_value(template):
    """A zero value with `template`'s dtype and (known part of its) shape, made without
    referring to `template` (which may live in a sibling graph)."""
    if isinstance(template, HANDLED):
        return template._empty_like()
    if isinstance(template, Tensor):
        dims = template.shape.dims
        shape = () if dims is None else tuple(d or 0 for d in dims)
        dtype = template.dtype
    else:
        dtype = dtypes.infer_dtype(template)
        shape = np.shape(template)
    fill = b"" if dtype.is_string else 0
    return constant(np.full(shape, fill, dtype=dtype.np_dtype), dtype)


def float_variables(variables) -> list:
    """The Variables among `variables` that have gradients (the floating ones)."""
    return [v for v in variables if v.dtype.is_floating]


def as_var_list(out, n):
    if n == 1 and not isinstance(out, (list, tuple)):
        return [out]
    if isinstance(out, (list, tuple)) and not hasattr(out, "_fields"):
        out = list(out)
        if len(out) != n:
            raise ValueError(f"the loop body returned {len(out)} values for {n} loop variables")
        return out
    if n == 1:
        return [out]
    return list(out)


def like(loop_vars, values: list, single: bool):
    """`values` in the container type the user passed as `loop_vars`."""
    if single:
        return values[0]
    if isinstance(loop_vars, tuple):
        return type(loop_vars)(*values) if hasattr(loop_vars, "_fields") else tuple(values)
    return values
