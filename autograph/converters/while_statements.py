"""`while` loops into `ag__.while_stmt`.

    while i < n:                     def loop_test(i, s):
        s = s + i                        return i < n
        i = i + 1            ->      def loop_body(i, s):
                                         s = s + i
                                         i = i + 1
                                         return i, s
                                     i, s = ag__.while_stmt(loop_test, loop_body, (i, s), ('i', 's'))

The design in full: docs/architecture.md, under `autograph/converters/while_statements.py`.
"""
from __future__ import annotations

import copy

from autograph import nodes as gast
from autograph import templates
from autograph.converters import composite, loop_options, state
from autograph.converters.context import Context, StatementTransformer


class WhileTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def visit_While(self, node):
        ctx = self.ctx
        lists = composite.list_names(node.body, ctx)
        modified_all, modified, reason = state.loop_blocker(node, ctx, self.observed(), lists)
        walrus = [n.target.id for n in gast.walk(node.test)
                  if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name)
                  ] if gast.NamedExpr in ctx.node_kinds else []
        if reason is None and walrus and not set(walrus) <= ctx.graph.locals:
            reason = "`:=` in its condition binds a global or nonlocal name"
        if reason is None and walrus and _lazy_walrus(node.test):
            reason = "`:=` in a part of its condition that `and`/`or` may skip"
        self.generic_visit(node)
        modified = modified - ctx.cells   # names this loop (or one inside it) writes through
        if reason:
            ctx.left_to_python(node, "while", node.test, reason)
            return node
        opts = loop_options.extract(node, ctx)
        prelude, bound = [], frozenset()
        if walrus:
            prelude, bound = self._rotate(node, walrus)
        names = sorted(set(state.state_names(node, modified)) | bound)
        test_name, body_name = ctx.new_name("loop_test"), ctx.new_name("loop_body")
        test_fn = state.function(test_name, names, [], node.test, node.lineno, ctx, set())
        body_fn = state.function(body_name, names, node.body, state.returned(names), node.lineno,
                                 ctx, modified_all)
        args = [templates.name(test_name), templates.name(body_name)]
        if names:
            args += [state.initial_values(node, names, ctx, bound), state.names_literal(names)]
        places, setters = composite.specs(node.body, ctx, modified_all, lineno=node.lineno)
        keywords = composite.keywords(places, composite.positions(names, lists))
        keywords += [opts] if opts is not None else []
        call = templates.operator_call("while_stmt", args, node.lineno, keywords)
        templates.span_of(call, node)      # a traceback shows the statement, no carets
        return prelude + setters + [test_fn, body_fn] + state.finish(call, names, node.lineno)

    def _rotate(self, node, walrus):
        """`while (y := f(x)) > 0: body` -> `c = (y := f(x)) > 0` before the loop and at
        the end of its body, and `while c:`. Jumps are gone by now (a `break` is a flag in
        the test, a `continue` guards the rest of the body), so the test still runs
        exactly when Python runs it, and the names it binds become state."""
        flag = self.ctx.new_name("loop_cond", unique=True)
        prelude = templates.replace("flag = test", node.lineno, flag=flag, test=node.test)
        node.body = node.body + templates.replace("flag = test", node.lineno, flag=flag,
                                                  test=copy.deepcopy(node.test))
        node.test = templates.name(flag)
        return prelude, frozenset(walrus) | {flag}


def _lazy_walrus(test) -> bool:
    """Whether a `:=` sits in an operand of `and`/`or` after the first (it may not run)."""
    return any(isinstance(n, gast.BoolOp) and any(
        isinstance(m, gast.NamedExpr) for v in n.values[1:] for m in gast.walk(v))
        for n in gast.walk(test))


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    WhileTransformer(ctx).generic_visit(fn_node)
    return fn_node
