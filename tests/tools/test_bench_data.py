"""tools/bench/bench_data.py: an epoch's timings come with every way of running the
pipeline checked to sum what numpy sums, and an epoch summing anything else is an error."""
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bench"))

import bench_data  # noqa: E402


def test_measure_times_ours_and_numpy_and_leaves_tf_unmeasured_without_it():
    m = bench_data.measure(1000, rounds=1)
    for key in ("numpy", "eager", "function", "eager_ratio", "function_ratio"):
        assert m[key] > 0, key
    assert math.isnan(m["tf_eager"]) and math.isnan(m["function_vs_tf_ratio"])


def test_an_epoch_summing_other_values_is_an_error():
    bench_data.check_total("ours", 10.0 + 1e-6, 10.0, 1e-4)
    with pytest.raises(AssertionError, match="ours: an epoch sums to 11.0, numpy to 10.0"):
        bench_data.check_total("ours", 11.0, 10.0, 1e-4)
    with pytest.raises(AssertionError):
        bench_data.check_total("ours", float("nan"), 10.0, 1e-4)


def test_total_kept_keeps_the_last_epochs_total():
    epoch = bench_data.TotalKept(lambda: 3.5)
    assert math.isnan(epoch.last)
    epoch()
    assert epoch.last == 3.5
