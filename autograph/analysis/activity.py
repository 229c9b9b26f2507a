"""Which names a piece of code reads, binds, deletes, and lets nested scopes capture.

Nested functions, lambdas, classes and comprehensions are their own scopes: their free
names count as reads where they are defined (conservative: a nested function may be
called at any later point, so its reads are treated as happening at its definition and
its captured names are reported in `captured`). `a.b = v` and `a[i] = v` read `a`; they
mutate an object, they do not rebind a name, so they never become loop or branch state.
"""
from __future__ import annotations

from typing import Iterable, Optional

from autograph import nodes as gast
from autograph.tree import FIELDS, walk as _walk

_NAME, _LOAD, _DEL, _CONSTANT = gast.Name, gast.Load, gast.Del, gast.Constant
_ATTRIBUTE, _CALL = gast.Attribute, gast.Call
# Calls that see the frame's local names: code using them must keep its scopes.
OPAQUE_CALLS = frozenset({"locals", "vars", "eval", "exec", "dir"})
_NONE = frozenset()       # the rarely filled sets of an Activity until something is added


class Activity:
    __slots__ = ("reads", "writes", "deletes", "captured", "read_nodes",
                 "declared_global", "declared_nonlocal", "has_yield", "has_await",
                 "opaque_calls")

    def __init__(self) -> None:
        self.reads: set = set()
        self.writes: set = set()
        self.read_nodes: list = []
        # Empty and shared (read only) until the collector adds to them: most code has
        # none of these, and an Activity is made per statement.
        self.deletes = self.captured = self.declared_global = self.declared_nonlocal = _NONE
        self.opaque_calls = _NONE            # locals(), vars(), eval(), exec(), dir()
        self.has_yield = self.has_await = False


def of(node: gast.AST, record_nodes: bool = False) -> Activity:
    """Activity of a statement, expression, or list of them (nested scopes summarised).
    With `record_nodes`, `read_nodes` lists the `Name` nodes read."""
    # An explicit stack rather than a NodeVisitor: a call per node was most of the
    # cost. Only a few classes need more than their children visited (`_SPECIAL`, and
    # calls); the commonest (names, a third of the nodes, constants, attributes, calls)
    # are handled first.
    act = Activity()
    todo = list(node) if type(node) is list else [node]
    reads, read_nodes = act.reads, act.read_nodes
    pop, push, extend = todo.pop, todo.append, todo.extend
    kinds = _KINDS
    while todo:
        node = pop()
        kind = type(node)
        if kind is _NAME:
            ctx = type(node.ctx)
            if ctx is _LOAD:
                reads.add(node.id)
                if record_nodes:
                    read_nodes.append(node)
            elif ctx is _DEL:
                if act.deletes is _NONE:
                    act.deletes = set()
                act.deletes.add(node.id)
                reads.add(node.id)              # `del x` needs x bound: a use of it
                if record_nodes:
                    read_nodes.append(node)
            else:                               # Store, Param
                act.writes.add(node.id)
            continue
        if kind is _CONSTANT:
            continue
        if kind is _ATTRIBUTE:                  # (a seventh of the nodes; a call another)
            push(node.value)
            continue
        if kind is _CALL:
            func = node.func
            if type(func) is _NAME and func.id in OPAQUE_CALLS and not node.args:
                _add(act, "opaque_calls", (func.id,))
            push(func)
            extend(node.args)
            extend(node.keywords)
            continue
        entry = kinds.get(kind)
        if entry is None:
            entry = kinds[kind] = (_SPECIAL.get(kind), FIELDS[kind])
        special, fields = entry
        if special is not None and not special(act, node, todo):
            continue                            # (it visited what it had to)
        d = node.__dict__
        for field, may_hold_none in fields:
            value = d.get(field)
            if value is None:
                continue
            if type(value) is list:
                extend([v for v in value if v is not None] if may_hold_none else value)
            else:
                push(value)
    return act


def _add(act: Activity, field: str, names) -> None:
    """Adds `names` to one of the sets that start shared and empty (see Activity)."""
    current = getattr(act, field)
    if current is _NONE:
        setattr(act, field, set(names))
    else:
        current.update(names)


# The classes whose visit does more than visit the children (`_SPECIAL`). Each takes
# (activity, node, stack of nodes to visit) and returns whether the node's children
# are still to be visited.

def _aug_assign(act, node, todo) -> bool:
    todo.append(node.value)
    target = node.target
    if type(target) is _NAME:
        act.reads.add(target.id)
        act.writes.add(target.id)
    else:
        todo.append(target)
    return False


def _match_as(act, node, todo) -> bool:            # MatchAs, MatchStar
    if node.name:
        act.writes.add(node.name)
    return True


def _match_mapping(act, node, todo) -> bool:
    if node.rest:
        act.writes.add(node.rest)
    return True


def _import(act, node, todo) -> bool:
    """`import a.b` binds `a`; `from m import x as y` binds `y` (`*` binds what the
    module has: nothing the analyses can name)."""
    for alias in node.names:
        if alias.name != "*":
            act.writes.add(alias.asname or alias.name.partition(".")[0])
    return False


def _global(act, node, todo) -> bool:
    _add(act, "declared_global", node.names)
    return False


def _nonlocal(act, node, todo) -> bool:
    _add(act, "declared_nonlocal", node.names)
    return False


def _yield(act, node, todo) -> bool:
    act.has_yield = True
    return True


def _await(act, node, todo) -> bool:
    act.has_await = True
    return True


def _nested_scope(act: Activity, free: set) -> None:
    act.reads |= free
    if free:
        _add(act, "captured", free)


def _defaults(args: gast.arguments) -> list:
    return [d for d in args.defaults + args.kw_defaults if d]


def _function(act, node, todo) -> bool:
    act.writes.add(node.name)
    todo.extend(node.decorator_list)
    todo.extend(_defaults(node.args))
    _nested_scope(act, free_names([node]))
    return False


def _lambda(act, node, todo) -> bool:
    todo.extend(_defaults(node.args))
    _nested_scope(act, free_names([node]))
    return False


def _class(act, node, todo) -> bool:
    act.writes.add(node.name)
    todo.extend(node.decorator_list)
    todo.extend(node.bases)
    todo.extend([k.value for k in node.keywords])
    _nested_scope(act, free_names(node.body))
    return False


def _comprehension(act, node, todo) -> bool:
    # The first iterable is evaluated in the enclosing scope; walrus targets bind there.
    # A generator expression runs later, so like a lambda it captures the names it reads.
    todo.append(node.generators[0].iter)
    walrus: set = set()
    free = free_names([node], walrus)
    act.reads |= free
    if type(node) is gast.GeneratorExp and free:
        _add(act, "captured", free)
    act.writes |= walrus
    return False


_SPECIAL = {gast.AugAssign: _aug_assign, gast.MatchAs: _match_as, gast.MatchStar: _match_as,
            gast.MatchMapping: _match_mapping, gast.Import: _import,
            gast.ImportFrom: _import, gast.Global: _global, gast.Nonlocal: _nonlocal,
            gast.Yield: _yield, gast.YieldFrom: _yield, gast.Await: _await,
            gast.FunctionDef: _function, gast.AsyncFunctionDef: _function,
            gast.Lambda: _lambda, gast.ClassDef: _class, gast.ListComp: _comprehension,
            gast.SetComp: _comprehension, gast.DictComp: _comprehension,
            gast.GeneratorExp: _comprehension}
_KINDS: dict = {}     # node class -> (its _SPECIAL entry or None, tree.FIELDS entry)


def free_names(nodes: Iterable, walrus: Optional[set] = None) -> set:
    """Names a nested scope loads but does not bind, and names it declares `nonlocal`
    (it writes the enclosing function's variable: `def g(): nonlocal x; x = 1`). An
    over-approximation. `walrus`, if given, gets the names `:=` binds in the nodes."""
    loads, binds, nonlocals = set(), set(), set()
    for top in nodes:
        for node in _walk(top):
            kind = type(node)
            if kind is _NAME:
                (loads if type(node.ctx) is _LOAD else binds).add(node.id)
            elif kind is gast.FunctionDef or kind is gast.ClassDef:
                if node is not top:
                    binds.add(node.name)
            elif kind is gast.Nonlocal:
                nonlocals.update(node.names)
            elif kind is gast.NamedExpr and walrus is not None:
                if type(node.target) is _NAME:
                    walrus.add(node.target.id)
    return (loads - binds) | nonlocals


def of_body(fn_node: gast.AST) -> Activity:
    """Activity of a function's own body (its parameters count as writes)."""
    args = fn_node.args
    return of(list(fn_node.body) + [a for a in args.posonlyargs + args.args + args.kwonlyargs +
                                    [args.vararg, args.kwarg] if a is not None])


def params(fn_node: gast.AST) -> list:
    args = fn_node.args
    return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs +
            [x for x in (args.vararg, args.kwarg) if x is not None]]
