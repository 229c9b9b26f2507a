"""`while` loops into `ag__.while_stmt`.

    while i < n:                     def loop_test(i, s):
        s = s + i                        return i < n
        i = i + 1            ->      def loop_body(i, s):
                                         s = s + i
                                         i = i + 1
                                         return i, s
                                     i, s = ag__.while_stmt(loop_test, loop_body, (i, s), ('i', 's'))

State: the names the body assigns that are live at the test (carried between
iterations) or after the loop. `break_statements` has already folded a `break` into
the test (`not break_ and ...`) and moved an `else` after the loop.
"""
from __future__ import annotations

import gast

from autograph import templates
from autograph.converters import composite, state
from autograph.converters.context import Context, StatementTransformer


class WhileTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def visit_While(self, node):
        ctx = self.ctx
        lists = composite.list_names(node.body, ctx)
        modified_all, modified, reason = state.loop_blocker(node, ctx, self.observed(), lists)
        if reason is None and any(isinstance(n, gast.NamedExpr) for n in gast.walk(node.test)):
            reason = "`:=` in its condition"
        self.generic_visit(node)
        if reason:
            ctx.left_to_python(node, "while", node.test, reason)
            return node
        names = state.state_names(node, modified)
        test_name, body_name = ctx.new_name("loop_test"), ctx.new_name("loop_body")
        test_fn = state.function(test_name, names, [], node.test, node.lineno, ctx, set())
        body_fn = state.function(body_name, names, node.body, state.returned(names), node.lineno,
                                 ctx, modified_all)
        args = [templates.name(test_name), templates.name(body_name)]
        if names:
            args += [state.initial_values(node, names, ctx), state.names_literal(names)]
        places, setters = composite.specs(node.body, ctx, modified_all, lineno=node.lineno)
        keywords = composite.keywords(places, composite.positions(names, lists))
        call = templates.operator_call("while_stmt", args, node.lineno, keywords)
        return setters + [test_fn, body_fn] + state.finish(call, names, node.lineno)


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    WhileTransformer(ctx).generic_visit(fn_node)
    return fn_node
