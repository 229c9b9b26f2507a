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

from autograph.errors import unlink_frames

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
