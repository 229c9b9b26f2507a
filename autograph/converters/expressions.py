"""Shared by the expression converters: wrapping operands in `lambda:` is only safe when
evaluating them in a new scope means the same thing."""
from __future__ import annotations

import sys

from autograph import anno, templates
from autograph import nodes as gast
from autograph.converters.context import walk
from autograph.tree import FIELDS, PerClass


def lazy_safe(node: gast.AST) -> bool:
    """Whether `node` can be evaluated later inside a `lambda` (no `:=`, `yield`, `await`)."""
    return not any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
                   for n in walk(node))


def thunk(node: gast.AST, ctx) -> gast.Lambda:
    """`lambda: node`; `ctx` records that the converted code has a function the
    original had not (see `Context.new_scopes`)."""
    ctx.new_scopes = True
    if ctx.scope_depth <= 1:     # in the function itself, not in one nested in it
        ctx.top_lambdas.append(node)
    lam = gast.Lambda(args=gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[],
                                          kw_defaults=[], kwarg=None, defaults=[]), body=node)
    lam.lineno = lam.end_lineno = getattr(node, "lineno", None) or 1
    lam.col_offset = lam.end_col_offset = 0
    return lam


def operator_call(op: str, args: list, like: gast.AST) -> gast.Call:
    """`ag__.op(*args)` at the position of `like`."""
    return templates.operator_call(op, args, getattr(like, "lineno", None) or 1,
                                   col_offset=getattr(like, "col_offset", 0) or 0)


# Not entered: names and constants (half of all nodes; no rewrite applies to them or
# inside them), None (in lists, or a field left out), and classes (see below).
_NOT_ENTERED = frozenset({gast.Name, gast.Constant, type(None), gast.ClassDef})
_ATTRIBUTE, _CALL, _FUNCTION, _NAME, _EXPR = (gast.Attribute, gast.Call, gast.FunctionDef,
                                             gast.Name, gast.Expr)


# node class -> the names of its fields that may hold nodes (see tree.FIELDS)
_FIELD_NAMES = PerClass(lambda kind: tuple(field for field, _ in FIELDS[kind]))
# Parameters are names, never entered (nor their annotations, under them): the defaults
# only.
_FIELD_NAMES[gast.arguments] = ("kw_defaults", "defaults")
# A generated function: parameters that are names, no decorators, no annotations.
_GENERATED_FIELDS = ("body",)


def rewrite_tree(node: gast.AST, rewrites: dict, ctx) -> gast.AST:
    """One post-order walk applying `rewrites[type(node)](node, ctx)`; class bodies are
    left alone (a `lambda` there cannot see the class's names). One walk for all the
    expression converters keeps conversion fast; each rewrite sees converted children.
    (No rewrite is for attributes, keywords or expression statements, which no converter
    replaces: the walk passes through them without a call of its own.)"""
    d = node.__dict__
    kind = type(node)
    if kind is _CALL:
        func = d["func"]
        if type(func) is _ATTRIBUTE:
            # `ag__.op(...)`: no rewrite applies to the call; `obj.method(...)` (most calls):
            # none applies in its callee either.
            if type(func.value) is not _NAME:
                _attribute(func, rewrites, ctx)
        elif type(func) not in _NOT_ENTERED:
            d["func"] = rewrite_tree(func, rewrites, ctx)
        args = d["args"]
        for i, item in enumerate(args):
            if type(item) not in _NOT_ENTERED:
                args[i] = rewrite_tree(item, rewrites, ctx)
        for keyword in d["keywords"]:
            value = keyword.value
            if type(value) not in _NOT_ENTERED:
                keyword.value = rewrite_tree(value, rewrites, ctx)
        rewrite = rewrites.get(kind)
        return rewrite(node, ctx) if rewrite is not None else node
    if kind is _ATTRIBUTE:
        _attribute(node, rewrites, ctx)
        return node
    own = None
    if kind is _FUNCTION:           # (nested functions: see Context.top_lambdas)
        ctx.scope_depth += 1
        if anno.getanno(node, anno.GENERATED, False):
            fields = _GENERATED_FIELDS
        else:
            fields = _FIELD_NAMES[kind]
            own = _first_param(node)
    elif kind in _OWN_SUPER:       # `super()` in it is its own (a lambda: its first param)
        own = _first_param(node) if kind is gast.Lambda else ""
        fields = _FIELD_NAMES[kind]
    else:
        fields = _FIELD_NAMES[kind]
    if own is not None:
        ctx.super_params.append(own)
    for field in fields:
        old = d.get(field)
        if type(old) is list:
            for i, item in enumerate(old):
                item_kind = type(item)
                if item_kind is _EXPR:       # (a statement: its value, the statement kept)
                    value = item.value
                    if type(value) not in _NOT_ENTERED:
                        item.value = rewrite_tree(value, rewrites, ctx)
                elif item_kind not in _NOT_ENTERED:
                    old[i] = rewrite_tree(item, rewrites, ctx)
        elif type(old) not in _NOT_ENTERED:
            d[field] = rewrite_tree(old, rewrites, ctx)
    if kind is _FUNCTION:
        ctx.scope_depth -= 1
    if own is not None:
        ctx.super_params.pop()
    rewrite = rewrites.get(kind)
    return rewrite(node, ctx) if rewrite is not None else node


# Scopes whose zero-argument `super()` reads their own first parameter (and the user's
# nested functions): a lambda, and a generator expression (`.0`, its iterator; also a
# comprehension before Python 3.12, which inlines them).
_OWN_SUPER = frozenset({gast.Lambda, gast.GeneratorExp} | (
    set() if sys.version_info >= (3, 12) else {gast.ListComp, gast.SetComp, gast.DictComp}))


def _first_param(node) -> str:
    """The first positional parameter of a function or lambda node, or "" (none)."""
    args = node.args
    positional = args.posonlyargs + args.args
    return positional[0].id if positional else ""


def _attribute(node: gast.Attribute, rewrites: dict, ctx) -> None:
    """`rewrite_tree` of an attribute, in place: down a chain `a.b.c` to what is under
    it."""
    value = node.value
    while type(value) is _ATTRIBUTE:
        node, value = value, value.value
    if type(value) not in _NOT_ENTERED:
        node.value = rewrite_tree(value, rewrites, ctx)
