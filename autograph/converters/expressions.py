"""Shared by the expression converters: wrapping operands in `lambda:` is only safe when
evaluating them in a new scope means the same thing."""
from __future__ import annotations

import gast

from autograph import templates
from autograph.converters.context import walk
from autograph.tree import FIELDS


def lazy_safe(node: gast.AST) -> bool:
    """Whether `node` can be evaluated later inside a `lambda` (no `:=`, `yield`, `await`)."""
    return not any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
                   for n in walk(node))


def thunk(node: gast.AST) -> gast.Lambda:
    lam = gast.Lambda(args=gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[],
                                          kw_defaults=[], kwarg=None, defaults=[]), body=node)
    lam.lineno = getattr(node, "lineno", None) or 1
    lam.col_offset = 0
    return lam


def operator_call(op: str, args: list, like: gast.AST) -> gast.Call:
    """`ag__.op(*args)` at the position of `like`."""
    return templates.operator_call(op, args, getattr(like, "lineno", None) or 1,
                                   col_offset=getattr(like, "col_offset", 0) or 0)


# Not entered: names and constants (half of all nodes; no rewrite applies to them or
# inside them), None (in lists, or a field left out), and classes (see below).
_NOT_ENTERED = frozenset({gast.Name, gast.Constant, type(None), gast.ClassDef})
_ATTRIBUTE, _CALL, _FUNCTION, _NAME = gast.Attribute, gast.Call, gast.FunctionDef, gast.Name


class _FieldNames(dict):
    """node class -> the names of its fields that may hold nodes (see tree.FIELDS)."""

    def __missing__(self, kind):
        names = self[kind] = tuple(field for field, _ in FIELDS[kind])
        return names


_FIELD_NAMES = _FieldNames()
_ARGUMENT_FIELDS = ("args", "keywords")      # of a call
# A generated function: parameters that are names, no decorators, no annotations.
_GENERATED_FIELDS = ("body",)


def rewrite_tree(node: gast.AST, rewrites: dict, ctx) -> gast.AST:
    """One post-order walk applying `rewrites[type(node)](node, ctx)`; class bodies are
    left alone (a `lambda` there cannot see the class's names). One walk for all the
    expression converters keeps conversion fast; each rewrite sees converted children."""
    d = node.__dict__
    kind = type(node)
    if kind is _ATTRIBUTE:
        fields = _ATTRIBUTE_FIELDS     # (a quarter of the nodes entered: no table look-up)
    elif kind is _CALL:
        func = d["func"]
        # `ag__.op(...)`: no rewrite applies to the call; `obj.method(...)` (most calls):
        # none applies in its callee either. Their arguments only.
        fields = (_ARGUMENT_FIELDS if type(func) is _ATTRIBUTE and type(func.value) is _NAME
                  else _CALL_FIELDS)
    elif kind is _FUNCTION and d.get("ag_generated", False):
        fields = _GENERATED_FIELDS
    else:
        fields = _FIELD_NAMES[kind]
    for field in fields:
        old = d.get(field)
        if type(old) is list:
            for i, item in enumerate(old):
                if type(item) not in _NOT_ENTERED:
                    old[i] = rewrite_tree(item, rewrites, ctx)
        elif type(old) not in _NOT_ENTERED:
            d[field] = rewrite_tree(old, rewrites, ctx)
    rewrite = rewrites.get(kind)
    return rewrite(node, ctx) if rewrite is not None else node


_ATTRIBUTE_FIELDS = _FIELD_NAMES[_ATTRIBUTE]
_CALL_FIELDS = _FIELD_NAMES[_CALL]
