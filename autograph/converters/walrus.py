"""`:=` in an operand of `and`/`or` that may not run, as statements.

    if x > 0 and (y := f(x)) > 1:          cond_value = x > 0
        use(y)                     ->      if cond_value:
                                               cond_value = (y := f(x)) > 1
                                           if cond_value:
                                               use(y)

The design in full: docs/architecture.md, under `autograph/converters/walrus.py`.
"""
from __future__ import annotations

from autograph import nodes as gast
from autograph import templates
from autograph.converters.context import SCOPES, Context, walk


def _lazy_walrus(node) -> bool:
    return (type(node) is gast.BoolOp and any(
        type(n) is gast.NamedExpr for v in node.values[1:] for n in walk(v)))


def _lower(value: gast.BoolOp, target: str, lineno: int) -> list:
    """Statements that leave `value`'s result in `target`, evaluating the operands as
    `and`/`or` does."""
    first, rest = value.values[0], value.values[1:]
    out = [_assign(target, first, lineno)]
    test = "target" if type(value.op) is gast.And else "not target"
    if len(rest) > 1:
        remaining = gast.BoolOp(op=value.op, values=rest)
        remaining.lineno, remaining.col_offset = lineno, 0
        inner = _lower(remaining, target, lineno)
    else:
        inner = [_assign(target, rest[0], lineno)]
    out += templates.replace(f"if {test}:\n    inner", lineno, target=target, inner=inner)
    return out


def _assign(target: str, value, lineno: int) -> gast.Assign:
    if _lazy_walrus(value):
        return _Block(_lower(value, target, lineno))
    return templates.statement(value, lineno, target=templates.name(target, store=True))


class _Block(list):
    """Statements standing for one (spliced in where an assignment was expected)."""


def _flatten(stmts: list) -> list:
    out = []
    for s in stmts:
        if isinstance(s, _Block):
            out += _flatten(s)
        else:
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, _flatten(getattr(s, field)))
            out.append(s)
    return out


def _block(stmts: list, ctx: Context) -> list:
    out = []
    for s in stmts:
        kind = type(s)
        if kind in SCOPES:
            out.append(s)
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _block(getattr(s, field), ctx))
        for handler in getattr(s, "handlers", ()):
            handler.body = _block(handler.body, ctx)
        expr = (s.test if kind is gast.If else
                s.value if kind in (gast.Return, gast.Expr) or (
                    kind is gast.Assign and len(s.targets) == 1) else None)
        if expr is None or not _lazy_walrus(expr):
            out.append(s)
            continue
        name = ctx.new_name("cond_value", unique=True)
        out += _flatten(_lower(expr, name, s.lineno))
        if kind is gast.If:
            s.test = templates.name(name)
        elif kind is gast.Expr:
            continue                      # the value itself is unused
        else:
            s.value = templates.name(name)
        out.append(s)
    return out


def transform(fn_node: gast.AST, ctx: Context) -> bool:
    """Lowers the function's statements in place; whether any changed."""
    before = set(ctx.taken)
    fn_node.body = _block(fn_node.body, ctx)
    return ctx.taken != before
