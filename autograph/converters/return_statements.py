"""`return` anywhere: a flag inside loops, a continuation elsewhere.

In a loop, `return` becomes a `break` that records the value:

The design in full: docs/architecture.md, under `autograph/converters/return_statements.py`.
"""
from __future__ import annotations

from autograph import anno, templates
from autograph import nodes as gast
from autograph.converters import continuation
from autograph.converters.context import (Context, StatementTransformer, non_suppressing,
                                          contains)

LOOPS = (gast.For, gast.While)


class _LoopReturns(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.depth = 0
        self.do_return = self.retval = None
        self.cleanups: list = []    # enclosing try/with: (catches, cleans up, finally jumps)

    def _visit_fields(self, node, entry, fields):
        self.cleanups.append(entry)
        try:
            for field in fields:
                setattr(node, field, self._visit_block(getattr(node, field)))
        finally:
            self.cleanups.pop()

    def visit_Try(self, node):
        cleans, jumps = bool(node.finalbody), continuation.jumps_out(node.finalbody)
        self._visit_fields(node, (bool(node.handlers), cleans, jumps), ["body"])
        for h in node.handlers:
            self._visit_fields(h, (False, cleans, jumps), ["body"])
        self._visit_fields(node, (False, cleans, jumps), ["orelse"])
        node.finalbody = self._visit_block(node.finalbody)
        return node

    visit_TryStar = visit_Try

    def visit_With(self, node):
        catches = not all(non_suppressing(i.context_expr, self.ctx) for i in node.items)
        self._visit_fields(node, (catches, True, False), ["body"])
        return node

    def _flag_can_say(self) -> bool:
        """Whether a `return` here may become a flag: not under a `finally` that jumps
        (it would discard the return), nor under a cleanup (`finally`, `with` exit)
        that an `except` or a suppressing `with` encloses (an exception raised by the
        cleanup would discard the return, and code that reads the flag would follow)."""
        catching = False
        for catches, cleans, jumps in self.cleanups:
            if jumps or (cleans and catching):
                return False
            catching = catching or catches
        return True

    def _names(self):
        if self.do_return is None:
            self.do_return = self.ctx.new_name("do_return")
            self.retval = self.ctx.new_name("retval_")
        return self.do_return, self.retval

    def _visit_loop(self, node):
        has_return = contains(node.body, (gast.Return,))
        own_break = continuation.holds(node.body, (gast.Break,), LOOPS)
        # `while True:` left only by `return`: after it, the function has returned.
        returns_only = (isinstance(node, gast.While) and isinstance(node.test, gast.Constant)
                        and node.test.value is True and not node.orelse and not own_break)
        self.depth += 1
        node.body = self._visit_block(node.body)
        self.depth -= 1
        if not self.depth and not own_break and _ends(node.orelse, self.ctx):
            anno.setanno(node, anno.ALWAYS_RETURNS, True)     # by a `return` in it or its `else`
        node.orelse = self._visit_block(node.orelse)
        if not has_return:
            return node
        do_return, retval = self._names()
        if self.depth:
            if returns_only:
                return [node] + templates.replace("break", node.lineno)
            after = templates.replace("if do_return:\n    break", node.lineno, do_return=do_return)
            return [node] + after
        if returns_only:
            check = templates.replace("return ag__.ld(retval)", node.lineno, retval=retval)
        else:
            check = templates.replace("if do_return:\n    return retval", node.lineno,
                                      do_return=do_return, retval=retval)
        anno.setanno(check[0], anno.RETURN_CHECK, True)
        init = templates.replace("do_return = False", node.lineno, do_return=do_return)
        anno.setanno(init[0], anno.RETURN_INIT, True)
        return init + [node] + check

    visit_For = visit_While = _visit_loop

    def _visit_block(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def visit_Return(self, node):
        if not self.depth or not self._flag_can_say():
            return node     # (the latter: the loops around it stay Python, see state.blocker)
        do_return, retval = self._names()
        value = node.value if node.value is not None else gast.Constant(value=None, kind=None)
        # The value first: if computing it raises (and a handler in the loop catches that),
        # the function has not returned.
        return templates.replace("retval = value\ndo_return = True\nbreak", node.lineno,
                                 do_return=do_return, retval=retval, value=value)


def _is_return(s) -> bool:
    return isinstance(s, gast.Return)


_RETURN = (gast.Return,)


def _copyable(stmts: list) -> bool:
    """Whether moving code leaves every `return` a tail: returns under `if`s only, or
    in a `with` that ends the block."""
    if stmts and isinstance(stmts[-1], gast.With) and contains(stmts[-1], _RETURN):
        return (continuation.can_lower(stmts[:-1], _is_return, _RETURN, ())
                and _copyable(stmts[-1].body))
    return continuation.can_lower(stmts, _is_return, _RETURN, ())


def _lower_by_moving(stmts: list) -> list:
    stmts = continuation.lower(stmts, _is_return, lambda s: [s], _RETURN, ())
    if stmts and isinstance(stmts[-1], gast.With) and contains(stmts[-1], _RETURN):
        stmts[-1].body = _lower_by_moving(stmts[-1].body)   # a `with` at the end: a tail
    return stmts


def _lower(stmts: list, ctx: Context, names) -> list:
    if _copyable(stmts):
        return _lower_by_moving(stmts)
    if not continuation.can_guard(stmts, _is_return, _RETURN, (), ctx):
        # A `return` in a `finally`, or under a cleanup an `except` encloses: the
        # constructs around it stay Python (state.blocker); move what can be moved.
        if continuation.affordable(stmts, _is_return, _RETURN, ()):
            return _lower_by_moving(stmts)
        return stmts
    do_return, retval = names()
    lineno = stmts[0].lineno if stmts else 1

    def set_flag(s):
        value = s.value if s.value is not None else gast.Constant(value=None, kind=None)
        return templates.replace("retval = value\ndo_return = True", s.lineno,
                                 do_return=do_return, retval=retval, value=value)

    stmts = [s for s in stmts if not anno.getanno(s, anno.RETURN_INIT, False)]
    if not _ends(stmts, ctx):
        end = gast.Return(value=None)
        end.lineno, end.col_offset = getattr(stmts[-1], "end_lineno", lineno), 0
        stmts = stmts + [end]             # falling off the end returns None
    doc = stmts[:1] if _is_docstring(stmts[0]) else []
    body = continuation.guard(stmts[len(doc):], _is_return, set_flag, _RETURN, (), do_return,
                              skip=lambda s: anno.getanno(s, anno.RETURN_CHECK, False))
    return (doc + templates.replace("do_return = False", lineno, do_return=do_return) + body
            # Every path has set `retval_`; staged, it is a MaybeUndefined whose flag
            # the analyses cannot see is always true, and `ld` reads it (checked).
            + templates.replace("return ag__.ld(retval)", stmts[-1].lineno, retval=retval))


def _ends(stmts: list, ctx: Context) -> bool:
    """Whether `stmts` never complete normally (a sufficient test): then the function
    cannot fall off its end, and needs no implicit `return None`."""
    for s in stmts:
        if isinstance(s, (gast.Return, gast.Raise)) or anno.getanno(s, anno.ALWAYS_RETURNS, False):
            return True
        if isinstance(s, gast.If) and _ends(s.body, ctx) and _ends(s.orelse, ctx):
            return True
        if isinstance(s, continuation.TRY) and (
                _ends(s.finalbody, ctx)
                or (_ends(s.body + s.orelse, ctx) and all(_ends(h.body, ctx) for h in s.handlers))):
            return True
        if (isinstance(s, gast.With) and _ends(s.body, ctx)
                and all(non_suppressing(i.context_expr, ctx) for i in s.items)):
            return True
    return False


def _is_docstring(s) -> bool:
    return (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant)
            and isinstance(s.value.value, str))


def _mark_tail(stmts: list) -> None:
    if not stmts:
        return
    last = stmts[-1]
    if isinstance(last, gast.If) and contains(last, (gast.Return,)):
        anno.setanno(last, anno.RETURN_FORM, True)
        _mark_tail(last.body)
        _mark_tail(last.orelse)
    elif isinstance(last, gast.With):
        _mark_tail(last.body)


def _at_top_only(body: list) -> bool:
    """Whether every `return` of the function is a statement of its body itself (none in
    a loop, `if`, `try` or `with`): the common shape, with nothing to move or flag."""
    return not any(isinstance(s, _COMPOUND) and contains(s, _RETURN) for s in body)


_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.Match, gast.AsyncFor,
             gast.AsyncWith) + continuation.TRY


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    # Every `return` the parse counted is a statement of this body: none is nested (no
    # walk needed; a `:=` rewritten into `if`s may have moved one, so not then).
    top = sum(type(s) is gast.Return for s in fn_node.body)
    if (top and top == getattr(ctx, "return_count", -1)
            and gast.NamedExpr not in ctx.node_kinds) or _at_top_only(fn_node.body):
        # What the general path gives such a body: it, up to its first `return`.
        for i, s in enumerate(fn_node.body):
            if type(s) is gast.Return:
                del fn_node.body[i + 1:]
                break
        anno.setanno(fn_node, anno.RETURNS_MOVED, False)      # (no `break` made: see pipeline)
        return fn_node
    loops = _LoopReturns(ctx)
    fn_node.body = loops._visit_block(fn_node.body)
    fn_node.body = _lower(fn_node.body, ctx, loops._names)
    _mark_tail(fn_node.body)
    return fn_node
