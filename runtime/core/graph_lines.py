"""The graph to read: one line per node, cond and while bodies indented under their node.
The Collatz loop of the quick start (`while n > 1: if n % 2 == 0: ...; steps += 1`):

    n: int32[] = Placeholder(shape=())
    Const_1: int32[] = Const(0)
    while: int32[], while:1: int32[] = StatelessWhile(n, Const_1) {
      cond_body(n, steps):
        Const: int32[] = Const(1)
        Greater: bool[] = Greater(n, Const)
        return Greater
      body(n, steps):
        ...
        cond: int32[] = StatelessIf(Equal, n) {
          then_body(n_capture):
            ...
        }
        ...
        return cond, add
    }
    Identity: int32[] = Identity(while:1)

A line is `output: type, ... = Op(inputs, attribute=value, ...)`; an input names the
node that makes it (`node:k` for its output k > 0); a small constant shows its value;
a body lists its parameters (the loop variables' Python names) and what it returns.
The GraphDef text (`graph_def.graph_text`) is the exchange form; this one is for people.
"""
from __future__ import annotations

import numpy as np

from .dtypes import DType
from .shapes import TensorShape

_VALUE_ELEMENTS = 8          # a constant with at most this many elements shows its value
_ATTR_CHARS = 40             # an attribute value longer than this is elided
# attributes the line shows otherwise (types) or that say how inputs are laid out
_LAYOUT = frozenset({"out_specs", "num_loop_vars", "has_max", "dtype", "T"})


def graph_lines(graph) -> str:
    return "\n".join(_lines(graph, graph.operations, 0))


def _ref(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _type(t) -> str:
    shape = t.shape
    dims = "?" if shape.rank is None else ",".join("?" if d is None else str(d)
                                                     for d in shape.as_list())
    return f"{t.dtype.name}[{dims}]"


def _value(v) -> str:
    a = np.asarray(v)
    if a.size > _VALUE_ELEMENTS:
        return f"<{a.size} values>"
    text = np.array2string(a, separator=", ", threshold=_VALUE_ELEMENTS) if a.ndim else repr(a.item())
    return text.replace("\n", " ")


def _attr(v) -> str:
    if isinstance(v, (DType,)):
        return v.name
    if isinstance(v, TensorShape):
        return str(v)
    if isinstance(v, np.ndarray):
        return _value(v)
    name = getattr(v, "name", None)
    if isinstance(name, str) and not isinstance(v, (str, bytes, tuple, list, dict)):
        return name          # a Variable, a dtype-like object: by its name
    text = repr(v)
    return text if len(text) <= _ATTR_CHARS else text[:_ATTR_CHARS - 3] + "..."


def _call(op) -> str:
    args = [_ref(t) for t in op.inputs]
    d = op.opdef
    bodies = set(d.body_attrs)
    for k, v in op.attrs.items():
        if k in bodies or k in _LAYOUT:
            continue
        if d.constant and k == "value":
            args.append(_value(v))
            continue
        args.append(f"{k}={_attr(v)}")
    return f"{d.name}({', '.join(args)})"


def _lines(graph, ops, depth: int) -> list:
    pad = "  " * depth
    out = []
    for op in ops:
        results = ", ".join(f"{_ref(t)}: {_type(t)}" for t in op.outputs) or op.name
        head = f"{pad}{results} = {_call(op)}"
        bodies = op.opdef.bodies(op)
        if not bodies:
            out.append(head)
            continue
        out.append(head + " {")
        for attr, body in zip(op.opdef.body_attrs, bodies):
            params = ", ".join(p.op.name if p is not None else "_" for p in body.params)
            out.append(f"{pad}  {attr}({params}):")
            out.extend(_lines(body.graph, [o for o in body.graph.operations
                                           if not o.opdef.feedable], depth + 2))
            returned = ", ".join(_ref(t) for t in body.outputs)
            out.append(f"{pad}    return {returned}")
        out.append(pad + "}")
    return out


