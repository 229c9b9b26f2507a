"""Removing jumps (`break`, `continue`, `return`) by moving the code after them.

    if c:                          if c:
        <jump>           ->            <jump replacement>
    rest                           else:
                                       rest

`rest` goes into every branch that does not always jump (copied when both need it).
This only works when the jump sits under `if`s alone; under `try` or `with` the code
after them cannot be moved without changing when handlers and exits run, and
`can_lower` says so, so that the construct is left to Python. Copies can multiply (each
of k such `if`s in a row doubles what follows it), so `can_lower` also refuses when
lowering would copy more than is `affordable`.
"""
from __future__ import annotations

import copy
from typing import Callable

import gast

from autograph.converters.context import contains, walk

LOOPS = (gast.For, gast.While, gast.AsyncFor)


def always_exits(stmts: list, is_jump: Callable) -> bool:
    for s in stmts:
        if is_jump(s) or isinstance(s, gast.Raise):
            return True
        if isinstance(s, gast.If) and always_exits(s.body, is_jump) and always_exits(s.orelse, is_jump):
            return True
    return False


def can_lower(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple) -> bool:
    """Whether `lower` can remove every jump: none under `try`/`with`, and the copies it
    makes are `affordable`."""
    return _only_under_ifs(stmts, is_jump, kinds, stop) and affordable(stmts, is_jump, kinds, stop)


def _only_under_ifs(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple) -> bool:
    for s in stmts:
        if is_jump(s):
            continue
        if isinstance(s, gast.If):
            if not (_only_under_ifs(s.body, is_jump, kinds, stop)
                    and _only_under_ifs(s.orelse, is_jump, kinds, stop)):
                return False
        elif contains(s, kinds, stop):
            return False
    return True


def _size(stmts: list, cap: int) -> int:
    """Nodes in `stmts`, counting no further than `cap`."""
    n = 0
    for s in stmts:
        for _ in walk(s):
            n += 1
            if n > cap:
                return n
    return n


def affordable(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple) -> bool:
    """Whether lowering `stmts` copies at most eight times the nodes they hold, and 200
    more. Generous (random programs with many early returns need up to 7.4 times), but
    linear: k `if`s in a row, each doubling what follows it, need 2**k times."""
    if copy_cost(stmts, is_jump, kinds, stop, 200) <= 200:
        return True                    # the common case, without counting `stmts`
    budget = 200 + 8 * _size(stmts, 1 << 30)
    return copy_cost(stmts, is_jump, kinds, stop, budget) <= budget


def copy_cost(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple, limit: int) -> int:
    """How many nodes `lower(stmts, ...)` would copy, counted no further than `limit`
    (so that counting stays cheap where the copies would multiply)."""
    for i, s in enumerate(stmts):
        if is_jump(s):
            return 0
        if isinstance(s, gast.If) and contains(s, kinds, stop):
            rest, body, orelse, cost = stmts[i + 1:], s.body, s.orelse, 0
            if rest:
                body_exits = always_exits(s.body, is_jump)
                if not body_exits:
                    body = body + rest
                if not always_exits(s.orelse, is_jump):
                    orelse = orelse + rest
                    if not body_exits:
                        cost = _size(rest, limit)
            if cost > limit:
                return cost
            cost += copy_cost(body, is_jump, kinds, stop, limit - cost)
            if cost > limit:
                return cost
            return cost + copy_cost(orelse, is_jump, kinds, stop, limit - cost)
    return 0


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
