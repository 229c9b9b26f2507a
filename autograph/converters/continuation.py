"""Removing jumps (`break`, `continue`, `return`) by moving the code after them.

    if c:                          if c:
        <jump>           ->            <jump replacement>
    rest                           else:
                                       rest

The design in full: docs/architecture.md, under `autograph/converters/continuation.py`.
"""
from __future__ import annotations

import copy
from typing import Callable

from autograph import nodes as gast
from autograph import templates
from autograph.converters.context import SCOPES, non_suppressing, children, contains, walk

LOOPS = (gast.For, gast.While, gast.AsyncFor)


def always_exits(stmts: list, is_jump: Callable) -> bool:
    for s in stmts:
        if is_jump(s) or isinstance(s, gast.Raise):
            return True
        if isinstance(s, gast.If) and always_exits(s.body, is_jump) and always_exits(s.orelse, is_jump):
            return True
    return False


def can_lower(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple) -> bool:
    """Whether `lower` should remove every jump: none under `try`/`with`, and the copies
    it makes are `cheap` (else `guard` does it with a flag)."""
    return _only_under_ifs(stmts, is_jump, kinds, stop) and cheap(stmts, is_jump, kinds, stop)


def cheap(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple) -> bool:
    """Whether lowering copies at most as many nodes as `stmts` hold (or 40): moving
    code reads better than flags (`if c: continue` + rest is `if not c: rest`) until
    the copies grow; a flag's guards grow by one `if` per statement that may jump.
    (Measured on k nested early exits in a row: copies give 40, 88, 184, 376 lines for
    k = 2..5, guards 40, 56, 72, 88.)"""
    if copy_cost(stmts, is_jump, kinds, stop, 40) <= 40:
        return True
    size = _size(stmts, 1 << 30)
    return copy_cost(stmts, is_jump, kinds, stop, size) <= size


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


TRY = (gast.Try, getattr(gast, "TryStar", gast.Try))
_ANY_JUMP = (gast.Return, gast.Break, gast.Continue)


def jumps_out(stmts: list) -> bool:
    """Whether `stmts` hold a `return`, or a `break`/`continue` of an enclosing loop."""
    return contains(stmts, (gast.Return,)) or holds(stmts, (gast.Break, gast.Continue), LOOPS)


def holds(node, kinds: tuple, stop: tuple = ()) -> bool:
    """Like `contains`, but of a `stop` node (a loop) only its `else` is searched, where
    a `break`/`continue` belongs to the enclosing loop."""
    todo = list(node) if isinstance(node, list) else [node]
    while todo:
        n = todo.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, stop):
            todo.extend(n.orelse)
        elif not isinstance(n, SCOPES):
            todo.extend(children(n))
    return False


_may_jump = holds


def can_guard(stmts: list, is_jump: Callable, kinds: tuple, stop: tuple, ctx,
              in_catcher: bool = False) -> bool:
    """Whether `guard` can remove every jump in `stmts` without changing what runs."""
    for s in stmts:
        if is_jump(s) or not _may_jump(s, kinds, stop):
            continue
        if isinstance(s, gast.If):
            ok = (can_guard(s.body, is_jump, kinds, stop, ctx, in_catcher)
                  and can_guard(s.orelse, is_jump, kinds, stop, ctx, in_catcher))
        elif isinstance(s, gast.With):
            catches = not all(non_suppressing(i.context_expr, ctx) for i in s.items)
            ok = not in_catcher and can_guard(s.body, is_jump, kinds, stop, ctx, catches)
        elif isinstance(s, TRY):
            if s.finalbody and (in_catcher or jumps_out(s.finalbody)):
                return False
            ok = (can_guard(s.body, is_jump, kinds, stop, ctx, in_catcher or bool(s.handlers))
                  and all(can_guard(h.body, is_jump, kinds, stop, ctx, in_catcher)
                          for h in s.handlers)
                  and can_guard(s.orelse, is_jump, kinds, stop, ctx, in_catcher)
                  and not holds(s.finalbody, kinds, stop))
        elif isinstance(s, (gast.For, gast.While)):      # a jump in the `else` only
            ok = isinstance(s, stop) or not holds(s.body, kinds, stop)
            ok = (ok
                  and can_guard(s.orelse, is_jump, kinds, stop, ctx, in_catcher))
        else:
            ok = False                    # `match`, `async with`, ...: left to Python
        if not ok:
            return False
    return True


def guard(stmts: list, is_jump: Callable, replace: Callable, kinds: tuple, stop: tuple,
          flag: str, skip: Callable = lambda s: False) -> list:
    """Remove the jumps in `stmts` (checked by `can_guard`): `replace(jump)` sets `flag`,
    and the statements after one that may have jumped run under `if not flag:` (one
    guard per such statement, side by side, so nesting does not grow). A statement
    for which `skip` is true only tests the flag (it is dropped; what follows is
    guarded)."""
    out: list = []
    current = out
    for s in stmts:
        if is_jump(s):
            current.extend(replace(s))
            break                         # what follows a jump never runs
        if not skip(s):
            if not _may_jump(s, kinds, stop):
                current.append(s)
                continue
            exits = always_exits([s], is_jump)
            _guard_inside(s, is_jump, replace, kinds, stop, flag, skip)
            current.append(s)
            if exits:
                break
        if current is out or current:     # else: the last guard is still empty
            test = templates.replace_as_expression("not flag", s.lineno, flag=flag)
            new = gast.If(test=test, body=[], orelse=[])
            new.lineno, new.col_offset = s.lineno, getattr(s, "col_offset", 0)
            out.append(new)
            current = new.body
    if out and current is not out and not current:
        out.pop()                         # a guard with nothing left to guard
    return out


def _guard_inside(s, is_jump, replace, kinds, stop, flag, skip) -> None:
    lower = lambda b: guard(b, is_jump, replace, kinds, stop, flag, skip)
    if isinstance(s, gast.If):
        s.body = lower(s.body) or [gast.Pass()]
        s.orelse = lower(s.orelse)
    elif isinstance(s, gast.With):
        s.body = lower(s.body) or [gast.Pass()]
    elif isinstance(s, TRY):
        body_jumps = holds(s.body, kinds, stop)
        s.body = lower(s.body) or [gast.Pass()]
        for h in s.handlers:
            h.body = lower(h.body) or [gast.Pass()]
        if s.orelse:
            orelse = lower(s.orelse)
            if body_jumps and orelse:       # `else` runs only if the body did not jump
                test = templates.replace_as_expression("not flag", s.lineno, flag=flag)
                g = gast.If(test=test, body=orelse, orelse=[])
                g.lineno, g.col_offset = s.orelse[0].lineno, 0
                orelse = [g]
            s.orelse = orelse
    else:                                   # a loop: its `else`
        s.orelse = lower(s.orelse)
