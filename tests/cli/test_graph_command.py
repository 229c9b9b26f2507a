"""`python -m runtime graph FILE.py:FUNC` (and the `runtime` console script): the runtime's
own command for drawing graphs. autograph's command line knows nothing of it: autograph
does not know the runtime exists (checked here by scanning autograph's source)."""
import ast
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO))

STEPS = textwrap.dedent("""
    def collatz_steps(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    def scaled(x, scale):
        return x * scale

    def broken(x):
        return x.no_such_method()

    NOT_A_FUNCTION = 3
""")


def _console_script():
    """The installed `runtime` script of this interpreter, or None (not pip-installed)."""
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        for name in ("runtime", "runtime.exe"):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None


SCRIPT = _console_script()
COMMANDS = [pytest.param([sys.executable, "-m", "runtime"], "python -m runtime", id="python-m"),
            pytest.param([SCRIPT], "runtime", id="console-script",
                         marks=pytest.mark.skipif(SCRIPT is None,
                                                  reason="the `runtime` script is not "
                                                         "installed (pip install -e .)"))]


def run(command, *args, cwd, env=ENV):
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


def run_m(*args, cwd, env=ENV):
    return run([sys.executable, "-m", "runtime"], *args, cwd=cwd, env=env)


def one_line(text):
    assert "Traceback" not in text
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


@pytest.fixture
def steps(tmp_path):
    (tmp_path / "steps.py").write_text(STEPS)
    return tmp_path


@pytest.mark.parametrize("command, prog", COMMANDS)
def test_graph_draws_a_staged_loop_as_dot(steps, command, prog):
    out = run(command, "graph", "steps.py:collatz_steps", "--signature", "int32[]",
              "--format", "dot", cwd=steps)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith('digraph "collatz_steps"')
    assert "cluster" in out.stdout and "While" in out.stdout
    assert out.stderr == ""


@pytest.mark.parametrize("command, prog", COMMANDS)
def test_help_names_the_command_as_invoked(tmp_path, command, prog):
    out = run(command, "--help", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: {prog} ") and "graph" in out.stdout
    out = run(command, "graph", "--help", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: {prog} graph ")
    for word in ("FILE.py:FUNC", "--signature", "--format", "dot,svg,png,text,graphdef", "--output"):
        assert word in out.stdout


@pytest.mark.parametrize("command, prog", COMMANDS)
@pytest.mark.parametrize("args, says", [
    ((), "the following arguments are required: COMMAND"),
    (("draw",), "invalid choice: 'draw'"),
    (("graph",), "the following arguments are required: FILE.py:FUNC"),
    (("graph", "steps.py:scaled", "--format", "jpg"), "invalid choice: 'jpg'"),
])
def test_a_malformed_command_line_is_one_usage_line_and_exit_2(steps, command, prog, args,
                                                                 says):
    out = run(command, *args, cwd=steps)
    assert out.returncode == 2 and out.stdout == ""
    line = one_line(out.stderr)
    assert line.startswith(f"{prog}") and ": error: " in line and says in line, line
    assert f"(see {prog}" in line and "--help)" in line


@pytest.mark.parametrize("args, says", [
    (("missing.py:f", "-s", "int32[]"), "missing.py: no such file"),
    (("steps.py", "-s", "int32[]"), "expected FILE.py:FUNCTION, got 'steps.py'"),
    (("steps.py:nothing", "-s", "int32[]"), "steps.py has no function 'nothing'"),
    (("steps.py:NOT_A_FUNCTION",), "steps.py:NOT_A_FUNCTION is not a function"),
    (("steps.py:scaled", "-s", "floot32[]; 2.0"), "unknown dtype name 'floot32'"),
    (("steps.py:scaled", "-s", "float32[x]; 2.0"), "a dimension must be a number or None"),
    (("steps.py:scaled", "-s", "float32[]; @"), "expected DTYPE[DIMS]"),
    (("steps.py:scaled",), "pass --signature with one item per argument"),
    (("steps.py:scaled", "-s", "float32[]"), "missing a required argument: 'scale'"),
    (("steps.py:scaled", "-s", "float32[]; 1; 2"), "too many positional arguments"),
    (("steps.py:broken", "-s", "float32[]"), "tracing steps.py:broken failed: "),
    (("steps.py:scaled", "-s", "float32[]; 2.0", "-f", "png"), "give -o FILE.png"),
])
def test_bad_input_is_one_line_and_exit_1(steps, args, says):
    out = run_m("graph", *args, cwd=steps)
    assert out.returncode == 1 and out.stdout == ""
    line = one_line(out.stderr)
    assert line.startswith("python -m runtime graph: error: ") and says in line, line


def test_a_missing_signature_says_what_to_pass(steps):
    out = run_m("graph", "steps.py:scaled", cwd=steps)
    assert out.returncode == 1
    assert one_line(out.stderr) == (
        "python -m runtime graph: error: steps.py:scaled(x, scale) takes arguments: pass "
        "--signature with one item per argument, a tensor spec such as 'float32[None]' or "
        "'int32[]', or a Python literal (e.g. --signature 'float32[None]; 2.0')")
    out = run_m("graph", "steps.py:scaled", "-s", "float32[None]", "-s", "2.0", cwd=steps)
    assert out.returncode == 0, out.stderr


def test_text_format_and_output_file(steps):
    out = run_m("graph", "steps.py:scaled", "-s", "float32[None]; 2.0", "-f", "text",
                cwd=steps)
    assert out.returncode == 0, out.stderr
    assert "= Placeholder(" in out.stdout and "= Mul(" in out.stdout
    out = run_m("graph", "steps.py:scaled", "-s", "float32[None]; 2.0", "-f", "graphdef",
                cwd=steps)
    assert out.returncode == 0, out.stderr
    assert 'op: "Placeholder"' in out.stdout and 'op: "Mul"' in out.stdout
    out = run_m("graph", "steps.py:scaled", "-s", "float32[None]; 2.0", "-o", "g.dot",
                cwd=steps)
    assert out.returncode == 0 and out.stdout == "" and out.stderr == ""
    assert (steps / "g.dot").read_text().startswith('digraph "scaled"')


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_svg_and_png_without_graphviz_say_how_to_install_it(steps, fmt):
    empty = steps / "no_programs"
    empty.mkdir()
    out = run_m("graph", "steps.py:scaled", "-s", "float32[None]; 2.0", "-f", fmt,
                "-o", f"g.{fmt}", cwd=steps, env=dict(ENV, PATH=str(empty)))
    assert out.returncode == 1
    line = one_line(out.stderr)
    assert "needs Graphviz's `dot` program" in line and "apt-get install graphviz" in line
    assert not (steps / f"g.{fmt}").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("command, prog", COMMANDS)
def test_svg_and_png_with_graphviz(steps, command, prog):
    out = run(command, "graph", "steps.py:collatz_steps", "-s", "int32[]", "-f", "svg",
              cwd=steps)
    assert out.returncode == 0, out.stderr
    assert "<svg" in out.stdout and "while: body" in out.stdout
    out = run(command, "graph", "steps.py:collatz_steps", "-s", "int32[]", "-f", "png",
              "-o", "g.png", cwd=steps)
    assert out.returncode == 0, out.stderr
    assert (steps / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_autograph_has_no_graph_command(tmp_path):
    out = subprocess.run([sys.executable, "-m", "autograph", "--help"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env=ENV)
    assert out.returncode == 0
    assert "runtime" not in out.stdout and " graph" not in out.stdout
    out = subprocess.run([sys.executable, "-m", "autograph", "graph", "steps.py:f"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, env=ENV)
    assert out.returncode == 2
    assert one_line(out.stderr) == ("autograph: error: argument COMMAND: invalid choice: "
                                    "'graph' (choose from 'convert'); graphs are drawn by the "
                                    "runtime: python -m runtime graph FILE.py:FUNC --signature "
                                    "'float32[None]' (see autograph --help)")


def _names_runtime(node) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            and (node.value == "runtime" or node.value.startswith("runtime.")))


def _reaches_runtime(tree: ast.AST):
    """(line, what) for each import of `runtime` and each dynamic import naming it."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "runtime" or alias.name.startswith("runtime."):
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0 and (module == "runtime" or module.startswith("runtime.")):
                found.append((node.lineno, f"from {module} import ..."))
        elif isinstance(node, ast.Call):
            func = node.func
            name = (func.id if isinstance(func, ast.Name)
                    else func.attr if isinstance(func, ast.Attribute) else "")
            if name in ("import_module", "__import__", "find_spec", "import_string"):
                args = [*node.args, *(k.value for k in node.keywords)]
                if any(_names_runtime(a) for a in args):
                    found.append((node.lineno, f"{name}('runtime...')"))
    return found


def test_the_scan_sees_what_it_looks_for():
    tree = ast.parse(textwrap.dedent("""
        import runtime
        import runtime.graph_cli as g
        from runtime import graph_cli
        from runtime.ops import math_ops
        from .runtime import fine          # a relative module of the same name: allowed
        import importlib
        importlib.import_module("runtime.graph_cli")
        __import__("runtime")
        importlib.util.find_spec(name="runtime")
        importlib.import_module("runtimes")  # another name: allowed
    """))
    assert [what for _, what in _reaches_runtime(tree)] == [
        "import runtime", "import runtime.graph_cli", "from runtime import ...",
        "from runtime.ops import ...", "import_module('runtime...')",
        "__import__('runtime...')", "find_spec('runtime...')"]


def test_autograph_source_does_not_reach_into_runtime():
    files = sorted((REPO / "autograph").rglob("*.py"))
    assert len(files) > 10
    offences = []
    for path in files:
        tree = ast.parse(path.read_bytes(), filename=str(path))
        offences += [f"{path.relative_to(REPO)}:{line}: {what}"
                     for line, what in _reaches_runtime(tree)]
    assert offences == []
