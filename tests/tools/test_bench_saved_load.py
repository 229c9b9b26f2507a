"""`tools/bench/bench_saved_load.py --quick` runs: the loaded functions agree with the
originals (asserted inside) and the side-by-side lines print. No timing is asserted."""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow        # runs a benchmark as a program

ROOT = Path(__file__).resolve().parents[2]


def test_bench_saved_load_quick_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "bench_saved_load.py"),
                           "--quick"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for line in ("12 layers", "60 layers", "json.load + np.load by hand", "rt.saved.load",
                 "rt.saved.load with guards", "a call with guards"):
        assert line in proc.stdout
