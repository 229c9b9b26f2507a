"""`rt.config`: global switches."""
from __future__ import annotations

import os

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


# RUNTIME_TRACEBACK_FILTERING=off (or 0, false, no) in the environment shows every frame
# from the start, as JAX_TRACEBACK_FILTERING=off does for JAX.
_filter_tracebacks = os.environ.get("RUNTIME_TRACEBACK_FILTERING", "on").strip().lower() not in (
    "off", "0", "false", "no")


def disable_traceback_filtering() -> None:
    """Show every frame in errors from `rt.function`, the runtime's and autograph's too
    (they are hidden by default: see runtime/traceback_filter.py; the environment
    variable RUNTIME_TRACEBACK_FILTERING=off does the same from the start)."""
    global _filter_tracebacks
    _filter_tracebacks = False


def enable_traceback_filtering() -> None:
    """Hide the runtime's and autograph's frames in errors from `rt.function` (the
    default)."""
    global _filter_tracebacks
    _filter_tracebacks = True


def traceback_filtering_enabled() -> bool:
    return _filter_tracebacks


__all__ = ['disable_traceback_filtering', 'enable_traceback_filtering', 'functions_run_eagerly', 'graphs_optimized', 'optimize_graphs', 'run_functions_eagerly', 'traceback_filtering_enabled']


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
