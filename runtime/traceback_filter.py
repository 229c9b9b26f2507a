"""Tracebacks that show the user's code: frames of the runtime and of autograph hidden.

An error raised while `rt.function` traces or runs passes through the runtime (tracing,
staging `cond`/`while_loop`, the executor) and autograph's operators (`if_stmt`,
`converted_call`, ...). Those frames say nothing to the user; as TensorFlow filters its
own, `filter_traceback` unlinks them from the error's traceback (and from the errors it
was raised from or during), keeping the user's frames, in order, down to the innermost
one: the line of the user's code where the error happened or the call into the runtime
that raised it. Frames of generated code (branch and loop-body functions) carry the
user's file, function name and lines, so they stay. `rt.config.disable_traceback_filtering()`
shows every frame.
"""
from __future__ import annotations

import os

from autograph.errors import StagingError, unlink_frames
from autograph.operators.recursion import EXPLANATION

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
