"""Which names a piece of code reads, binds, deletes, and lets nested scopes capture.

Nested functions, lambdas, classes and comprehensions are their own scopes: their free
names count as reads where they are defined (conservative: a nested function may be
called at any later point, so its reads are treated as happening at its definition and
its captured names are reported in `captured`). `a.b = v` and `a[i] = v` read `a` and
are recorded as `modified_paths` ('a.b', 'a[...]'); they mutate an object, they do not
rebind a name, so they never become loop or branch state.
"""
from __future__ import annotations

from typing import Iterable

import gast

from autograph.tree import children, walk as _walk

_NAME, _LOAD, _CONSTANT = gast.Name, gast.Load, gast.Constant
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# Calls that see the frame's local names: code using them must keep its scopes.
OPAQUE_CALLS = frozenset({"locals", "vars", "eval", "exec", "dir"})


class Activity:
    __slots__ = ("reads", "writes", "deletes", "captured", "modified_paths", "read_nodes",
                 "declared_global", "declared_nonlocal", "has_yield", "has_await",
                 "opaque_calls")

    def __init__(self) -> None:
        self.reads: set = set()
        self.writes: set = set()
        self.deletes: set = set()
        self.captured: set = set()
        self.modified_paths: set = set()
        self.read_nodes: list = []
        self.declared_global: set = set()
        self.declared_nonlocal: set = set()
        self.has_yield = False
        self.has_await = False
        self.opaque_calls: set = set()       # locals(), vars(), eval(), exec(), dir()


def _path(node: gast.AST) -> str:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return _path(node.value) + "." + node.attr
    if isinstance(node, gast.Subscript):
        return _path(node.value) + "[...]"
    return "<expr>"


class _Collector(gast.NodeVisitor):
    _methods: dict = {}       # node class -> unbound visit method (faster than NodeVisitor's)

    def __init__(self, act: Activity, record_nodes: bool):
        self.act = act
        self.record_nodes = record_nodes

    def visit(self, node):
        kind = type(node)
        method = self._methods.get(kind)
        if method is None:
            method = self._method(kind)
        return method(self, node)

    @classmethod
    def _method(cls, kind: type):
        method = cls._methods[kind] = getattr(cls, "visit_" + kind.__name__, cls.generic_visit)
        return method

    def generic_visit(self, node):
        # (`visit` inlined: this runs for most nodes, and a call per child is most of it)
        act, methods = self.act, self._methods
        for child in children(node):
            kind = type(child)
            if kind is _NAME and type(child.ctx) is _LOAD:     # (visit_Name's commonest case)
                act.reads.add(child.id)
                if self.record_nodes:
                    act.read_nodes.append(child)
            elif kind is not _CONSTANT:
                method = methods.get(kind)
                if method is None:
                    method = self._method(kind)
                method(self, child)

    def visit_Constant(self, node) -> None:
        """Nothing to record (and NodeVisitor's own visit_Constant is a slow shim)."""

    def visit_Name(self, node: gast.Name) -> None:
        ctx = type(node.ctx)
        if ctx is gast.Load:
            self.act.reads.add(node.id)
            if self.record_nodes:
                self.act.read_nodes.append(node)
        elif ctx is gast.Del:
            self.act.deletes.add(node.id)
            self.act.reads.add(node.id)         # `del x` needs x bound: a use of it
            if self.record_nodes:
                self.act.read_nodes.append(node)
        else:                                   # Store, Param
            self.act.writes.add(node.id)

    def _target_path(self, node: gast.AST) -> None:
        if isinstance(node, (gast.Attribute, gast.Subscript)) and not isinstance(node.ctx, gast.Load):
            self.act.modified_paths.add(_path(node))

    def visit_Attribute(self, node: gast.Attribute) -> None:
        self._target_path(node)
        self.visit(node.value)

    def visit_Subscript(self, node: gast.Subscript) -> None:
        self._target_path(node)
        self.visit(node.value)
        self.visit(node.slice)

    def visit_AugAssign(self, node: gast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, gast.Name):
            self.act.reads.add(node.target.id)
            self.act.writes.add(node.target.id)
        else:
            self.visit(node.target)

    def visit_MatchAs(self, node: gast.AST) -> None:
        if node.name:
            self.act.writes.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: gast.AST) -> None:
        if node.name:
            self.act.writes.add(node.name)

    def visit_MatchMapping(self, node: gast.AST) -> None:
        if node.rest:
            self.act.writes.add(node.rest)
        self.generic_visit(node)

    def visit_Call(self, node: gast.Call) -> None:
        func = node.func
        if type(func) is gast.Name and func.id in OPAQUE_CALLS and not node.args:
            self.act.opaque_calls.add(func.id)
        self.generic_visit(node)

    def visit_Import(self, node: gast.AST) -> None:
        """`import a.b` binds `a`; `from m import x as y` binds `y` (`*` binds what the
        module has: nothing the analyses can name)."""
        for alias in node.names:
            if alias.name != "*":
                self.act.writes.add(alias.asname or alias.name.partition(".")[0])

    visit_ImportFrom = visit_Import

    def visit_Global(self, node: gast.Global) -> None:
        self.act.declared_global.update(node.names)

    def visit_Nonlocal(self, node: gast.Nonlocal) -> None:
        self.act.declared_nonlocal.update(node.names)

    def visit_Yield(self, node: gast.AST) -> None:
        self.act.has_yield = True
        self.generic_visit(node)

    visit_YieldFrom = visit_Yield

    def visit_Await(self, node: gast.AST) -> None:
        self.act.has_await = True
        self.generic_visit(node)

    def _nested_scope(self, node: gast.AST, outer_parts: Iterable, inner_parts: Iterable,
                      capture: bool) -> None:
        for part in outer_parts:
            self.visit(part)
        free = free_names(inner_parts)
        self.act.reads |= free
        if capture:
            self.act.captured |= free

    def visit_FunctionDef(self, node: gast.FunctionDef) -> None:
        self.act.writes.add(node.name)
        args = node.args
        outer = list(node.decorator_list) + [d for d in args.defaults + args.kw_defaults if d]
        self._nested_scope(node, outer, [node], capture=True)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: gast.Lambda) -> None:
        args = node.args
        self._nested_scope(node, [d for d in args.defaults + args.kw_defaults if d], [node],
                           capture=True)

    def visit_ClassDef(self, node: gast.ClassDef) -> None:
        self.act.writes.add(node.name)
        outer = list(node.decorator_list) + list(node.bases) + [k.value for k in node.keywords]
        self._nested_scope(node, outer, node.body, capture=True)

    def _visit_comprehension(self, node: gast.AST) -> None:
        # The first iterable is evaluated in the enclosing scope; walrus targets bind there.
        # A generator expression runs later, so like a lambda it captures the names it reads.
        self.visit(node.generators[0].iter)
        self._nested_scope(node, [], [node], capture=isinstance(node, gast.GeneratorExp))
        for sub in _walk(node):
            if isinstance(sub, gast.NamedExpr) and isinstance(sub.target, gast.Name):
                self.act.writes.add(sub.target.id)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension


def free_names(nodes: Iterable) -> set:
    """Names a nested scope loads but does not bind, and names it declares `nonlocal`
    (it writes the enclosing function's variable: `def g(): nonlocal x; x = 1`). An
    over-approximation."""
    loads, binds, nonlocals = set(), set(), set()
    for top in nodes:
        for node in _walk(top):
            if isinstance(node, gast.Name):
                (loads if isinstance(node.ctx, gast.Load) else binds).add(node.id)
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node is not top:
                binds.add(node.name)
            elif isinstance(node, gast.Nonlocal):
                nonlocals.update(node.names)
    return (loads - binds) | nonlocals


_NEW = object.__new__


def of(node: gast.AST, record_nodes: bool = False) -> Activity:
    """Activity of a statement, expression, or list of them (nested scopes summarised)."""
    act = Activity()
    collector = _NEW(_Collector)
    collector.act, collector.record_nodes = act, record_nodes
    if type(node) is list:
        for n in node:
            collector.visit(n)
    else:
        collector.visit(node)
    return act


def of_body(fn_node: gast.AST) -> Activity:
    """Activity of a function's own body (its parameters count as writes)."""
    act = of(list(fn_node.body))
    collector = _Collector(act, False)
    args = fn_node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            collector.visit(a)
    return act


def params(fn_node: gast.AST) -> list:
    args = fn_node.args
    return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs +
            [x for x in (args.vararg, args.kwarg) if x is not None]]
