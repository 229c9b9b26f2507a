"""Rich display in notebooks (IPython/Jupyter's `_repr_*_` protocol).

- A graph, a concrete function, an `rt.function`: `_repr_html_` shows the graph as a
  picture (SVG from Graphviz's `dot` program when it is installed: `apt-get install
  graphviz`), else its text, one line per node (`Graph.to_text()`); `_repr_svg_` gives
  the picture alone (None without Graphviz, so the notebook shows the HTML).
- An eager tensor: `_repr_html_`, its shape and dtype over its values.

Nothing here runs unless a notebook asks; pictures are drawn by `dot` in a child process
with a time limit.
"""
from __future__ import annotations

import html
import shutil
import subprocess
from typing import Optional

import numpy as np

from .concrete import ConcreteFunction
from .core.graph import Graph
from .core.tensor import EagerTensor
from .function import Function

_DOT_SECONDS = 30


def svg_of(graph: Graph, outputs=None) -> Optional[str]:
    """The graph drawn by Graphviz as SVG text, or None when `dot` is not installed or
    fails."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "-Tsvg"], input=graph.to_dot(outputs).encode(),
                              capture_output=True, timeout=_DOT_SECONDS)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    text = proc.stdout.decode("utf-8", errors="replace")
    start = text.find("<svg")
    return text[start:] if start >= 0 else None


def _graph_html(graph: Graph, title: str, outputs=None) -> str:
    svg = svg_of(graph, outputs)
    body = svg if svg is not None else f"<pre>{html.escape(graph.to_text())}</pre>"
    return f"<div><div><b>{html.escape(title)}</b></div>{body}</div>"


def _graph_repr_html(self: Graph) -> str:
    return _graph_html(self, f"rt.Graph '{self.name}' with {len(self)} ops")


def _graph_repr_svg(self: Graph) -> Optional[str]:
    return svg_of(self)


def _concrete_repr_html(self: ConcreteFunction) -> str:
    signature = self.pretty_printed_signature(verbose=True)
    return (f"<div><pre>{html.escape(signature)}</pre>"
            + _graph_html(self.graph, f"its graph ({len(self.graph)} ops)", list(self.outputs))
            + "</div>")


def _concrete_repr_svg(self: ConcreteFunction) -> Optional[str]:
    return svg_of(self.graph, list(self.outputs))


def _function_repr_html(self: Function) -> str:
    concretes = list(self._concretes)        # (a method of Function: see the end)
    head = (f"<b>rt.function {html.escape(self.__name__)}</b>: traced "
            f"{len(concretes)} time{'' if len(concretes) == 1 else 's'}")
    if not concretes:
        return f"<div>{head}</div>"
    return f"<div>{head}" + "".join(_concrete_repr_html(cf) for cf in concretes) + "</div>"


def _tensor_repr_html(self: EagerTensor) -> str:
    value = np.asarray(self._value)
    text = np.array2string(value, threshold=200, edgeitems=4) if value.dtype.kind != "O" \
        else repr(value.tolist())
    shape = "(" + ", ".join(str(d) for d in value.shape) + ("," if value.ndim == 1 else "") + ")"
    return (f"<div><b>rt.Tensor</b> shape={html.escape(shape)} "
            f"dtype={html.escape(self.dtype.name)}<pre>{html.escape(text)}</pre></div>")


def install() -> None:
    """Gives graphs, functions and eager tensors their notebook displays."""
    Graph._repr_html_ = _graph_repr_html
    Graph._repr_svg_ = _graph_repr_svg
    ConcreteFunction._repr_html_ = _concrete_repr_html
    ConcreteFunction._repr_svg_ = _concrete_repr_svg
    Function._repr_html_ = _function_repr_html
    EagerTensor._repr_html_ = _tensor_repr_html
