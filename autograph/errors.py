"""Errors autograph raises, and where in the user's code they point.

Converted code is compiled with the user's file name and line numbers, so the frame
that called an operator *is* the user's line; `user_location` finds it.
"""
from __future__ import annotations

import os
import sys

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class StagingError(Exception):
    """A construct that has no single staged meaning (raised at trace time). The errors
    for the cases where TensorFlow raises a built-in exception also derive from it, so
    that `except TypeError` / `except ValueError` code written for TensorFlow works."""


class StagingTypeError(StagingError, TypeError):
    """A value whose dtype or structure differs between branches or iterations."""


class StagingValueError(StagingError, ValueError):
    """A value missing on one path (a `return` or assignment that only some paths make)."""


class StagingStructureError(StagingTypeError, ValueError):
    """A value whose nesting differs between branches or iterations: TensorFlow raises
    TypeError for some of these and ValueError for others, so it is both."""


class ConversionError(Exception):
    """The converter cannot handle this function; it runs unconverted instead."""


# The interpreter's frame getter, taken once: the user's program may delete or replace
# `sys._getframe` (a test of it may), and some interpreters have none.
_frame_getter = getattr(sys, "_getframe", None)


def caller_frame(depth: int = 0):
    """The frame `sys._getframe(depth)` would give where this is called, or None where
    the interpreter gives none: converted code never depends on frames being there."""
    if _frame_getter is None:
        return None
    try:
        return _frame_getter(depth + 1)
    except ValueError:          # (the stack is not that deep)
        return None


def user_location(depth: int = 1) -> str:
    """'file:line' of the innermost frame outside autograph (the converted user code)."""
    frame = caller_frame(depth)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(PACKAGE_DIR):
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


# Constructs that conversion left as Python ones, by the user's file and lines, so that
# a tensor that then reaches one gets an error naming it and why (see runtime.tensor).
_PYTHON_CONSTRUCTS: dict = {}


def record_python_construct(filename: str, first: int, last: int, construct: str,
                            reason: str) -> None:
    if len(_PYTHON_CONSTRUCTS) > 100000:
        _PYTHON_CONSTRUCTS.clear()
    for line in range(first, last + 1):
        _PYTHON_CONSTRUCTS[(filename, line)] = (construct, first, reason)


def python_construct(filename: str, lineno: int):
    """(construct, its first line, why it stayed Python) for a construct conversion left
    to Python whose head spans `filename:lineno`, or None."""
    return _PYTHON_CONSTRUCTS.get((filename, lineno))


def unlink_frames(error: BaseException, hidden: tuple) -> None:
    """Unlink from `error.__traceback__` (in place) the frames whose code's file name
    starts with one of `hidden`, keeping the others in order. A traceback with nothing
    else is left as it is. (Used by the operators for their own frames, and by the
    runtime's traceback filter.)"""
    tb = error.__traceback__
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(hidden):
            kept.append(tb)
        tb = tb.tb_next
    if not kept:
        return
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    kept[-1].tb_next = None
    head = error.__traceback__
    if head is not kept[0]:
        # Python 3.10's bare `raise` re-raises the traceback it caught (this one, from
        # `head`), not `__traceback__`: the frame re-raising (the head) stays there, and
        # only it. (3.11 re-raises `__traceback__`, without it.)
        head.tb_next = kept[0]
    error.__traceback__ = kept[0]
