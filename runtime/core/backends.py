"""The Backend interface: how a graph gets run.

A backend turns (graph, inputs, outputs) into a *plan*: a callable taking one array per
input and returning a tuple of arrays, one per output, with every side effect of the
graph done in program order. A plan also has `needed_placeholders` (ids of the
placeholder tensors the outputs and side effects read).

    class MyBackend:
        name = "mine"
        def compile(self, graph, inputs, outputs): ...   # -> a plan
    backends.register(MyBackend())

The numpy executor (`runtime.executor`) registers itself as "numpy", the default.
`ConcreteFunction` picks the backend its function asks for (`rt.function(jit_compile=
True)` asks for "xla"), and gradients through a function run on the same one.
"""
from __future__ import annotations

from typing import Optional, Protocol

DEFAULT = "numpy"
_registered: dict = {}
# Backends that exist elsewhere, with what a user must do to get them.
_MISSING = {"xla": "rt.function(jit_compile=True) compiles with XLA through JAX, which this "
                   "version of the runtime does not have yet; leave jit_compile unset (or "
                   "False) to run on the numpy backend"}


class Backend(Protocol):
    name: str

    def compile(self, graph, inputs: list, outputs: list):
        """A plan running `graph`: arrays for `inputs` in, a tuple of arrays out."""


def register(backend) -> None:
    """Makes `backend` available under `backend.name` (replacing one of that name)."""
    _registered[backend.name] = backend


def get(name: Optional[str] = None):
    """The backend registered as `name` (the default when None); a clear error naming
    what to do when there is none."""
    found = _registered.get(name or DEFAULT)
    if found is None:
        if name in _MISSING:
            raise NotImplementedError(_MISSING[name])
        raise ValueError(f"no backend named {name!r}; registered: "
                         f"{', '.join(sorted(_registered)) or 'none'}")
    return found


def names() -> list:
    return sorted(_registered)
