"""tools/bench/bench_jit_plans.py runs (one quick row): the compiled program of
bench_jit's dynamic_rnn agrees with JAX by hand, and XLA knows its loop's trip count in
both (the lowered loop carries nothing a scan by hand does not)."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bench"))

import bench_jit_plans  # noqa: E402


def test_bench_jit_plans_quick_row(capsys):
    ratios = bench_jit_plans.main(["--quick", "dynamic_rnn"])
    assert len(ratios) == 1 and ratios[0] > 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if "dynamic_rnn" in line]
    assert row.count("while trips 50") == 2, row
