"""`rt.train.CheckpointManager` and `rt.train.latest_checkpoint`: numbered checkpoints in
a directory, the oldest deleted beyond `max_to_keep` (TensorFlow's)."""
from __future__ import annotations

import os
import time
from typing import Optional

from . import files
from .checkpoint import Checkpoint

__all__ = ["CheckpointManager", "latest_checkpoint"]


def latest_checkpoint(checkpoint_dir, latest_filename=None) -> Optional[str]:
    """The path of the newest checkpoint saved in `checkpoint_dir` (by `Checkpoint.save`
    or a `CheckpointManager`), or None where there is none.

    Args:
      checkpoint_dir: the directory.
      latest_filename: unused (TensorFlow's argument).

    >>> rt.train.latest_checkpoint("/no/such/directory") is None
    True
    """
    directory = os.fspath(checkpoint_dir)
    state = files.read_state(directory)
    if state is None:
        return None
    latest = state[0]
    return latest if os.path.exists(latest + files.INDEX_SUFFIX) else None


class CheckpointManager:
    """Saves `checkpoint` as `directory/<checkpoint_name>-<N>` and keeps the newest
    `max_to_keep` (TensorFlow's `tf.train.CheckpointManager`).

    Args:
      checkpoint: the `rt.train.Checkpoint` to save.
      directory: where the files go (made when needed). Checkpoints a manager recorded
        there before (a previous run) are taken over: `latest_checkpoint` names the newest.
      max_to_keep: how many to keep (the oldest deleted first); None keeps all.
      keep_checkpoint_every_n_hours: also keep one checkpoint in each such span of time.
      checkpoint_name: the files' prefix (default "ckpt").
      step_counter: a Variable whose value numbers the checkpoints (default: the
        checkpoint's `save_counter`).
      checkpoint_interval: with `step_counter`, save only when it has advanced by at least
        this many steps since the last save.
      init_fn: called by `restore_or_initialize` when there is no checkpoint.

    >>> import os, tempfile
    >>> step = rt.Variable(0, dtype=rt.int64)
    >>> manager = rt.train.CheckpointManager(rt.train.Checkpoint(step=step),
    ...                                      tempfile.mkdtemp(), max_to_keep=2)
    >>> for _ in range(3):
    ...     _ = step.assign_add(1)
    ...     _ = manager.save()
    >>> [os.path.basename(p) for p in manager.checkpoints]
    ['ckpt-2', 'ckpt-3']
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name: str = "ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager manages an rt.train.Checkpoint, got "
                            f"{type(checkpoint).__name__}")
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep <= 0):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep!r}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is set")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = None
        self._times: dict = {}          # path -> when it was saved (this process)
        self._last_kept_time = time.time()
        state = files.read_state(self._directory)
        self._checkpoints = []
        if state is not None:
            self._checkpoints = [p for p in state[1]
                                 if os.path.exists(p + files.INDEX_SUFFIX)]
            if state[0] not in self._checkpoints and os.path.exists(state[0] + files.INDEX_SUFFIX):
                self._checkpoints.append(state[0])

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._interval

    @property
    def latest_checkpoint(self) -> Optional[str]:
        """The newest checkpoint's path (None before the first)."""
        return self._checkpoints[-1] if self._checkpoints else None

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints' paths, oldest first."""
        return list(self._checkpoints)

    def save(self, checkpoint_number=None, check_interval: bool = True, options=None):
        """Saves a checkpoint numbered `checkpoint_number` (default: the step counter's
        value, else the checkpoint's `save_counter` after adding 1); deletes the oldest
        beyond `max_to_keep`; returns the path (None when `checkpoint_interval` says it is
        not yet time)."""
        ckpt = self._checkpoint
        if self._step_counter is not None and checkpoint_number is None:
            step = int(self._step_counter.numpy())
            if check_interval and self._interval is not None and self._last_step is not None \
                    and step - self._last_step < self._interval:
                return None
            checkpoint_number = step
            self._last_step = step
        if checkpoint_number is None:
            checkpoint_number = int(ckpt.save_counter.numpy()) + 1
        ckpt.save_counter.assign_add(1, read_value=False)
        path = ckpt.write(f"{self._prefix}-{int(checkpoint_number)}")
        if path in self._checkpoints:
            self._checkpoints.remove(path)
        self._checkpoints.append(path)
        self._times[path] = time.time()
        self._sweep()
        files.write_state(self._directory, path, self._checkpoints)
        return path

    def _sweep(self):
        if self._max_to_keep is None:
            return
        while len(self._checkpoints) > self._max_to_keep:
            oldest = self._checkpoints.pop(0)
            saved_at = self._times.pop(oldest, None)
            if (self._keep_hours is not None and saved_at is not None
                    and saved_at - self._last_kept_time >= self._keep_hours * 3600):
                self._last_kept_time = saved_at   # kept on disk, out of the active list
                continue
            files.remove(oldest)

    def restore_or_initialize(self):
        """Restores the latest checkpoint (returning its path), or calls `init_fn` and
        returns None where there is none."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None
