"""The benchmark suite runs: `tools/bench/run.py --quick` exits 0 and prints its table.
No timing is asserted (performance is read from the benchmark's own output)."""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow        # runs the benchmarks as programs

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_runs_and_prints_the_table():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "run.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    header = next(line for line in proc.stdout.splitlines() if line.startswith("workload"))
    for column in ("workload", "numpy by hand", "eager (ratio)", "rt.function (ratio)",
                   "jit (ratio)", "target"):
        assert column in header
    try:
        import jax  # noqa: F401
    except ImportError:  # the jit column says "—" and how to install JAX
        assert "pip install -e '.[jax]'" in proc.stdout
    else:  # the jit column is timed, and each workload's XLA compile time printed
        assert "XLA compile" in proc.stdout
        row = next(line for line in proc.stdout.splitlines() if line.startswith("tanh_loop"))
        assert "x (" in row.split("|")[4], row  # the jit column: a ratio and a time
    for workload in ("power(x, 100)", "tanh_loop", "fizzbuzz", "next_collatz", "dynamic_rnn",
                     "dense 2-layer 512", "peak memory", "convert", "trace"):
        assert workload in proc.stdout


def test_stdlib_scan_runs_and_reports_rates():
    """`tools/stdlib_check.py --scan-only` on a few files: no crash, every output
    compiles, and it prints the rate with compile() measured side by side."""
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "stdlib_check.py"), "--scan-only",
                           "--jobs", "1", "--limit", "40"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "crashed 0" in proc.stdout
    compiled = next(line for line in proc.stdout.splitlines() if line.startswith("outputs"))
    done, total = compiled.split(": ")[1].split("/")
    assert done == total and int(total) > 0
    assert "lines/s per core" in proc.stdout and "x compile()" in proc.stdout


def test_bench_converted_quick_prints_the_table():
    """`tools/bench/bench_converted.py --quick`: every converted function gives the
    original's value (asserted inside), and the table of ratios prints."""
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "bench_converted.py"),
                           "--quick"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.startswith("shape"))
    for column in ("original us", "converted us", "ratio"):
        assert column in header
    for shape in ("for + if/else", "while + continue", "nested for + break",
                  "loop of calls len(str(i))", "for + early return", "recursive fib(18)",
                  "list/dict/set comprehensions", "method calls in a loop", "while + break",
                  "try/except in a loop", "self.total += i, d['k'] += i",
                  "x in list in a loop", "len(xs) in a loop"):
        row = next(line for line in lines if line.startswith(shape))
        assert row.rstrip().endswith("x"), row
    assert any(line.startswith("geometric mean of ratios") for line in lines)
    assert "conversion time" in proc.stdout


def test_bench_train_pipeline_quick_checks_and_prints():
    """`tools/bench/bench_train_pipeline.py --quick`: the training epoch of examples/train.py
    and numpy by hand compute the same losses and weights (asserted inside), and the rows
    print."""
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench" / "bench_train_pipeline.py"),
                           "--quick"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for row in ("one epoch in order: loss rt", "rt.function, in order", "rt.function, shuffled"):
        assert row in proc.stdout
