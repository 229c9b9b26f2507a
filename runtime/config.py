"""`rt.config`: global switches."""
from __future__ import annotations

_run_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """With True, every `rt.function` runs its Python code eagerly instead of a graph
    (for debugging: see where graph and eager behaviour differ)."""
    global _run_eagerly
    _run_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_eagerly


_optimize_graphs = True


def optimize_graphs(enabled: bool) -> None:
    """With False, concrete functions compiled from now on run their graphs as traced,
    without the optimisation passes (runtime/optimize): to check whether the passes change
    a result, or to time them."""
    global _optimize_graphs
    _optimize_graphs = bool(enabled)


def graphs_optimized() -> bool:
    return _optimize_graphs


_filter_tracebacks = True


def disable_traceback_filtering() -> None:
    """Show every frame in errors from `rt.function`, the runtime's and autograph's too
    (they are hidden by default: see runtime/traceback_filter.py)."""
    global _filter_tracebacks
    _filter_tracebacks = False


def enable_traceback_filtering() -> None:
    """Hide the runtime's and autograph's frames in errors from `rt.function` (the
    default)."""
    global _filter_tracebacks
    _filter_tracebacks = True


def traceback_filtering_enabled() -> bool:
    return _filter_tracebacks
