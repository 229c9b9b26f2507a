"""tools/bench/bench_conversion.py's workloads: the generated long functions and fizzbuzz
convert (strictly) and give the original's results; the module rate is measured on a
standard-library file. No timing is asserted (the benchmark prints its figures)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bench"))

import bench_conversion as bench  # noqa: E402

pytestmark = pytest.mark.slow        # runs the benchmark's workloads


@pytest.mark.parametrize("size", [50, 200, 800])
def test_long_functions_convert_and_match(size):
    source = bench.long_source(f"long_{size}", size)
    assert abs(source.count("\n") - size) <= 12
    fn = bench.define(source, f"long_{size}", f"<test bench_conversion {size}>")
    bench._check(fn)          # converted (strict), same result as the original


def test_fizzbuzz_converts():
    fn = bench.define(bench.FIZZBUZZ, "fizzbuzz", "<test bench_conversion fizzbuzz>")
    assert bench.convert_time(fn, 2) > 0
    converted = bench.ag.to_graph(fn)
    assert converted is not fn and converted(30) == fn(30)


def test_module_rate_measures_a_file():
    lines, cpu = bench.module_rate(["heapq.py"], 1)
    assert lines > 100 and cpu > 0
