"""`and`, `or`, `not` into `ag__.and_`, `ag__.or_`, `ag__.not_`.

    a and b or not c   ->   ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))

Operands after the first become `lambda:` so they run only when Python would run them.
"""
from __future__ import annotations

import gast

from autograph.converters.expressions import lazy_safe, operator_call, thunk

NODE_TYPES = (gast.BoolOp, gast.UnaryOp)


def rewrite(node: gast.AST, ctx) -> gast.AST:
    if isinstance(node, gast.UnaryOp):
        if isinstance(node.op, gast.Not):
            return operator_call("not_", [node.operand], node)
        return node
    if not all(lazy_safe(v) for v in node.values[1:]):
        return node
    op = "and_" if isinstance(node.op, gast.And) else "or_"
    return operator_call(op, [node.values[0]] + [thunk(v) for v in node.values[1:]], node)
