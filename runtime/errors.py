"""The error types users catch.

`StagingError` is autograph's: raised at trace time for code that cannot be staged, with
the user's file and line. It lives in `autograph` so that the converter needs nothing from
here; it is re-exported for `rt.errors.StagingError`.
"""
from __future__ import annotations


class OpError(Exception):
    """An error while running an op; `node_name` says which node when a graph ran."""

    def __init__(self, message: str, node_name: str | None = None):
        super().__init__(message)
        self.message = message
        self.node_name = node_name


class InvalidArgumentError(OpError, ValueError):
    """An op got an argument it cannot work with (wrong dtype, index out of range, ...)."""


class DTypeMismatchError(InvalidArgumentError, TypeError):
    """Two tensors of different dtypes met where one dtype is required (int32 + float32)."""


class OutOfRangeError(OpError, IndexError):
    pass


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where Python needs a concrete value (e.g. `bool(t)`)."""


class InvalidGraphError(ValueError):
    """A graph (built or loaded) is malformed."""


try:  # autograph is the converter; it does not depend on us.
    from autograph import StagingError  # noqa: F401
except ImportError:  # pragma: no cover - only while autograph is absent
    class StagingError(Exception):
        pass


__all__ = ['DTypeMismatchError', 'StagingError', 'InvalidArgumentError', 'InvalidGraphError', 'OpError', 'OperatorNotAllowedInGraphError', 'OutOfRangeError']


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
