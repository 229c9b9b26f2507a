"""Functions that look at their own frame: left as written (by `to_graph` and by the
command-line converter alike). The converted body, which runs while a graph is built,
runs branches and loop bodies in functions of their own, so `locals()` there sees other
names, `exec` cannot assign the function's variables, and counting frames up the stack
lands somewhere else.
"""
from __future__ import annotations

import ast
import builtins
import types
from typing import Optional

from autograph import nodes as gast

LOCALS_READERS = frozenset({"locals", "vars", "eval", "exec", "dir"})
FRAME_FUNCTIONS = frozenset({"_getframe", "currentframe", "stack", "getouterframes",
                             "extract_stack", "format_stack", "print_stack", "walk_stack"})
_INTROSPECTING_MODULES = frozenset({"builtins", "sys", "inspect", "traceback", "warnings",
                                    "_warnings"})
_HINT_NAMES = LOCALS_READERS | FRAME_FUNCTIONS
# What the text of such a function contains (a cheap test before `introspection`).
TEXT_HINTS = ("_getframe", "currentframe", "stack(", "_stack", "locals(", "vars(", "eval(",
              "exec(", "dir(")
_CALLS, _NAMES, _ATTRIBUTES = (ast.Call, gast.Call), (ast.Name, gast.Name), (ast.Attribute,
                                                                              gast.Attribute)


def may_introspect(code: types.CodeType) -> bool:
    """Whether `code`, or code nested in it, names what `introspection` looks for (a cheap
    test before it, on the compiled function)."""
    todo = [code]
    while todo:
        code = todo.pop()
        if not _HINT_NAMES.isdisjoint(code.co_names):
            return True
        for const in code.co_consts:
            if type(const) is types.CodeType:
                todo.append(const)
            elif type(const) is str and const in _SYS_FRAME_FUNCTIONS:
                return True                   # `getattr(sys, "_getframe")`
    return False


def _resolve(func, namespace) -> object:
    """The called object when `namespace` tells (`name`, `module.name`), else None."""
    if namespace is None:
        return None
    if isinstance(func, _NAMES):
        value = namespace.get(func.id, _NOT_BOUND)
        return getattr(builtins, func.id, None) if value is _NOT_BOUND else value
    if isinstance(func, _ATTRIBUTES) and isinstance(func.value, _NAMES):
        base = namespace.get(func.value.id)
        return getattr(base, func.attr, None) if base is not None else None
    return None


_NOT_BOUND = object()


def _other_function(func, namespace) -> bool:
    """Whether the call goes to something other than the introspecting builtins and
    standard-library functions: known to (`np.stack`, a user's own `eval`), or, for a
    method called `stack` of an object the namespace does not know (`ta.stack()`), not
    called on `inspect`."""
    module = getattr(_resolve(func, namespace), "__module__", None)
    if isinstance(module, str):
        return module.partition(".")[0] not in _INTROSPECTING_MODULES
    return (isinstance(func, _ATTRIBUTES) and func.attr == "stack"
            and not (isinstance(func.value, _NAMES) and func.value.id == "inspect"))


def introspection(node, namespace=None) -> Optional[tuple]:
    """(reason, counts frames) when the function `node` (an ast or gast tree, nested
    functions included) reads its locals (`locals()`, `vars()`, `dir()`, `eval`, `exec`) or looks
    at the call stack (`sys._getframe`, `inspect.currentframe`, `inspect.stack`), else
    None. (A `warnings.warn(..., stacklevel=2)` does not count: on Python values the
    converted function runs its original body, with the original's frames, and while it
    stages only a warning's location could differ.) `namespace` (globals, closure) rules
    out calls known to go elsewhere; unknown ones count."""
    for call in ast.walk(node):
        if not isinstance(call, _CALLS):
            continue
        func = call.func
        name = (func.id if isinstance(func, _NAMES) else
                func.attr if isinstance(func, _ATTRIBUTES) else None)
        if name is None:
            continue
        if (isinstance(func, _NAMES) and name in LOCALS_READERS
                and not (name in ("vars", "dir") and (call.args or call.keywords))
                and not _other_function(func, namespace)):
            return (f"{name}() sees the function's local variables, which converted code "
                    "moves into functions of its own"), False
        if name in FRAME_FUNCTIONS and not _other_function(func, namespace):
            return (f"{name}() looks at the call stack, which converted code deepens while "
                    "it stages"), True
        if (name == "getattr" and len(call.args) >= 2 and isinstance(call.args[1], _CONSTANTS)
                and call.args[1].value in _SYS_FRAME_FUNCTIONS):
            # `getattr(sys, "_getframe", None)(1)`: the same, through an alias
            return (f"{call.args[1].value}() (through getattr) looks at the call stack, "
                    "which converted code deepens while it stages"), True
    return None


_CONSTANTS = (ast.Constant, gast.Constant)
_SYS_FRAME_FUNCTIONS = frozenset({"_getframe", "currentframe"})
