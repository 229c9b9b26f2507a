"""`continue` by moving the rest of the loop body into the paths that do not continue.

    for x in xs:                     for x in xs:
        if x < 0:            ->          if not x < 0:
            continue                         total += x
        total += x

No flag is needed: after the move, reaching the end of the body *is* continuing.
A `continue` under `try` or `with` leaves that loop to Python.
"""
from __future__ import annotations

import gast

from autograph import anno
from autograph.converters import continuation
from autograph.converters.context import Context, StatementTransformer, contains

LOOPS = (gast.For, gast.While)


def _is_continue(s) -> bool:
    return isinstance(s, gast.Continue)


class ContinueTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def _visit_loop(self, node):
        self.generic_visit(node)
        if not contains(node.body, (gast.Continue,), stop=LOOPS):
            return node
        if not continuation.can_lower(node.body, _is_continue, (gast.Continue,), LOOPS):
            anno.set_(node, "python_loop", "a `continue` inside `try` or `with`, or one whose "
                      "removal would copy too much code")
            return node
        node.body = continuation.lower(node.body, _is_continue, lambda s: [], (gast.Continue,),
                                       LOOPS) or [gast.Pass()]
        return node

    visit_For = visit_While = _visit_loop


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    ContinueTransformer(ctx).generic_visit(fn_node)
    return fn_node
