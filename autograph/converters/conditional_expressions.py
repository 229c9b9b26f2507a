"""`a if c else b` into `ag__.if_exp(c, lambda: a, lambda: b)` (only the chosen side runs)."""
from __future__ import annotations

import gast

from autograph.converters.expressions import ExpressionTransformer, lazy_safe, operator_call, thunk


class IfExpTransformer(ExpressionTransformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        if not (lazy_safe(node.body) and lazy_safe(node.orelse)):
            return node
        return operator_call("if_exp", [node.test, thunk(node.body), thunk(node.orelse)], node)


def transform(fn_node: gast.AST, ctx) -> gast.AST:
    return IfExpTransformer().visit(fn_node)
