"""Every program in examples/ runs and prints what it promises."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")

# program -> lines its output must contain
EXPECTED = {
    "quickstart.py": ["collatz_steps(27) = 111   staged: rt.Tensor(111, shape=(), dtype=int32)",
                      "traced 1 time(s) for 3 tensor calls"],
    "data_dependent_loops.py": ["collatz_steps(27): python 111, staged 111",
                                "first_index_above(xs, 2.5): 2",
                                "first_index_above(xs, 99.0): -1",
                                "running_max_until_drop(xs): [0.5 1.5 3.  3. ]",
                                "newton_sqrt(2.0): 1.414214 (numpy 1.414214)"],
    "save_and_load.py": ["here:   8.0", "loaded: 8.0", "variables: [('scale:0', 2.0)]"],
    "onnx_export.py": ["agree: True"],
    "train.py": ["variables: ['mlp/b1:0', 'mlp/b2:0', 'mlp/w1:0', 'mlp/w2:0']",
                 "traced 1 time(s) for 10 epochs"],
    "command_line.py": ["python values: 14", "staged:        14",
                        "  cond_body(count, i, n_capture, _):"],
}


# modules the tests and benchmarks import, not programs to run
SHARED = {"__init__.py", "programs.py"}


def test_every_example_is_tested():
    programs = {f for f in os.listdir(EXAMPLES) if f.endswith(".py")} - SHARED
    assert programs == set(EXPECTED), programs ^ set(EXPECTED)


# the README's quick start runs in the default tier, the other programs in the slow one
@pytest.mark.parametrize("program", [
    p if p == "quickstart.py" else pytest.param(p, marks=pytest.mark.slow)
    for p in sorted(EXPECTED)])
def test_example_runs(program, tmp_path):
    if program == "onnx_export.py":
        pytest.importorskip("onnxruntime", reason="the [onnx] extra is not installed")
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("AUTOGRAPH_VERBOSITY", None)
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, program)], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    for expected in EXPECTED[program]:
        assert expected in lines, f"{program}: {expected!r} not in\n{out.stdout}"
    if program == "train.py":                  # the loss curve falls, epoch after epoch
        losses = [float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("epoch ")]
        assert len(losses) == 10 and all(b < a for a, b in zip(losses, losses[1:])), losses
        assert losses[-1] < 0.2 * losses[0]
