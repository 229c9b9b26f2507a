"""The node classes conversion works with: gast's, each made an `ast` class as well.

Every module of the converter reads its node classes from here, under gast's name:

    from autograph import nodes as gast

The design in full: docs/architecture.md, under `autograph/nodes.py`.
"""
from __future__ import annotations

import _ast
import ast as _ast_module

import gast as _gast
from gast import (AST, NodeTransformer, NodeVisitor, copy_location, dump,  # noqa: F401
                  fix_missing_locations, get_docstring, increment_lineno, iter_child_nodes,
                  iter_fields, walk)


def _arg(self) -> str:
    """A parameter's name, read by compile() as `ast.arg.arg`."""
    return self.id


def _hybrid(name: str, gast_cls: type) -> type:
    """`gast_cls`, also a subclass of the `ast` class of its name where this Python has
    one (gast has some that it has not: `TryStar` before 3.11, `TypeAlias` before 3.12)."""
    ast_cls = getattr(_ast, name, None)
    if (ast_cls is None or ast_cls is gast_cls or name == "Param"
            or not isinstance(ast_cls, type) or not issubclass(ast_cls, _ast.AST)):
        return gast_cls
    namespace = {"__module__": __name__, "__qualname__": name, "__slots__": ()}
    if name == "Name":
        namespace["arg"] = property(_arg)
    return type(name, (gast_cls, ast_cls), namespace)


# Every node class of gast's, by name (the abstract ones, `expr`, `stmt`, ..., are
# `ast`'s own in gast already, and stay so).
for _name, _cls in vars(_gast).items():
    if isinstance(_cls, type) and issubclass(_cls, _ast.AST) and _cls is not _ast.AST:
        globals()[_name] = _hybrid(_name, _cls)
del _name, _cls

# Every statement class, `ast`'s and this module's: the printers (`unparsing`,
# `unparsing_fallback`) print the source's comments before these; SIMPLE_STATEMENTS, those
# without a body, by their last line (a compound statement's, by its first).
STATEMENTS = frozenset(c for m in (vars(_ast_module), dict(globals())) for c in m.values()
                       if isinstance(c, type) and issubclass(c, _ast.stmt))
SIMPLE_STATEMENTS = STATEMENTS - {c for c in STATEMENTS if "body" in c._fields}
