"""A converted function's two paths: its original body while nothing is staged, the
converted body while a graph is being built (see `autograph.operators.python_path`).

The design in full: docs/architecture.md, under `autograph/two_paths.py`.
"""
from __future__ import annotations

import ast
from typing import Optional, Sequence

from autograph import anno
from autograph import nodes as gast

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


def _new(cls, like, fields: dict):
    """A node of class `cls` with `fields` (which become its attributes), at the start of
    `like` (an empty span): `templates.make`'s way, at a third of the cost of the
    classes' constructors."""
    line, col = like.lineno, like.col_offset
    fields["lineno"], fields["col_offset"], fields["end_lineno"], fields["end_col_offset"] = (
        line, col, line, col)
    node = _AST_NEW(cls)
    node.__dict__ = fields
    return node


_AST_NEW = ast.AST.__new__
_LOAD, _NOT, _GAST_LOAD, _GAST_PARAM = ast.Load(), ast.Not(), gast.Load(), gast.Param()


def _docstring(body: list) -> list:
    if body and type(body[0]).__name__ == "Expr":
        value = body[0].value
        if type(value).__name__ == "Constant" and isinstance(value.value, str):
            return body[:1]
    return []


def join(fn, original_body: list, operators: str = "ag__", text: str = "global nonlocal",
         body_name: Optional[str] = None, traced_lines: bool = False) -> None:
    """Give the converted FunctionDef `fn` (ast or gast) the original body (`ast`
    statements, the user's positions) as its Python path, in place. `text`: the
    function's source, where only a `global` or `nonlocal` makes the bodies be walked.
    `body_name`: a fresh name; the converted body then becomes a function of that name
    nested in `fn` (see `_nested`). `traced_lines` (for compiling, not printing): the
    converted body comes first, under `if ag__.staging:` at the first statement's line,
    and the original body follows as written, so that a tracer (`sys.settrace`:
    debuggers, coverage) sees the lines the original runs, and no other (a `return`
    after the original body, at any line, would be one more)."""
    converted_body = fn.body
    doc = _docstring(original_body)
    original_body = original_body[len(doc):]
    converted_body = converted_body[len(_docstring(converted_body)):]
    found: dict = {}
    if "global" in text or "nonlocal" in text:
        original_body = _take_declarations(original_body, found)
        converted_body = _take_declarations(converted_body, found)
    at = fn            # the new lines take the `def`'s line: comments stay with statements
    head = [_new(getattr(ast, kind), at, {"names": names}) for kind, names in found.items()]
    if body_name is not None:
        converted_body = _nested(fn, converted_body, body_name, found)
    if traced_lines and original_body:
        if not converted_body or type(converted_body[-1]).__name__ not in _EXITS:
            converted_body = converted_body + [_new(ast.Return, at, {"value": None})]
        first = original_body[0]
        # (a gast `If`, holding gast statements: `parsing.to_ast` goes through it)
        fork = _new(gast.If, first, {"test": _staging(operators, first),
                                     "body": converted_body, "orelse": []})
        fn.body = doc + head + [fork] + original_body
        return
    if not original_body or type(original_body[-1]).__name__ not in _EXITS:
        original_body.append(_new(ast.Return, at, {"value": None}))
    fork = _new(ast.If, at, {"test": not_staging(operators, at), "body": original_body,
                             "orelse": []})
    anno.setanno(fork, anno.PYTHON_PATH, True)   # (the printer prints the body's comments in both)
    fn.body = doc + head + [fork] + (converted_body or [_new(ast.Pass, at, {})])


def _parameter_names(args) -> list:
    """The parameter names of an `arguments` node (ast or gast), in order."""
    params = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    return [getattr(a, "id", None) or a.arg for a in params if a is not None]


def _nested(fn, body: list, name: str, declared: dict) -> list:
    """`body` as the body of a function `name` nested in `fn`, which takes `fn`'s
    parameters as plain positional ones, and `return name(...)` calling it: the
    statements that stand for the converted body.

    The converted body's generated functions read and write the function's variables as
    closures; were they `fn`'s own, every variable they touch would be a cell of `fn`,
    and the original body (the Python path) would read them more slowly than the
    original does (a third slower on code with many). In a function of its own they are
    that function's cells only. `declared`: the hoisted `global`/`nonlocal` names, which
    the nested function declares again."""
    names = _parameter_names(fn.args)
    at = fn
    params = _new(gast.arguments, at, {
        "posonlyargs": [], "args": [_name(n, _GAST_PARAM, at) for n in names],
        "vararg": None, "kwonlyargs": [], "kw_defaults": [], "kwarg": None, "defaults": []})
    head = [_new(getattr(gast, kind), at, {"names": list(found)})
            for kind, found in declared.items()]
    inner = _new(gast.FunctionDef, at, {
        "name": name, "args": params, "body": head + (body or [_new(gast.Pass, at, {})]),
        "decorator_list": [], "returns": None, "type_comment": None, "type_params": []})
    call = _new(gast.Call, at, {"func": _name(name, _GAST_LOAD, at),
                                "args": [_name(n, _GAST_LOAD, at) for n in names],
                                "keywords": []})
    return [inner, _new(gast.Return, at, {"value": call})]


def _name(name: str, ctx, at) -> gast.Name:
    return _new(gast.Name, at, {"id": name, "ctx": ctx, "annotation": None,
                                "type_comment": None})


def not_staging(operators: str, at) -> ast.expr:
    """`not ag__.staging`, at the position of `at`."""
    return _new(ast.UnaryOp, at, {"op": _NOT, "operand": _staging(operators, at)})


def _staging(operators: str, at) -> ast.expr:
    """`ag__.staging`, at the position of `at`."""
    name = _new(ast.Name, at, {"id": operators, "ctx": _LOAD})
    return _new(ast.Attribute, at, {"value": name, "attr": "staging", "ctx": _LOAD})


def join_lambda(fn, original_body, operators: str = "ag__") -> None:
    """The same for a converted lambda `fn` (gast): its body becomes
    `original if not ag__.staging else converted` (`original_body`: a gast copy)."""
    fn.body = gast.IfExp(test=not_staging(operators, fn), body=original_body, orelse=fn.body)
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        setattr(fn.body, attr, getattr(original_body, attr, None))


def declarations(body: list) -> list:
    """The `global`/`nonlocal` statements of the scope whose body is `body` (nested
    blocks included, nested scopes not), in source order; `body` is not changed."""
    found, todo = [], list(reversed(body))
    while todo:
        node = todo.pop()
        kind = type(node).__name__
        if kind in _DECLARATIONS:
            found.append(node)
        elif kind not in _SCOPES:
            more = []
            for field in node._fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    more.extend(v for v in value
                                if isinstance(v, _STATEMENT) or hasattr(v, "body"))
            todo.extend(reversed(more))
    return found


def staging_first(fn, doc: list, original_declared: list, operators: str = "__ag__",
                  text: str = "global nonlocal", body_name: Optional[str] = None) -> None:
    """The layout `autograph convert` writes (see above), in place: the converted
    FunctionDef `fn` gets `doc + declarations + [if <operators>.staging: converted body,
    ending in a return]`; the original body's text is the caller's to append. `doc`:
    the original's docstring statement, or []. `original_declared`: the original body's
    `global`/`nonlocal` statements (see `declarations`), hoisted with the converted
    body's."""
    body = fn.body
    body = body[len(_docstring(body)):]
    found: dict = {}
    for stmt in original_declared:
        names = found.setdefault(type(stmt).__name__, [])
        names.extend(n for n in stmt.names if n not in names)
    if "global" in text or "nonlocal" in text:
        body = _take_declarations(body, found)
    at = fn
    head = [_new(getattr(ast, kind), at, {"names": names}) for kind, names in found.items()]
    if body_name is not None:
        body = _nested(fn, body, body_name, found)
    elif not body or type(body[-1]).__name__ not in _EXITS:
        body.append(_new(ast.Return, at, {"value": None}))
    fn.body = doc + head + [_new(ast.If, at, {"test": _staging(operators, at), "body": body,
                                              "orelse": []})]


def copy_docstring(body: list) -> list:
    """[the docstring statement of `body`, a node of its own] (conversion edits the
    function's), or []."""
    if not _docstring(body):
        return []
    stmt, value = body[0], body[0].value
    new = ast.Expr(value=ast.Constant(value=value.value, kind=value.kind))
    for n, like in ((new, stmt), (new.value, value)):
        n.lineno, n.col_offset = like.lineno, like.col_offset
        n.end_lineno, n.end_col_offset = like.end_lineno, like.end_col_offset
    return [new]


def verbatim_span(node: ast.FunctionDef, lines: Sequence[str], prefix: str,
                  declared: list) -> Optional[tuple]:
    """(first, last): the 1-based lines of the original body's text to copy verbatim
    after the converted body (the docstring, printed, left out), or None where that
    text cannot follow printed code as it is: a body that starts on the `def`'s line or
    shares the docstring's line, statements of the body not at the printed code's
    indentation (`prefix` and four spaces), declarations that share a line."""
    body = node.body
    indent = prefix + "    "
    start = 0
    if _docstring(body):
        doc = body[0]
        if len(body) > 1 and body[1].lineno <= doc.end_lineno:
            return None
        start = 1
        first = doc.end_lineno + 1
    if not _starts_line(body[0], lines, indent):
        return None
    if start == 0:              # the comment lines between the header and the body too
        first = body[0].lineno
        decorators = getattr(body[0], "decorator_list", None)
        if decorators:          # a decorated `def`/`class` starts at its first `@`
            first = min(first, decorators[0].lineno)
        while first - 1 > node.lineno and lines[first - 2].strip()[:1] in ("", "#"):
            first -= 1
    previous = body[0]
    for stmt in body[1:]:
        if stmt.lineno > previous.end_lineno and not _starts_line(stmt, lines, indent):
            return None
        previous = stmt
    for stmt in declared:             # (`declarations(body)`)
        if not _starts_line(stmt, lines, None) or \
                lines[stmt.end_lineno - 1].encode()[stmt.end_col_offset:].strip()[:1] not in (
                    b"", b"#"):
            return None
    return first, node.end_lineno


def _starts_line(stmt, lines: Sequence[str], indent: Optional[str]) -> bool:
    """Whether `stmt` is the first thing on its line (after exactly `indent`, if given)."""
    line = lines[stmt.lineno - 1]
    if indent is not None:          # (`line[:col_offset] == indent`, without the slice)
        return stmt.col_offset == len(indent) and line.startswith(indent)
    head = line[:stmt.col_offset]
    return not head.strip(" \t") and len(head) == stmt.col_offset


def original_text(span: tuple, declared: list, lines: Sequence[str]) -> str:
    """The lines `span` of `lines`, each of the `declared` statements (which occupy whole
    lines) replaced by `pass` at its indentation and blank lines, the count kept."""
    first, last = span
    text = list(lines[first - 1:last])
    for stmt in declared:
        i = stmt.lineno - first
        line = text[i]
        rest = line.encode()[stmt.end_col_offset:].decode() if stmt.end_lineno == stmt.lineno \
            else ""
        newline = "\r\n" if line.endswith("\r\n") else "\n"
        text[i] = line[:stmt.col_offset] + "pass" + (rest.rstrip("\r\n") + newline
                                                      if rest.strip() else newline)
        for j in range(i + 1, stmt.end_lineno - first + 1):
            end = text[j]
            text[j] = "\r\n" if end.endswith("\r\n") else "\n"
    out = "".join(text)
    return out[:-1] if out.endswith("\n") else out
