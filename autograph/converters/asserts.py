"""`assert` into `ag__.assert_stmt`, which also works on tensors.

    assert x > 0, 'x must be positive'   ->   ag__.assert_stmt(x > 0, lambda: 'x must be positive')
"""
from __future__ import annotations

from autograph import nodes as gast
from autograph.converters.expressions import lazy_safe, operator_call, thunk

NODE_TYPES = (gast.Assert,)


def rewrite(node: gast.Assert, ctx) -> gast.AST:
    if node.msg is not None and not lazy_safe(node.msg):
        return node
    args = [node.test] + ([thunk(node.msg, ctx)] if node.msg is not None else [])
    stmt = gast.Expr(value=operator_call("assert_stmt", args, node))
    stmt.lineno, stmt.col_offset = node.lineno, node.col_offset
    return stmt
