"""What the control-flow converters share: which names are a construct's state, the
values it starts from, and the local functions that hold its pieces.

State = names the construct assigns that are live on entry (read before written, or
carried from one iteration to the next) or live after it. Others stay local to the
generated functions. A name that no path has assigned yet enters as
`ag__.Undefined('name')`; later reads that may see it go through `ag__.ld`.
"""
from __future__ import annotations

from typing import Optional

import gast

from autograph import anno, templates
from autograph.analysis import activity
from autograph.converters.context import Context, contains, walk_scope

_OPAQUE_CALLS = {"locals", "vars", "eval", "exec", "dir"}


def blocker(node: gast.AST, stmts: list, ctx: Context, modified: set) -> Optional[str]:
    """Why `node` must stay a Python construct, or None when it can be converted."""
    reason = anno.get(node, "python_loop", None)
    if reason:
        return reason
    if contains(stmts, (gast.Break, gast.Continue), stop=(gast.For, gast.While)):
        return "a `break`/`continue` that leaves it"
    if contains(stmts, (gast.Return,)) and not anno.get(node, "return_form", False):
        return "a `return` that is not at the end of the function"
    if contains(stmts, (gast.Yield, gast.YieldFrom, gast.Await)):
        return "`yield`/`await`"
    for n in walk_scope(stmts):
        if isinstance(n, gast.Delete) and any(isinstance(t, gast.Name) for t in n.targets):
            return "`del` of a local name"
        if (isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
                and n.func.id in _OPAQUE_CALLS and not n.args):
            return f"`{n.func.id}()`"
    captured = modified & ctx.captured
    if captured:
        return f"a nested function that captures {sorted(captured)}"
    return None


def modified_locals(stmts: list, ctx: Context) -> set:
    return activity.of(stmts).writes & ctx.graph.locals


def state_names(node: gast.AST, modified: set) -> list:
    live = anno.get(node, "live_in", frozenset()) | anno.get(node, "live_out", frozenset())
    return sorted(modified & live)


def initial_values(node: gast.AST, names: list, ctx: Context) -> gast.Tuple:
    undefined = anno.get(node, "undefined_on_entry", frozenset())
    defined = anno.get(node, "defined_on_entry", frozenset())
    elts = []
    for n in names:
        if n not in undefined:
            elts.append(templates.name(n))
        elif n not in defined:
            ctx.may_hold_undefined.add(n)
            elts.append(templates.replace_as_expression(
                "ag__.Undefined(n)", node.lineno, n=gast.Constant(value=n, kind=None)))
        else:           # assigned on some paths only: see variables.transform
            ctx.may_hold_undefined.add(n)
            ref = templates.name(n)
            ref.ag_maybe_unbound = True
            elts.append(ref)
    return gast.Tuple(elts=elts, ctx=gast.Load())


def names_literal(names: list) -> gast.Tuple:
    return gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in names], ctx=gast.Load())


def returned(names: list) -> Optional[gast.AST]:
    if not names:
        return None
    if len(names) == 1:
        return templates.name(names[0])
    return templates.names_tuple(names)


def assigned(names: list) -> gast.AST:
    if len(names) == 1:
        return templates.name(names[0], store=True)
    return templates.names_tuple(names, store=True)


def function(name: str, params: list, body: list, result: Optional[gast.AST], lineno: int,
             ctx: Context, modified_all: set) -> gast.FunctionDef:
    """`def name(*params): body; return result`, declaring the user's global/nonlocal names."""
    fn = templates.replace("def fn(params):\n    body", lineno, fn=name, params=list(params),
                           body=list(body))[0]
    declared = []
    if modified_all & ctx.graph_act.declared_global:
        declared.append(gast.Global(names=sorted(modified_all & ctx.graph_act.declared_global)))
    if modified_all & ctx.graph_act.declared_nonlocal:
        declared.append(gast.Nonlocal(names=sorted(modified_all & ctx.graph_act.declared_nonlocal)))
    for d in declared:
        d.lineno, d.col_offset = lineno, 0
    fn.body = declared + fn.body
    anno.set_(fn, "generated", True)
    anno.set_(fn, "params", set(params))
    if result is not None:
        fn.body += templates.replace("return result", lineno, result=result)
    return fn
