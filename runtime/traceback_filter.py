"""Tracebacks that show the user's code: frames of the runtime and of autograph hidden.

`filter_traceback` unlinks the runtime's and autograph's frames from an error raised
while `rt.function` traces or runs (and from the errors it was raised from or during),
keeping the user's frames down to the innermost one; `show_user_frames_in` wraps the
public API, once at import, so its errors end at the user's line too.
`rt.config.disable_traceback_filtering()` shows every frame (docs/architecture.md,
"Tracebacks that show the user's code").
"""
from __future__ import annotations

import functools
import os
import sys
import types

from autograph.errors import StagingError, unlink_frames
from autograph.operators.recursion import EXPLANATION

from . import config

_RUNTIME = os.path.dirname(os.path.abspath(__file__))
_HIDDEN = (_RUNTIME + os.sep,
           os.path.join(os.path.dirname(_RUNTIME), "autograph") + os.sep)


def filter_traceback(error: BaseException) -> None:
    """Unlink hidden frames from `error.__traceback__` (in place), and from the errors it
    was raised from or during. A traceback with no user frame is left as it is."""
    seen, todo = set(), [error]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        unlink_frames(e, _HIDDEN)
        todo.extend(x for x in (e.__cause__, e.__context__) if x is not None)


def drop_runtime_frames(error: BaseException) -> None:
    """`filter_traceback` for an error leaving the public API outside a traced function:
    there the frames below are all the runtime's, unless a function of the user's ran
    inside (a `map` function), and they all go; the user's frames above are added as the
    error goes up."""
    filter_traceback(error)
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_HIDDEN):
        tb = tb.tb_next
    if tb is not None:
        return          # a user's frame inside: filter_traceback kept it
    if sys.version_info >= (3, 11):
        error.__traceback__ = None
    elif error.__traceback__ is not None:   # 3.10 re-raises from the frame that catches
        error.__traceback__.tb_next = None


# The dunder methods of the public classes whose errors are the user's: operators, indexing,
# an iterator's next. (Not the conversions Python calls itself, `__bool__`, `__iter__`,
# `__len__`, ...: they look at the frame that calls them.)
_USER_DUNDERS = frozenset(
    f"__{name}__" for name in (
        "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow "
        "matmul rmatmul neg abs invert pos lt le gt ge and rand or ror xor rxor getitem "
        "next").split())


# Methods of the public classes left unwrapped: they raise no error of the user's, and
# they are read per element or per step (`.numpy()` of each result).
_ACCESSORS = frozenset({"numpy"})


def public(fn: types.FunctionType) -> types.FunctionType:
    """`fn` as the user calls it: an error it raises shows the user's frames only, as
    TensorFlow's API functions do (unless filtering is disabled)."""
    @functools.wraps(fn)
    def user_frames_only(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if config.traceback_filtering_enabled():
                drop_runtime_frames(e)
            raise
    user_frames_only.__rt_public__ = True
    return user_frames_only


def show_user_frames_in(*namespaces) -> None:
    """Wraps with `public`, in place, the runtime's functions in `namespaces` (dicts of
    globals, modules, classes: their public names, and a class's operators), each
    function once (a function in several namespaces stays one object)."""
    done: dict = {}
    for ns in namespaces:
        is_class = isinstance(ns, type)
        names = ns if isinstance(ns, dict) else vars(ns)
        for name, value in list(names.items()):
            if name.startswith("_") and not (is_class and name in _USER_DUNDERS):
                continue
            if is_class and name in _ACCESSORS:
                continue
            wrapped = _public_version(value, done)
            if wrapped is value:
                continue
            if isinstance(ns, dict):
                ns[name] = wrapped
            else:
                setattr(ns, name, wrapped)


def _public_version(value, done: dict):
    if isinstance(value, (staticmethod, classmethod)):
        inner = _public_version(value.__func__, done)
        return value if inner is value.__func__ else type(value)(inner)
    if (not isinstance(value, types.FunctionType) or getattr(value, "__rt_public__", False)
            or not str(getattr(value, "__module__", "")).startswith("runtime")):
        return value
    if id(value) not in done:
        done[id(value)] = (value, public(value))
    return done[id(value)][1]


def most_repeated_user_frame(error: BaseException):
    """(function name, 'file:line' of its `def`, how many times) of the user's function
    with the most frames in `error.__traceback__` (a recursion), or None."""
    counts: dict = {}
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not code.co_filename.startswith(_HIDDEN):
            key = (code.co_name, f"{code.co_filename}:{code.co_firstlineno}")
            counts[key] = counts.get(key, 0) + 1
        tb = tb.tb_next
    if not counts:
        return None
    (name, where), n = max(counts.items(), key=lambda item: item[1])
    return name, where, n


def recursion_error(error: RecursionError, name: str) -> StagingError:
    """Python's recursion limit reached while tracing: most often a function that calls
    itself on tensor values (both branches of a staged `if` are traced, the recursive one
    too, whatever the value), named with where it is."""
    explained = getattr(error, EXPLANATION, None)   # (autograph.operators.recursion)
    if explained:        # a recursion through converted code, its frames a level counted
        return StagingError(f"tracing {name} reached Python's recursion limit: {explained}.")
    found = most_repeated_user_frame(error)
    who = f"{found[0]} ({found[1]}) called itself {found[2]} times" if found else "a recursion"
    return StagingError(
        f"tracing {name} reached Python's recursion limit: {who}. A recursion on tensor "
        "values never ends while tracing (a staged `if` traces the branch that recurses "
        "whatever the value): write it as a loop (`while`/`for`). A recursion on Python "
        "values as deep as this needs a higher `sys.setrecursionlimit`.")

