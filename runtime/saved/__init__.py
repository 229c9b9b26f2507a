"""Saving concrete functions and loading them without the Python that defined them.

    rt.saved.save(f, "saved_f")            # f: an rt.function (traced) or a ConcreteFunction
    loaded = rt.saved.load("saved_f")      # in any process: no import of f's module
    loaded.f(x)                            # or loaded.signatures["serving_default"](x)

The format (a directory with saved.json and arrays.npz) is described in
docs/saved_format.md; loading runs no code from the files and checks every field, and
`load(path, max_loop_iterations=..., deadline_seconds=..., max_elements=...)` runs a
stranger's graph under guards (see the "Graphs from strangers" section there).
"""
from __future__ import annotations

from .files import DEFAULT_MAX_BYTES
from .format import FORMAT, MAX_ELEMENTS, VERSION, FormatError
from .load import load
from .loaded import GuardedFunction, Loaded, LoadedFunction, RunGuards
from .save import SaveError, save

__all__ = ["save", "load", "Loaded", "LoadedFunction", "GuardedFunction", "RunGuards",
           "FormatError", "SaveError", "FORMAT", "VERSION", "MAX_ELEMENTS", "DEFAULT_MAX_BYTES"]
