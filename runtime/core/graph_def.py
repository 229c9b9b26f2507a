"""`Graph.as_graph_def()`: the graph as plain records (`.node` with `.name`, `.op`,
`.input`, `.attr`; `.library` with the sub-graphs of cond and while nodes), and the one
printer that renders it as TensorFlow-style text."""
from __future__ import annotations

import numpy as np

from . import walk
from .dtypes import DType, as_dtype
from .shapes import TensorShape


class NodeDef:
    __slots__ = ("name", "op", "input", "attr")

    def __init__(self, name, op, inputs, attr):
        self.name = name
        self.op = op
        self.input = inputs
        self.attr = attr

    def __str__(self):
        return "\n".join(_node_lines(self, 0))

    def __repr__(self):
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class FunctionDef:
    """A sub-graph (branch, loop test or body): its inputs, nodes and outputs."""

    __slots__ = ("name", "input_arg", "output_arg", "node_def", "ret")

    def __init__(self, name, input_arg, output_arg, node_def, ret):
        self.name = name
        self.input_arg = input_arg
        self.output_arg = output_arg
        self.node_def = node_def
        self.ret = ret


class GraphDef:
    __slots__ = ("node", "library")

    def __init__(self, node, library):
        self.node = node
        self.library = library

    def __str__(self):
        lines = []
        for n in self.node:
            lines.append("node {")
            lines.extend(_node_lines(n, 1))
            lines.append("}")
        if self.library:
            lines.append("library {")
            for f in self.library:
                lines.extend(_function_lines(f, 1))
            lines.append("}")
        return "\n".join(lines) + ("\n" if lines else "")

    __repr__ = __str__


_HIDDEN_ATTRS = ("rng", "out_specs")  # run-time state and facts the outputs already show
_TF_TYPE_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


def type_name(dtype) -> str:
    return "DT_" + _TF_TYPE_NAMES.get(dtype.name, dtype.name.upper())


def _quote(text: str) -> str:
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


def tensor_ref(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def node_def(op, function_names=None) -> NodeDef:
    attr = {}
    for k, v in op.attrs.items():
        if k in op.opdef.body_attrs:  # a sub-graph: named in the library
            attr[k] = ("func", function_names.get(id(v), k) if function_names else k)
        elif k in _HIDDEN_ATTRS:
            continue
        else:
            attr[k] = v
    if "out_specs" in op.attrs:
        attr["Tout"] = [d for _, d in op.attrs["out_specs"]]
    elif op.inputs and "T" not in attr:
        attr["T"] = op.inputs[0].dtype
    return NodeDef(op.name, op.opdef.name, [tensor_ref(t) for t in op.inputs], attr)


def graph_def(graph) -> GraphDef:
    library, names = [], {}
    _collect_functions(graph, library, names)
    return GraphDef([node_def(op, names) for op in walk.schedule(graph)], library)


def graph_text(graph) -> str:
    """The graph's one text form: its GraphDef printed by the printer below."""
    return str(graph_def(graph))


def _collect_functions(graph, library, names):
    for op in walk.schedule(graph):
        for k, v in op.attrs.items():  # (in attribute order, as a loaded graph has them)
            if k in op.opdef.body_attrs and id(v) not in names:
                fname = f"{op.name.replace('/', '_')}_{k}_{len(names)}"
                names[id(v)] = fname
                _collect_functions(v.graph, library, names)
                inputs = [p for p in v.params if p is not None]
                library.append(FunctionDef(
                    fname, [p.op.name for p in inputs], [tensor_ref(t) for t in v.outputs],
                    [node_def(o, names) for o in walk.schedule(v.graph)],
                    {f"output_{i}": tensor_ref(t) for i, t in enumerate(v.outputs)}))


# -- the text printer ------------------------------------------------------------------------

def _node_lines(n: NodeDef, depth: int) -> list:
    pad = "  " * depth
    lines = [f'{pad}name: "{n.name}"', f'{pad}op: "{n.op}"']
    lines += [f'{pad}input: "{i}"' for i in n.input]
    for k in sorted(n.attr):
        body = _attr_value_lines(n.attr[k], depth + 2)
        if body is None:
            continue
        lines += [f"{pad}attr {{", f'{pad}  key: "{k}"', f"{pad}  value {{", *body,
                  f"{pad}  }}", f"{pad}}}"]
    return lines


def _function_lines(f: FunctionDef, depth: int) -> list:
    pad = "  " * depth
    lines = [f"{pad}function {{", f"{pad}  signature {{", f'{pad}    name: "{f.name}"']
    lines += [f'{pad}    input_arg {{ name: "{a}" }}' for a in f.input_arg]
    lines += [f'{pad}    output_arg {{ name: "{a}" }}' for a in f.output_arg]
    lines.append(f"{pad}  }}")
    for n in f.node_def:
        lines.append(f"{pad}  node_def {{")
        lines += _node_lines(n, depth + 2)
        lines.append(f"{pad}  }}")
    for k, v in f.ret.items():
        lines.append(f'{pad}  ret {{ key: "{k}" value: "{v}" }}')
    lines.append(f"{pad}}}")
    return lines


def _shape_lines(s: TensorShape, pad: str) -> list:
    if s.rank is None:
        return [f"{pad}shape {{", f"{pad}  unknown_rank: true", f"{pad}}}"]
    if s.rank == 0:
        return [f"{pad}shape {{", f"{pad}}}"]
    dims = [f"{pad}  dim {{ size: {-1 if d is None else d} }}" for d in s.as_tuple()]
    return [f"{pad}shape {{", *dims, f"{pad}}}"]


_VAL_FIELD = {"f": "float_val", "i": "int_val", "u": "int_val", "b": "bool_val", "O": "string_val"}


def _tensor_lines(a, pad: str) -> list:
    a = np.asarray(a)
    dt = as_dtype(a.dtype)
    lines = [f"{pad}tensor {{", f"{pad}  dtype: {type_name(dt)}"]
    shape = _shape_lines(TensorShape(a.shape), pad + "  ")
    shape[0] = shape[0].replace("shape {", "tensor_shape {")
    lines += shape
    field = _VAL_FIELD[a.dtype.kind]
    flat = a.reshape(-1)
    if flat.size <= 16:
        for v in flat:
            lines.append(f"{pad}  {field}: {_scalar_text(v)}")
    else:
        lines.append(f'{pad}  tensor_content: "<{a.nbytes} bytes>"')
    lines.append(f"{pad}}}")
    return lines


def _scalar_text(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (bytes, np.bytes_)):
        return _quote(v.decode("utf-8", "replace"))
    return str(v)


def _attr_value_lines(v, depth: int):
    pad = "  " * depth
    if v is None:
        return None
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "func":
        return [f"{pad}func {{", f'{pad}  name: "{v[1]}"', f"{pad}}}"]
    if isinstance(v, DType):
        return [f"{pad}type: {type_name(v)}"]
    if isinstance(v, TensorShape):
        return _shape_lines(v, pad)
    if isinstance(v, (np.ndarray, np.generic)):
        return _tensor_lines(v, pad)
    if isinstance(v, bool):
        return [f"{pad}b: {'true' if v else 'false'}"]
    if isinstance(v, int):
        return [f"{pad}i: {v}"]
    if isinstance(v, float):
        return [f"{pad}f: {v}"]
    if isinstance(v, str):
        return [f"{pad}s: {_quote(v)}"]
    if isinstance(v, (list, tuple)):
        items = []
        for x in v:
            sub = _attr_value_lines(x, depth + 1)
            if sub:
                items += sub
        return [f"{pad}list {{", *items, f"{pad}}}"]
    name = getattr(v, "name", None)
    if isinstance(name, str):
        return [f'{pad}s: "{name}"']
    return [f'{pad}s: "{getattr(v, "__name__", type(v).__name__)}"']
