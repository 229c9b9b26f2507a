"""Calls into `ag__.converted_call`, so that user functions are converted when called.

    y = helper(x) + len(xs)   ->   y = ag__.converted_call(helper, x) + len(xs)

A callee that the function's namespace resolves, at conversion time, to a builtin, a
class, or a function of numpy / the standard library / our packages is left as a plain
call: those are never converted, and the generated code stays readable. Zero-argument
`super()` becomes `super(__class__, self)` so that it still works inside generated
functions.
"""
from __future__ import annotations

import builtins

import gast

from autograph import anno, templates
from autograph.converters.context import Context
from autograph.converters.expressions import ExpressionTransformer, operator_call
from autograph.operators.calls import is_allowlisted

_UNKNOWN = object()


class CallTransformer(ExpressionTransformer):
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def _resolve(self, node):
        if isinstance(node, gast.Name):
            if node.id in self.ctx.all_locals:
                return _UNKNOWN
            if node.id in self.ctx.namespace:
                return self.ctx.namespace[node.id]
            return getattr(builtins, node.id, _UNKNOWN)
        if isinstance(node, gast.Attribute):
            base = self._resolve(node.value)
            if base is not _UNKNOWN and type(base).__name__ == "module":
                return getattr(base, node.attr, _UNKNOWN)
        return _UNKNOWN

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and func.value.id == "ag__"):
            return node
        if isinstance(func, gast.Name) and func.id == "super" and not node.args:
            first = self.ctx.first_param
            if self.ctx.has_class_cell and first:
                node.args = [templates.name("__class__"), templates.name(first)]
            return node
        target = self._resolve(func)
        if target is not _UNKNOWN and is_allowlisted(target):
            return node
        call = operator_call("converted_call", [func] + node.args, node)
        call.keywords = node.keywords
        return call


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    return CallTransformer(ctx).visit(fn_node)
