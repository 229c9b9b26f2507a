"""A converted function's two paths: its original body while nothing is staged, the
converted body while a graph is being built (see `autograph.operators.python_path`).

    def f(x):                         def f(x):
        global g                          global g
        ...original body...      +        ...converted body...
                                 =
                                      def f(x):
                                          global g
                                          if not ag__.staging:
                                              ...original body...
                                              return
                                          ...converted body...

`global` and `nonlocal` statements of both bodies move to the top, once (a name declared
after the original body used it would not compile). The docstring stays first. Works on
`ast` and gast trees alike (the new nodes are `ast` nodes: both compile and print).
A lambda gets `lambda x: original if not ag__.staging else converted`.
"""
from __future__ import annotations

import ast

import gast

_SCOPES = frozenset({"FunctionDef", "AsyncFunctionDef", "ClassDef", "Lambda"})
_DECLARATIONS = frozenset({"Global", "Nonlocal"})
_STATEMENT = (ast.stmt, gast.stmt)
_EXITS = frozenset({"Return", "Raise"})


def _take_declarations(body: list, found: dict) -> list:
    """`body` without the `global`/`nonlocal` statements of its scope (recorded in
    `found`: kind -> names in order), nested blocks included, nested scopes not."""
    kept = []
    for stmt in body:
        kind = type(stmt).__name__
        if kind in _DECLARATIONS:
            names = found.setdefault(kind, [])
            names.extend(n for n in stmt.names if n not in names)
            continue
        if kind not in _SCOPES:
            _take_from_blocks(stmt, found)
        kept.append(stmt)
    return kept


def _take_from_blocks(node, found: dict) -> None:
    for field in node._fields:
        value = getattr(node, field, None)
        if type(value) is not list or not value:
            continue
        if isinstance(value[0], _STATEMENT):
            new = _take_declarations(value, found)
            if not new:
                new = [_positioned(ast.Pass(), value[0])]
            setattr(node, field, new)
        else:                       # except handlers, match cases
            for item in value:
                if hasattr(item, "body") and type(item).__name__ not in _SCOPES:
                    _take_from_blocks(item, found)


def _positioned(new, like):
    new.lineno = like.lineno
    new.col_offset = like.col_offset
    new.end_lineno = like.lineno
    new.end_col_offset = like.col_offset
    return new


def _docstring(body: list) -> list:
    if body and type(body[0]).__name__ == "Expr":
        value = body[0].value
        if type(value).__name__ == "Constant" and isinstance(value.value, str):
            return body[:1]
    return []


def join(fn, original_body: list, operators: str = "ag__", text: str = "global nonlocal") -> None:
    """Give the converted FunctionDef `fn` (ast or gast) the original body (`ast`
    statements, the user's positions) as its Python path, in place. `text`: the
    function's source, where only a `global` or `nonlocal` makes the bodies be walked."""
    converted_body = fn.body
    doc = _docstring(original_body)
    original_body = original_body[len(doc):]
    converted_body = converted_body[len(_docstring(converted_body)):]
    found: dict = {}
    if "global" in text or "nonlocal" in text:
        original_body = _take_declarations(original_body, found)
        converted_body = _take_declarations(converted_body, found)
    at = fn            # the new lines take the `def`'s line: comments stay with statements
    head = [_positioned(getattr(ast, kind)(names=names), at) for kind, names in found.items()]
    if not original_body or type(original_body[-1]).__name__ not in _EXITS:
        original_body.append(_positioned(ast.Return(value=None), at))
    fork = _positioned(ast.If(test=not_staging(operators, at), body=original_body, orelse=[]),
                       at)
    fork.ag_python_path = True       # (the printer prints the body's comments in both)
    fn.body = doc + head + [fork] + (converted_body or [_positioned(ast.Pass(), at)])


def not_staging(operators: str, at) -> ast.expr:
    """`not ag__.staging`, at the position of `at`."""
    flag = ast.Attribute(value=_positioned(ast.Name(id=operators, ctx=ast.Load()), at),
                         attr="staging", ctx=ast.Load())
    return _positioned(ast.UnaryOp(op=ast.Not(), operand=_positioned(flag, at)), at)


def join_lambda(fn, original_body, operators: str = "ag__") -> None:
    """The same for a converted lambda `fn` (gast): its body becomes
    `original if not ag__.staging else converted` (`original_body`: a gast copy)."""
    fn.body = gast.IfExp(test=not_staging(operators, fn), body=original_body, orelse=fn.body)
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        setattr(fn.body, attr, getattr(original_body, attr, None))
