"""What the control-flow converters share: which names are a construct's state, the
values it starts from, and the local functions that hold its pieces.

State = names the construct assigns that are live on entry (read before written, or
carried from one iteration to the next) or live after it. Others stay local to the
generated functions. A name that no path has assigned yet enters as
`ag__.Undefined('name')`; later reads that may see it go through `ag__.ld`.
"""
from __future__ import annotations

from typing import Optional

from autograph import nodes as gast
from autograph import anno, templates
from autograph.converters.context import SCOPES, Context, children

_OPAQUE_CALLS = {"locals", "vars", "eval", "exec", "dir"}


def _scan(nodes: list, in_loop: bool, found: set) -> None:
    """One walk collecting what can keep a construct in Python (see `blocker`).
    Results for compound statements are memoised: nested `if`s would rescan."""
    for n in nodes:
        if isinstance(n, gast.stmt) and hasattr(n, "body") and not isinstance(n, SCOPES):
            key = anno.FOUND_IN_LOOP if in_loop else anno.FOUND
            cached = anno.getanno(n, key, None)
            if cached is None:
                cached = set()
                _scan_one(n, in_loop, cached)
                anno.setanno(n, key, frozenset(cached))
            found |= cached
        else:
            _scan_one(n, in_loop, found)


def _scan_one(n, in_loop: bool, found: set) -> None:
    kind = type(n)
    if kind in (gast.Break, gast.Continue):
        if not in_loop:
            found.add("jump")
    elif kind is gast.Return:
        found.add("return")
    elif kind in (gast.Yield, gast.YieldFrom, gast.Await):
        found.add("yield")
    elif kind is gast.Delete:
        if any(isinstance(t, gast.Name) for t in n.targets):
            found.add("del")
    elif kind is gast.Call:
        if isinstance(n.func, gast.Name) and n.func.id in _OPAQUE_CALLS and not n.args:
            found.add(n.func.id)
    elif kind in SCOPES:
        return
    _scan(children(n), in_loop or kind in (gast.For, gast.While), found)


def blocker(node: gast.AST, stmts: list, ctx: Context, modified: set,
            observed: frozenset = frozenset()) -> Optional[str]:
    """Why `node` must stay a Python construct, or None when it can be converted."""
    reason = anno.getanno(node, anno.PYTHON_LOOP, None)
    if reason:
        return reason
    # Names that an enclosing `try`'s handlers or `finally` (or the code after a `with`
    # that may swallow an exception) read: an exception in the middle of the construct
    # must leave them as updated so far, so the construct writes them through, as cells
    # (declared nonlocal in its functions), not as state it returns at the end.
    ctx.cells |= modified & observed
    found = anno.getanno(node, anno.FEATURES, None)
    if found is None:              # a construct the analyses did not see
        found = set()
        _scan(stmts, False, found)
    if "jump" in found:
        return "a `break`/`continue` that leaves it"
    if "return" in found and not anno.getanno(node, anno.RETURN_FORM, False):
        return "a `return` that is not at the end of the function"
    if "yield" in found:
        return "`yield`/`await`"
    if "del" in found:
        return "`del` of a local name"
    opaque = found & _OPAQUE_CALLS
    if opaque:
        return f"`{sorted(opaque)[0]}()`"
    return None


def loop_blocker(node: gast.AST, ctx: Context, observed: frozenset,
                 lists: frozenset = frozenset()) -> tuple:
    """For a `for` or `while`: (names its body assigns, those that are the function's
    locals, why it must stay Python or None). An `else` clause keeps a loop Python.
    `lists`: local lists the body appends to, state like the names it assigns."""
    modified_all = modified(node) | lists
    local = (modified_all & ctx.graph.locals) - ctx.cells
    reason = blocker(node, node.body, ctx, local, observed)
    local -= ctx.cells
    if reason is None and node.orelse:
        reason = "an `else` clause"
    return modified_all, local, reason


def modified(node: gast.AST) -> set:
    """Names the construct's body assigns (its `cfg` annotation; the test excluded)."""
    return anno.getanno(node, anno.MODIFIED)


def state_names(node: gast.AST, modified: set) -> list:
    live = (anno.getanno(node, anno.LIVE_IN, frozenset())
            | anno.getanno(node, anno.LIVE_OUT, frozenset()))
    return sorted(modified & live)


def initial_values(node: gast.AST, names: list, ctx: Context,
                   bound_before: frozenset = frozenset()) -> gast.Tuple:
    """The state's values as the construct starts; `bound_before` are names its own test
    binds (a walrus), defined by the time these values are read."""
    undefined = anno.getanno(node, anno.UNDEFINED_ON_ENTRY, frozenset())
    defined = anno.getanno(node, anno.DEFINED_ON_ENTRY, frozenset())
    elts = []
    for n in names:
        if n not in undefined or n in bound_before:
            elts.append(templates.name(n))
        elif n not in defined:
            ctx.may_hold_undefined.add(n)
            elts.append(templates.operator_call(
                "Undefined", [gast.Constant(value=n, kind=None)], node.lineno))
        else:           # assigned on some paths only: see variables.transform
            ctx.may_hold_undefined.add(n)
            ref = templates.name(n)
            anno.setanno(ref, anno.MAYBE_UNBOUND, True)
            elts.append(ref)
    return templates.make(gast.Tuple, elts=elts, ctx=templates.LOAD)


def names_literal(names: list) -> gast.Tuple:
    return templates.make(gast.Tuple, elts=[templates.make(gast.Constant, value=n, kind=None)
                                            for n in names], ctx=templates.LOAD)


def returned(names: list) -> Optional[gast.AST]:
    if not names:
        return None
    if len(names) == 1:
        return templates.name(names[0])
    return templates.names_tuple(names)


def assigned(names: list) -> gast.AST:
    if len(names) == 1:
        return templates.name(names[0], store=True)
    return templates.names_tuple(names, store=True)


def function(name: str, params: list, body: list, result: Optional[gast.AST], lineno: int,
             ctx: Context, modified_all: set) -> gast.FunctionDef:
    """`def name(*params): body; return result`, declaring the user's global/nonlocal names,
    and as `nonlocal` the locals a nested function or lambda reads (`ctx.cells`): the
    construct changes the one variable they see, as in Python."""
    fn = templates.function_def(name, list(params), list(body), lineno)
    act = ctx.graph_act
    # (most constructs write no declared or captured name: disjointness tested first,
    # without the sets the intersections make)
    declared = []
    if not modified_all.isdisjoint(act.declared_global):
        declared.append(gast.Global(names=sorted(modified_all & act.declared_global)))
    cells = ctx.cells
    if cells and not modified_all.isdisjoint(cells):
        # `nonlocal` needs a binding outside
        ctx.needs_init |= (modified_all & cells) - ctx.graph.params
        nonlocals = act.declared_nonlocal | cells
    else:
        nonlocals = act.declared_nonlocal
    if not modified_all.isdisjoint(nonlocals):
        declared.append(gast.Nonlocal(names=sorted(modified_all & nonlocals)))
    if declared:
        for d in declared:
            d.lineno, d.col_offset = lineno, 0
        fn.body = declared + fn.body
    anno.setanno(fn, anno.GENERATED, True)
    anno.setanno(fn, anno.PARAMS, set(params))
    if result is not None:
        fn.body.append(templates.statement(result, lineno, returns=True))
    return fn


def finish(call: gast.Call, names: list, lineno: int) -> list:
    """The statement that runs a construct: `names = call`, or `call` without state."""
    return [templates.statement(call, lineno, target=assigned(names) if names else None)]
