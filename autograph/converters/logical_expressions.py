"""`and`, `or`, `not` into `ag__.and_`, `ag__.or_`, `ag__.not_`.

    a and b or not c   ->   ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))

Operands after the first become `lambda:` so they run only when Python would run them.
"""
from __future__ import annotations

import gast

from autograph.converters.expressions import ExpressionTransformer, lazy_safe, operator_call, thunk


class LogicalTransformer(ExpressionTransformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if not all(lazy_safe(v) for v in node.values[1:]):
            return node
        op = "and_" if isinstance(node.op, gast.And) else "or_"
        return operator_call(op, [node.values[0]] + [thunk(v) for v in node.values[1:]], node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return operator_call("not_", [node.operand], node)
        return node


def transform(fn_node: gast.AST, ctx) -> gast.AST:
    return LogicalTransformer().visit(fn_node)
