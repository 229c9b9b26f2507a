"""Generated code written as source text, with placeholders filled by tree nodes.

    templates.replace('target = ag__.if_stmt(test, if_true, if_false)',
                      target=..., test=test_node, if_true='if_true_2')

A placeholder is a name in the template. Its replacement may be:
  - a str: the name is renamed (also function names and argument names);
  - a gast expression: the node replaces the name (copied if used twice);
  - a list of str for a function argument: the argument becomes those arguments;
  - a list of statements for a placeholder used as a statement: they are spliced in.
Every produced node gets the line number `lineno` (the user's line it stands for),
unless it is a user node that already has one.
"""
from __future__ import annotations

import copy
import functools
from typing import Any

from autograph import anno
from autograph import nodes as gast


@functools.lru_cache(maxsize=256)
def _parse(template: str) -> gast.Module:
    import textwrap
    from autograph.parsing import parse     # (parsing's tables are built on first use)
    return parse(textwrap.dedent(template))


class _Filler(gast.NodeTransformer):
    def __init__(self, replacements: dict, lineno: int):
        self.replacements = replacements
        self.used: set = set()
        self.lineno = lineno

    def _name(self, id_: str, ctx: Any) -> gast.Name:
        node = _generated(gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None))
        node.lineno = node.end_lineno = self.lineno
        node.col_offset = node.end_col_offset = 0
        return node

    def _node_for(self, key: str, ctx: Any) -> Any:
        value = self.replacements[key]
        if isinstance(value, str):
            return self._name(value, ctx)
        if key in self.used:
            value = copy.deepcopy(value)
        self.used.add(key)
        if isinstance(value, gast.expr):
            place(value, self.lineno)
        if hasattr(value, "ctx"):
            value = copy.copy(value)
            value.ctx = ctx
            if isinstance(value, (gast.Tuple, gast.List)):
                value.elts = [_with_ctx(e, ctx) for e in value.elts]
        return value

    def visit_Name(self, node: gast.Name) -> Any:
        if node.id in self.replacements:
            return self._node_for(node.id, node.ctx)
        return _generated(node)

    def visit_Expr(self, node: gast.Expr) -> Any:
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            if isinstance(value, list):
                return value
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: gast.FunctionDef) -> Any:
        node = self.visit_FunctionDef_head(node)
        node.body = [s for stmt in node.body for s in _as_list(self.visit(stmt))]
        return node

    def visit_FunctionDef_head(self, node: gast.FunctionDef) -> Any:
        """The function's name and arguments filled (not its body)."""
        value = self.replacements.get(node.name)
        if isinstance(value, str):
            node.name = value
        new_args = []
        for arg in node.args.args:
            value = self.replacements.get(arg.id)
            if isinstance(value, list):
                new_args.extend(self._name(n, gast.Param()) for n in value)
            elif isinstance(value, str):
                new_args.append(self._name(value, gast.Param()))
            else:
                new_args.append(arg)
        node.args.args = new_args
        return node


def _generated(node: gast.Name) -> gast.Name:
    anno.setanno(node, anno.GENERATED, True)    # reads autograph wrote are never `ld`-wrapped
    return node


def _as_list(x: Any) -> list:
    return x if isinstance(x, list) else [x]


def _with_ctx(node: Any, ctx: Any) -> Any:
    if isinstance(node, gast.Name):
        # keeps the user's position: later converters wrap such names (`ag__.ld`)
        return gast.copy_location(gast.Name(id=node.id, ctx=ctx, annotation=None,
                                            type_comment=None), node)
    return node


def _clone(node: Any, lineno: int) -> Any:
    """A copy of a template node, every position set to `lineno` (deepcopy is 5x slower)."""
    if isinstance(node, list):
        return [_clone(n, lineno) for n in node]
    if not isinstance(node, gast.AST):
        return node
    new = type(node)(**{f: _clone(getattr(node, f), lineno) for f in node._fields})
    if "lineno" in node._attributes:
        new.lineno = new.end_lineno = lineno
        new.col_offset = new.end_col_offset = 0
    return new


def replace(template: str, lineno: int = 1, **replacements: Any) -> list:
    """The template's statements with placeholders filled (see module docstring)."""
    filler = _Filler(replacements, lineno)     # template positions mean nothing to the user
    return [s for stmt in _parse(template).body for s in _as_list(_fill(filler, stmt))]


def _fill(filler: _Filler, node: Any) -> Any:
    """What `filler.visit(_clone(node, lineno))` gives, in one pass over the template's
    `node` (which stays as it is): copies positioned at the filler's line, placeholders
    replaced, the names autograph wrote marked (a third of a small function's template
    time was the two passes)."""
    kind = type(node)
    replacements = filler.replacements
    if kind is gast.Name:
        ctx = type(node.ctx)()
        if node.id in replacements:
            return filler._node_for(node.id, ctx)
        new = gast.Name(id=node.id, ctx=ctx, annotation=_clone(node.annotation, filler.lineno),
                        type_comment=node.type_comment)
        new.lineno = new.end_lineno = filler.lineno
        new.col_offset = new.end_col_offset = 0
        return _generated(new)
    if kind is gast.Expr:
        value = node.value
        if type(value) is gast.Name and isinstance(replacements.get(value.id), list):
            return replacements[value.id]
    elif kind is gast.FunctionDef:
        new = _copy_fields(node, filler.lineno, lambda v: _clone(v, filler.lineno), "body")
        new.body = [s for stmt in node.body for s in _as_list(_fill(filler, stmt))]
        return filler.visit_FunctionDef_head(new)
    return _copy_fields(node, filler.lineno, lambda v: _fill_field(filler, v))


def _fill_field(filler: _Filler, value: Any) -> Any:
    """A field's value, as NodeTransformer.generic_visit leaves it (after `_clone`)."""
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, gast.AST):
                item = _fill(filler, item)
                if item is None:
                    continue
                if not isinstance(item, gast.AST):
                    out.extend(item)
                    continue
            out.append(item)
        return out
    if isinstance(value, gast.AST):
        return _fill(filler, value)
    return value


def _copy_fields(node: Any, lineno: int, copy_field, skip: str = "") -> Any:
    new = type(node)(**{f: copy_field(getattr(node, f)) for f in node._fields if f != skip})
    if "lineno" in node._attributes:
        new.lineno = new.end_lineno = lineno
        new.col_offset = new.end_col_offset = 0
    return new


def replace_as_expression(template: str, lineno: int = 1, **replacements: Any) -> Any:
    stmt = replace(template, lineno, **replacements)[0]
    return stmt.value


LOAD, _STORE, _PARAM = gast.Load(), gast.Store(), gast.Param()
_SEQUENCES = frozenset({gast.Tuple, gast.List})


def make(cls: type, **fields: Any) -> Any:
    """`cls(**fields)` for a gast node class, every field given: three times faster than
    gast's generic constructor, for the nodes every conversion makes by the thousand."""
    node = _AST_NEW(cls)
    node.__dict__ = fields          # (a new dict of its own: the call's keywords)
    return node


_AST_NEW = gast.Name.__new__       # (ast.AST.__new__: every node class's)


def name(id_: str, store: bool = False) -> gast.Name:
    node = _AST_NEW(gast.Name)       # (as `make` does)
    node.__dict__ = {"id": id_, "ctx": _STORE if store else LOAD, "annotation": None,
                     "type_comment": None, anno.GENERATED: True}
    return node


def names_tuple(ids: list, store: bool = False) -> gast.Tuple:
    return gast.Tuple(elts=[name(i, store) for i in ids],
                      ctx=gast.Store() if store else gast.Load())


# Direct builders for the nodes every construct generates: the same trees as the
# corresponding templates, built without parsing or copying (conversion-time hot path).

def _at(node: Any, lineno: int) -> Any:
    node.lineno = node.end_lineno = lineno
    node.col_offset = node.end_col_offset = 0
    return node


def function_def(fn_name: str, params: list, body: list, lineno: int) -> gast.FunctionDef:
    """`def fn_name(*params): body`."""
    # (nodes made as in operator_call below: `make` without its call)
    args = []
    for p in params:
        param = _NAME_NEW(gast.Name)
        param.__dict__ = {"id": p, "ctx": _PARAM, "annotation": None, "type_comment": None,
                          anno.GENERATED: True, "lineno": lineno, "end_lineno": lineno,
                          "col_offset": 0, "end_col_offset": 0}
        args.append(param)
    arguments = _NAME_NEW(gast.arguments)
    arguments.__dict__ = {"args": args, "posonlyargs": [], "vararg": None, "kwonlyargs": [],
                          "kw_defaults": [], "kwarg": None, "defaults": []}
    fn = _NAME_NEW(gast.FunctionDef)
    fn.__dict__ = {"name": fn_name, "args": arguments, "body": body, "decorator_list": [],
                   "returns": None, "type_comment": None, "type_params": [], "lineno": lineno,
                   "end_lineno": lineno, "col_offset": 0, "end_col_offset": 0}
    return fn


def is_operator(node: Any) -> bool:
    """Whether `node` is `ag__.<operator>` as generated code writes it (a generated
    `ag__` not followed by an attribute is a user's variable, such as a loop's state)."""
    return (type(node) is gast.Attribute and type(node.value) is gast.Name
            and node.value.id == "ag__" and anno.getanno(node.value, anno.GENERATED, False))


_NAME_NEW = gast.Name.__new__      # (ast.AST.__new__: every node class's)


def operator_call(op: str, args: list, lineno: int, keywords: list = (),
                  col_offset: int = 0) -> gast.Call:
    """`ag__.op(*args, **keywords)`."""
    # Each node gets its attributes as one new dict (faster than setting them one by one,
    # or updating the empty dict it has).
    name = _NAME_NEW(gast.Name)
    name.__dict__ = {"id": "ag__", "ctx": LOAD, "annotation": None, "type_comment": None,
                     anno.GENERATED: True, "lineno": lineno, "end_lineno": lineno,
                     "col_offset": col_offset, "end_col_offset": col_offset}
    func = _NAME_NEW(gast.Attribute)
    func.__dict__ = {"value": name, "attr": op, "ctx": LOAD, "lineno": lineno,
                     "end_lineno": lineno, "col_offset": col_offset,
                     "end_col_offset": col_offset}
    args = list(args)
    for a in args:
        if "lineno" not in a.__dict__:      # (a name, or tuple of them, conversion made)
            place(a, lineno, col_offset)
    for k in keywords:
        if "lineno" not in k.__dict__:
            place(k, lineno, col_offset)
            place(k.value, lineno, col_offset)
    call = _NAME_NEW(gast.Call)
    call.__dict__ = {"func": func, "args": args, "keywords": list(keywords),
                     "lineno": lineno, "end_lineno": lineno, "col_offset": col_offset,
                     "end_col_offset": col_offset}
    return call


def place(node: Any, lineno: int, col_offset: int = 0) -> Any:
    """`node`, given the position compile needs if it has none (a name, constant or tuple
    conversion made), and so the names and constants in a tuple or list."""
    d = node.__dict__
    if "lineno" not in d:
        d["lineno"] = d["end_lineno"] = lineno
        d["col_offset"] = d["end_col_offset"] = col_offset
    if type(node) in _SEQUENCES:
        for e in node.elts:
            place(e, lineno, col_offset)
    return node


def span_of(call: gast.Call, stmt: gast.AST) -> None:
    """Give the operator call that replaces the statement `stmt` the statement's span, so
    that a traceback through it shows the user's line as Python shows a statement's
    (a zero-width span prints an empty line of carets)."""
    end = getattr(stmt, "end_lineno", None)
    if end is not None and getattr(stmt, "col_offset", None) is not None:
        call.col_offset, call.end_lineno, call.end_col_offset = (
            stmt.col_offset, end, stmt.end_col_offset)


def statement(value: Any, lineno: int, target: Any = None, returns: bool = False) -> Any:
    """`value` as a statement: `target = value`, `return value`, or an expression."""
    if "lineno" not in value.__dict__:
        place(value, lineno)
    if returns:
        return make(gast.Return, value=value, lineno=lineno, end_lineno=lineno, col_offset=0,
                    end_col_offset=0)
    if target is not None:
        if "lineno" not in target.__dict__:
            place(target, lineno)
        return make(gast.Assign, targets=[target], value=value, type_comment=None,
                    lineno=lineno, end_lineno=lineno, col_offset=0, end_col_offset=0)
    return make(gast.Expr, value=value, lineno=lineno, end_lineno=lineno, col_offset=0,
                end_col_offset=0)
