"""Calls through `ag__.converted`, so that user functions are converted when called.

    y = helper(x) + len(xs)   ->   y = ag__.converted(helper)(x) + len(xs)

`ag__.converted(helper)` is the converted `helper` (cached), which the user's frame then
calls: converted code adds no frame between the user's functions.

The design in full: docs/architecture.md, under `autograph/converters/call_trees.py`.
"""
from __future__ import annotations

import builtins

from autograph import nodes as gast
from autograph import templates
from autograph.experimental import Feature
from autograph.converters.context import UNKNOWN, Context, resolve
from autograph.converters.expressions import operator_call
from autograph.operators.calls import is_allowlisted

NODE_TYPES = (gast.Call,)
# Builtins whose result on a staged value is staged: len(t), range(t), enumerate(t),
# max(a, b), min(a, b).
# (By id: a callee found in a namespace may be any object, unhashable ones too; these
# builtins live as long as the process, so their ids name only them.)
_STAGED = {id(builtins.len): "len_", id(builtins.range): "range_",
           id(builtins.enumerate): "enumerate_", id(builtins.max): "max_",
           id(builtins.min): "min_"}


def rewrite(node: gast.Call, ctx: Context) -> gast.AST:
    func = node.func
    kind = type(func)
    if kind is gast.Attribute and type(func.value) is gast.Name and func.value.id == "ag__":
        return node
    if kind is gast.Name and func.id == "super" and not node.args:
        # (the first parameter of the innermost user function, lambda or generator
        # expression around it: what Python's own `super()` reads; "" none)
        first = ctx.super_params[-1] if ctx.super_params else ctx.first_param
        if ctx.has_class_cell and first:
            node.args = [templates.place(templates.name(n), node.lineno, node.col_offset)
                         for n in ("__class__", first)]
        return node
    target = resolve(func, ctx)
    staged = _STAGED.get(id(target))
    if (staged is not None and not node.keywords
            and not any(type(a) is gast.Starred for a in node.args)
            and (target is not builtins.len or len(node.args) == 1)
            and (node.args or target not in (builtins.max, builtins.min))):
        return operator_call(staged, node.args, node)   # staged for staged values
    if ctx.features and target is builtins.print and Feature.BUILTIN_FUNCTIONS in ctx.features:
        call = operator_call("print_", node.args, node)
        call.keywords = node.keywords
        return call
    if target is not UNKNOWN and is_allowlisted(target):
        return node
    # `ag__.converted(f)(x)`: the callee, converted, is called from the user's frame.
    if ctx.features:
        names = sorted(f.name for f in ctx.features)
        features = gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in names],
                              ctx=gast.Load())
        node.func = operator_call("converted_with", [features, func], node)
    else:
        node.func = operator_call("converted", [func], node)
    return node
