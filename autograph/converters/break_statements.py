"""`break` as a flag that the loop tests.

The design in full: docs/architecture.md, under `autograph/converters/break_statements.py`.
"""
from __future__ import annotations

from autograph import nodes as gast
from autograph import anno, templates
from autograph.converters import continuation
from autograph.converters.context import Context, StatementTransformer

LOOPS = (gast.For, gast.While)


def _is_break(s) -> bool:
    return isinstance(s, gast.Break)


class BreakTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def _visit_loop(self, node):
        self.generic_visit(node)
        if not continuation.holds(node.body, (gast.Break,), LOOPS):
            if not node.orelse:
                return node
            orelse, node.orelse = node.orelse, []
            return [node] + orelse
        kinds = (gast.Break,)
        copy = continuation.can_lower(node.body, _is_break, kinds, LOOPS)
        if not copy and not continuation.can_guard(node.body, _is_break, kinds, LOOPS, self.ctx):
            anno.setanno(node, anno.PYTHON_LOOP, "a `break` inside a `finally`, or inside a "
                         "`with` or `finally` that an `except` encloses")
            return node
        flag = self.ctx.new_name("break_", unique=True)
        set_flag = lambda s: templates.replace("flag = True", s.lineno, flag=flag)
        if copy:
            node.body = continuation.lower(node.body, _is_break, set_flag, kinds, LOOPS)
        else:
            node.body = continuation.guard(node.body, _is_break, set_flag, kinds, LOOPS, flag)
        not_broken = templates.replace_as_expression("not flag", node.lineno, flag=flag)
        if isinstance(node, gast.While):
            node.test = gast.BoolOp(op=gast.And(), values=[not_broken, node.test])
        else:
            anno.setanno(node, anno.EXTRA_TEST, not_broken)
        result = templates.replace("flag = False", node.lineno, flag=flag) + [node]
        if node.orelse:
            result += templates.replace("if not flag:\n    orelse", node.lineno, flag=flag,
                                        orelse=node.orelse)
            node.orelse = []
        return result

    visit_For = visit_While = _visit_loop


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    transformer = BreakTransformer(ctx)
    fn_node.body = [s for stmt in fn_node.body for s in _as_list(transformer.visit(stmt))]
    return fn_node


def _as_list(x):
    return x if isinstance(x, list) else [x]
