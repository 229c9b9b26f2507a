"""`return` anywhere: a flag inside loops, a continuation elsewhere.

In a loop, `return` becomes a `break` that records the value:

    for x in xs:                     do_return = False
        if x > 0:                    for x in xs:
            return x         ->          if x > 0:
    return -1                                do_return = True
                                             retval_ = x
                                             break
                                     if do_return:
                                         return retval_
                                     return -1

Then, at function level, code after an `if` that returns on some path moves into the
paths that do not return (see `continuation`), so every `return` ends the function's
last statement:

    if t:                            if t:
        return a             ->          return a
    b = f(x)                         else:
    return b                             b = f(x)
                                         return b

The `if` is then marked `return_form`: converted, it becomes `return ag__.if_stmt(...)`
with each branch function returning the function's result. An early `return` under a
tensor condition thus stages as a choice between `a` and the rest of the function.
"""
from __future__ import annotations

import gast

from autograph import anno, templates
from autograph.converters import continuation
from autograph.converters.context import Context, StatementTransformer, contains

LOOPS = (gast.For, gast.While)


class _LoopReturns(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.depth = 0
        self.do_return = self.retval = None

    def _names(self):
        if self.do_return is None:
            self.do_return = self.ctx.new_name("do_return")
            self.retval = self.ctx.new_name("retval_")
        return self.do_return, self.retval

    def _visit_loop(self, node):
        has_return = contains(node.body, (gast.Return,))
        self.depth += 1
        node.body = self._visit_block(node.body)
        self.depth -= 1
        node.orelse = self._visit_block(node.orelse)
        if not has_return:
            return node
        do_return, retval = self._names()
        if self.depth:
            after = templates.replace("if do_return:\n    break", node.lineno, do_return=do_return)
            return [node] + after
        return (templates.replace("do_return = False", node.lineno, do_return=do_return) + [node] +
                templates.replace("if do_return:\n    return retval", node.lineno,
                                  do_return=do_return, retval=retval))

    visit_For = visit_While = _visit_loop

    def _visit_block(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def visit_Return(self, node):
        if not self.depth:
            return node
        do_return, retval = self._names()
        value = node.value if node.value is not None else gast.Constant(value=None, kind=None)
        # The value first: if computing it raises (and a handler in the loop catches that),
        # the function has not returned.
        return templates.replace("retval = value\ndo_return = True\nbreak", node.lineno,
                                 do_return=do_return, retval=retval, value=value)


def _is_return(s) -> bool:
    return isinstance(s, gast.Return)


def _lower(stmts: list) -> list:
    if continuation.affordable(stmts, _is_return, (gast.Return,), ()):
        stmts = continuation.lower(stmts, _is_return, lambda s: [s], (gast.Return,), ())
    # else: the copies would multiply; the `if`s with a `return` stay Python (blocker)
    if stmts and isinstance(stmts[-1], gast.With) and contains(stmts[-1], (gast.Return,)):
        stmts[-1].body = _lower(stmts[-1].body)      # a `with` at the end: its body is a tail
    return stmts


def _mark_tail(stmts: list) -> None:
    if not stmts:
        return
    last = stmts[-1]
    if isinstance(last, gast.If) and contains(last, (gast.Return,)):
        anno.set_(last, "return_form", True)
        _mark_tail(last.body)
        _mark_tail(last.orelse)
    elif isinstance(last, gast.With):
        _mark_tail(last.body)


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    loops = _LoopReturns(ctx)
    fn_node.body = loops._visit_block(fn_node.body)
    fn_node.body = _lower(fn_node.body)
    _mark_tail(fn_node.body)
    return fn_node
