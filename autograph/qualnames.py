"""The qualified names of converted code: `ag__factory.<locals>.ag__entity.<locals>.if_true`
as Python compiles it becomes `f.<locals>.if_true`, the names the user's function would
give (tracebacks, `__qualname__`, pickling by name). Python 3.11 keeps a function's
qualified name in its code (`co_qualname`, rewritten by `requalify`); 3.10 has it as a
constant of the code that makes the function (`requalify_310` rewrites the bytecode's
constants, `mark_generated_lambdas` tags the lambdas conversion made)."""
from __future__ import annotations

import ast
import dis
import types
from typing import Optional

_OPTIMIZED = 0x0001     # inspect.CO_OPTIMIZED: set on functions, not on class bodies
_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


def requalify(code: types.CodeType, qualname: str, inner: str, generated: set,
               user: tuple, name: Optional[str] = None) -> types.CodeType:
    """`code`, qualified as `qualname`, and the code nested in it, qualified under `inner`
    (`f.<locals>` in a function `f`) as in the user's function: generated functions
    (`if_true`) and lambdas (`ag__.if_exp(c, lambda: ...)`) pass their own `inner` on, so
    that a nested `def`, lambda or class has the `__qualname__` it has unconverted.

    Generated functions take the name of the user's function they are part of (`user`:
    its name and qualified name), so that what reads frames while the converted body
    runs (tracebacks, `logging`'s funcName, `inspect.stack()`, the locations recorded for
    staged ops) names the user's function, at the user's lines. `name`: a new co_name.
    A code object with nothing to change is returned as it is."""
    # (This runs on every code object of every conversion: one pass over the constants,
    # and a copy of them only once one changes.)
    consts = code.co_consts
    new_consts = None
    made_here = None        # ids of the lambdas autograph wrote in `code`, once it has one
    for i, const in enumerate(consts):
        if type(const) is not types.CodeType:
            continue
        own_name = const.co_name
        if own_name == "<lambda>" and made_here is None:
            made_here = _generated_lambdas(code)
        if ((own_name in generated and const.co_flags & _OPTIMIZED)
                or (made_here and id(const) in made_here)):
            new = requalify(const, user[1], inner, generated, user, user[0])
        else:
            # Everything compiled in the factory is qualified under it, but for what is
            # declared `global` (its name alone). The compiler shares equal code objects
            # within a module: a user's `lambda: 1` in the original body is also the one
            # inside `or_`'s thunk in the converted body, where it is not a child.
            own = const.co_qualname
            if own.startswith("ag__factory."):
                own = f"{inner}.{own_name}"
            if own_name.startswith("<generic parameters of "):
                # (3.12's scope of `class C[T]` / `def g[T]`: what it holds is qualified
                # as if it were not there, `f.<locals>.C`)
                nested = inner
            elif const.co_flags & _OPTIMIZED and own_name not in _COMPREHENSIONS:
                nested = own + ".<locals>"
            else:                           # class bodies, comprehensions
                nested = own
            new = requalify(const, own, nested, generated, (own_name, own))
        if new is not const:
            if new_consts is None:
                new_consts = list(consts)
            new_consts[i] = new
    changed = new_consts is not None
    consts = new_consts if changed else consts
    if not code.co_flags & _OPTIMIZED:        # a class body stores its `__qualname__`
        old = code.co_qualname
        if old != qualname and any(type(c) is str and c == old for c in consts):
            consts = [qualname if type(c) is str and c == old else c for c in consts]
            changed = True
    changes = {"co_consts": tuple(consts)} if changed else {}
    if code.co_qualname != qualname:
        changes["co_qualname"] = qualname
    if name is not None and code.co_name != name:
        changes["co_name"] = name
    return code.replace(**changes) if changes else code


def _generated_lambdas(code: types.CodeType) -> set:
    """ids of the lambdas in `code` that autograph wrote: template nodes have no width
    (their `lambda` is made where a zero-width span says), a user's lambda has one. (The
    LOAD_CONST instructions of `co_code`, with `co_positions()`, read directly: `dis`
    costs a fifth of converting a long function.)"""
    consts = code.co_consts
    lambdas = {i for i, c in enumerate(consts)
               if type(c) is types.CodeType and c.co_name == "<lambda>"}
    found = set()
    if not lambdas:
        return found
    raw = code.co_code
    arg = 0
    for (line, end, col, end_col), i in zip(code.co_positions(), range(0, len(raw), 2)):
        op = raw[i]
        if op == _EXTENDED_ARG:
            arg = (arg | raw[i + 1]) << 8
            continue
        value = arg | raw[i + 1]
        arg = 0
        if (op == _LOAD_CONST and value in lambdas and line is not None and line == end
                and col == end_col):
            found.add(id(consts[value]))
    return found


_LOAD_CONST, _EXTENDED_ARG = dis.opmap["LOAD_CONST"], dis.opmap["EXTENDED_ARG"]


# Python 3.10. Its code has no qualified name: `MAKE_FUNCTION` takes the function's from
# a constant of the code making it (LOAD_CONST <code>; LOAD_CONST <qualname>), and a class
# body stores its own (LOAD_CONST <qualname>; STORE_NAME __qualname__). Nor has it column
# positions, which tell autograph's lambdas from the user's on 3.11: autograph's (those
# with no width) are compiled at line -1 instead, a `co_firstlineno` no source line has,
# and given their line back once found (`_generated_lambdas_310`).

_GENERATED_LINE = -1
_MAKE_FUNCTION, _STORE_NAME = dis.opmap["MAKE_FUNCTION"], dis.opmap["STORE_NAME"]


def mark_generated_lambdas(node) -> None:
    for n in ast.walk(node):
        # (a lambda of autograph's, of gast's class and `ast`'s: see autograph.nodes)
        if (isinstance(n, ast.Lambda) and n.lineno == (n.end_lineno or n.lineno)
                and n.col_offset == (n.end_col_offset or n.col_offset)):
            n.lineno = _GENERATED_LINE


def _instructions_310(raw: bytes) -> list:
    """[(offset, opcode, argument, offset of its argument's first byte)] of 3.10's
    `co_code` (two bytes an instruction; EXTENDED_ARG prefixes folded in)."""
    found, arg, first = [], 0, None
    for i in range(0, len(raw), 2):
        op = raw[i]
        if first is None:
            first = i
        if op == _EXTENDED_ARG:
            arg = (arg | raw[i + 1]) << 8
            continue
        found.append((i, op, arg | raw[i + 1], first))
        arg, first = 0, None
    return found


def _set_argument_310(raw: bytearray, offset: int, first: int, value: int) -> bool:
    """Writes `value` as the argument of the instruction at `offset` (its prefixes from
    `first`), if it fits in as many bytes; whether it did."""
    width = (offset - first) // 2 + 1
    if value >= 1 << (8 * width):
        return False
    for k in range(width):
        raw[offset + 1 - 2 * k] = (value >> (8 * k)) & 0xFF
    return True


def _with_line_310(code: types.CodeType, line: int) -> types.CodeType:
    """`code` with `co_firstlineno` `line`, its instructions' lines as they were (3.10's
    line table counts from `co_firstlineno`: pairs of no width move it back first)."""
    shift, prefix = code.co_firstlineno - line, bytearray()
    while shift:
        step = max(-127, min(127, shift))
        prefix += bytes([0, step & 0xFF])
        shift -= step
    return code.replace(co_firstlineno=line, co_linetable=bytes(prefix) + code.co_linetable)


def _class_qualname_310(code: types.CodeType) -> Optional[int]:
    """Index in `co_consts` of the qualified name a 3.10 class body stores."""
    previous = None
    for _, op, arg, _ in _instructions_310(code.co_code):
        if (op == _STORE_NAME and code.co_names[arg] == "__qualname__" and previous
                and previous[0] == _LOAD_CONST and type(code.co_consts[previous[1]]) is str):
            return previous[1]
        previous = (op, arg)
    return None


def requalify_310(code: types.CodeType, qualname: str, inner: str, generated: set,
                   user: tuple, name: Optional[str] = None) -> types.CodeType:
    """`requalify` for Python 3.10, where qualified names are constants (see above): the
    constant each `MAKE_FUNCTION` of `code` reads is changed (a new one where the
    argument fits; else the function keeps the name compiled), and a class body's own."""
    consts = list(code.co_consts)
    changed = False
    for i, const in enumerate(code.co_consts):
        if type(const) is types.CodeType and const.co_firstlineno == _GENERATED_LINE:
            line = next((line for _, _, line in const.co_lines() if line is not None), 1)
            consts[i] = _with_line_310(const, line)
            changed = True
    made_here = {i for i, const in enumerate(code.co_consts)
                 if type(const) is types.CodeType and const.co_firstlineno == _GENERATED_LINE}
    raw = bytearray(code.co_code)
    instructions = _instructions_310(raw)
    done = {}                           # index of a code constant: its new version
    for (_, op1, arg1, _), (at, op2, arg2, first), (_, op3, _, _) in zip(
            instructions, instructions[1:], instructions[2:]):
        if not (op1 == op2 == _LOAD_CONST and op3 == _MAKE_FUNCTION):
            continue
        const, compiled = consts[arg1], code.co_consts[arg2]
        if type(const) is not types.CodeType or type(compiled) is not str:
            continue
        if const.co_flags & _OPTIMIZED:
            own = (f"{inner}.{const.co_name}" if compiled.startswith("ag__factory.")
                   else compiled)       # declared `global`: its name alone
            if arg1 in made_here or const.co_name in generated:
                new, new_name = requalify_310(const, user[1], inner, generated, user,
                                               user[0]), user[1]
            else:
                nested = own if const.co_name in _COMPREHENSIONS else own + ".<locals>"
                new, new_name = requalify_310(const, own, nested, generated,
                                               (const.co_name, own)), own
        else:                           # a class body: the name given is its own
            index = _class_qualname_310(const)
            if index is None:
                continue
            stored = const.co_consts[index]
            own = f"{inner}.{const.co_name}" if stored.startswith("ag__factory.") else stored
            new, new_name = requalify_310(const, own, own, generated,
                                           (const.co_name, own)), compiled
        if new is not const:
            done[arg1] = new
        if new_name != compiled:
            if new_name not in consts:
                consts.append(new_name)
            if _set_argument_310(raw, at, first, consts.index(new_name)):
                changed = True
    for i, new in done.items():
        consts[i] = new
        changed = True
    if not code.co_flags & _OPTIMIZED:          # a class body stores its `__qualname__`
        index = _class_qualname_310(code)
        if index is not None and consts[index] != qualname:
            consts[index] = qualname
            changed = True
    changes = {"co_consts": tuple(consts), "co_code": bytes(raw)} if changed else {}
    if name is not None and code.co_name != name:
        changes["co_name"] = name
    return code.replace(**changes) if changes else code
