"""`autograph graph FILE.py:FUNC`: the command line's door to the runtime's graph drawing."""
import subprocess
import sys
import textwrap


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "autograph", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_graph_draws_a_staged_loop_as_dot(tmp_path):
    (tmp_path / "steps.py").write_text(textwrap.dedent("""
        def collatz_steps(n):
            steps = 0
            while n > 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                steps += 1
            return steps
    """))
    out = run("graph", "steps.py:collatz_steps", "--signature", "int32[]", "--format", "dot",
              cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith('digraph "collatz_steps"')
    assert "cluster" in out.stdout and "While" in out.stdout


def test_graph_errors_are_one_line(tmp_path):
    out = run("graph", "missing.py:f", cwd=tmp_path)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_help_lists_both_commands(tmp_path):
    out = run("--help", cwd=tmp_path)
    assert out.returncode == 0
    assert "convert" in out.stdout and "graph" in out.stdout
