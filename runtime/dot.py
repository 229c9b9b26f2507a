"""Pictures of graphs: `Graph.to_dot()` writes Graphviz DOT text.

Each op is a box showing its name, its type and the dtype and shape of each output; an
edge carries a tensor from the op that makes it to the op that uses it. The sub-graphs
of a `cond` (then/else) and of a `while_loop` (test/body) are nested clusters beside
their node: dashed edges feed the node's inputs to the sub-graph's parameters and bring
the sub-graph's results back to the node.

    dot -Tsvg graph.dot -o graph.svg     # Graphviz renders it
"""
from __future__ import annotations

import itertools
from typing import Optional

import numpy as np

from .core import hooks, walk
from .control_flow import CondDef, WhileInputs

_STYLE = {
    "placeholder": 'shape=ellipse, fillcolor="#dbeafe"',
    "const": 'shape=box, fillcolor="#f3f4f6"',
    "cond": 'shape=diamond, fillcolor="#fef3c7"',
    "while": 'shape=hexagon, fillcolor="#fde68a"',
    "effect": 'shape=box, fillcolor="#fee2e2"',
    "op": 'shape=box, fillcolor="#ffffff"',
}
_BODY_LABELS = {"then_body": "then", "else_body": "else", "cond_body": "test", "body": "body"}


def graph_dot(graph, outputs: Optional[list] = None, name: Optional[str] = None) -> str:
    """DOT text for `graph` (and a `return` node for `outputs`, default graph.outputs)."""
    w = _Writer()
    w.line(0, f"digraph {_quote(name or graph.name)} {{")
    w.line(1, 'rankdir=TB; compound=true; fontname="Helvetica"; fontsize=11;')
    w.line(1, 'node [style="rounded,filled", fontname="Helvetica", fontsize=10];')
    w.line(1, 'edge [fontname="Helvetica", fontsize=9, color="#6b7280"];')
    w.graph(graph, 1)
    outputs = list(outputs if outputs is not None else getattr(graph, "outputs", []) or [])
    if outputs:
        ret = w.fresh()
        w.line(1, f'{ret} [label="return", shape=oval, fillcolor="#dcfce7"];')
        for i, t in enumerate(outputs):
            w.edge(1, t, ret, f"{i}" if len(outputs) > 1 else "")
    w.line(0, "}")
    return "\n".join(w.lines) + "\n"


class _Writer:
    def __init__(self):
        self.lines: list = []
        self.ids: dict = {}          # id(op) -> dot node id
        self._counter = itertools.count()

    def fresh(self) -> str:
        return f"n{next(self._counter)}"

    def line(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def node_id(self, op) -> str:
        nid = self.ids.get(id(op))
        if nid is None:
            nid = self.ids[id(op)] = self.fresh()
        return nid

    def edge(self, depth, t, target, label="", style=""):
        attrs = [f"label={_quote(label)}"] if label else []
        if style:
            attrs.append(style)
        tail = f" [{', '.join(attrs)}]" if attrs else ""
        self.line(depth, f"{self.node_id(t.op)} -> {target}{tail};")

    def graph(self, graph, depth: int) -> None:
        for op in walk.schedule(graph):
            self.line(depth, f"{self.node_id(op)} [label={_quote(_label(op))}, "
                             f"{_STYLE[_KIND.visit(op)]}];")
            for k, t in enumerate(op.inputs):
                self.edge(depth, t, self.node_id(op), _tensor_text(t) if len(op.inputs) <= 4 else str(k))
            for attr, body in _bodies(op):
                self.body(op, attr, body, depth)

    def body(self, op, attr, body, depth) -> None:
        cluster = f"cluster_{self.fresh()}"
        self.line(depth, f"subgraph {cluster} {{")
        title = f"{op.name}: {_BODY_LABELS.get(attr, attr)}"
        self.line(depth + 1, f'label={_quote(title)}; style="rounded,dashed"; color="#9ca3af";')
        self.graph(body.graph, depth + 1)
        self.line(depth, "}")
        node = self.node_id(op)
        for t, p in zip(_fed(op), body.params):
            if p is not None:  # the node's input feeds this parameter
                self.edge(depth, t, self.node_id(p.op), style='style=dashed, color="#9ca3af"')
        for i, t in enumerate(body.outputs):
            label = f"{_BODY_LABELS.get(attr, attr)} {i}" if len(body.outputs) > 1 else \
                _BODY_LABELS.get(attr, attr)
            self.edge(depth, t, node, label, style='style=dashed, color="#9ca3af"')


def _bodies(op) -> list:
    """(attribute, Body) of the op's sub-graphs, in the order of its attributes."""
    return [(k, v) for k, v in op.attrs.items() if k in op.opdef.body_attrs]


def _fed(op) -> list:
    """The node's inputs that feed its sub-graphs' parameters, in parameter order."""
    if isinstance(op.opdef, CondDef):
        return op.inputs[1:]  # after the predicate
    layout = WhileInputs.of(op)
    return layout.init + layout.captured


class _Kind(walk.Visitor):
    """The style of an op's box."""

    def placeholder(self, op):
        return "placeholder"

    def const(self, op):
        return "const"

    def cond(self, op):
        return "cond"

    def while_loop(self, op):
        return "while"

    def op(self, op):
        return "effect" if op.opdef.side_effect else "op"


_KIND = _Kind()


def _tensor_text(t) -> str:
    return f"{t.dtype.name}{_shape_text(t.shape)}"


def _shape_text(s) -> str:
    if s.rank is None:
        return "[?...]"
    return "[" + ",".join("?" if d is None else str(d) for d in s.as_tuple()) + "]"


def _label(op) -> str:
    lines = [op.name] if op.name == op.type else [op.name, op.type]
    if op.opdef.constant:
        v = np.asarray(op.attrs["value"])
        if v.size <= 4 and v.dtype != object:
            lines.append("= " + np.array2string(v, separator=", "))
    lines += [_tensor_text(t) for t in op.outputs]
    return "\n".join(lines)


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'



def install() -> None:
    """`Graph.to_dot` draws with `graph_dot` (the core's graphs do not know this module)."""
    hooks.draw_dot = graph_dot
