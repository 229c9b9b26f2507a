"""Which staging backend stages a value: `backend_of(value)`, and the registry of backends
by value type that lets a backend learn classes it does not own (JAX's tracers).

A class may name its backend itself (`__autograph_backend__`, the runtime's symbolic
tensors do); otherwise the registered rules decide, once per type:

    register(lambda kind: issubclass(kind, MyTracer), load_my_backend)

The predicate sees each new type once (its answer is cached with the type); `load()` is
called once, when a predicate first matches, so registering a backend imports nothing.
JAX is registered here lazily: its predicate answers False while `jax` is not imported,
and matches JAX's tracers only (concrete JAX arrays behave as Python values, as the
runtime's eager tensors do). See docs/staging_protocol.md.
"""
from __future__ import annotations

from builtins import getattr, len, type  # the originals: see operators/__init__

import sys
from typing import Any, Callable

_BY_TYPE: dict = {}            # type -> its backend, or None: a Python value
_RULES: list = []              # [predicate, load, backend or None (not loaded yet)]
_CACHE_LIMIT = 4096            # (types made at run time, namedtuple factories: bounded)


def register(predicate: Callable[[type], bool], load: Callable[[], Any]) -> None:
    """Values whose type satisfies `predicate(type)` are staged by the backend `load()`
    returns (called once, when a value of such a type is first met). Later registrations
    are asked first."""
    _RULES.insert(0, [predicate, load, None])
    _BY_TYPE.clear()


def backend_of(value: Any) -> Any:
    """The staging backend of `value`, or None for a Python value."""
    kind = type(value)
    backend = getattr(kind, "__autograph_backend__", None)
    if backend is not None:
        return backend
    try:
        return _BY_TYPE[kind]
    except KeyError:
        return backend_of_type(kind)


def backend_of_type(kind: type) -> Any:
    """The registered backend of values of type `kind` (not its own attribute), cached."""
    found = None
    for rule in _RULES:
        if rule[0](kind):
            if rule[2] is None:
                rule[2] = rule[1]()
            found = rule[2]
            break
    if len(_BY_TYPE) >= _CACHE_LIMIT:
        _BY_TYPE.clear()
    _BY_TYPE[kind] = found
    return found


def _is_jax_tracer(kind: type) -> bool:
    jax = sys.modules.get("jax")
    if jax is None:
        return False
    tracer = getattr(getattr(jax, "core", None), "Tracer", None)
    return tracer is not None and issubclass(kind, tracer)


def _load_jax_backend() -> Any:
    from autograph.jax_backend import BACKEND        # (imports jax: it is loaded)
    return BACKEND


register(_is_jax_tracer, _load_jax_backend)
