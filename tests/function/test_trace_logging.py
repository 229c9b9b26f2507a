"""Each trace is logged at INFO on the `runtime` logger with its signature (level 1 of
`ag.set_verbosity`); the retracing warning is given once per reason, then at the 2nd,
4th, 8th... time with a count."""
import logging

import autograph as ag
import runtime as rt


def scale(x, k):
    return x * k


def _records(caplog, level):
    return [r.getMessage() for r in caplog.records if r.name == "runtime" and r.levelno == level]


def test_each_trace_is_logged_with_its_signature(caplog):
    f = rt.function(scale)
    with caplog.at_level(logging.INFO, logger="runtime"):
        f(rt.constant([1.0, 2.0]), 2)
        f(rt.constant([1.0, 2.0]), 2)              # no trace
        f(rt.constant([1, 2]), 2)
    traced = _records(caplog, logging.INFO)
    assert traced == [
        "rt.function: traced scale(x, k=2) with x: float32[2] (trace 1, because it was the "
        "first call)",
        "rt.function: traced scale(x, k=2) with x: int32[2] (trace 2, because argument 'x' "
        "changed from float32 tensor of shape (2,) to int32 tensor of shape (2,))"]


def test_the_retracing_warning_once_per_reason_then_counted(caplog):
    f = rt.function(scale)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        for k in range(20):
            f(rt.constant(1.0), k)
    warned = _records(caplog, logging.WARNING)
    assert len(warned) == 5            # the first warning at the 5th trace, then 2, 4, 8, 16
    assert warned[0].startswith("5 out of the last 5 calls to scale triggered rt.function "
                                "retracing.")
    assert [w.split("(")[1].split(" times")[0] for w in warned[1:]] == ["2", "4", "8", "16"]


def test_set_verbosity_1_shows_conversions_and_traces(caplog):
    try:
        ag.set_verbosity(1)
        assert logging.getLogger("runtime").level == logging.INFO
        with caplog.at_level(logging.INFO):
            rt.function(scale)(rt.constant(1.0), 3)
        assert any("traced scale(x, k=3)" in m for m in _records(caplog, logging.INFO))
    finally:
        ag.set_verbosity(0)
    assert logging.getLogger("runtime").level == logging.WARNING
