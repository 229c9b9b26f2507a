"""The Backend interface: how a graph gets run.

A backend turns (graph, inputs, outputs) into a *plan*: a callable taking one array per
input and returning a tuple of arrays, one per output, with every side effect of the
graph done in program order. A plan also has `needed_placeholders` (ids of the
placeholder tensors the outputs and side effects read).

    class MyBackend:
        name = "mine"
        def compile(self, graph, inputs, outputs): ...   # -> a plan
    backend_registry.register(MyBackend())

`runtime/backends/__init__.py` registers ours: the numpy executor as "numpy", the
default, and XLA as "xla", lazily (JAX is imported when a function first asks for it,
`rt.function(jit_compile=True)`). `ConcreteFunction` picks the backend its function asks
for, and gradients through a function run on the same one.
"""
from __future__ import annotations

from typing import Optional, Protocol

DEFAULT = "numpy"
_registered: dict = {}
_lazy: dict = {}       # name -> loader: a backend whose dependency is imported on first use


class Backend(Protocol):
    name: str

    def compile(self, graph, inputs: list, outputs: list):
        """A plan running `graph`: arrays for `inputs` in, a tuple of arrays out."""


def register(backend) -> None:
    """Makes `backend` available under `backend.name` (replacing one of that name)."""
    _registered[backend.name] = backend


def register_lazy(name: str, loader) -> None:
    """Makes a backend available under `name`, built by `loader()` the first time it is
    asked for (so that its dependency, JAX for "xla", is imported only then; `loader`
    raises a clear ImportError naming the install command when it is missing)."""
    _lazy[name] = loader


def get(name: Optional[str] = None):
    """The backend registered as `name` (the default when None); a clear error naming
    what to do when there is none."""
    key = name or DEFAULT
    found = _registered.get(key)
    if found is None and key in _lazy:
        found = _registered[key] = _lazy[key]()
    if found is None:
        raise ValueError(f"no backend named {name!r}; registered: {', '.join(names()) or 'none'}")
    return found


def names() -> list:
    return sorted({*_registered, *_lazy})
