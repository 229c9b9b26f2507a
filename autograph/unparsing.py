"""Printing gast trees (and ast trees, and trees mixing both) as source: the standard
library's printer (`ast.unparse`), taught gast's node classes, so that converted trees
print without a copy into `ast` first. `unparse` is the entry point.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import types
from typing import Optional

import gast

from autograph.parsing import GAST_CLASS


def _unparser_methods() -> dict:
    """The stdlib printer's methods, reading `isinstance(node, Constant)` and the like
    as `isinstance(node, (ast.Constant, gast.Constant))`: so it prints gast trees as they
    are, with no copy into `ast` first (that copy was a fifth of the time of converting a
    file). Only the node classes change; the printer is the standard library's."""
    either = dict(vars(ast))
    either.update({name: (cls, gcls) for cls, gcls in GAST_CLASS.items()
                   for name in [cls.__name__]})
    methods = {}
    for name, fn in vars(ast._Unparser).items():
        if isinstance(fn, types.FunctionType) and fn.__closure__ is None:
            new = types.FunctionType(fn.__code__, either, fn.__name__, fn.__defaults__)
            new.__kwdefaults__ = fn.__kwdefaults__
            methods[name] = new
    return methods


class Unparser(ast._Unparser):
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
        self.maybe_newline()
        self.write(self._prefix + "    " * self._indent + text)

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
        self._precedences[node.func] = _ATOM
        self.traverse(node.func)
        self._source.append("(")
        comma = False
        for e in node.args:
            if comma:
                self._source.append(", ")
            comma = True
            self.traverse(e)
        for e in node.keywords:
            if comma:
                self._source.append(", ")
            comma = True
            self.traverse(e)
        self._source.append(")")

    _operators = None      # the name generated `ag__.<operator>` prints (see `unparse`)

    def visit_Attribute(self, node):
        value = node.value
        if (self._operators is not None and type(value) is gast.Name and value.id == "ag__"
                and getattr(value, "ag_generated", False)):
            self._source.append(self._operators)      # (api.rename_operators, printed)
            self._source.append(".")
            self._source.append(node.attr)
            return
        self._precedences[value] = _ATOM
        self.traverse(value)
        if type(value) in _CONSTANTS and isinstance(value.value, int):
            self._source.append(" ")        # `3 .real`, not `3.real`
        self._source.append(".")
        self._source.append(node.attr)

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
            precedences[target] = _TUPLE
            self.traverse(target)
            source.append(" = ")
        self.traverse(node.value)
        type_comment = self.get_type_comment(node)
        if type_comment:
            source.append(type_comment)

    def visit_Expr(self, node):
        self.fill()
        self._precedences[node.value] = _YIELD
        self.traverse(node.value)

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

    def _str_literal_helper(self, string, *, quote_types=ast._ALL_QUOTES,
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
            possible_quotes = [q for q in possible_quotes if q in ast._MULTI_QUOTES]
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

    def visit_ExceptHandler(self, node):
        if isinstance(node.name, gast.Name):
            node = ast.ExceptHandler(type=node.type, name=node.name.id, body=node.body)
        super().visit_ExceptHandler(node)


_VISITORS: dict = {}
_STATEMENTS = frozenset(c for m in (ast, gast) for c in vars(m).values()
                        if isinstance(c, type) and issubclass(c, m.stmt))
_SIMPLE = _STATEMENTS - {c for m in (ast, gast) for c in vars(m).values()
                         if isinstance(c, type) and issubclass(c, m.stmt)
                         and "body" in c._fields}
_ATOM, _TEST, _YIELD = ast._Precedence.ATOM, ast._Precedence.TEST, ast._Precedence.YIELD
_TUPLE = ast._Precedence.TUPLE
_PLAIN_CONSTANTS = frozenset({str, int, bool, type(None)})
_CONSTANTS = (ast.Constant, gast.Constant)


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
