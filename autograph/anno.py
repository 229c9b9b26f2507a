"""Annotations on tree nodes: analyses write them, converters read them.

Stored as plain attributes prefixed with `ag_` so `ast.dump` and copying keep working.
"""
from __future__ import annotations

from typing import Any

_MISSING = object()


def set_(node: Any, key: str, value: Any) -> None:
    setattr(node, "ag_" + key, value)


def get(node: Any, key: str, default: Any = _MISSING) -> Any:
    value = getattr(node, "ag_" + key, default)
    if value is _MISSING:
        raise KeyError(f"{type(node).__name__} has no annotation {key!r}")
    return value


def has(node: Any, key: str) -> bool:
    return hasattr(node, "ag_" + key)
