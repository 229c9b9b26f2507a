"""`rt.train`: TensorFlow's `tf.train` checkpoints.

    ckpt = rt.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    manager = rt.train.CheckpointManager(ckpt, "ckpts", max_to_keep=3)
    ckpt.restore(manager.latest_checkpoint)        # None the first time: nothing restored
    ...
    manager.save()                                 # "ckpts/ckpt-1", "ckpts/ckpt-2", ...

The files are this project's own format (no pickle; reading runs no code and checks every
field, as `rt.saved` does): docs/checkpoints.md.
"""
from __future__ import annotations

import os

from .checkpoint import (Checkpoint, CheckpointLoadStatus, CheckpointMismatchError,
                         InitializationOnlyStatus)
from .files import FormatError, NotFoundError, read as _read
from .manager import CheckpointManager, latest_checkpoint

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus",
           "InitializationOnlyStatus", "CheckpointMismatchError", "NotFoundError",
           "FormatError", "latest_checkpoint", "list_variables", "load_variable"]


def list_variables(ckpt_dir_or_file) -> list:
    """[(key, shape)] of the values in a checkpoint (a path, or a directory: its latest),
    sorted by key (TensorFlow's `tf.train.list_variables`).

    >>> import tempfile, os
    >>> directory = tempfile.mkdtemp()
    >>> _ = rt.train.Checkpoint(w=rt.Variable([1.0, 2.0])).save(os.path.join(directory, "c"))
    >>> [key for key, shape in rt.train.list_variables(directory) if key.startswith("w")]
    ['w/.ATTRIBUTES/VARIABLE_VALUE']
    """
    values = _read(_checkpoint_path(ckpt_dir_or_file))
    return sorted((k, list(v.shape)) for k, v in values.items())


def load_variable(ckpt_dir_or_file, name: str):
    """The value (numpy) saved under the key `name` (TF's `tf.train.load_variable`).

    >>> import tempfile, os
    >>> directory = tempfile.mkdtemp()
    >>> _ = rt.train.Checkpoint(w=rt.Variable([1.0, 2.0])).save(os.path.join(directory, "c"))
    >>> rt.train.load_variable(directory, "w/.ATTRIBUTES/VARIABLE_VALUE")
    array([1., 2.], dtype=float32)
    """
    values = _read(_checkpoint_path(ckpt_dir_or_file))
    if name not in values:
        raise KeyError(f"the checkpoint has no value {name!r}; it has {sorted(values)}")
    return values[name].copy()


def _checkpoint_path(path) -> str:
    path = os.fspath(path)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise NotFoundError(f"no checkpoint in the directory {path!r}")
        return latest
    return path


def __dir__():
    return sorted(__all__)
