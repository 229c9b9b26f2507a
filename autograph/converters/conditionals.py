"""`if`/`elif`/`else` statements into `ag__.if_stmt`.

    if x > 0:                        def if_true(y):
        y = x                            y = x
    else:                    ->          return y
        y = -x                       def if_false(y):
    use(y)                               y = -x
                                         return y
                                     y = ag__.if_stmt(x > 0, if_true, if_false, (ag__.Undefined('y'),), ('y',))

An `if` that ends the function and returns (marked `return_form` by
`return_statements`) becomes `return ag__.if_stmt(test, if_true, if_false)` whose
branches return the result:

    if x > 0:                        def if_true():
        return x             ->          return x
    else:                            def if_false():
        return 0                         return 0
                                     return ag__.if_stmt(x > 0, if_true, if_false)

`elif` is an `if` in the `else` branch and is converted by the same rule (inner first).
"""
from __future__ import annotations

import gast

from autograph import anno, templates
from autograph.converters import state
from autograph.converters.context import Context, StatementTransformer


class IfTransformer(StatementTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_If(self, node):
        ctx = self.ctx
        all_stmts = node.body + node.orelse
        modified_all = state.modified(node)
        modified = modified_all & ctx.graph.locals
        reason = state.blocker(node, all_stmts, ctx, modified, self.observed())
        self.generic_visit(node)
        if reason:
            ctx.log(node, f"`if` left to Python: {reason}")
            return node
        return_form = anno.get(node, "return_form", False)
        names = state.state_names(node, modified)
        result = None if return_form else state.returned(names)
        true_name, false_name = ctx.new_name("if_true"), ctx.new_name("if_false")
        out = [state.function(true_name, names, node.body, result, node.lineno, ctx, modified_all)]
        if node.orelse:
            out.append(state.function(false_name, names, node.orelse, result, node.lineno, ctx,
                                      modified_all))
        args = [node.test, templates.name(true_name),
                templates.name(false_name) if node.orelse else gast.Constant(value=None, kind=None)]
        if names:
            args.append(state.initial_values(node, names, ctx))
            if not return_form:
                args.append(state.names_literal(names))
        call = templates.replace_as_expression("ag__.if_stmt()", node.lineno)
        call.args = args
        if return_form:
            out += templates.replace("return call", node.lineno, call=call)
        elif names:
            out += templates.replace("target = call", node.lineno, target=state.assigned(names),
                                     call=call)
        else:
            out += templates.replace("call", node.lineno, call=call)
        return out


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    IfTransformer(ctx).generic_visit(fn_node)
    return fn_node
