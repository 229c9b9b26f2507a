"""Reads of names that may be unassigned go through `ag__.ld`.

    if t:                            y = ag__.if_stmt(t, if_true, None, (ag__.Undefined('y'),), ('y',))
        y = 1                ->      return ag__.ld(y)
    return y

`ld` raises `UnboundLocalError` for an `Undefined` marker (as Python would) and adds a
run-time check for a staged value whose `defined` flag the backend reported. Only
names that some converted construct may have bound to a marker are wrapped.

The design in full: docs/architecture.md, under `autograph/converters/variables.py`.
"""
from __future__ import annotations

import sys

from autograph import anno, templates
from autograph import nodes as gast
from autograph.analysis import activity
from autograph.converters.context import Context, SCOPES
from autograph.tree import FIELDS, statements


class LoadTransformer(gast.NodeTransformer):
    def __init__(self, ctx: Context, wrap: set):
        self.ctx = ctx
        self.wrap = wrap               # names whose maybe-unassigned reads get `ld`
        self.bound: list = [set()]     # names bound as parameters of enclosing generated functions
        self.top_reads: set = set()    # maybe unassigned locals read in the function's own code

    def visit_FunctionDef(self, node):
        self.bound.append(self.bound[-1] | anno.getanno(node, anno.PARAMS, set()))
        self.generic_visit(node)
        self.bound.pop()
        return node

    def visit(self, node):
        """As NodeVisitor's, with the method looked up once per node class."""
        method = _METHODS.get(type(node))
        if method is None:
            method = _method(type(node))
        return method(self, node)

    def generic_visit(self, node):
        # `visit` inlined: this runs for every node of the function. Constants, and
        # names that the analyses and converters did not mark (`visit_Name` would leave
        # them as they are), are skipped: half of all nodes.
        d = node.__dict__
        methods = _METHODS
        has, get = anno.hasanno, anno.getanno
        undefined, unbound, generated = anno.MAYBE_UNDEFINED, anno.MAYBE_UNBOUND, anno.GENERATED
        for field, _ in FIELDS[type(node)]:     # (not contexts and operators: no names)
            old = d.get(field)
            if old is None:
                continue
            if type(old) is list:
                new = []
                for item in old:
                    kind = type(item)
                    if kind is _NAME:
                        if not (has(item, undefined) or has(item, unbound)):
                            new.append(item)
                            continue
                    elif kind is _CONSTANT or item is None:
                        new.append(item)
                        continue
                    elif kind in _SCOPE_KINDS and not get(item, generated, False):
                        new.append(item)
                        continue
                    method = methods.get(kind)
                    if method is None:
                        method = _method(kind)
                    item = method(self, item)
                    if type(item) is list:
                        new.extend(item)
                    else:
                        new.append(item)
                old[:] = new
            else:
                kind = type(old)
                if kind is _NAME:
                    if not (has(old, undefined) or has(old, unbound)):
                        continue
                elif kind is _CONSTANT:
                    continue
                elif kind in _SCOPE_KINDS and not get(old, generated, False):
                    continue
                method = methods.get(kind)
                if method is None:
                    method = _method(kind)
                d[field] = method(self, old)
        return node

    def visit_Delete(self, node):
        """`del x` of a name that may hold a marker: `ag__.ld(x)` first, so that it
        raises as Python's `del` of an unbound name does."""
        checks = []
        for target in node.targets:
            if (isinstance(target, gast.Name) and target.id in self.wrap
                    and anno.getanno(target, anno.MAYBE_UNDEFINED, False)):
                load = gast.Name(id=target.id, ctx=gast.Load(), annotation=None,
                                 type_comment=None)
                checks += templates.replace("ag__.ld(name)", node.lineno, name=load)
        return checks + [node] if checks else node

    def visit_AugAssign(self, node):
        """`x += v` of a name that may hold a marker: `ag__.ld(x)` first, so that it
        raises as Python does (which reads `x` before it evaluates `v`)."""
        self.generic_visit(node)
        target = node.target
        if isinstance(target, gast.Name) and target.id in self.wrap:
            load = gast.Name(id=target.id, ctx=gast.Load(), annotation=None,
                             type_comment=None)
            return templates.replace("ag__.ld(name)", node.lineno, name=load) + [node]
        return node

    def visit_Name(self, node):
        if anno.getanno(node, anno.MAYBE_UNBOUND, False) and node.id not in self.bound[-1]:
            # A construct's state name that some paths leave unassigned and no enclosing
            # construct passes in: bind it to a marker at function entry.
            self.ctx.needs_init.add(node.id)
        if (isinstance(node.ctx, gast.Load)
                and anno.getanno(node, anno.MAYBE_UNDEFINED, False)
                and not anno.getanno(node, anno.GENERATED, False)
                and node.id not in self.bound[-1] and node.id in self.ctx.graph.locals):
            if len(self.bound) > 1:
                # Read from a generated function's closure: unassigned, Python would raise
                # NameError ("free variable") where the user's code raises UnboundLocalError.
                self.ctx.needs_init.add(node.id)
            else:
                self.top_reads.add(node.id)     # (see transform: a local it may no longer bind)
        if (isinstance(node.ctx, gast.Load) and node.id in self.wrap
                and anno.getanno(node, anno.MAYBE_UNDEFINED, False)
                and not anno.getanno(node, anno.GENERATED, False)):
            return templates.replace_as_expression("ag__.ld(name)", node.lineno, name=node)
        return node


_METHODS: dict = {}    # node class -> LoadTransformer's method for it
_NAME, _CONSTANT = gast.Name, gast.Constant
_SCOPE_KINDS = frozenset(SCOPES)


def _method(kind: type):
    if not issubclass(kind, gast.AST):        # (None in a list: `kw_defaults`, dict keys)
        method = _unchanged
    else:
        name = kind.__name__
        method = (_unchanged if name == "Constant" else      # (NodeVisitor's is a slow shim)
                  getattr(LoadTransformer, "visit_" + name, LoadTransformer.generic_visit))
    _METHODS[kind] = method
    return method


def _unchanged(self, node):
    return node


def transform(fn_node: gast.AST, ctx: Context) -> gast.AST:
    # A local the function deletes is bound to a marker again right after the `del`
    # (`_rebind_deleted`): the state a later construct is given, and its reads from the
    # functions conversion made, then see the marker, which `ld` turns into Python's
    # error where Python reads it, rather than fail where Python does not read it.
    deleted = (_deleted(fn_node.body) & ctx.graph.locals if gast.Delete in ctx.node_kinds
               else set())
    ctx.may_hold_undefined |= deleted
    first = LoadTransformer(ctx, set(ctx.may_hold_undefined))
    first.generic_visit(fn_node)
    if first.top_reads and not _SCOPE_BINDERS & ctx.node_kinds:
        # A local that the function's own code reads, maybe unassigned, but no longer
        # assigns (each assignment moved into a generated function): bound to a marker at
        # entry, so that the read stays a local's (Python's UnboundLocalError) and does
        # not find a global of that name.
        ctx.needs_init |= first.top_reads - _bound_here(fn_node.body) - ctx.graph.declared
    added = ctx.needs_init - ctx.may_hold_undefined
    if added:
        # Names now bound to a marker at entry: every read that may see it needs `ld`.
        ctx.may_hold_undefined |= added
        LoadTransformer(ctx, added).generic_visit(fn_node)
    markers = ctx.may_hold_undefined | ctx.needs_init
    if markers and (ctx.has_nested_functions or not _NESTED_SCOPES.isdisjoint(ctx.node_kinds)):
        fn_node.body = [_nested_reads(s, markers, None, frozenset()) for s in fn_node.body]
    if deleted:
        _rebind_deleted(fn_node, deleted)
    params = set(activity.params(fn_node))      # (bound on entry: never a marker there)
    if ctx.needs_init - params:
        inits = []
        for n in sorted(ctx.needs_init - params):
            inits += templates.replace("n = ag__.Undefined(s)", fn_node.body[0].lineno,
                                       n=n, s=gast.Constant(value=n, kind=None))
        body = fn_node.body
        start = 1 if (body and isinstance(body[0], gast.Expr)
                      and isinstance(body[0].value, gast.Constant)
                      and isinstance(body[0].value.value, str)) else 0
        fn_node.body = body[:start] + inits + body[start:]
    return fn_node


# -- reads from nested scopes --------------------------------------------------------------

_INLINED = sys.version_info >= (3, 12)      # list/set/dict comprehensions: no scope of their own
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# (and nested `def`s, Context.has_nested_functions: the function is a FunctionDef itself)
_NESTED_SCOPES = frozenset({gast.Lambda, gast.ClassDef, *_COMPREHENSIONS})


def _nested_reads(node, names: set, kind, bound: frozenset) -> gast.AST:
    """`node` with the reads of `names` in nested scopes (`kind` "free", or "local" in an
    inlined comprehension; None: the function's own code) wrapped in `ag__.ld_free` /
    `ag__.ld`, but where a scope in between binds the name (`bound`). Generated functions
    are the function's own code: their parameters carry the user's variables."""
    t = type(node)
    if t is gast.Name:
        if (kind is not None and node.id in names and node.id not in bound
                and type(node.ctx) is gast.Load
                and not anno.getanno(node, anno.GENERATED, False)
                and (kind != "here" or anno.getanno(node, anno.MAYBE_UNDEFINED, False))):
            op = "ld_free" if kind == "free" else "ld"
            return templates.replace_as_expression(f"ag__.{op}(name)", node.lineno, name=node)
        return node
    # (what a nested scope evaluates where it is defined, in the function's own code,
    # which LoadTransformer does not enter: "here", a read of the function's own)
    outside = "here" if kind is None else kind
    if t in (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda) and not anno.getanno(
            node, anno.GENERATED, False):
        args = node.args
        _fields(args, ("defaults", "kw_defaults"), names, outside, bound)
        if t is not gast.Lambda:
            _fields(node, ("decorator_list",), names, outside, bound)
        body = node.body if t is not gast.Lambda else [node.body]
        act = activity.of(body)
        own = set(activity.params(node)) | (act.writes - act.declared_nonlocal)
        inner = bound | own | act.declared_global
        if t is gast.Lambda:
            node.body = _nested_reads(node.body, names, "free", inner)
        else:
            node.body = [_nested_reads(s, names, "free", inner) for s in node.body]
        return node
    if t is gast.ClassDef:
        _fields(node, ("bases", "keywords", "decorator_list"), names, outside, bound)
        writes = activity.of(node.body).writes
        # (a class's names are not seen from the methods in it)
        node.body = [_nested_reads(s, names, "free", bound if isinstance(
            s, (gast.FunctionDef, gast.AsyncFunctionDef)) else bound | writes)
            for s in node.body]
        return node
    if t in _COMPREHENSIONS:
        first, *rest = node.generators
        first.iter = _nested_reads(first.iter, names, outside, bound)   # the enclosing scope's
        inner_kind = ("local" if _INLINED and kind is None and t is not gast.GeneratorExp
                      else "free" if kind is None else kind)
        inner_kind = "free" if inner_kind == "here" else inner_kind
        targets = activity.of([g.target for g in node.generators]).writes
        inner = bound | targets
        first.target = _nested_reads(first.target, names, inner_kind, inner)
        first.ifs = [_nested_reads(c, names, inner_kind, inner) for c in first.ifs]
        for g in rest:
            _fields(g, ("target", "iter", "ifs"), names, inner_kind, inner)
        _fields(node, ("elt", "key", "value"), names, inner_kind, inner)
        return node
    _fields(node, [f for f, _ in FIELDS[t]], names, kind, bound)
    return node


def _fields(node, fields, names, kind, bound) -> None:
    d = node.__dict__
    for field in fields:
        value = d.get(field)
        if type(value) is list:
            d[field] = [_nested_reads(v, names, kind, bound) if isinstance(v, gast.AST) else v
                        for v in value]
        elif isinstance(value, gast.AST):
            d[field] = _nested_reads(value, names, kind, bound)


# -- `del` ---------------------------------------------------------------------------------

_STATEMENT_LISTS = ("body", "orelse", "finalbody")
_DEFINITIONS = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})


def _user_scope(node) -> bool:
    return isinstance(node, SCOPES) and not anno.getanno(node, anno.GENERATED, False)


def _deleted(body: list) -> set:
    """Names `del` statements of the function's own code delete (its nested functions,
    lambdas and classes aside): the statements are walked, not the expressions."""
    out = set()
    for node in statements(body, _DEFINITIONS):
        if type(node) is gast.Delete:
            out.update(t.id for t in node.targets if type(t) is gast.Name)
        elif not _user_scope(node) and type(node) in _DEFINITIONS:
            out |= _deleted(node.body)      # (a generated function: the function's own code)
    return out


def _rebind_deleted(node, names: set) -> None:
    """After each `del` of one of `names` in the function's own code, the name is bound
    to a marker again (see transform)."""
    d = node.__dict__
    for field in _STATEMENT_LISTS:
        stmts = d.get(field)
        if type(stmts) is not list:
            continue
        new = []
        for s in stmts:
            new.append(s)
            if type(s) is gast.Delete:
                for t in s.targets:
                    if type(t) is gast.Name and t.id in names:
                        new += templates.replace("n = ag__.Undefined(s)", s.lineno, n=t.id,
                                                 s=gast.Constant(value=t.id, kind=None))
            elif not _user_scope(s):
                _rebind_deleted(s, names)
        d[field] = new
    for handler in d.get("handlers", ()):
        _rebind_deleted(handler, names)
    for case in d.get("cases", ()):
        _rebind_deleted(case, names)


# Bindings `_bound_here` does not look for (a `:=`, a `match` capture): where the function
# has them, no local counts as lost.
_SCOPE_BINDERS = frozenset({gast.NamedExpr, *(getattr(gast, k) for k in ("MatchAs", "MatchStar",
                                                                         "MatchMapping")
                                              if hasattr(gast, k))})


def _bound_here(body: list) -> set:
    """The names the function's own statements bind (not those of the functions in it,
    generated or not: their names only), its parameters aside."""
    out = set()
    for s in statements(body, _DEFINITIONS):
        kind = type(s)
        if kind in _DEFINITIONS:
            out.add(s.name)
            continue
        if kind is gast.Assign:
            targets = s.targets
        elif kind in (gast.AugAssign, gast.AnnAssign, gast.For, gast.AsyncFor):
            targets = [s.target]
        elif kind in (gast.With, gast.AsyncWith):
            targets = [i.optional_vars for i in s.items if i.optional_vars is not None]
        elif kind in (gast.Import, gast.ImportFrom):
            out.update((a.asname or a.name).partition(".")[0] for a in s.names)
            targets = []
        elif kind is gast.ExceptHandler:
            targets = [s.name] if isinstance(s.name, gast.Name) else []
            if isinstance(s.name, str):
                out.add(s.name)
        else:
            targets = []
        for t in targets:
            for n in gast.walk(t):
                if type(n) is gast.Name and type(n.ctx) is not gast.Load:
                    out.add(n.id)
    return out
