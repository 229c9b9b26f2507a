"""`break` as a flag that the loop tests.

    while x > 0:                     break_ = False
        x = x - 1                    while not break_ and x > 0:
        if x == 3:           ->          x = x - 1
            break                        if x == 3:
        y = x                                break_ = True
    else:                                else:
        y = 0                                y = x
                                     if not break_:
                                         y = 0

A `for` gets the test as `extra_test` (checked before the next item is fetched, so an
iterator is consumed exactly as far as Python would). The `else` of a loop runs when
no `break` happened; without a `break` it simply follows the loop. A `break` under a
`try` or `with` cannot be moved this way: that loop stays a Python loop.
"""
from __future__ import annotations

import gast

from autograph import anno, templates
from autograph.converters import continuation
from autograph.converters.context import Context, StatementTransformer, contains

LOOPS = (gast.For, gast.While)


def _is_break(s) -> bool:
    return isinstance(s, gast.Break)


class BreakTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def _visit_loop(self, node):
        self.generic_visit(node)
        if not contains(node.body, (gast.Break,), stop=LOOPS):
            if not node.orelse:
                return node
            orelse, node.orelse = node.orelse, []
            return [node] + orelse
        if not continuation.can_lower(node.body, _is_break, (gast.Break,), LOOPS):
            anno.set_(node, "python_loop", "a `break` inside `try` or `with`, or one whose "
                      "removal would copy too much code")
            return node
        flag = self.ctx.new_name("break_", unique=True)
        set_flag = lambda s: templates.replace("flag = True", s.lineno, flag=flag)
        node.body = continuation.lower(node.body, _is_break, set_flag, (gast.Break,), LOOPS)
        not_broken = templates.replace_as_expression("not flag", node.lineno, flag=flag)
        if isinstance(node, gast.While):
            node.test = gast.BoolOp(op=gast.And(), values=[not_broken, node.test])
        else:
            anno.set_(node, "extra_test", not_broken)
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
