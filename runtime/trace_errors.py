"""What rt.function adds to an error raised while tracing: the innermost line of the
user's code it passed through (TensorFlow's "in user code:"), and the refusal of a trace
that caught an exception one of its staged constructs raised."""
from __future__ import annotations

import linecache
import os

from autograph import sourceless

from .errors import StagingError


def refuse_caught(graph, name: str) -> None:
    """A trace that ended normally although an exception left one of its staged
    constructs: the function's own code caught it while tracing, so the graph would give
    that handler's answer for every input (Python runs it only for the inputs that
    raise)."""
    for error in graph.left_staged:
        where = getattr(error, "ag_left_staged", None)
        if where:
            raise StagingError(
                f"{where}: {type(error).__name__} raised here while tracing {name} was caught "
                f"by {name}'s own code (a `try`, a `with` that suppresses it, or a `return` "
                f"in a `finally`). That code ran once, while tracing, for every value the "
                f"graph will see, so the graph would give its answer whatever the values. "
                f"Keep the error from being raised while tracing, or catch it outside the "
                f"traced function. The error: {error}")


def note_user_line(error: Exception, name: str) -> None:
    """Adds to an error raised while tracing the innermost line of the user's code it
    passed through (as TensorFlow's "in user code:"), once, unless the message names it."""
    if getattr(error, "_rt_user_line", False):
        return
    ours = (os.path.dirname(os.path.abspath(__file__)),
            os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "autograph"))
    where = frame = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(ours) and not filename.startswith("<frozen"):
            where, frame = (filename, tb.tb_lineno, tb.tb_frame.f_code.co_name), tb.tb_frame
        tb = tb.tb_next
    error._rt_user_line = True
    if where is None:
        return
    note = ""
    if f"{where[0]}:{where[1]}" not in str(error):
        note = (f"in user code, while tracing {name}:\n  File \"{where[0]}\", line {where[1]}, "
                f"in {where[2]}")
        line = linecache.getline(where[0], where[1]).strip()
        note += f"\n    {line}" if line else ""
    if isinstance(error, TypeError) and sourceless.source_not_kept(
            frame.f_code, frame.f_globals.get("__name__")):
        note = "\n".join(filter(None, (note, sourceless.error_note(frame.f_code))))
    if not note:
        return
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:       # Python 3.10: no add_note (nor printed notes); the list 3.11 keeps
        error.__notes__ = [*getattr(error, "__notes__", ()), note]
