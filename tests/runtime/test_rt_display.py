"""Rich display in notebooks, through IPython's own display formatter: graphs and
functions as pictures (SVG, when Graphviz's `dot` is installed) or as text, tensors as
HTML."""
import html
import shutil

import pytest

import runtime as rt
from runtime import display

formatters = pytest.importorskip("IPython.core.formatters", reason="IPython is not installed")


def _format(obj):
    data, _ = formatters.DisplayFormatter().format(obj)
    return data


def negate_positive(x):
    if x > 0:
        x = -x
    return x


def _traced():
    f = rt.function(negate_positive)
    f(rt.constant(1.0))
    return f, f.get_concrete_function(rt.constant(1.0))


def test_a_tensor_shows_its_shape_dtype_and_values():
    data = _format(rt.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert data["text/html"] == ("<div><b>rt.Tensor</b> shape=(2, 2) dtype=float32"
                                 "<pre>[[1. 2.]\n [3. 4.]]</pre></div>")
    assert "text/plain" in data
    strings = _format(rt.constant(["<a>", "b"]))["text/html"]
    assert "&lt;a&gt;" in strings and "<a>" not in strings


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphs_and_functions_as_pictures():
    f, cf = _traced()
    for obj in (cf, cf.graph):
        data = _format(obj)
        assert data["image/svg+xml"].startswith("<svg")
        assert "<svg" in data["text/html"]
    assert "<svg" in _format(f)["text/html"]
    assert "traced 1 time" in _format(f)["text/html"]


def test_without_graphviz_the_text_form(monkeypatch):
    monkeypatch.setattr(display.shutil, "which", lambda name: None)
    f, cf = _traced()
    data = _format(cf)
    assert "image/svg+xml" not in data                   # (None: the notebook shows HTML)
    assert html.escape(cf.graph.to_text()) in data["text/html"]
    assert "StatelessIf(" in data["text/html"]
    assert "negate_positive(x)" in data["text/html"]     # the signature above the graph
    assert html.escape(cf.graph.to_text()) in _format(cf.graph)["text/html"]


def test_an_untraced_function():
    assert "traced 0 times" in _format(rt.function(negate_positive))["text/html"]
