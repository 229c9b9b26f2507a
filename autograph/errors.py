"""Errors autograph raises, and where in the user's code they point.

Converted code is compiled with the user's file name and line numbers, so the frame
that called an operator *is* the user's line; `user_location` finds it.
"""
from __future__ import annotations

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class StagingError(Exception):
    """A construct that has no single staged meaning (raised at trace time). The errors
    for the cases where TensorFlow raises a built-in exception also derive from it, so
    that `except TypeError` / `except ValueError` code written for TensorFlow works."""


class StagingTypeError(StagingError, TypeError):
    """A value whose dtype or structure differs between branches or iterations."""


class StagingValueError(StagingError, ValueError):
    """A value missing on one path (a `return` or assignment that only some paths make)."""


class ConversionError(Exception):
    """The converter cannot handle this function; it runs unconverted instead."""


def user_location(depth: int = 1) -> str:
    """'file:line' of the innermost frame outside autograph (the converted user code)."""
    frame = sys._getframe(depth)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE_DIR):
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"
