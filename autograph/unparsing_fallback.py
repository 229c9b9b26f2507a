"""The fallback printer, where this Python's standard library has no printer class to
build on (see `unparsing`): the tree copied (fields and positions only), renamed as
`unparsing.unparse` says, made an `ast` tree, and printed a statement at a time by
`ast.unparse`, which does not print comments. Each compound statement's header is
`ast.unparse` of the statement with a body of `pass` and nothing else, less its last
line; its bodies print as the rest."""
from __future__ import annotations

import ast
import copy
from typing import Optional

from autograph import anno
from autograph import nodes as gast
from autograph.nodes import SIMPLE_STATEMENTS, STATEMENTS
from autograph.parsing import to_ast


def fallback_unparse(node, prefix: str = "", rename: Optional[dict] = None,
                     comments: Optional[list] = None, operators: Optional[str] = None) -> str:
    """`unparsing.unparse`'s text, printed without the standard library's class."""
    tree = _copy_tree(node)
    for n in _walk(tree):
        if operators is not None and isinstance(n, gast.Attribute):
            value = n.value
            if (type(value) is gast.Name and value.id == "ag__"
                    and anno.getanno(value, anno.GENERATED, False)):
                value.id = operators
                anno.setanno(value, anno.GENERATED, False)      # (renamed: not again, below)
        elif (rename and type(n) in (gast.Name, ast.Name)
              and anno.getanno(n, anno.GENERATED, False)):
            n.id = rename.get(n.id, n.id)
        if type(n) in STATEMENTS:                 # the line its comments are printed by
            anno.setanno(n, anno.COMMENT_LINE, getattr(
                n, "end_lineno" if type(n) in SIMPLE_STATEMENTS else "lineno", None))
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
    for name in (*node._fields, *node._attributes, anno.GENERATED, anno.PYTHON_PATH):
        if name in d:
            value = d[name]
            new_d[name] = ([_copy_tree(v) for v in value] if type(value) is list
                           else _copy_tree(value))
    return new


def _to_ast(tree):
    """`tree` as an `ast` tree, in place: `parsing.to_ast`, also on the gast trees inside
    the `ast` nodes of a tree mixing both (which it leaves as they are)."""
    tree = to_ast(tree)
    for n in _walk(tree):           # (its children are `ast` by the time the walk reads them)
        for name in n._fields:
            value = getattr(n, name, None)
            for v in value if type(value) is list else [value]:
                if isinstance(v, gast.AST):
                    to_ast(v)
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
        line = anno.getanno(node, anno.COMMENT_LINE, None)
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
            saved = list(comments) if anno.getanno(node, anno.PYTHON_PATH, False) else None
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
