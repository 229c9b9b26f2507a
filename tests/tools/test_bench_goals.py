"""tools/bench/bench_goals.py: each goal's row says PASS when its ratio is within the goal,
MISS when not, and "—" when it was not measured; a quick run prints every section, and
the rt.data section run by another interpreter (`--tf-python`) comes back whole."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOALS = ROOT / "tools" / "bench" / "bench_goals.py"
sys.path.insert(0, str(GOALS.parent))

import bench_goals  # noqa: E402


@pytest.mark.parametrize("ratio, status", [(0.5, "PASS"), (1.1, "PASS"), (1.2, "MISS"),
                                           (float("nan"), "—")])
def test_row_status_against_its_goal(capsys, ratio, status):
    bench_goals.print_row(bench_goals.goal_row("a goal", 2e-3, 1e-3, ratio, 1.1))
    line = capsys.readouterr().out
    assert line.split()[-1] == status and "2 ms" in line and "1 ms" in line


@pytest.mark.slow
def test_quick_run_prints_every_section():
    proc = subprocess.run([sys.executable, str(GOALS), "--quick"], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    for section in ("1. rt.function(jit_compile=True)", "2. numpy backend", "3. rt.data",
                    "4. data parallel", "tests/xla/test_distribute_processes.py"):
        assert section in out
    rows = [line for line in out.splitlines() if line.endswith(("PASS", "MISS"))
            or " PASS " in line or " MISS " in line]
    for name in ("fizzbuzz n=1000", "collatz steps of 77031", "while i < n: i += 1, n=10^5",
                 "10^5 rows, rt.function vs numpy"):
        assert any(name in row for row in rows), name
    if importlib.util.find_spec("jax") is None:
        assert "skipped: JAX is not installed" in out
    else:
        assert "floor" in next(row for row in rows if "x*2+1, 10^7 float32" in row)
    assert " goals met" in out.splitlines()[-1]


@pytest.mark.slow
def test_data_section_in_another_interpreter():
    rows = [row for size_rows in bench_goals.data_rows_elsewhere(sys.executable, ["--quick"])
            for row in size_rows]
    names = [r["name"] for r in rows]
    assert "10^3 rows, eager vs numpy" in names and "10^5 rows, rt.function vs numpy" in names
    assert all(r["ratio"] > 0 for r in rows if "numpy" in r["name"])


def test_times_read_back_from_a_bench_jit_row():
    line = f"{'MLP train step 64-64-8, batch 32':<34}     242.8      94.8     119.8      2.22x\n"
    ours, hand = bench_goals.row_times(line)
    assert ours == pytest.approx(242.8e-6) and hand == pytest.approx(94.8e-6)
    assert all(t != t for t in bench_goals.row_times(""))      # not a row: NaN
