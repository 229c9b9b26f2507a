"""Running a staged construct's branch and body functions for a backend, and the values
they take and give: one value for one state name, a tuple for several, None for none."""
from __future__ import annotations

from builtins import (  # the originals: see operators/__init__
    getattr, id, isinstance, set, tuple)

from typing import Any, Callable, Sequence

from autograph.errors import (PACKAGE_DIR, StagingError, StagingStructureError,
                              StagingTypeError, StagingValueError, user_location)
from autograph.operators.undefined import Undefined, unwrap
from autograph.operators.watch import Watch


def pack(values: Sequence[Any], n: int) -> Any:
    if n == 1:
        return values[0]
    return tuple(values) if n else None


def unpack(result: Any, n: int) -> tuple:
    if n == 1:
        return (result,)
    return tuple(result) if n else ()



class Tracer:
    """Runs branch/body functions for a backend; tells user errors from staging errors.

    A branch that reads a name no path has assigned (`ld` of an `Undefined`) cannot be
    traced; with `backend` given (an `if`), it is staged as a run-time error instead —
    raised only if the graph takes that branch, as Python would — and gives undefined
    values, which the backend replaces with zeros of the other branch's types.
    """

    def __init__(self, backend: Any = None, n_outputs: int = 0, caught: bool = False,
                 watch: Any = None, names: Sequence[str] = ()) -> None:
        self.watch = watch       # Python state the traced functions must not change
        self.names = names       # of the values they take: each call must leave the
        #                          objects it is given as they were (see `wrap`)
        self.caught = caught     # the user's code may catch what a branch raises
        self.deferred = False    # a branch raised while traced: a run-time error of it
        self.user_errors: set = set()
        self.outputs: list = []
        self.backend, self.n_outputs = backend, n_outputs     # n_outputs: values only
        self.undefined_reads: list = []
        self.raw_outputs: list = []     # before unwrapping MaybeUndefined

    def wrap(self, fn: Callable, post: Callable) -> Callable:
        def run(*args):
            # The objects a branch or body is given (the construct's variables) must come
            # out as they went in: a change in place (`xs += [1]`, `a = a.add(1)`) would
            # happen while tracing, whatever the condition (and in a loop, to the copy
            # the loop made of the value, which the variable's other names never see).
            given = (Watch((), state=zip(self.names, args),
                           where=self.watch.where if self.watch is not None else None)
                     if self.names and args else None)
            try:
                result = fn(*args)
            except BaseException as e:
                read = getattr(e, "ag_undefined", None)
                deferred = (read is None and self.caught and isinstance(e, Exception)
                            and not isinstance(e, StagingError))
                if (read is None and not deferred) or self.backend is None:
                    self.user_errors.add(id(e))
                    raise
                e.ag_left_staged = None       # handled here: a run-time error (see _staged)
                self.undefined_reads.append(e)
                if deferred:
                    self.deferred = True
                    message = (f"{type(e).__name__}: {e} (raised at {raised_at(e)} in a "
                               f"staged branch; code that catches it runs only while "
                               f"tracing, so the graph raises this instead)")
                else:
                    name, where = read
                    message = (f"name '{name}' is used at {where} but was not assigned on "
                               f"the path taken; assign it on every path before this line")
                self.backend.assert_(self.backend.convert(False), message)
                name = read[0] if read else "the value"
                result = post(pack([Undefined(name)] * self.n_outputs, self.n_outputs))
                self.outputs.append(None)
                return tuple(unwrap(v) for v in result)
            raw = tuple(post(result))
            if self.watch is not None:
                self.watch.check()
            if given is not None:
                given.check()
            self.raw_outputs.append(raw)
            result = tuple(unwrap(v) for v in raw)
            self.outputs.append(result)
            return result
        return run

    def staging_error(self, error: TypeError, names: Sequence[str], advice: str) -> Exception:
        if id(error) in self.user_errors:
            return error
        text = str(error).rstrip(". ")
        if ("must" in text or "use " in text or "Make " in text
                or not any(word in text for word in ("branch", "iteration", "loop"))):
            advice = ""        # the backend's message already says what to change
        kind = (StagingTypeError if isinstance(error, TypeError) else
                StagingValueError if isinstance(error, ValueError) else StagingError)
        if kind is StagingTypeError and "structure" in text:
            kind = StagingStructureError
        return kind(f"{user_location(3)}: {text}. {advice}".rstrip())


def raised_at(error: BaseException) -> str:
    """'file:line' of the innermost frame outside autograph that `error` passed through."""
    where, tb = "<unknown>", error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(PACKAGE_DIR):
            where = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where
