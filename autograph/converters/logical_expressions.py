"""`and`, `or`, `not` (and `in`, whose answer Python makes a bool) into `ag__.and_`, `ag__.or_`, `ag__.not_`.

    a and b or not c   ->   ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))
    0 < x < 10         ->   ag__.and_(0 < x, lambda: x < 10)
    0 < x + 1 < 10     ->   ag__.compare(0, '<', lambda: x + 1, '<', lambda: 10)
    x in xs            ->   ag__.in_(x, xs)

Operands after the first become `lambda:` so they run only when Python would run them.
"""
from __future__ import annotations

import copy

from autograph import nodes as gast
from autograph.converters.expressions import lazy_safe, operator_call, thunk

NODE_TYPES = (gast.BoolOp, gast.UnaryOp, gast.Compare)


def _chain(node: gast.Compare, ctx) -> gast.AST:
    """`a < b < c` -> `ag__.and_(a < b, lambda: b < c)`, which stages on tensors, when the
    middle operands are names or constants (evaluating them twice does not matter); else
    `ag__.compare(a, '<', lambda: b, '<', lambda: c)`, which evaluates each once."""
    middle = node.comparators[:-1]
    if len(node.ops) < 2:
        return node
    if not all(isinstance(m, (gast.Name, gast.Constant)) for m in middle):
        if not all(lazy_safe(c) for c in node.comparators):
            return node         # (a `:=` or `yield` in an operand: left as Python's)
        args = [node.left]
        for op, operand in zip(node.ops, node.comparators):
            args += [gast.Constant(value=_SYMBOLS[type(op)], kind=None), thunk(operand, ctx)]
        return operator_call("compare", args, node)
    operands = [node.left] + node.comparators
    parts = []
    for i, op in enumerate(node.ops):
        left = operands[i] if i == 0 else copy.deepcopy(operands[i])
        part = gast.Compare(left=left, ops=[op], comparators=[operands[i + 1]])
        part.lineno, part.col_offset = node.lineno, node.col_offset
        part.end_lineno, part.end_col_offset = node.end_lineno, node.end_col_offset
        parts.append(part)
    parts = [_membership(p) for p in parts]
    return operator_call("and_", [parts[0]] + [thunk(p, ctx) for p in parts[1:]], node)


_SYMBOLS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
            gast.NotEq: "!=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in",
            gast.NotIn: "not in"}


def _membership(node: gast.Compare) -> gast.AST:
    """`x in xs` -> `ag__.in_(x, xs)` (a staged bool when `xs` is staged)."""
    if len(node.ops) == 1 and type(node.ops[0]) in (gast.In, gast.NotIn):
        op = "in_" if type(node.ops[0]) is gast.In else "not_in"
        return operator_call(op, [node.left, node.comparators[0]], node)
    return node


def rewrite(node: gast.AST, ctx) -> gast.AST:
    if isinstance(node, gast.Compare):
        if len(node.ops) == 1:
            return _membership(node)
        return _chain(node, ctx)
    if isinstance(node, gast.UnaryOp):
        if isinstance(node.op, gast.Not):
            return operator_call("not_", [node.operand], node)
        return node
    if not all(lazy_safe(v) for v in node.values[1:]):
        return node
    op = "and_" if isinstance(node.op, gast.And) else "or_"
    return operator_call(op, [node.values[0]] + [thunk(v, ctx) for v in node.values[1:]], node)
