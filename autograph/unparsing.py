"""Printing gast trees (and ast trees, and trees mixing both) as source: the standard
library's printer (`ast.unparse`), taught gast's node classes, so that converted trees
print without a copy into `ast` first. `unparse` is the entry point.

That printer's class is private (`ast._Unparser`; Python 3.14 moves it to the module
`_ast_unparse`). Where no such class is found, `unparse` prints with
`unparsing_fallback`: `ast.unparse` statement by statement, on an `ast` copy of the tree
(slower; the same text).
"""
from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import operator
import sys
import types
from typing import Optional

from autograph import anno
from autograph import nodes as gast
from autograph.nodes import SIMPLE_STATEMENTS, STATEMENTS
from autograph.parsing import GAST_CLASS

# The methods of the stdlib's printer this module's own call (besides the visit_ ones it
# copies): a printer without them is not one it can build on.
_NEEDED = ("write", "visit", "generic_visit", "_str_literal_helper", "_write_docstring",
           "_function_helper", "visit_arguments", "visit_ExceptHandler", "visit_Constant",
           "visit_Subscript", "binop", "binop_precedence", "binop_rassoc", "cmpops")


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
# {node class: the Unparser method that prints it}, for every class of ast and gast
# (`traverse` adds any other it meets): `_VISITORS[type(e)](self, e)` is `traverse(e)`
# for an expression, without the call. (A plain dict: quicker to index than one with
# a __missing__ method.)
_VISITORS: dict = {}
_PLAIN_CONSTANTS = frozenset({str, int, bool, type(None)})
_CONSTANTS = (ast.Constant, gast.Constant)
_EXPRS, _IFS, _TUPLES = (ast.Expr, gast.Expr), (ast.If, gast.If), (ast.Tuple, gast.Tuple)
_GAST_NAME, _GAST_ATTRIBUTE, _GAST_CALL, _GAST_CONSTANT, _GAST_ARGUMENTS = (
    gast.Name, gast.Attribute, gast.Call, gast.Constant, gast.arguments)
_ANNOTATION, _ID = operator.attrgetter("annotation"), operator.attrgetter("id")

if _STDLIB_PRINTER is None:
    Unparser = None
else:
    _precedence = _STDLIB_MODULE._Precedence
    _ATOM, _TEST, _YIELD = _precedence.ATOM, _precedence.TEST, _precedence.YIELD
    _TUPLE, _CMP = _precedence.TUPLE, _precedence.CMP
    _NEXT = {p: p.next() for p in _precedence}     # (`next` makes a new enum member)
    # Python 3.10's printer puts every tuple in parentheses, later ones where needed only.
    _ALWAYS_PARENTHESIZED = ast.unparse(ast.parse("x, y = z")) == "(x, y) = z"

    class Unparser(_STDLIB_PRINTER):
        """`ast.unparse` for gast trees, with every line starting with `prefix` (a `def`'s
        indentation, so that docstrings keep their text exactly while the code moves in)."""

        locals().update(_unparser_methods())
        _stdlib_function_helper = locals()["_function_helper"]
        _stdlib_subscript = locals()["visit_Subscript"]
        _stdlib_constant = locals()["visit_Constant"]

        _rename: dict = {}     # generated names printed under another name (see `unparse`)
        _operators = None      # the name generated `ag__.<operator>` prints (see `unparse`)
        # Set by the stdlib's __init__ up to Python 3.12 (f-string parts); 3.13's printer
        # has no such flag, and prints every plain constant with `repr`.
        _avoid_backslashes = False

        def __init__(self, prefix: str = "", **kwargs):
            super().__init__(**kwargs)       # f-strings print their parts with a nested one
            # The indentation, as the text that starts a line (the stdlib's printer counts
            # levels in `_indent`, which only its fill and block read: both replaced here).
            self._margin = "\n" + prefix
            self._comments = []    # [(line, "# text")], in line order (see `unparse`)
            # Read at every node: instance attributes (quicker to read than the class's).
            self._plain_names = not self._rename    # (a gast Name prints its id)
            self._plain_constants = (               # (those whose text is `repr`'s)
                _PLAIN_CONSTANTS - {str} if self._avoid_backslashes else _PLAIN_CONSTANTS)

        def fill(self, text="", *, allow_semicolon=True):     # (3.14's: for `ast.Interactive`)
            source = self._source           # (a new line, unless the first one)
            source.append(self._margin + text if source else self._margin[1:] + text)

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
            self._margin += "    "
            return _After(self._dedent)

        def _dedent(self):
            self._margin = self._margin[:-4]

        def traverse(self, node):
            """As the stdlib's, with the visit method looked up once per node class (a
            list's is `_statements`)."""
            if self._comments and type(node) in STATEMENTS:
                self._comments_before(node)
            visit = _VISITORS.get(type(node))
            if visit is None:
                visit = _VISITORS[type(node)] = _visitor(type(node))
            visit(self, node)

        def _comments_before(self, stmt):
            """Print the comments that stood before `stmt` (or, for a simple statement, in
            it), at the current indentation: they move with the statement they precede."""
            line = getattr(stmt, "end_lineno" if type(stmt) in SIMPLE_STATEMENTS
                           else "lineno", None)
            comments = self._comments
            while line is not None and comments and comments[0][0] < line:
                self.fill(comments.pop(0)[1])

        # What follows prints the commonest nodes as the stdlib's methods do, with fewer
        # calls (no context managers, no `traverse` between a node and its visit_ method)
        # and fewer reads of node attributes (slow on AST nodes): calls and reads cost
        # more than the printing itself. Precedences are set where the stdlib sets them
        # (a node shared by two places of a tree prints at the one set last), but for the
        # nodes that never read theirs: names, attributes, calls.
        def _statements(self, nodes):
            """`traverse(nodes)`, for a list (of statements, mostly)."""
            visitors = _VISITORS
            for node in nodes:
                if self._comments and type(node) in STATEMENTS:
                    self._comments_before(node)
                visitors[type(node)](self, node)

        def _block(self, statements):
            """`with self.block(): self.traverse(statements)`."""
            self._source.append(":")
            margin = self._margin
            self._margin = margin + "    "
            self._statements(statements)
            self._margin = margin

        def _expr(self, e):
            """`traverse(e)`, for an expression (no statement: no comments to print)."""
            if type(e) is _GAST_NAME and e.annotation is None and self._plain_names:
                self._source.append(e.id)
            else:
                _VISITORS[type(e)](self, e)

        def _items(self, nodes):
            """`traverse` each of `nodes` (expressions), with ", " between them: a call's
            arguments (see visit_Call), a list's or tuple's elements. The commonest, names
            and plain constants, are printed here."""
            source, names, plain = self._source, self._plain_names, self._plain_constants
            comma = False
            for e in nodes:
                if comma:
                    source.append(", ")
                comma = True
                kind = type(e)
                if kind is _GAST_NAME and names and e.annotation is None:
                    source.append(e.id)
                elif kind is _GAST_CONSTANT and type(e.value) in plain and e.kind is None:
                    source.append(repr(e.value))
                else:
                    _VISITORS[kind](self, e)

        def visit_FunctionDef(self, node, fill_suffix="def"):
            """The stdlib's (its `_function_helper`), but for type parameters."""
            if getattr(node, "type_params", None):        # (Python 3.12's `def f[T]()`)
                return self._stdlib_function_helper(node, fill_suffix)
            source = self._source
            if source:
                source.append("\n")
            for decorator in node.decorator_list:
                self.fill("@")
                self._expr(decorator)
            self.fill(fill_suffix + " " + node.name + "(")
            self.visit_arguments(node.args)
            source.append(")")
            if node.returns:
                source.append(" -> ")
                self._expr(node.returns)
            source.append(":")
            type_comment = self._type_ignores.get(node.lineno) or node.type_comment
            if type_comment is not None:          # (the stdlib's get_type_comment)
                source.append(f" # type: {type_comment}")
            margin = self._margin
            self._margin = margin + "    "
            self._write_docstring_and_traverse_body(node)
            self._margin = margin

        def visit_AsyncFunctionDef(self, node):
            self.visit_FunctionDef(node, "async def")

        def _write_docstring_and_traverse_body(self, node):
            """(Of a function, class or module: `get_raw_docstring`'s test, inline.)"""
            body = node.body
            first = body[0].value if body and isinstance(body[0], _EXPRS) else None
            if isinstance(first, _CONSTANTS) and isinstance(first.value, str):
                self._write_docstring(first)
                body = body[1:]
            self._statements(body)

        def visit_If(self, node):
            # A converted function's `if not ag__.staging:` (see two_paths): the comments of
            # the body print in the original body inside, and again in the converted one.
            saved = (list(self._comments) if anno.getanno(node, anno.PYTHON_PATH, False)
                     else None)
            self.fill("if ")
            self._expr(node.test)
            self._block(node.body)
            while len(node.orelse) == 1 and isinstance(node.orelse[0], _IFS):
                node = node.orelse[0]                # (as `elif`)
                self.fill("elif ")
                self._expr(node.test)
                self._block(node.body)
            if node.orelse:
                self.fill("else")
                self._block(node.orelse)
            if saved is not None:
                self._comments = saved

        # (The three commonest statements, with `fill` inline.)
        def visit_Assign(self, node):
            source = self._source
            source.append(self._margin if source else self._margin[1:])
            for target in node.targets:
                if type(target) is _GAST_NAME and self._plain_names and target.annotation is None:
                    source.append(target.id)
                else:
                    self._precedences[target] = _TUPLE
                    _VISITORS[type(target)](self, target)
                source.append(" = ")
            _VISITORS[type(node.value)](self, node.value)
            type_comment = self._type_ignores.get(node.lineno) or node.type_comment
            if type_comment is not None:          # (the stdlib's get_type_comment)
                source.append(f" # type: {type_comment}")

        def visit_Expr(self, node):
            source, value = self._source, node.value
            source.append(self._margin if source else self._margin[1:])
            if type(value) is not _GAST_CALL:
                self._precedences[value] = _YIELD
            _VISITORS[type(value)](self, value)

        def visit_Return(self, node):
            source, value = self._source, node.value
            source.append((self._margin if source else self._margin[1:]) + "return")
            if value:
                source.append(" ")
                _VISITORS[type(value)](self, value)

        def visit_Call(self, node):
            source = self._source
            func = node.func
            kind = type(func)
            if kind is _GAST_ATTRIBUTE:
                value = func.value
                if (type(value) is _GAST_NAME and value.id != "ag__" and self._plain_names
                        and value.annotation is None):
                    source.append(value.id + "." + func.attr)   # (visit_Attribute's, inline)
                else:
                    self.visit_Attribute(func)
            elif kind is _GAST_CALL:                  # `ag__.converted(f)(x)`
                self.visit_Call(func)
            elif kind is _GAST_NAME and self._plain_names and func.annotation is None:
                source.append(func.id)
            else:
                self._precedences[func] = _ATOM
                _VISITORS[kind](self, func)
            source.append("(")
            args = node.args
            if args:
                self._items(args)
            comma = bool(args)
            for keyword in node.keywords:             # (the stdlib's visit_keyword)
                if comma:
                    source.append(", ")
                comma = True
                arg, value = keyword.arg, keyword.value
                source.append("**" if arg is None else arg + "=")
                _VISITORS[type(value)](self, value)
            source.append(")")

        def visit_Attribute(self, node):
            value = node.value
            kind = type(value)
            source = self._source
            if kind is _GAST_NAME:
                name = value.id
                if name == "ag__" and self._operators is not None and anno.getanno(
                        value, anno.GENERATED, False):
                    name = self._operators              # (api.rename_operators, printed)
                elif not self._plain_names or value.annotation is not None:
                    self.visit_Name(value)
                    source.append("." + node.attr)
                    return
                source.append(name + "." + node.attr)
                return
            self._precedences[value] = _ATOM
            _VISITORS[kind](self, value)
            if kind in _CONSTANTS and isinstance(value.value, int):
                source.append(" ")        # `3 .real`, not `3.real`
            source.append("." + node.attr)

        def visit_Constant(self, node):
            value = node.value
            if type(value) in self._plain_constants and node.kind is None:
                self._source.append(repr(value))
            else:
                self._stdlib_constant(node)

        def visit_Tuple(self, node):
            elts, source = node.elts, self._source
            parens = (_ALWAYS_PARENTHESIZED or not elts
                      or self._precedences.get(node, _TEST) > _TUPLE)
            if parens:
                source.append("(")
            self._items(elts)
            if len(elts) == 1:
                source.append(",")
            if parens:
                source.append(")")

        def visit_List(self, node):
            self._source.append("[")
            self._items(node.elts)
            self._source.append("]")

        def visit_Subscript(self, node):
            if isinstance(node.slice, _TUPLES):    # (3.10's and 3.11's printers differ)
                return self._stdlib_subscript(node)
            self._precedences[node.value] = _ATOM
            self._expr(node.value)
            self._source.append("[")
            self._expr(node.slice)
            self._source.append("]")

        def visit_BinOp(self, node):
            symbol = self.binop[type(node.op).__name__]
            precedence = self.binop_precedence[symbol]
            if symbol in self.binop_rassoc:
                left, right = _NEXT[precedence], precedence
            else:
                left, right = precedence, _NEXT[precedence]
            precedences, source = self._precedences, self._source
            parens = precedences.get(node, _TEST) > precedence
            if parens:
                source.append("(")
            precedences[node.left] = left
            self._expr(node.left)
            source.append(" " + symbol + " ")
            precedences[node.right] = right
            self._expr(node.right)
            if parens:
                source.append(")")

        def visit_Compare(self, node):
            precedences, source = self._precedences, self._source
            parens = precedences.get(node, _TEST) > _CMP
            if parens:
                source.append("(")
            for e in (node.left, *node.comparators):
                precedences[e] = _NEXT[_CMP]
            self._expr(node.left)
            for o, e in zip(node.ops, node.comparators):
                source.append(" " + self.cmpops[type(o).__name__] + " ")
                self._expr(e)
            if parens:
                source.append(")")

        def visit_Lambda(self, node):
            """As the stdlib's from Python 3.11 on (`lambda: x`; 3.10's printed `lambda : x`):
            the same text on every version."""
            source = self._source
            parens = self._precedences.get(node, _TEST) > _TEST
            source.append("(lambda" if parens else "lambda")
            start = len(source)
            self.visit_arguments(node.args)
            if len(source) > start:
                source.insert(start, " ")
            source.append(": ")
            self._precedences[node.body] = _TEST
            self._expr(node.body)
            if parens:
                source.append(")")

        # The three places where gast's nodes differ from ast's.
        def visit_Name(self, node):
            new = self._rename.get(node.id)
            if new is not None and anno.getanno(node, anno.GENERATED, False):
                self._source.append(new)
            else:
                self._source.append(node.id)
            if type(node.ctx) is gast.Param and node.annotation:
                self.write(": ")
                self.traverse(node.annotation)

        def visit_arguments(self, node):
            args = node.args
            if not (node.defaults or node.posonlyargs or node.vararg or node.kwonlyargs
                    or node.kwarg):
                # The commonest: names only (none at all prints nothing, as a lambda needs).
                if not args:
                    return
                if type(node) is _GAST_ARGUMENTS:          # (its parameters: gast Names)
                    if not any(map(_ANNOTATION, args)):
                        self._source.append(", ".join(map(_ID, args)))
                        return
                elif all(type(a) is ast.arg and a.annotation is None for a in args):
                    self._source.append(", ".join([a.arg for a in args]))
                    return
            if type(node) is gast.arguments:
                def arg(n):
                    return n and ast.arg(arg=n.id, annotation=n.annotation, type_comment=None)
                node = ast.arguments(
                    posonlyargs=[arg(a) for a in node.posonlyargs], args=[arg(a) for a in args],
                    vararg=arg(node.vararg), kwonlyargs=[arg(a) for a in node.kwonlyargs],
                    kw_defaults=node.kw_defaults, kwarg=arg(node.kwarg), defaults=node.defaults)
            super().visit_arguments(node)

        def visit_ExceptHandler(self, node):
            if isinstance(node.name, gast.Name):
                node = ast.ExceptHandler(type=node.type, name=node.name.id, body=node.body)
            super().visit_ExceptHandler(node)

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

    def _visitor(cls):
        return getattr(Unparser, "visit_" + cls.__name__, Unparser.generic_visit)

    _VISITORS.update({c: _visitor(c) for m in (ast, gast) for c in vars(m).values()
                      if isinstance(c, type) and issubclass(c, ast.AST)})
    _VISITORS[list] = Unparser._statements        # (`traverse` of a list)


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
        from autograph.unparsing_fallback import fallback_unparse
        return fallback_unparse(node, prefix, rename, comments, operators)
    pairs = tuple(sorted(rename.items())) if rename else ()
    cls = _renaming(pairs, operators) if pairs or operators is not None else Unparser
    printer = cls(prefix)
    if comments:
        printer._comments = sorted(comments)
    return printer.visit(node)


@functools.lru_cache(maxsize=None)
def _renaming(pairs: tuple, operators: Optional[str]) -> type:
    """An Unparser that renames: a class, since f-strings are printed by a second
    instance made with `type(self)()`."""
    return type("Unparser", (Unparser,), {"_rename": dict(pairs), "_operators": operators})
