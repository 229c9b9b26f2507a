"""The converters, in order, and why in that order.

The design in full: docs/architecture.md, under `autograph/pipeline.py`.
"""
from __future__ import annotations

import logging

from autograph import analysis, anno
from autograph import nodes as gast
from autograph.analysis import activity
from autograph.converters import (asserts, break_statements, call_trees, conditional_expressions,
                                  conditionals, continue_statements, for_statements,
                                  logical_expressions, return_statements, variables,
                                  while_statements)
from autograph.converters import expressions, tail_chains, walrus
from autograph.converters.context import SCOPES, Context
from autograph.errors import ConversionError
from autograph.tree import statements

logger = logging.getLogger("autograph")

# (converter, node types that give it work): a function without them skips the pass.
# (return_statements first, before these: see _convert_scope)
SCOPE_PASSES = ((break_statements, gast.Break), (continue_statements, gast.Continue))
# (converter, node types that give it work, or None: always)
CONTROL_FLOW_PASSES = ((conditionals, {gast.If, gast.Return, gast.Break, gast.Continue}),
                       (while_statements, {gast.While}), (for_statements, {gast.For}),
                       (variables, None))
EXPRESSION_PASSES = (asserts, conditional_expressions, logical_expressions)
_CONTROL_FLOW = frozenset({gast.If, gast.While, gast.For})
# Converting these (in any scope of the function) defines functions (`:=` may become `if`s)
_MAKES_FUNCTIONS = _CONTROL_FLOW | {gast.NamedExpr}
_SCOPES = frozenset(SCOPES)


def _is_generator(fn_node: gast.AST) -> bool:
    act = activity.of(list(fn_node.body))
    return act.has_yield or act.has_await


def _nested_writes(fn_node: gast.FunctionDef) -> set:
    """Names that scopes nested in the function declare `nonlocal` (they may write them):
    `def`s, `async def`s (`asyncio.run(f())` runs one), methods of classes defined in
    it, at any depth. (The function's own are not its locals, all this is read for.)"""
    out = set()
    for node in statements(fn_node.body):
        if type(node) is gast.Nonlocal:
            out.update(node.names)
    return out


def _convert_scope(fn_node: gast.FunctionDef, ctx: Context, kinds: set) -> None:
    if ctx.has_nested_functions:
        for node in list(statements(fn_node.body, _SCOPES)):
            if type(node) is gast.FunctionDef and not _is_generator(node):
                _convert_scope(node, ctx.for_scope(node), kinds)
    if gast.NamedExpr in kinds and walrus.transform(fn_node, ctx):
        kinds = kinds | {gast.If}        # `and`/`or` around a `:=` became `if`s
    if not kinds & _CONTROL_FLOW:
        return      # straight-line code: returns are all at the top, nothing to decide
    if gast.Return in kinds:
        return_statements.transform(fn_node, ctx)
        # Returns in loops became breaks; and break_statements moves the `else` of a
        # loop without a `break` after it, which it has always done in such functions
        # (with no `break`, no loop `else`, and every return where it was, it has
        # nothing to do).
        if (anno.popanno(fn_node, anno.RETURNS_MOVED, True) or gast.Break in kinds
                or getattr(ctx, "loop_else", True)):
            kinds = kinds | {gast.Break}
    for convert, needs in SCOPE_PASSES:
        if needs in kinds:
            convert.transform(fn_node, ctx)
    graph = analysis.analyze(fn_node)
    ctx.graph = graph
    ctx.graph_act = graph.body_activity
    ctx.captured = ctx.graph_act.captured
    ctx.cells = ctx.captured & graph.locals
    ctx.nested_writes = _nested_writes(fn_node) & ctx.cells if ctx.cells else set()
    # (for Context.converted_body_scope)
    ctx.closure_reads, ctx.top_writes, ctx.fn_locals = (graph.closure_reads, graph.top_writes,
                                                        graph.locals)
    try:
        for convert, needs in CONTROL_FLOW_PASSES:
            if needs is not None and needs.isdisjoint(kinds):
                continue           # (the passes before make `if`s, never loops)
            if convert is variables and not (graph.maybe_undefined_reads or ctx.may_hold_undefined
                                             or ctx.needs_init):
                continue           # no read can see an unassigned name or a marker
            convert.transform(fn_node, ctx)
        if gast.Return in kinds:
            tail_chains.transform(fn_node, ctx)
    finally:
        graph.release()


def convert(node: gast.AST, ctx: Context) -> gast.AST:
    """Convert a FunctionDef or Lambda node in place (returns it)."""
    kinds = set(ctx.node_kinds)
    if not kinds.isdisjoint(_MAKES_FUNCTIONS):
        ctx.new_scopes = True        # (and `expressions.thunk` where it makes a lambda)
    if isinstance(node, gast.FunctionDef):
        if gast.Yield in kinds or gast.YieldFrom in kinds or gast.Await in kinds:
            if _is_generator(node):
                raise ConversionError(f"{node.name} is a generator")
        node.decorator_list = []
        _convert_scope(node, ctx, kinds)
    return expressions.rewrite_tree(node, _REWRITES[bool(ctx.recursive)], ctx)


# node class -> its expression rewrite; [False]: without call_trees, [True]: with it
_REWRITES = ({t: p.rewrite for p in EXPRESSION_PASSES for t in p.NODE_TYPES},)
_REWRITES += ({**_REWRITES[0], **{t: call_trees.rewrite for t in call_trees.NODE_TYPES}},)
# Node kinds that conversion rewrites (with calls converted): a function with none of
# them, nested functions included, converts to itself.
CHANGED_KINDS = frozenset(_MAKES_FUNCTIONS | set(_REWRITES[True]))
