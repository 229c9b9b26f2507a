"""Reads of names that may be unassigned go through `ag__.ld`.

    if t:                            y = ag__.if_stmt(t, if_true, None, (ag__.Undefined('y'),), ('y',))
        y = 1                ->      return ag__.ld(y)
    return y

`ld` raises `UnboundLocalError` for an `Undefined` marker (as Python would) and adds a
run-time check for a staged value whose `defined` flag the backend reported. Only
names that some converted construct may have bound to a marker are wrapped.
"""
from __future__ import annotations

from autograph import nodes as gast
from autograph import templates
from autograph.converters.context import Context, SCOPES
from autograph.tree import FIELDS


class LoadTransformer(gast.NodeTransformer):
    def __init__(self, ctx: Context, wrap: set):
        self.ctx = ctx
        self.wrap = wrap               # names whose maybe-unassigned reads get `ld`
        self.bound: list = [set()]     # names bound as parameters of enclosing generated functions

    def visit_FunctionDef(self, node):
        self.bound.append(self.bound[-1] | node.__dict__.get("ag_params", set()))
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
        for field, _ in FIELDS[type(node)]:     # (not contexts and operators: no names)
            old = d.get(field)
            if old is None:
                continue
            if type(old) is list:
                new = []
                for item in old:
                    kind = type(item)
                    if kind is _NAME:
                        marks = item.__dict__
                        if "ag_maybe_undefined" not in marks and "ag_maybe_unbound" not in marks:
                            new.append(item)
                            continue
                    elif kind is _CONSTANT or item is None:
                        new.append(item)
                        continue
                    elif kind in _SCOPE_KINDS and not item.__dict__.get("ag_generated", False):
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
                    marks = old.__dict__
                    if "ag_maybe_undefined" not in marks and "ag_maybe_unbound" not in marks:
                        continue
                elif kind is _CONSTANT:
                    continue
                elif kind in _SCOPE_KINDS and not old.__dict__.get("ag_generated", False):
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
                    and target.__dict__.get("ag_maybe_undefined", False)):
                load = gast.Name(id=target.id, ctx=gast.Load(), annotation=None,
                                 type_comment=None)
                checks += templates.replace("ag__.ld(name)", node.lineno, name=load)
        return checks + [node] if checks else node

    def visit_Name(self, node):
        if node.__dict__.get("ag_maybe_unbound", False) and node.id not in self.bound[-1]:
            # A construct's state name that some paths leave unassigned and no enclosing
            # construct passes in: bind it to a marker at function entry.
            self.ctx.needs_init.add(node.id)
        if (len(self.bound) > 1 and isinstance(node.ctx, gast.Load)
                and node.__dict__.get("ag_maybe_undefined", False)
                and not node.__dict__.get("ag_generated", False)
                and node.id not in self.bound[-1] and node.id in self.ctx.graph.locals):
            # Read from a generated function's closure: unassigned, Python would raise
            # NameError ("free variable") where the user's code raises UnboundLocalError.
            self.ctx.needs_init.add(node.id)
        if (isinstance(node.ctx, gast.Load) and node.id in self.wrap
                and node.__dict__.get("ag_maybe_undefined", False)
                and not node.__dict__.get("ag_generated", False)):
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
    LoadTransformer(ctx, set(ctx.may_hold_undefined)).generic_visit(fn_node)
    added = ctx.needs_init - ctx.may_hold_undefined
    if added:
        # Names now bound to a marker at entry: every read that may see it needs `ld`.
        ctx.may_hold_undefined |= added
        LoadTransformer(ctx, added).generic_visit(fn_node)
    if ctx.needs_init:
        inits = []
        for n in sorted(ctx.needs_init):
            inits += templates.replace("n = ag__.Undefined(s)", fn_node.body[0].lineno,
                                       n=n, s=gast.Constant(value=n, kind=None))
        body = fn_node.body
        start = 1 if (body and isinstance(body[0], gast.Expr)
                      and isinstance(body[0].value, gast.Constant)
                      and isinstance(body[0].value.value, str)) else 0
        fn_node.body = body[:start] + inits + body[start:]
    return fn_node
