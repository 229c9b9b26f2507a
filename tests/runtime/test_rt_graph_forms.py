"""The outward forms of one small graph with a branch inside a loop, a print, a
variable read and a constant -- its text (Graph.to_text), its DOT picture, its saved
JSON and its ONNX model's nodes -- compared with golden files written before the
exporters moved onto the graph walker: a change to any of them shows here.

To regenerate after an intended change: REGENERATE_GOLDEN=1 pytest this file."""
import hashlib
import json
import os

import numpy as np
import pytest

import runtime as rt

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
REGENERATE = bool(os.environ.get("REGENERATE_GOLDEN"))


def _function():
    scale = rt.Variable(np.float32(0.5), name="scale")

    def steps(n, x):
        i = rt.constant(0)
        total = rt.constant(np.float32(0.0))
        while i < n:
            if i % 2 == 0:
                total = total + x[i] * scale
            else:
                total = total - rt.reduce_sum(x) / 4.0
            i += 1
        rt.print("total", total)
        j, = rt.while_loop(lambda j: j < n, lambda j: (j + 3,), (rt.constant(0),),
                           maximum_iterations=5)
        return total, i + j

    return rt.function(steps).get_concrete_function(
        rt.TensorSpec([], rt.int32), rt.TensorSpec([4], rt.float32))


def _check(name, text):
    path = os.path.join(GOLDEN, name)
    if REGENERATE:
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        assert text == f.read(), f"{name} changed"


def test_text_form():
    cf = _function()
    _check("cond_in_while.txt", cf.graph.to_text(graph_def=True))


def test_lines_form():
    cf = _function()
    _check("cond_in_while.lines.txt", cf.graph.to_text() + "\n")


def test_dot_picture():
    cf = _function()
    _check("cond_in_while.dot", cf.graph.to_dot(list(cf.outputs)))


def test_saved_json(tmp_path):
    cf = _function()
    rt.saved.save(cf, str(tmp_path / "m"))
    with open(tmp_path / "m" / "saved.json") as f:
        doc = json.load(f)
    doc.pop("producer")  # names the release
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    here = json.dumps(os.path.abspath(__file__).replace(".pyc", ".py"))
    _check("cond_in_while.saved.json", text.replace(here, '"test_rt_graph_forms.py"'))
    loaded = rt.saved.load(str(tmp_path / "m")).signatures["serving_default"]
    _check("cond_in_while.loaded.txt", loaded.graph.to_text(graph_def=True))


def _onnx_lines(graph, depth=0):
    lines = []
    for n in graph.node:
        attrs = []
        for a in n.attribute:
            if a.type == a.GRAPH:
                attrs.append((a.name, _onnx_lines(a.g, depth + 1)))
            elif a.type == a.TENSOR:
                attrs.append((a.name, hashlib.sha256(a.t.SerializeToString()).hexdigest()[:16]))
            else:
                attrs.append((a.name, str(a).replace("\n", " ")))
        lines.append("  " * depth + f"{n.op_type} {list(n.input)} -> {list(n.output)}")
        for k, v in attrs:
            if isinstance(v, list):
                lines.append("  " * depth + f"  {k}:")
                lines += v
            else:
                lines.append("  " * depth + f"  {k}: {v}")
    return lines


def test_onnx_model():
    pytest.importorskip("onnx")
    cf = _function()
    model = rt.onnx.export(cf, drop_prints=True)
    g = model.graph
    text = "\n".join([f"inputs {[i.name for i in g.input]}", f"outputs {[o.name for o in g.output]}",
                      *_onnx_lines(g)]) + "\n"
    _check("cond_in_while.onnx.txt", text)
