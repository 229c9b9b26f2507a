"""The training example trains (its loss falls) and the training benchmark's staged step
computes what the hand-written numpy step computes (no timing is asserted)."""
import importlib.util
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _load(relative: str, name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_training_example_loss_decreases(capsys):
    example = _load("tools/train_example.py", "train_example")
    losses = example.main(steps=150, print_every=50)
    out = capsys.readouterr().out
    assert [line.split()[1] for line in out.splitlines() if line.startswith("step")] == [
        "0", "50", "100"]
    assert losses.shape == (150,)
    assert losses[-1] < losses[0] * 0.2
    assert np.all(np.diff(losses[::10]) < 0)  # falling all along
    assert "traced 1 time" in out


def test_benchmark_step_matches_numpy_by_hand():
    bench = _load("tools/bench/bench_train.py", "bench_train")
    bench.N, bench.D, bench.H, bench.O = 16, 8, 12, 4
    x, t, *weights = bench.data(seed=3)
    np_step = bench.numpy_step_factory(*[w.copy() for w in weights])
    rt_step = bench.rt_step_factory(*weights)
    import runtime as rt
    for _ in range(5):
        expected = np_step(x, t)
        got = rt_step(rt.constant(x), rt.constant(t)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert rt_step.experimental_get_tracing_count() == 1
