"""Printing gast trees (and ast trees, and trees mixing both) as source: the standard
library's printer (`ast.unparse`), taught gast's node classes, so that converted trees
print without a copy into `ast` first. `unparse` is the entry point.

That printer's class is private (`ast._Unparser`; Python 3.14 moves it to the module
`_ast_unparse`). Where no such class is found, `unparse` prints with `_fallback_unparse`:
`ast.unparse` statement by statement, on an `ast` copy of the tree (slower; the same text).
"""
from __future__ import annotations

import ast
import contextlib
import copy
import functools
import importlib
import sys
import types
from typing import Optional

import gast

from autograph.parsing import GAST_CLASS, to_ast

# The methods of the stdlib's printer this module's own call (besides the visit_ ones it
# copies): a printer without them is not one it can build on.
_NEEDED = ("require_parens", "set_precedence", "maybe_newline", "write", "traverse", "visit",
           "get_type_comment", "_str_literal_helper", "visit_arguments",
           "visit_ExceptHandler", "visit_If", "visit_Constant", "visit_Lambda")


def _stdlib_printer() -> tuple:
    """(the stdlib printer's class, the module it is defined in), or (None, None) where
    this Python has none this module can build on."""
    cls = getattr(ast, "_Unparser", None)
    if cls is None:
        try:                                      # Python 3.14
            cls = importlib.import_module("_ast_unparse").Unparser
        except (ImportError, AttributeError):
            return None, None
    module = sys.modules.get(cls.__module__)
    if module is None or not all(hasattr(module, n) for n in
                                 ("_Precedence", "_ALL_QUOTES", "_MULTI_QUOTES")):
        return None, None
    if not all(hasattr(cls, n) for n in _NEEDED):
        return None, None
    return cls, module


def _unparser_methods() -> dict:
    """The stdlib printer's methods, reading `isinstance(node, Constant)` and the like
    as `isinstance(node, (ast.Constant, gast.Constant))`: so it prints gast trees as they
    are, with no copy into `ast` first (that copy was a fifth of the time of converting a
    file). Only the node classes change; the printer is the standard library's."""
    either = dict(vars(_STDLIB_MODULE))
    either.update({name: (cls, gcls) for cls, gcls in GAST_CLASS.items()
                   for name in [cls.__name__]})
    methods = {}
    for name, fn in vars(_STDLIB_PRINTER).items():
        if isinstance(fn, types.FunctionType) and fn.__closure__ is None:
            new = types.FunctionType(fn.__code__, either, fn.__name__, fn.__defaults__)
            new.__kwdefaults__ = fn.__kwdefaults__
            methods[name] = new
    return methods


_STDLIB_PRINTER, _STDLIB_MODULE = _stdlib_printer()
_STATEMENTS = frozenset(c for m in (ast, gast) for c in vars(m).values()
                        if isinstance(c, type) and issubclass(c, m.stmt))
_SIMPLE = _STATEMENTS - {c for m in (ast, gast) for c in vars(m).values()
                         if isinstance(c, type) and issubclass(c, m.stmt)
                         and "body" in c._fields}
_VISITORS: dict = {}
_PLAIN_CONSTANTS = frozenset({str, int, bool, type(None)})
_CONSTANTS = (ast.Constant, gast.Constant)
_GAST_NAME, _GAST_ATTRIBUTE, _GAST_CALL, _GAST_CONSTANT = (gast.Name, gast.Attribute, gast.Call,
                                                           gast.Constant)

if _STDLIB_PRINTER is None:
    Unparser = None
else:
    _precedence = _STDLIB_MODULE._Precedence
    _ATOM, _TEST, _YIELD = _precedence.ATOM, _precedence.TEST, _precedence.YIELD
    _TUPLE = _precedence.TUPLE

    class Unparser(_STDLIB_PRINTER):
        """`ast.unparse` for gast trees, with every line starting with `prefix` (a `def`'s
        indentation, so that docstrings keep their text exactly while the code moves in)."""

        locals().update(_unparser_methods())

        _rename: dict = {}     # generated names printed under another name (see `unparse`)
        # Set by the stdlib's __init__ up to Python 3.12 (f-string parts); 3.13's printer
        # has no such flag, and prints every plain constant with `repr`.
        _avoid_backslashes = False

        def __init__(self, prefix: str = "", **kwargs):
            super().__init__(**kwargs)       # f-strings print their parts with a nested one
            self._prefix = prefix

        def fill(self, text="", **kwargs):
            source = self._source
            if source:                      # (the stdlib's maybe_newline and write)
                source.append("\n")
            source.append(self._prefix + "    " * self._indent + text)

        def items_view(self, traverser, items):
            """As the stdlib's (Python 3.10 to 3.13), without its call per item."""
            source = self._source
            if len(items) == 1:
                traverser(items[0])
                source.append(",")
                return
            comma = False
            for item in items:
                if comma:
                    source.append(", ")
                comma = True
                traverser(item)

        # The stdlib's are generator-based context managers; these do the same, cheaper.
        def delimit(self, start, end):
            self.write(start)
            return _After(self.write, end)

        def delimit_if(self, start, end, condition):
            return self.delimit(start, end) if condition else _NOTHING

        def block(self, *, extra=None):
            self.write(":")
            if extra:
                self.write(extra)
            self._indent += 1
            return _After(self._dedent)

        def _dedent(self):
            self._indent -= 1

        _comments: list = []   # [(line, "# text")], in line order (see `unparse`)

        def traverse(self, node):
            """As the stdlib's, with the visit method looked up once per node class."""
            visit = _VISITORS.get(type(node))
            if visit is None:
                if type(node) is list:
                    for item in node:
                        self.traverse(item)
                    return
                visit = _VISITORS[type(node)] = getattr(
                    Unparser, "visit_" + type(node).__name__, Unparser.generic_visit)
            if self._comments and type(node) in _STATEMENTS:
                self._comments_before(node)
            visit(self, node)

        def _comments_before(self, stmt):
            """Print the comments that stood before `stmt` (or, for a simple statement, in
            it), at the current indentation: they move with the statement they precede."""
            line = getattr(stmt, "end_lineno" if type(stmt) in _SIMPLE else "lineno", None)
            comments = self._comments
            while line is not None and comments and comments[0][0] < line:
                self.fill(comments.pop(0)[1])

        _visit_if = locals()["visit_If"]

        def visit_If(self, node):
            if not getattr(node, "ag_python_path", False):
                return self._visit_if(node)
            # A converted function's `if not ag__.staging:` (see two_paths): the comments of
            # the body print in the original body inside, and again in the converted one.
            comments = list(self._comments)
            self._visit_if(node)
            self._comments = comments

        # The commonest nodes, as the stdlib prints them, with fewer calls (enum members and
        # context managers cost more than the printing itself).
        def get_precedence(self, node):
            return self._precedences.get(node, _TEST)

        def visit_Call(self, node):
            source = self._source
            func = node.func
            kind = type(func)
            if kind is _GAST_ATTRIBUTE:   # (an Attribute or a Name prints no parentheses)
                self.visit_Attribute(func)
            elif kind is _GAST_NAME and not self._rename and func.annotation is None:
                source.append(func.id)
            else:
                self._precedences[func] = _ATOM
                self.traverse(func)
            source.append("(")
            comma = False
            for e in node.args:
                if comma:
                    source.append(", ")
                comma = True
                self._argument(e)
            for e in node.keywords:
                if comma:
                    source.append(", ")
                comma = True
                if e.arg is not None:
                    source.append(e.arg)
                    source.append("=")
                    self._argument(e.value)
                else:
                    self.traverse(e)
            source.append(")")

        def _argument(self, e):
            """`traverse(e)`, where `e` is in a call's parentheses (as an argument, or a
            keyword's value), without its calls for the commonest nodes there."""
            kind = type(e)
            if kind is _GAST_NAME and not self._rename and e.annotation is None:
                self._source.append(e.id)
            elif kind is _GAST_CALL:
                self.visit_Call(e)
            elif kind is _GAST_ATTRIBUTE:
                self.visit_Attribute(e)
            elif kind is _GAST_CONSTANT:
                self.visit_Constant(e)
            else:
                self.traverse(e)

        _operators = None      # the name generated `ag__.<operator>` prints (see `unparse`)

        def visit_Attribute(self, node):
            value = node.value
            kind = type(value)
            source = self._source
            if kind is _GAST_NAME:
                if value.id == "ag__" and self._operators is not None and getattr(
                        value, "ag_generated", False):
                    source.append(self._operators)      # (api.rename_operators, printed)
                elif not self._rename and value.annotation is None:
                    source.append(value.id)
                else:
                    self.visit_Name(value)
            elif kind is _GAST_ATTRIBUTE:
                self.visit_Attribute(value)
            else:
                self._precedences[value] = _ATOM
                self.traverse(value)
                if kind in _CONSTANTS and isinstance(value.value, int):
                    source.append(" ")        # `3 .real`, not `3.real`
            source.append(".")
            source.append(node.attr)

        _visit_constant = locals()["visit_Constant"]

        def visit_Constant(self, node):
            """The stdlib's, shorter for the common constants (a plain str, int, bool, None)."""
            value = node.value
            if (type(value) in _PLAIN_CONSTANTS and node.kind is None
                    and not (self._avoid_backslashes and type(value) is str)):
                self._source.append(repr(value))
            else:
                self._visit_constant(node)

        def visit_Assign(self, node):
            """The stdlib's, with fewer calls."""
            self.fill()
            source, precedences = self._source, self._precedences
            for target in node.targets:
                if type(target) is _GAST_NAME and not self._rename and target.annotation is None:
                    source.append(target.id)
                else:
                    precedences[target] = _TUPLE
                    self.traverse(target)
                source.append(" = ")
            if type(node.value) is _GAST_CALL:
                self.visit_Call(node.value)
            else:
                self.traverse(node.value)
            type_comment = self.get_type_comment(node)
            if type_comment:
                source.append(type_comment)

        def visit_Expr(self, node):
            self.fill()
            if type(node.value) is _GAST_CALL:     # (printed the same at any precedence)
                self.visit_Call(node.value)
            else:
                self._precedences[node.value] = _YIELD
                self.traverse(node.value)

        def visit_Return(self, node):
            self.fill("return")
            value = node.value
            if value:
                self._source.append(" ")
                if type(value) is _GAST_CALL:
                    self.visit_Call(value)
                else:
                    self.traverse(value)

        # The three places where gast's nodes differ from ast's.
        def visit_Name(self, node):
            new = self._rename.get(node.id)
            if new is not None and getattr(node, "ag_generated", False):
                self._source.append(new)
            else:
                self._source.append(node.id)
            if type(node.ctx) is gast.Param and node.annotation:
                self.write(": ")
                self.traverse(node.annotation)

        def visit_arguments(self, node):
            if (type(node) is gast.arguments and not node.defaults and not node.posonlyargs
                    and node.vararg is None and not node.kwonlyargs and node.kwarg is None
                    and not any(a.annotation for a in node.args)):
                if node.args:          # (nothing at all for none: a lambda tests for output)
                    self._source.append(", ".join([a.id for a in node.args]))
                return
            if type(node) is gast.arguments:
                def arg(n):
                    return n and ast.arg(arg=n.id, annotation=n.annotation, type_comment=None)
                node = ast.arguments(
                    posonlyargs=[arg(a) for a in node.posonlyargs], args=[arg(a) for a in node.args],
                    vararg=arg(node.vararg), kwonlyargs=[arg(a) for a in node.kwonlyargs],
                    kw_defaults=node.kw_defaults, kwarg=arg(node.kwarg), defaults=node.defaults)
            super().visit_arguments(node)

        def _str_literal_helper(self, string, *, quote_types=_STDLIB_MODULE._ALL_QUOTES,
                                escape_special_whitespace=False):
            """As the stdlib's, without its call per character for a string that needs no
            escapes (docstrings, mostly)."""
            plain = string if escape_special_whitespace else string.replace("\n", "").replace("\t", "")
            if "\\" in string or not plain.isprintable():
                return super()._str_literal_helper(
                    string, quote_types=quote_types,
                    escape_special_whitespace=escape_special_whitespace)
            escaped_string = string
            possible_quotes = quote_types
            if "\n" in escaped_string:
                possible_quotes = [q for q in possible_quotes if q in _STDLIB_MODULE._MULTI_QUOTES]
            possible_quotes = [q for q in possible_quotes if q not in escaped_string]
            if not possible_quotes:
                string = repr(string)
                quote = next((q for q in quote_types if string[0] in q), string[0])
                return string[1:-1], [quote]
            if escaped_string:
                possible_quotes.sort(key=lambda q: q[0] == escaped_string[-1])
                if possible_quotes[0][0] == escaped_string[-1]:
                    assert len(possible_quotes[0]) == 3
                    escaped_string = escaped_string[:-1] + "\\" + escaped_string[-1]
            return escaped_string, possible_quotes

        def visit_Lambda(self, node):
            """As the stdlib's from Python 3.11 on (`lambda: x`; 3.10's printed `lambda : x`):
            the same text on every version."""
            with self.require_parens(_TEST, node):
                source = self._source
                source.append("lambda")
                start = len(source)
                self.traverse(node.args)
                if len(source) > start:
                    source.insert(start, " ")
                source.append(": ")
                self._precedences[node.body] = _TEST
                self.traverse(node.body)

        def visit_ExceptHandler(self, node):
            if isinstance(node.name, gast.Name):
                node = ast.ExceptHandler(type=node.type, name=node.name.id, body=node.body)
            super().visit_ExceptHandler(node)


class _After:
    """A context manager that calls `fn(*args)` on leaving."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        self.fn(*self.args)


_NOTHING = contextlib.nullcontext()


def unparse(node, prefix: str = "", rename: Optional[dict] = None,
            comments: Optional[list] = None, operators: Optional[str] = None) -> str:
    """Source of a gast (or ast) tree, as `ast.unparse` prints it; `rename` maps names
    autograph generated to the names to print instead; `operators`: the name generated
    `ag__.<operator>` references print (as `api.rename_operators` renames them: a
    generated `ag__` not followed by an attribute is a user's variable); `comments`,
    [(line, "# text")] of the source, are printed before the statements they preceded
    (by the statements' line numbers, which converted code keeps)."""
    if Unparser is None:
        return _fallback_unparse(node, prefix, rename, comments, operators)
    if operators is not None:
        rename = dict(rename or {}, **{_OPERATORS: operators})
    cls = _renaming(tuple(sorted(rename.items()))) if rename else Unparser
    printer = cls(prefix)
    if comments:
        printer._comments = sorted(comments)
    return printer.visit(node)


@functools.lru_cache(maxsize=None)
def _renaming(pairs: tuple) -> type:
    """An Unparser that renames: a class, since f-strings are printed by a second
    instance made with `type(self)()`."""
    rename = dict(pairs)
    return type("Unparser", (Unparser,), {"_rename": rename,
                                          "_operators": rename.pop(_OPERATORS, None)})


_OPERATORS = " operators"     # (not an identifier: a key of `rename` no name can be)


# The fallback printer, where this Python's has no class to build on (see the module's
# docstring): the tree copied (fields and positions only), renamed as `unparse` says,
# made an `ast` tree, and printed a statement at a time by `ast.unparse`, which does not
# print comments. Each compound statement's header is `ast.unparse` of the statement with
# a body of `pass` and nothing else, less its last line; its bodies print as the rest.

def _fallback_unparse(node, prefix: str = "", rename: Optional[dict] = None,
                      comments: Optional[list] = None, operators: Optional[str] = None) -> str:
    tree = _copy_tree(node)
    for n in _walk(tree):
        if operators is not None and isinstance(n, gast.Attribute):
            value = n.value
            if (type(value) is gast.Name and value.id == "ag__"
                    and getattr(value, "ag_generated", False)):
                value.id = operators
                value.ag_generated = False        # (renamed: not again, below)
        elif rename and type(n) in (gast.Name, ast.Name) and getattr(n, "ag_generated", False):
            n.id = rename.get(n.id, n.id)
        if type(n) in _STATEMENTS:                # the line its comments are printed by
            n._ag_comment_line = getattr(n, "end_lineno" if type(n) in _SIMPLE else "lineno",
                                         None)
    tree = _to_ast(tree)
    if not isinstance(tree, (ast.stmt, ast.Module, list)):
        return ast.unparse(tree)                  # an expression, or a part of one
    printer = _FallbackPrinter(prefix, sorted(comments) if comments else [])
    if isinstance(tree, ast.Module):
        printer.body(tree.body, docstring=True)
    elif isinstance(tree, list):
        printer.body(tree)
    else:
        printer.statement(tree)
    return "".join(printer.source)


def _copy_tree(node):
    """A copy of `node`'s tree, of its fields, positions, and what `unparse` reads of the
    annotations (gast's contexts and operators, which have no fields, are not copied)."""
    if type(node) is list:
        return [_copy_tree(n) for n in node]
    if not isinstance(node, ast.AST) or not node._fields:
        return node
    new = type(node).__new__(type(node))
    d, new_d = node.__dict__, new.__dict__
    for name in (*node._fields, *node._attributes, "ag_generated", "ag_python_path"):
        if name in d:
            value = d[name]
            new_d[name] = ([_copy_tree(v) for v in value] if type(value) is list
                           else _copy_tree(value))
    return new


def _to_ast(tree):
    """`tree` as an `ast` tree, in place: `parsing.to_ast`, also on the gast trees inside
    the `ast` nodes of a tree mixing both (which it leaves as they are)."""
    tree = to_ast(tree)
    todo = [tree]
    while todo:
        n = todo.pop()
        if type(n) is list:
            todo.extend(n)
            continue
        for name in n._fields:
            value = getattr(n, name, None)
            for v in value if type(value) is list else [value]:
                if isinstance(v, gast.AST):
                    to_ast(v)
                if isinstance(v, ast.AST):
                    todo.append(v)
    return tree


def _walk(node):
    todo = [node]
    while todo:
        n = todo.pop()
        if type(n) is list:
            todo.extend(n)
            continue
        yield n
        for name in n._fields:
            value = getattr(n, name, None)
            if type(value) is list:
                todo.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)


_PASS = ast.Pass()
_BODIES = ("body", "orelse", "finalbody", "handlers")


class _FallbackPrinter:
    """Prints `ast` statements as the stdlib's printer does, with every line starting
    with `prefix`, and the comments [(line, "# text")] before the statements they
    preceded (as `Unparser` does)."""

    def __init__(self, prefix: str, comments: list):
        self.prefix, self.comments, self.source, self.indent = prefix, comments, [], 0

    def fill(self, text: str = ""):
        if self.source:
            self.source.append("\n")
        self.source.append(self.prefix + "    " * self.indent + text)

    def body(self, statements: list, docstring: bool = False):
        if (docstring and statements and type(statements[0]) is ast.Expr
                and type(statements[0].value) is ast.Constant
                and type(statements[0].value.value) is str):
            # As the stdlib prints a docstring: its lines after the first as they are.
            first, *rest = ast.unparse(ast.Module(body=[statements[0]], type_ignores=[])
                                       ).split("\n")
            self.fill(first)
            self.source.extend("\n" + line for line in rest)
            statements = statements[1:]
        for statement in statements:
            self.statement(statement)

    def block(self, statements: list, docstring: bool = False):
        self.indent += 1
        self.body(statements, docstring)
        self.indent -= 1

    def statement(self, node: ast.stmt):
        line = getattr(node, "_ag_comment_line", None)
        comments = self.comments
        while line is not None and comments and comments[0][0] < line:
            self.fill(comments.pop(0)[1])
        kind = type(node)
        if kind.__name__ == "Match":
            self.fill("match " + ast.unparse(node.subject) + ":")
            self.indent += 1
            for case in node.cases:
                guard = " if " + ast.unparse(case.guard) if case.guard else ""
                self.fill("case " + ast.unparse(case.pattern) + guard + ":")
                self.block(case.body)
            self.indent -= 1
        elif "body" not in kind._fields:                     # a simple statement
            self.fill(ast.unparse(node))
        elif kind is ast.If:
            saved = list(comments) if getattr(node, "ag_python_path", False) else None
            self.header(node)
            self.block(node.body)
            while len(node.orelse) == 1 and type(node.orelse[0]) is ast.If:
                node = node.orelse[0]                        # as `elif`
                self.fill("elif " + ast.unparse(node.test) + ":")
                self.block(node.body)
            if node.orelse:
                self.fill("else:")
                self.block(node.orelse)
            if saved is not None:     # (see Unparser.visit_If: they print again after)
                self.comments[:] = saved
        else:
            definition = kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            if definition and self.source:
                self.source.append("\n")                    # a blank line before
            self.header(node)
            self.block(node.body, docstring=definition)
            star = "*" if kind.__name__ == "TryStar" else ""
            for handler in getattr(node, "handlers", ()):
                text = ast.unparse(_shell(handler)).rsplit("\n", 1)[0]
                self.fill(text.replace("except", "except" + star, 1))
                self.block(handler.body)
            if getattr(node, "orelse", None):
                self.fill("else:")
                self.block(node.orelse)
            if getattr(node, "finalbody", None):
                self.fill("finally:")
                self.block(node.finalbody)

    def header(self, node: ast.stmt):
        """The lines of `node` before its body (decorators, `def`, `for`, ...)."""
        for line in ast.unparse(_shell(node)).split("\n")[:-1]:
            self.fill(line.lstrip("\n"))


def _shell(node):
    """`node` with a body of `pass` and no other statements in it."""
    shell = copy.copy(node)
    for name in _BODIES:
        if name in node._fields:
            setattr(shell, name, [_PASS] if name == "body" else [])
    return shell
