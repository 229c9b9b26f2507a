"""`if`/`elif`/`else` statements into `ag__.if_stmt`.

    if x > 0:                        def if_true():
        y = x                            y = x
    else:                    ->          return y
        y = -x                       def if_false():
    use(y)                               y = -x
                                         return y
                                     y = ag__.if_stmt(x > 0, if_true, if_false, (), ('y',))

The design in full: docs/architecture.md, under `autograph/converters/conditionals.py`.
"""
from __future__ import annotations

from autograph import anno, templates
from autograph import nodes as gast
from autograph.converters import composite, state
from autograph.converters.context import Context, StatementTransformer, walk


class IfTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def visit_If(self, node):
        ctx = self.ctx
        all_stmts = node.body + node.orelse
        lists = composite.list_names(all_stmts, ctx)
        modified_all = state.modified(node) | lists
        modified = (modified_all & ctx.graph.locals) - ctx.cells
        reason = state.blocker(node, all_stmts, ctx, modified, self.observed())
        self.generic_visit(node)
        modified -= ctx.cells        # names the construct (or one inside it) writes through
        if reason:
            ctx.left_to_python(node, "if", node.test, reason)
            return node
        return_form = anno.getanno(node, anno.RETURN_FORM, False)
        names = state.state_names(node, modified)
        # A name no branch reads before assigning it, and that every branch assigns, is
        # an output only: the branches need not receive it (not live at the test).
        live_in = anno.getanno(node, anno.LIVE_IN, frozenset())
        # A name the test binds (`if (r := ...) is None:`) is set before the branches run,
        # and the state is read after the test: it goes in like any live name, also when
        # only a branch reads it (`if m := f(): m = g(m)`, `m` unused after the `if`).
        bound_by_test = {n.target.id for n in walk(node.test)
                         if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name)
                         } if gast.NamedExpr in ctx.node_kinds else ()
        names += sorted(n for n in bound_by_test if n in modified and n not in names)
        inputs = [n for n in names if n in live_in or n in bound_by_test]
        outputs = [] if return_form else names
        result = None if return_form else state.returned(outputs)
        true_name, false_name = ctx.new_name("if_true"), ctx.new_name("if_false")
        out = [state.function(true_name, inputs, node.body, result, node.lineno, ctx,
                              modified_all)]
        if node.orelse:
            out.append(state.function(false_name, inputs, node.orelse, result, node.lineno, ctx,
                                      modified_all))
        if return_form:     # what the rest of the function reads (see tail_chains)
            for fn in out:
                anno.setanno(fn, anno.TAIL_READS, anno.getanno(node, anno.LIVE_IN, None))
        args = [node.test, templates.name(true_name),
                templates.name(false_name) if node.orelse else gast.Constant(value=None, kind=None)]
        if inputs or outputs:
            args.append(state.initial_values(node, inputs, ctx, frozenset(bound_by_test)))
        if outputs:
            args.append(state.names_literal(outputs))
        places, setters = composite.specs(all_stmts, ctx, modified_all, lineno=node.lineno)
        keywords = composite.keywords(places, composite.positions(inputs, lists))
        if self.caught():
            # an exception a branch raises while traced must not reach the user's handler
            # (it would run for every input): it becomes a run-time error of that branch
            keywords.append(gast.keyword(arg="caught", value=gast.Constant(value=True,
                                                                          kind=None)))
        out[:0] = setters
        call = templates.operator_call("if_stmt", args, node.lineno, keywords)
        templates.span_of(call, node)      # a traceback shows the statement, no carets
        out.append(templates.statement(call, node.lineno, returns=return_form,
                                       target=state.assigned(outputs) if outputs else None))
        return out


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    IfTransformer(ctx).generic_visit(fn_node)
    return fn_node
