"""Saving concrete functions and loading them without the Python that defined them.

    rt.saved.save(f, "saved_f")            # f: an rt.function (traced) or a ConcreteFunction
    loaded = rt.saved.load("saved_f")      # in any process: no import of f's module
    loaded.f(x)                            # or loaded.signatures["serving_default"](x)

The format (a directory with saved.json and arrays.npz) is described in
docs/saved_format.md; loading runs no code from the files and checks every field.
"""
from __future__ import annotations

from .format import FORMAT, VERSION, FormatError
from .load import Loaded, LoadedFunction, load
from .save import SaveError, save

__all__ = ["save", "load", "Loaded", "LoadedFunction", "FormatError", "SaveError", "FORMAT",
           "VERSION"]
