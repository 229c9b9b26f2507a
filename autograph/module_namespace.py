"""What the names of a module stand for when `module_converter` converts it, with no live
module to look at: `module_namespace(tree, source)`, module-level name -> value. Library
imports (the standard library, numpy, our packages: `ALLOWLIST`) resolve, so that calls
to them stay plain calls; every other name the module binds is `UNKNOWN`, and calls to
it go through `__ag__.converted_call`, which decides at run time.
"""
from __future__ import annotations

import ast
import contextlib  # noqa: F401  (loaded, so that `contextlib.suppress` resolves to itself)
import re
import sys
import types
from typing import Optional

from autograph.operators.calls import ALLOWLIST


class _Unknown:
    """What a name the module binds stands for at conversion time: not known."""

    __module__ = None
    __slots__ = ()


UNKNOWN = _Unknown()


class _StarNamespace(dict):
    """After `from somewhere import *`, any name may be bound by the module."""

    def __contains__(self, key):
        return True

    def __missing__(self, key):
        return UNKNOWN

    def get(self, key, default=None):
        return self[key]


def _is_library(module: str) -> bool:
    return module.partition(".")[0] in ALLOWLIST


def _import_value(module: str, attr: Optional[str]):
    """A library module (or its attribute) as conversion-time resolution sees it: the
    real one when it is loaded already (importing could have side effects), else a
    stand-in that `is_allowlisted` recognises by its module name."""
    loaded = sys.modules.get(module)
    if attr is None:
        if loaded is not None:
            return loaded
        return types.ModuleType(module)       # attributes unknown: calls stay checked
    if loaded is not None and hasattr(loaded, attr):
        return getattr(loaded, attr)
    stand_in = types.SimpleNamespace()
    stand_in.__module__ = module
    return stand_in


def module_namespace(tree: ast.Module, source: str) -> dict:
    """Module-level name -> value for `call_trees` and `loops`: library imports resolve,
    every other name the module binds (anywhere: `global` in functions counts) is
    UNKNOWN, so that a module that shadows `range` or `len` keeps its own."""
    bound: dict = {}
    star = False
    # `global x` in a function binds x here. Found in the text (in a string or comment
    # too, which only makes calls to x go through converted_call, as they may).
    for names in _global_statements(source):
        for name in names.split(","):
            bound[name.strip()] = UNKNOWN
    # Without `:=`, an expression binds names only as a target (a Name, or a Tuple,
    # List or Starred of them, not loaded): the others are not walked.
    walrus = ":=" in source

    def bind(name, value=UNKNOWN):
        bound[name] = value if name not in bound else UNKNOWN

    todo = list(tree.body)
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is ast.Import:
            for alias in node.names:
                top = alias.name.partition(".")[0]
                if alias.asname:
                    library = _is_library(alias.name)
                    bind(alias.asname, _import_value(alias.name, None) if library else UNKNOWN)
                else:
                    bind(top, _import_value(top, None) if _is_library(top) else UNKNOWN)
            continue
        if kind is ast.ImportFrom:
            library = not node.level and node.module and _is_library(node.module)
            for alias in node.names:
                if alias.name == "*":
                    loaded = sys.modules.get(node.module or "") if library else None
                    names = getattr(loaded, "__all__", None) if loaded else None
                    if names is None and loaded is not None:
                        names = [n for n in vars(loaded) if not n.startswith("_")]
                    if names is None:
                        star = True
                    for name in names or ():
                        bind(name, getattr(loaded, name, UNKNOWN))
                    continue
                bind(alias.asname or alias.name,
                     _import_value(node.module, alias.name) if library else UNKNOWN)
            continue
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bind(node.name)
            todo.extend(node.decorator_list)
            if kind is not ast.ClassDef:
                todo.extend(d for d in node.args.defaults + node.args.kw_defaults if d)
            else:
                todo.extend(node.bases)
            continue
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:
                bind(node.id)
            continue
        if not walrus and (kind in _LOADED_ONLY or (kind in _TARGETS and
                                                    type(node.ctx) is ast.Load)):
            continue
        if kind in (ast.MatchAs, ast.MatchStar) and node.name:
            bind(node.name)
        elif kind is ast.MatchMapping and node.rest:
            bind(node.rest)
        elif kind is ast.ExceptHandler and node.name:
            bind(node.name)
        elif kind is ast.Lambda:
            continue                            # its names are its own
        elif kind in _COMPREHENSIONS:           # so are theirs, but for `:=` targets
            for inner in ast.walk(node):
                if type(inner) is ast.NamedExpr:
                    bind(inner.target.id)
            continue
        todo.extend(ast.iter_child_nodes(node))
    namespace = _StarNamespace() if star else {}
    namespace.update(bound)
    return namespace


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TARGETS = frozenset({ast.Tuple, ast.List, ast.Starred})
# Expressions that bind no name of the module but with `:=` in them (a comprehension's
# and a lambda's names are their own; an Attribute or Subscript target binds none).
_LOADED_ONLY = frozenset(c for c in vars(ast).values() if isinstance(c, type)
                         and issubclass(c, ast.expr) and c not in _TARGETS
                         and c is not ast.Name)
_GLOBAL = re.compile(r"\bglobal[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*)")


def _global_statements(source: str) -> list:
    """`re.findall` of `_GLOBAL` in `source`, faster: the regex is tried only where the
    text has `global` (findall tries it at every character)."""
    found = []
    at = source.find("global")
    while at >= 0:
        match = _GLOBAL.match(source, at)
        if match is None:
            at = source.find("global", at + 1)
        else:
            found.append(match.group(1))
            at = source.find("global", match.end())
    return found
