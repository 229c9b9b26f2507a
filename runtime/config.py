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
