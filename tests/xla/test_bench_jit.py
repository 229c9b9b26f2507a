"""tools/bench/bench_jit.py runs (one quick row): the XLA backend, JAX by hand and the
numpy backend agree on it, and it reports a ratio."""
import pytest

pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bench"))

import bench_jit  # noqa: E402


def test_bench_jit_quick_row(capsys):
    ratios = bench_jit.main(["--quick", "collatz"])
    assert len(ratios) == 1 and ratios[0] > 0
    assert "collatz" in capsys.readouterr().out
