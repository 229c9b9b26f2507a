"""Removing jumps (`break`, `continue`, `return`) by moving the code after them.

    if c:                          if c:
        <jump>           ->            <jump replacement>
    rest                           else:
                                       rest

`rest` goes into every branch that does not always jump (copied when both need it).
This only works when the jump sits under `if`s alone; under `try` or `with` the code
after them cannot be moved without changing when handlers and exits run, and
`can_lower` says so, so that the construct is left to Python.
"""
from __future__ import annotations

import copy
from typing import Callable

import gast

from autograph.converters.context import contains

LOOPS = (gast.For, gast.While, gast.AsyncFor)


def always_exits(stmts: list, is_jump: Callable) -> bool:
    for s in stmts:
        if is_jump(s) or isinstance(s, gast.Raise):
            return True
        if isinstance(s, gast.If) and always_exits(s.body, is_jump) and always_exits(s.orelse, is_jump):
            return True
    return False


def can_lower(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple) -> bool:
    for s in stmts:
        if is_jump(s):
            continue
        if isinstance(s, gast.If):
            if not (can_lower(s.body, is_jump, kinds, stop) and can_lower(s.orelse, is_jump, kinds, stop)):
                return False
        elif contains(s, kinds, stop):
            return False
    return True


def lower(stmts: list, is_jump: Callable, replace: Callable, kinds: tuple, stop: tuple) -> list:
    out: list = []
    for i, s in enumerate(stmts):
        if is_jump(s):
            out.extend(replace(s))
            return out                   # what follows a jump never runs
        if isinstance(s, gast.If) and contains(s, kinds, stop):
            rest = stmts[i + 1:]
            if rest:
                body_exits = always_exits(s.body, is_jump)
                if not body_exits:
                    s.body = s.body + rest
                if not always_exits(s.orelse, is_jump):
                    s.orelse = s.orelse + (copy.deepcopy(rest) if not body_exits else rest)
            s.body = lower(s.body, is_jump, replace, kinds, stop)
            s.orelse = lower(s.orelse, is_jump, replace, kinds, stop)
            if not s.body and s.orelse:     # `if c: continue` + rest -> `if not c: rest`
                s.test = gast.UnaryOp(op=gast.Not(), operand=s.test)
                s.test.lineno = s.test.operand.lineno
                s.test.col_offset = s.test.operand.col_offset
                s.body, s.orelse = s.orelse, []
            s.body = s.body or [gast.Pass()]
            out.append(s)
            return out
        out.append(s)
    return out
