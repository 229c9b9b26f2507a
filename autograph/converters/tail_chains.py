"""Long chains of early returns, kept shallow.

Each `return` inside a loop nests the rest of the function one generated function
deeper: its tail `if` on `do_return` (return_statements) has a branch function that runs
the rest, and the next such `if` is in that function. A function with many of them nests
as deep as it has them, and CPython's compiler is not linear in that depth: for each
nested scope it copies the names bound in every enclosing function, and it hashes each
code object (the code nested in it included) as it adds it to its parent's constants.
A 3,200-line function of such code compiled at twice the cost per line of a 200-line one.

The design in full: docs/architecture.md, under `autograph/converters/tail_chains.py`.
"""
from __future__ import annotations

from autograph import anno, templates
from autograph import nodes as gast
from autograph.converters.context import Context, walk_scope

DEPTH = 4       # generated functions a chain may nest before its next link moves up


def _tail(body: list):
    """(the tail `ag__.if_stmt` call ending `body`, [(its argument index, the branch's
    FunctionDef in `body`)]), or None."""
    if not body or type(body[-1]) is not gast.Return:
        return None
    call = body[-1].value
    if (type(call) is not gast.Call or not templates.is_operator(call.func)
            or call.func.attr != "if_stmt" or call.keywords and any(
                k.arg is None for k in call.keywords)):
        return None
    branches = []
    for index in (1, 2):
        arg = call.args[index] if len(call.args) > index else None
        if type(arg) is not gast.Name:
            continue
        for stmt in reversed(body):      # the last definition of the name before the call
            if type(stmt) is gast.FunctionDef and stmt.name == arg.id:
                if anno.getanno(stmt, anno.GENERATED, False):
                    branches.append((index, stmt))
                break
    return call, branches


def _params(fn: gast.FunctionDef) -> list:
    return [a.id for a in fn.args.args]


class _Chain:
    """The moves of one converted function's chains."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.bound: dict = {}      # id(FunctionDef) -> (names it binds, names surely bound)
        self.moved: list = []      # the FunctionDefs that move to the top

    def binds(self, fn: gast.FunctionDef) -> tuple:
        """(the names `fn`'s own scope binds, those of them bound when its tail `if` runs:
        its parameters, and the names its top-level assignments and definitions bind)."""
        found = self.bound.get(id(fn))
        if found is not None:
            return found
        surely, deleted = set(_params(fn)), set()
        binds = set(surely)
        for stmt in fn.body:
            kind = type(stmt)
            if kind is gast.Assign and all(type(t) is gast.Name for t in stmt.targets):
                surely.update(t.id for t in stmt.targets)
                nodes = [stmt.value]
            elif kind is gast.Assign and all(type(t) in (gast.Tuple, gast.List) and all(
                    type(e) is gast.Name for e in t.elts) for t in stmt.targets):
                surely.update(e.id for t in stmt.targets for e in t.elts)
                nodes = [stmt.value]
            elif kind in (gast.FunctionDef, gast.ClassDef):
                surely.add(stmt.name)
                nodes = [*stmt.decorator_list, *getattr(stmt, "bases", ()), *_defaults(stmt)]
            else:
                nodes = [stmt]
            for n in walk_scope(nodes):      # (a walrus, a Python `try` or `with`, ...)
                kind = type(n)
                if kind is gast.Name and type(n.ctx) is not gast.Load:
                    binds.add(n.id)
                    if type(n.ctx) is gast.Del:
                        deleted.add(n.id)
                elif kind in _SCOPES:
                    binds.add(getattr(n, "name", None))
                elif kind in _IMPORTS:
                    binds.update((a.asname or a.name).partition(".")[0] for a in n.names)
                elif kind in _UNSURE:
                    return self._unsure(fn)
        binds |= surely
        found = self.bound[id(fn)] = (binds, surely - deleted)
        return found

    def _unsure(self, fn) -> tuple:
        # (a `match` binds names that are not Name nodes: everything is unsure there)
        found = self.bound[id(fn)] = (_EVERYTHING, frozenset(_params(fn)))
        return found

    def extras(self, fn: gast.FunctionDef, path: list):
        """The names `fn` reads from the functions of `path` (innermost last), sorted; None
        where one of them might be unbound when `fn` runs, or what `fn` reads is unknown.
        What it reads is what its `if` read, the names live where the `if` was (liveness
        of the function before conversion): the rest of the function's reads."""
        reads = anno.getanno(fn, anno.TAIL_READS, None)
        if reads is None:
            return None
        out = []
        for name in sorted(reads.difference(_params(fn))):
            for outer in reversed(path):
                binds, surely = self.binds(outer)
                if name in binds:
                    if name not in surely:
                        return None
                    out.append(name)
                    break
        return out

    def move(self, call: gast.Call, index: int, fn: gast.FunctionDef, branches: list,
             extras: list) -> bool:
        """Moves `fn` (the branch at argument `index` of `call`) to the top, taking
        `extras` as more state; False (nothing changed) where the call's state is not a
        tuple it can add to."""
        args = call.args
        if len(args) > 4 or len(args) == 4 and type(args[3]) is not gast.Tuple:
            return False
        lineno, col = call.lineno, call.col_offset
        if extras:
            if len(args) == 3:
                args.append(gast.Tuple(elts=[], ctx=gast.Load()))
            args[3].elts.extend(templates.name(n) for n in extras)
            templates.place(args[3], lineno, col)
            for _, branch in branches:
                branch.args.args.extend(
                    templates.function_def("_", extras, [], fn.lineno).args.args)
        fn.name = self.ctx.new_name(fn.name, unique=True)
        args[index] = templates.place(templates.name(fn.name), lineno, col)
        self.moved.append(fn)
        return True

    def visit(self, fn: gast.FunctionDef, path: list, found=None) -> None:
        """The links under `fn`, whose chain is `path` deep (its functions, `fn` last; []
        for the converted function itself). `found`: `_tail(fn.body)`, if known."""
        found = found or _tail(fn.body)
        if found is None:
            return
        call, branches = found
        for index, branch in branches:
            link = _tail(branch.body)
            if link is None:
                continue                 # a branch that ends the chain: nothing under it
            if len(path) >= DEPTH:
                extras = self.extras(branch, path)
                if extras is not None and self.move(call, index, branch, branches, extras):
                    fn.body.remove(branch)
                    self.visit(branch, [branch], link)
                    continue
            self.visit(branch, path + [branch], link)


def _defaults(fn) -> list:
    args = getattr(fn, "args", None)
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)] if args else []


class _Everything:
    def __contains__(self, name) -> bool:
        return True


_EVERYTHING = _Everything()
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
_IMPORTS = (gast.Import, gast.ImportFrom)
_UNSURE = tuple(getattr(gast, k) for k in ("Match", "MatchAs", "MatchStar", "MatchMapping")
                if hasattr(gast, k))


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    # (generated code declares `nonlocal` only where the function has cells, or
    # declarations of its own)
    if (type(fn_node) is not gast.FunctionDef or gast.Global in ctx.node_kinds
            or gast.Nonlocal in ctx.node_kinds or ctx.cells or ctx.graph_act.opaque_calls):
        return fn_node
    chain = _Chain(ctx)
    chain.visit(fn_node, [])
    if chain.moved:
        fn_node.body[-1:-1] = chain.moved      # before the tail `if` that starts the chain
        ctx.moved += chain.moved
    return fn_node
