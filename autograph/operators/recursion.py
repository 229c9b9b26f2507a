"""Why a recursion in converted code reached Python's recursion limit sooner than the
original does.

The design in full: docs/architecture.md, under `autograph/operators/recursion.py`.
"""
from __future__ import annotations

from builtins import getattr, isinstance, len, max, min, round, setattr, str  # the originals

import os
import sys

from autograph.errors import caller_frame

_AUTOGRAPH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXPLANATION = "ag_recursion"       # the attribute the explanation is kept in


def explain(error: RecursionError) -> None:
    """Adds to `error`'s message why converted code ran out of depth, once. Called from
    the operators' handlers: near the limit, looking at the stack may itself run out of
    depth; the error is then left for an operator further out, with more room."""
    if EXPLANATION in getattr(error, "__dict__", ()):
        return
    try:
        text = _explanation()
    except RecursionError:
        return
    setattr(error, EXPLANATION, text)
    if text is not None:
        args = error.args
        if len(args) == 1 and isinstance(args[0], str):
            error.args = (f"{args[0]}. {text}",)
        else:
            error.args = (*args, text)


def _explanation():
    """The explanation from the live stack (where the recursion still is, above the
    operator the error is passing out of), or None."""
    frame = caller_frame(1)
    files = []                  # the file of each frame, innermost first
    counts: dict = {}           # code -> frames of it on the stack
    first: dict = {}            # code -> position of its innermost frame (0: innermost)
    last: dict = {}             # code -> position of its outermost frame
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(_AUTOGRAPH_DIR):
            counts[code] = counts.get(code, 0) + 1
            if code not in first:
                first[code] = len(files)
            last[code] = len(files)
            files.append(code.co_filename)
        else:
            files.append(None)
        frame = frame.f_back
    if not counts:
        return None
    most = max(counts.values())
    if most < 3:
        return None
    # The recursing function and its generated branch functions recur as often (they
    # carry its name): the function's own code is the one defined first.
    code = min((c for c, n in counts.items() if n == most), key=lambda c: c.co_firstlineno)
    span = files[first[code]:last[code] + 1]
    if any(f is not None and f != code.co_filename for f in span):
        # Frames of a backend (a staged `if` recursing on a tensor, which never ends),
        # or of other files: not only converted code's own; the caller says it.
        return None
    per_level = round((last[code] - first[code]) / (most - 1))
    if per_level < 2:
        return None             # (a recursion of original bodies: nothing converted added)
    limit = sys.getrecursionlimit()
    return (f"{code.co_name} ({code.co_filename}:{code.co_firstlineno}) recursed {most} "
            f"levels deep in converted code, {per_level} frames a level: while a graph is "
            f"built, a converted function runs its `if`s and loops through autograph's "
            f"operators and generated functions, so a recursion on Python values reaches "
            f"about 1/{per_level} of the depth it reaches as plain Python (the recursion "
            f"limit is {limit}). Raise it with sys.setrecursionlimit (to about {per_level} "
            f"times the depth the recursion needs), or write the recursion as a loop "
            f"(`while`/`for`); a recursion on tensor values never ends while tracing (a "
            f"staged `if` traces the branch that recurses whatever the value)")
