"""Functions the user wrote whose source Python did not keep: code given with `python -c`,
piped to `python -` (`python - < file.py`) or typed at the plain interactive prompt. Such a
function cannot be converted; it runs as written, so its `if`, `for` and `while` on
tensors do not stage. TensorFlow says so ("AutoGraph could not transform <function f> and
will run it as-is. Cause: could not get source code"); so do `convert_function` (a
warning, once per function) and the runtime's errors raised in such a function.
"""
from __future__ import annotations

import linecache
import types

# The file names Python gives the code of `python -c` (and of `exec` of a str) and of
# `python -` or the interactive prompt: no source is kept for either.
UNREAD_FILES = frozenset({"<string>", "<stdin>"})

WHY = ("its source code could not be read: Python keeps none for code given with "
       "`python -c`, piped to `python -` or typed at the interactive prompt")
WHAT_INSTEAD = ("put the function in a file and run that file (`python file.py`), or import "
                "it from one")


def source_not_kept(code: types.CodeType, module: object) -> bool:
    """Whether `code` (of a function of `module`, its `__name__`) is code the user wrote
    whose source Python did not keep. The methods a dataclass or a namedtuple makes with
    `exec`/`eval` are not: they are nobody's code to convert, and run as they are quietly."""
    return (code.co_filename in UNREAD_FILES and not source_is_its_own(code)
            and not made_by_library(code, module))


def source_is_its_own(code: types.CodeType) -> bool:
    """Whether the text linecache keeps for `code`'s file defines it at its first line:
    one "<string>" stands for every `exec` of a str (and for `python -c`'s text, which
    Python 3.13 keeps), so what is kept may be another's."""
    lines = linecache.getlines(code.co_filename)
    i = code.co_firstlineno - 1
    if not 0 <= i < len(lines):
        return False
    line = lines[i].lstrip()
    return (line.startswith(("@", f"def {code.co_name}", f"async def {code.co_name}"))
            or (code.co_name == "<lambda>" and "lambda" in line))


def made_by_library(code: types.CodeType, module: object) -> bool:
    """Whether `code` is a method a dataclass or a namedtuple made with `exec`: nobody's
    source (Python 3.13 keeps `python -c`'s text for "<string>", which is not its)."""
    return _made_by_dataclasses(code) or str(module).startswith("namedtuple_")


# The methods dataclasses make: on Python 3.10 their code has no co_qualname to say so
_DATACLASS_METHODS = frozenset({"__init__", "__repr__", "__eq__", "__lt__", "__le__",
                                "__gt__", "__ge__", "__hash__", "__setattr__", "__delattr__"})


def _made_by_dataclasses(code: types.CodeType) -> bool:
    qualname = getattr(code, "co_qualname", None)
    if qualname is not None:
        return "__create_fn__" in qualname
    return code.co_name in _DATACLASS_METHODS


def left_unconverted(fn: types.FunctionType) -> str:
    """The warning for `fn`, which `source_not_kept` and so runs as written."""
    code = fn.__code__
    return (f"autograph could not convert {fn.__qualname__} ({code.co_filename}:"
            f"{code.co_firstlineno}) and runs it as written: {WHY}. Its `if`, `for` and "
            f"`while` on tensors will not stage; {WHAT_INSTEAD}.")


def error_note(code: types.CodeType) -> str:
    """What an error raised in such a function while tracing adds to its message."""
    return (f"{code.co_name} was not converted by autograph ({code.co_filename}:"
            f"{code.co_firstlineno}): {WHY}. So its Python `if`, `for` and `while` ran as "
            f"Python on tensors; {WHAT_INSTEAD}.")
