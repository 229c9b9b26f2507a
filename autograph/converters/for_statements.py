"""`for` loops into `ag__.for_stmt`.

    for x in xs:                     def loop_body(x, s):
        s = s + x            ->          s = s + x
                                         return s
                                     s = ag__.for_stmt(xs, loop_body, (s,), ('s',))

The design in full: docs/architecture.md, under `autograph/converters/for_statements.py`.
"""
from __future__ import annotations

import builtins

from autograph import anno, templates
from autograph import nodes as gast
from autograph.converters import composite, loop_options, state
from autograph.converters.context import Context, StatementTransformer


class ForTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def visit_For(self, node):
        ctx = self.ctx
        lists = composite.list_names(node.body, ctx)
        modified_all, modified, reason = state.loop_blocker(node, ctx, self.observed(), lists)
        self.generic_visit(node)
        modified = modified - ctx.cells   # names this loop (or one inside it) writes through
        if reason:
            ctx.left_to_python(node, "for", node.iter, reason)
            extra = anno.getanno(node, anno.EXTRA_TEST, None)
            if extra is not None:
                # break_statements replaced its `break`s by a flag that for_stmt would
                # test; a Python `for` tests it at the end of each iteration instead (not
                # before fetching the next item, which would consume one more).
                if isinstance(extra, gast.UnaryOp) and isinstance(extra.op, gast.Not):
                    check = templates.replace("if flag:\n    break", node.lineno,
                                              flag=extra.operand)
                else:
                    check = templates.replace("if not extra:\n    break", node.lineno,
                                              extra=extra)
                node.body += check
            return node
        opts = loop_options.extract(node, ctx)
        names = state.state_names(node, modified)
        body_name = ctx.new_name("loop_body")
        target = node.target
        if (isinstance(target, gast.Name) and target.id not in names
                and target.id not in ctx.graph.declared and target.id not in ctx.cells):
            item, prologue = target.id, []
        else:
            item = ctx.new_name("itr")
            prologue = templates.replace("target = item", node.lineno, target=target, item=item)
        body_fn = state.function(body_name, [item] + names, prologue + node.body,
                                 state.returned(names), node.lineno, ctx, modified_all)
        out = [body_fn]
        args = [self._iterable(node.iter), templates.name(body_name)]
        if names:
            # (a `:=` in the iterable binds its name before the state is read)
            bound = (frozenset(_surely_bound(node.iter)) if gast.NamedExpr in ctx.node_kinds
                     else frozenset())
            args += [state.initial_values(node, names, ctx, bound), state.names_literal(names)]
        keywords = []
        extra = anno.getanno(node, anno.EXTRA_TEST, None)
        if extra is not None:
            test_name = ctx.new_name("loop_test")
            out.append(state.function(test_name, names, [], extra, node.lineno, ctx, set()))
            keywords.append(gast.keyword(arg="extra_test", value=templates.name(test_name)))
        places, setters = composite.specs(prologue + node.body, ctx, modified_all,
                                          set(_target_names(node.target)), node.lineno)
        keywords += composite.keywords(places, composite.positions(names, lists))
        keywords += [opts] if opts is not None else []
        call = templates.operator_call("for_stmt", args, node.lineno, keywords)
        templates.span_of(call, node)      # a traceback shows the statement, no carets
        return setters + out + state.finish(call, names, node.lineno)

    def _iterable(self, node):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            name = node.func.id
            if (name in _ARGUMENTS and name not in self.ctx.graph.locals
                    and self.ctx.namespace.get(name, getattr(builtins, name))
                    is getattr(builtins, name) and _call_fits(node, *_ARGUMENTS[name])):
                # `ag__.range_`, as the template `ag__.range_` gives it
                node.func = templates.operator_call(name + "_", (), node.lineno).func
                if name == "enumerate" and node.args:       # enumerate(zip(x, y))
                    node.args[0] = self._iterable(node.args[0])
        return node


# The builtins a `for` over a tensor stages in place (`ag__.range_`): how many
# positional arguments and which keywords a call takes (other calls stay the builtin's,
# and fail with its own message).
_ARGUMENTS = {"range": (1, 3, ()), "enumerate": (1, 2, ("start",)), "zip": (1, 32, ())}


def _call_fits(call: gast.Call, least: int, most: int, keywords: tuple) -> bool:
    if not all(k.arg in keywords for k in call.keywords):
        return False
    if any(isinstance(a, gast.Starred) for a in call.args):
        return True             # (known when it runs: `range(*shape)`)
    return least <= len(call.args) and len(call.args) + len(call.keywords) <= most


def _target_names(target) -> list:
    """The names a `for` target binds (`i`, `a, b`; not the `o` of `o.i`)."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    if isinstance(target, gast.Starred):
        return _target_names(target.value)
    return []


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    ForTransformer(ctx).generic_visit(fn_node)
    return fn_node


_MAYBE_SKIPPED = (gast.Lambda, gast.BoolOp, gast.IfExp, gast.ListComp, gast.SetComp,
                  gast.DictComp, gast.GeneratorExp)


def _surely_bound(node: gast.AST) -> list:
    """The names a `:=` in the expression `node` binds whenever it is evaluated (not one
    in a lambda, comprehension, or a part `and`/`or`/`x if c else y` may skip)."""
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name):
            out.append(n.target.id)
        if not isinstance(n, _MAYBE_SKIPPED):
            todo.extend(gast.iter_child_nodes(n))
    return out
