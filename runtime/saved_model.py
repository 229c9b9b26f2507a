"""`rt.saved_model`: `rt.saved.save` and `rt.saved.load` under the names and signatures
TensorFlow users type (`tf.saved_model.save(obj, export_dir, signatures=None,
options=None)`, `tf.saved_model.load(export_dir, tags=None, options=None)`).

The format is `rt.saved`'s (docs/saved_format.md), not TensorFlow's SavedModel protocol
buffers: a directory this project writes and loads, checked as a file from a stranger.
"""
from __future__ import annotations

import os

from . import saved
from .saved import format as _format

__all__ = ["save", "load", "contains_saved_model"]


def save(obj, export_dir, signatures=None, options=None) -> None:
    """Saves `obj` (an rt.function, a ConcreteFunction, or a Module/object holding them)
    in the directory `export_dir`, as `rt.saved.save` does. `options` is accepted for
    TensorFlow's signature and unused.

    >>> import tempfile, os
    >>> @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    ... def double(x):
    ...     return x * 2.0
    >>> path = os.path.join(tempfile.mkdtemp(), "doubler")
    >>> rt.saved_model.save(double, path)
    >>> print(rt.saved_model.load(path).double(rt.constant([1.0, 2.0])))
    rt.Tensor([2. 4.], shape=(2,), dtype=float32)
    """
    saved.save(obj, os.fspath(export_dir), signatures=signatures)


def load(export_dir, tags=None, options=None):
    """Loads what `save` wrote (`rt.saved.load`): its functions run without the Python that
    defined them. `tags` and `options` are accepted for TensorFlow's signature and unused.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "negate")
    >>> @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    ... def negate(x):
    ...     return -x
    >>> rt.saved_model.save(negate, path)
    >>> print(rt.saved_model.load(path).negate(rt.constant(2.0)))
    rt.Tensor(-2.0, shape=(), dtype=float32)
    """
    return saved.load(os.fspath(export_dir))


def contains_saved_model(export_dir) -> bool:
    """Whether `export_dir` holds a saved directory's index file.

    >>> import tempfile
    >>> rt.saved_model.contains_saved_model(tempfile.mkdtemp())
    False
    """
    return os.path.isfile(os.path.join(os.fspath(export_dir), _format.JSON_NAME))


def __dir__():
    return sorted(__all__)
