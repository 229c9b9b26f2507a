"""Graph.to_dot() and the `python -m runtime graph` command (runtime.graph_cli, called in
process here; tests/cli/test_graph_command.py runs it as a command): structure of the DOT
text, nested clusters for cond/while bodies, rendering with Graphviz when it is there."""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import runtime as rt
from examples.programs import collatz_steps
from runtime import graph_cli

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _parse(dot: str):
    """{node id: (first label line, [enclosing cluster labels])}, edges [(a, b)]."""
    nodes, edges, clusters = {}, [], []
    for line in dot.splitlines():
        s = line.strip()
        if s.startswith("subgraph cluster_"):
            clusters.append(None)
        elif s.startswith("label=") and clusters and clusters[-1] is None:
            clusters[-1] = re.match(r'label="([^"]*)"', s).group(1)
        elif s == "}" and clusters:
            clusters.pop()
        elif m := re.match(r"^(n\d+) -> (n\d+)", s):
            edges.append((m.group(1), m.group(2)))
        elif m := re.match(r'^(n\d+) \[label="([^"]*)"', s):
            nodes[m.group(1)] = (m.group(2).split("\\n"), list(clusters))
    return nodes, edges


def test_dot_nests_branch_clusters_inside_the_loop_body():
    cf = rt.function(collatz_steps).get_concrete_function(rt.TensorSpec([], rt.int32))
    dot = cf.graph.to_dot(list(cf.outputs))
    assert dot.startswith('digraph "collatz_steps" {') and dot.rstrip().endswith("}")
    assert dot.count("{") == dot.count("}")
    nodes, edges = _parse(dot)
    by_label = {}
    for nid, (lines, where) in nodes.items():
        by_label.setdefault(lines[0], []).append((lines, where))
    (while_lines, while_where), = by_label["while"]
    assert while_lines[1] == "StatelessWhile" and while_where == []
    assert while_lines[2:] == ["int32[]", "int32[]"]          # output dtypes and shapes
    (cond_lines, cond_where), = by_label["cond"]
    assert cond_lines[1] == "StatelessIf" and cond_where == ["while: body"]
    floordiv = [w for lines, w in by_label["floordiv"]]
    assert floordiv == [["while: body", "cond: then"]]
    mul = [w for lines, w in by_label["mul"]]
    assert mul == [["while: body", "cond: else"]]
    tests = [w for lines, w in by_label.get("Greater", []) if w]
    assert tests == [["while: test"]]
    for a, b in edges:
        assert a in nodes and b in nodes, (a, b)
    (ret,) = [nid for nid, (lines, _) in nodes.items() if lines == ["return"]]
    assert any(b == ret for _, b in edges)


def test_dot_quotes_names_and_shows_constants():
    g = rt.Graph('my "graph"')
    with g.as_default():
        p = rt.placeholder(rt.float32, [None, 2], name="x")
        rt.reduce_sum(p * 2.0)
    dot = g.to_dot()
    assert dot.startswith('digraph "my \\"graph\\"" {')
    assert '"x\\nPlaceholder\\nfloat32[?,2]"' in dot
    assert "= 2." in dot


def test_cli_text_and_dot(tmp_path, capsys):
    src = tmp_path / "model.py"
    src.write_text(textwrap.dedent("""
        def mean_if_positive(x, scale):
            if scale > 0:
                return sum(x) * scale
            return x[0]
    """).replace("sum(x)", "x[0] + x[1]"))
    assert graph_cli.main([f"{src}:mean_if_positive", "--signature", "float32[2]; 2.0",
                           "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "x: float32[2] = Placeholder(" in text and "= AddV2(" in text
    out = tmp_path / "g.dot"
    assert graph_cli.main([f"{src}:mean_if_positive", "-s", "float32[2]", "-s", "2.0",
                           "-o", str(out)]) == 0
    assert out.read_text().startswith('digraph "mean_if_positive"')


def test_cli_errors_are_one_line(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x\n")
    assert graph_cli.main([f"{src}:g", "-s", "float32[]"]) == 1
    assert capsys.readouterr().err == (f"python -m runtime graph: error: {src} has no "
                                       "function 'g'\n")
    assert graph_cli.main([f"{src}:f", "-s", "floot32[]"]) == 1
    assert "unknown dtype name 'floot32'" in capsys.readouterr().err
    assert graph_cli.main([f"{src}:f", "-s", "float32[x]"]) == 1
    assert "a dimension must be a number or None" in capsys.readouterr().err
    assert graph_cli.main([f"{tmp_path}/none.py:f"]) == 1
    assert "no such file" in capsys.readouterr().err
    assert graph_cli.main([f"{src}:f", "-s", "float32[]", "-f", "png"]) == 1
    assert "give -o FILE.png" in capsys.readouterr().err
    assert graph_cli.main([f"{src}:f"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"python -m runtime graph: error: {src}:f(x) takes arguments: pass "
                          "--signature with one item per argument") and err.count("\n") == 1
    assert graph_cli.main([f"{src}:f", "-s", "float32[]; 2"]) == 1
    assert "--signature gives 2 arguments: too many positional arguments" \
        in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        graph_cli.main([f"{src}:f", "-f", "gif"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m runtime graph: error: argument --format/-f: invalid "
                          "choice: 'gif'") and err.count("\n") == 1


def test_cli_takes_no_signature_for_a_function_without_parameters(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text("import runtime as rt\n\ndef f():\n    return rt.constant(1.0) + 2.0\n")
    assert graph_cli.main([f"{src}:f", "-f", "text"]) == 0
    assert "= AddV2(Const, Const_1)" in capsys.readouterr().out


def test_cli_says_how_to_install_graphviz(tmp_path, capsys, monkeypatch):
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x + 1.0\n")
    monkeypatch.setattr(graph_cli.shutil, "which", lambda name: None)
    assert graph_cli.main([f"{src}:f", "-s", "float32[]", "-f", "svg", "-o",
                           str(tmp_path / "g.svg")]) == 1
    err = capsys.readouterr().err
    assert "needs Graphviz's `dot` program" in err and "apt-get install graphviz" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "g.svg").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_cli_renders_svg_and_png(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import runtime as rt\n\n" + textwrap.dedent("""
        @rt.function
        def f(x):
            while rt.reduce_sum(x) < 100.0:
                x = x * 2.0
            return x
    """))
    svg = tmp_path / "g.svg"
    assert graph_cli.main([f"{src}:f", "-s", "float32[None]", "-f", "svg", "-o", str(svg)]) == 0
    assert "<svg" in svg.read_text() and "while: body" in svg.read_text()
    png = tmp_path / "g.png"
    assert graph_cli.main([f"{src}:f", "-s", "float32[None]", "-f", "png", "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_python_dash_m_runtime_graph(tmp_path):
    """The command as users type it; tests/cli/test_graph_command.py covers its errors."""
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x * 2\n")
    proc = subprocess.run([sys.executable, "-m", "runtime", "graph", f"{src}:f", "-s", "int32[3]"],
                          capture_output=True, text=True, cwd=str(tmp_path),
                          env=dict(os.environ, PYTHONPATH=REPO), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('digraph "f"') and "int32[3]" in proc.stdout


def test_cli_draws_a_saved_function(tmp_path, capsys):
    staged = rt.function(collatz_steps, input_signature=[rt.TensorSpec([], rt.int32)])
    rt.saved.save(staged, str(tmp_path / "saved"))
    assert graph_cli.main([str(tmp_path / "saved")]) == 0
    dot = capsys.readouterr().out
    nodes, _ = _parse(dot)
    assert any(lines[:2] == ["while", "StatelessWhile"] for lines, _ in nodes.values())
    assert graph_cli.main([f"{tmp_path / 'saved'}:collatz_steps", "-f", "text"]) == 0
    assert "= StatelessWhile(" in capsys.readouterr().out
    assert graph_cli.main([f"{tmp_path / 'saved'}:collatz_steps", "-f", "graphdef"]) == 0
    assert 'op: "StatelessWhile"' in capsys.readouterr().out
    assert graph_cli.main([f"{tmp_path / 'saved'}:nothing"]) == 1
    assert "has no saved function or signature 'nothing'" in capsys.readouterr().err
    (tmp_path / "saved" / "saved.json").write_text("{")
    assert graph_cli.main([str(tmp_path / "saved")]) == 1
    assert "not valid JSON" in capsys.readouterr().err
