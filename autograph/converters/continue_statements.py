"""`continue` by moving the rest of the loop body into the paths that do not continue.

    for x in xs:                     for x in xs:
        if x < 0:            ->          if not x < 0:
            continue                         total += x
        total += x

No flag is needed: after the move, reaching the end of the body *is* continuing.
Where the move would copy too much, or the `continue` is under a `try` or `with`, a
flag reset at the start of each iteration does it (`continuation.guard`):

The design in full: docs/architecture.md, under `autograph/converters/continue_statements.py`.
"""
from __future__ import annotations

from autograph import nodes as gast
from autograph import anno, templates
from autograph.converters import continuation
from autograph.converters.context import Context, StatementTransformer

LOOPS = (gast.For, gast.While)


def _is_continue(s) -> bool:
    return isinstance(s, gast.Continue)


class ContinueTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def _visit_loop(self, node):
        self.generic_visit(node)
        if not continuation.holds(node.body, (gast.Continue,), LOOPS):
            return node
        kinds = (gast.Continue,)
        if continuation.can_lower(node.body, _is_continue, kinds, LOOPS):
            node.body = continuation.lower(node.body, _is_continue, lambda s: [], kinds,
                                           LOOPS) or [gast.Pass()]
            return node
        if not continuation.can_guard(node.body, _is_continue, kinds, LOOPS, self.ctx):
            anno.setanno(node, anno.PYTHON_LOOP, "a `continue` inside a `finally`, or inside "
                         "a `with` or `finally` that an `except` encloses")
            return node
        flag = self.ctx.new_name("continue_", unique=True)
        set_flag = lambda s: templates.replace("flag = True", s.lineno, flag=flag)
        node.body = (templates.replace("flag = False", node.lineno, flag=flag)
                     + continuation.guard(node.body, _is_continue, set_flag, kinds, LOOPS, flag))
        return node

    visit_For = visit_While = _visit_loop


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    ContinueTransformer(ctx).generic_visit(fn_node)
    return fn_node
