"""`a if c else b` into `ag__.if_exp(c, lambda: a, lambda: b)` (only the chosen side runs)."""
from __future__ import annotations

from autograph import nodes as gast
from autograph.converters.expressions import lazy_safe, operator_call, thunk

NODE_TYPES = (gast.IfExp,)


def rewrite(node: gast.IfExp, ctx) -> gast.AST:
    if not (lazy_safe(node.body) and lazy_safe(node.orelse)):
        return node
    return operator_call("if_exp", [node.test, thunk(node.body, ctx), thunk(node.orelse, ctx)],
                         node)
