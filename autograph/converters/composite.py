"""Which places other than local names a construct writes, and the `composite=` argument
that carries them when the construct is staged (see autograph/operators/composite.py).

    if x > self.best:                def if_true():
        self.best = x        ->          self.best = x
                                     ag__.if_stmt(x > self.best, if_true, None, (), (),
                                         composite=lambda: (('self.best',
                                             lambda: (self, 'best'), 'attr'),))

The design in full: docs/architecture.md, under `autograph/converters/composite.py`.
"""
from __future__ import annotations

import ast

from autograph import anno, templates, unparsing
from autograph import nodes as gast
from autograph.converters.context import SCOPES, Context, children, walk
# Methods that change a list/dict/set/bytearray; those that make a local list state.
from autograph.tree import FIELDS, LIST_METHODS, MUTATORS  # noqa: F401  (also read here)

_UNSAFE = (gast.Call, gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await, gast.Lambda,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _targets(node, out: list) -> None:
    kind = type(node)
    if kind in (gast.Attribute, gast.Subscript):
        out.append(node)
    elif kind in (gast.Tuple, gast.List):
        for e in node.elts:
            _targets(e, out)
    elif kind is gast.Starred:
        _targets(node.value, out)


class _Places:
    """What a piece of code writes besides local names, deduplicated by place: its
    attribute/item targets (text -> the first by position), mutating method calls and
    `del`s of places (receiver or place text -> the first found), the local names it
    appends to or pops from, and whether it calls anything."""

    __slots__ = ("targets", "calls", "deletes", "lists", "any_call")

    def __init__(self):
        self.targets: dict = {}
        self.calls: dict = {}
        self.deletes: dict = {}
        self.lists: set = set()
        self.any_call = False

    def add(self, other: "_Places") -> None:
        """Append `other`'s findings (what a walk finds after ours)."""
        targets = self.targets
        for text, t in other.targets.items():
            old = targets.get(text)
            if old is None or (t.lineno, t.col_offset) < (old.lineno, old.col_offset):
                targets[text] = t
        for text, c in other.calls.items():
            self.calls.setdefault(text, c)
        for text, d in other.deletes.items():
            self.deletes.setdefault(text, d)
        self.lists |= other.lists
        self.any_call = self.any_call or other.any_call


def _summary(nodes: list, places: _Places) -> _Places:
    """Attribute/item targets, mutating method calls and `del`s of places in `nodes`,
    entering the functions earlier passes generated but not user scopes, added to
    `places` in the order of a depth-first walk from the last node.

    A statement with a body keeps its own summary (`anno.PLACES`): a construct nested k
    deep is then looked at once, not once per construct around it. The transformers
    drop it when they rebuild the statement's blocks (StatementTransformer.generic_visit),
    which they do to every statement on the way to one they change."""
    todo = list(nodes)
    pop, push, extend, fields_of = todo.pop, todo.append, todo.extend, FIELDS
    while todo:
        n = pop()
        kind = type(n)
        if kind in _LEAVES:
            continue
        if kind in _SCOPES and not anno.getanno(n, anno.GENERATED, False):
            continue
        d = n.__dict__
        if type(d.get("body")) is list:
            own = anno.getanno(n, anno.PLACES, None)
            if own is None:
                own = _Places()
                if kind in _WRITERS:
                    _own(n, kind, own)
                anno.setanno(n, anno.PLACES, _summary(children(n), own))
            places.add(own)
            continue
        if kind in _WRITERS:
            _own(n, kind, places)
        # `todo.extend(children(n))`, inline (most nodes are expressions: this is most of
        # the walk); the None it pushes is skipped as a leaf
        for field, _ in fields_of[kind]:
            value = d.get(field)
            if type(value) is list:
                extend(value)
            else:
                push(value)
    return places


# Nothing in them, nothing under them (None: a field left empty, a Dict's `**` key).
_LEAVES = frozenset({gast.Name, gast.Constant, type(None)})
_SCOPES = frozenset(SCOPES)
_WRITERS = frozenset({gast.Call, gast.Assign, gast.AugAssign, gast.AnnAssign, gast.For,
                      gast.AsyncFor, gast.With, gast.AsyncWith, gast.Delete})


def _own(n, kind, places: _Places) -> None:
    """What the node `n` itself writes (not its children)."""
    if kind is gast.Call:
        places.any_call = True
        func = n.func
        if type(func) is gast.Attribute and func.attr in MUTATORS:
            receiver = func.value
            places.calls.setdefault(_text(receiver), n)
            if func.attr in LIST_METHODS and type(receiver) is gast.Name:
                places.lists.add(receiver.id)
        return
    found = []
    if kind is gast.Assign:
        for t in n.targets:
            _targets(t, found)
    elif kind in (gast.AugAssign, gast.AnnAssign):
        if n.value is not None or kind is gast.AugAssign:
            _targets(n.target, found)
    elif kind in (gast.For, gast.AsyncFor):
        _targets(n.target, found)
    elif kind in (gast.With, gast.AsyncWith):
        for item in n.items:
            if item.optional_vars is not None:
                _targets(item.optional_vars, found)
    elif kind is gast.Delete:
        for t in n.targets:
            if type(t) in (gast.Attribute, gast.Subscript):
                places.deletes.setdefault(_text(t), t)
    targets = places.targets
    for t in found:
        text = _text(t)
        old = targets.get(text)
        if old is None or (t.lineno, t.col_offset) < (old.lineno, old.col_offset):
            targets[text] = t


def _features(ctx: Context) -> tuple:
    """(whether the function writes an attribute or item, or calls a mutating method;
    whether it calls `append`/`pop`), from one walk per function: most functions do
    neither, and their constructs then need no scan of their own."""
    found = anno.getanno(ctx.fn_node, anno.COMPOSITE_FEATURES, None)
    if found is None:
        found = ctx.composite_features     # the whole function's, from its Scan: enough
    if found is None:
        writes = lists = False
        for n in walk(ctx.fn_node):
            kind = type(n)
            if kind in (gast.Attribute, gast.Subscript) and type(n.ctx) is not gast.Load:
                writes = True
            elif kind is gast.Call and type(n.func) is gast.Attribute and n.func.attr in MUTATORS:
                writes = True
                lists = lists or n.func.attr in LIST_METHODS
        found = (writes, lists)
        anno.setanno(ctx.fn_node, anno.COMPOSITE_FEATURES, found)
    return found


def list_names(stmts: list, ctx: Context) -> set:
    """Local names whose lists the statements append to or pop from (`xs.append(v)`):
    state of the construct, so that a staged one can make them staged lists."""
    if not _features(ctx)[1]:
        return set()
    names = _summary(stmts, _Places()).lists & ctx.graph.locals
    return names - _aliased(ctx) if names else names


def _aliased(ctx: Context) -> set:
    """Local names whose value the function also stores elsewhere (`m = l`, `o.x = l`,
    `[l]`) or iterates while changing it (`for v in l: ... l.append(x)`): a staged list
    replaces only the name, so such lists stay Python lists (and a staged construct
    changing one is an error, never a stale alias or a loop that misses the new items).
    A loop over the list that does not change it (before or after the construct that
    does) reads the name, a staged list where it is one."""
    found = getattr(ctx, "aliased", None)
    if found is not None:
        return found
    found = set()
    for n in walk(ctx.fn_node):
        kind = type(n)
        if kind in (gast.Assign, gast.AnnAssign) and type(n.value) is gast.Name:
            found.add(n.value.id)             # both names are then one list
            targets = n.targets if kind is gast.Assign else [n.target]
            found.update(t.id for t in targets if type(t) is gast.Name)
        elif kind in (gast.List, gast.Set):
            found.update(e.id for e in n.elts if type(e) is gast.Name)
        elif kind is gast.Dict:
            found.update(e.id for e in n.values if type(e) is gast.Name)
        elif (kind is gast.For and type(n.iter) is gast.Name
              and n.iter.id in _summary(n.body + n.orelse, _Places()).lists):
            found.add(n.iter.id)          # a Python loop over it would not see the appends
    ctx.aliased = found
    return found


def positions(names: list, lists: set) -> list:
    return [i for i, n in enumerate(names) if n in lists]


def keywords(places, lists_at: list) -> list:
    """The `composite=` and `lists=` keywords of a construct's operator call."""
    out = []
    if places is not None:
        out.append(gast.keyword(arg="composite", value=places))
    if lists_at:
        out.append(gast.keyword(arg="lists", value=gast.Tuple(
            elts=[gast.Constant(value=i, kind=None) for i in lists_at], ctx=gast.Load())))
    return out


def _names(node) -> set:
    out = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if type(n) is gast.Name:
            out.add(n.id)
        todo.extend(children(n))
    return out


def _unsafe(node) -> bool:
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, _UNSAFE):
            return True
        todo.extend(children(n))
    return False


def _inner_places(target) -> set:
    """The text of every attribute or item inside `target`'s object and key (`o.key` in
    `d[o.key]`): if the construct changes one, the place it names moves."""
    out = set()
    todo = [target.value] + ([target.slice] if type(target) is gast.Subscript else [])
    while todo:
        n = todo.pop()
        if type(n) in (gast.Attribute, gast.Subscript):
            out.add(_text(n))
        todo.extend(children(n))
    return out


def _has_slice(node) -> bool:
    return type(node) is gast.Slice or (type(node) is gast.Tuple
                                        and any(type(e) is gast.Slice for e in node.elts))


def _text(node) -> str:
    return unparsing.unparse(node)


def specs(stmts: list, ctx: Context, modified_all: set, extra_changed: set = frozenset(),
          lineno: int = 1) -> tuple:
    """(`composite=` argument or None, nonlocal setter defs to put before the construct).
    `modified_all`: names the construct assigns (their values change inside it)."""
    found = _summary(stmts, _Places()) if _features(ctx)[0] or ctx.nested_writes else _Places()
    targets, calls, deletes = found.targets, found.calls, found.deletes
    declared = modified_all & (ctx.graph.declared | ctx.cells)
    if ctx.nested_writes and found.any_call:
        # a nested function that writes one of our variables (`nonlocal c; c += 1`) may
        # be called in the construct: carry the variable, as if the construct wrote it
        declared |= ctx.nested_writes
    declared = sorted(declared)
    if not (targets or calls or deletes or declared or ctx.nested_writes):
        return None, []
    changed = set(modified_all) | set(extra_changed)
    written = targets.keys()                    # places the construct changes
    at = _Builder(lineno)
    entries, defs = [], []
    for text, t in sorted(targets.items(), key=lambda item: (item[1].lineno,
                                                              item[1].col_offset)):
        moving = sorted((_names(t) & changed) | (_inner_places(t) & written))
        if moving:
            role = "index" if type(t) is gast.Subscript else "object"
            obj = t.value if (type(t.value) is gast.Name or not (
                _unsafe(t.value) or _names(t.value) & changed)) else None
            entries.append(_uncarried(at, text, f"its {role} `{moving[0]}` changes inside "
                                                f"the construct", t.lineno, obj))
        elif type(t) is gast.Subscript and _has_slice(t.slice):
            entries.append(_uncarried(at, text, "a slice assignment", t.lineno))
        elif _unsafe(t):
            entries.append(_uncarried(at, text, "its object or key is computed by a call",
                                      t.lineno))
        else:
            entries.append(_carried(at, text, t))
    for text, t in deletes.items():
        entries.append(_uncarried(at, text, "`del` of an attribute or item", t.lineno))
    # One entry per receiver (the first call found): each says the same, that the
    # receiver must not be a Python container.
    for text, call in calls.items():
        receiver = call.func.value
        # `xs.append(v)` on a local name: the name is state, and a staged construct makes
        # the list a staged list (then this check passes); a dict's `pop` is not that.
        # (`text` is the receiver's: `(text, lambda: text, None, reason, line, 'method')`)
        getter = at.thunk(at.copy(receiver)) if not _unsafe(receiver) else at.constant(None)
        entries.append(at.tuple([
            at.constant(text), getter, at.constant(None),
            at.constant(f"`{text}.{call.func.attr}(...)` changes it in place"),
            at.constant(call.lineno), at.constant("method")]))
    for name in declared:
        if name in ctx.graph_act.declared_global:
            # (name, globals(), 'global'): the namespace it is read from and written to
            entries.append(at.tuple([at.constant(name), at.call(at.name("globals"), []),
                                     at.constant("global")]))
        else:
            setter = ctx.new_name(f"set_{name}", unique=True)
            value = "value" if name != "value" else "value_"
            defs += templates.replace(f"def {setter}({value}):\n    nonlocal {name}\n"
                                      f"    {name} = {value}", lineno)
            for d in defs:
                anno.setanno(d, anno.GENERATED, True)
            # (name, lambda: name, setter, 'local')
            entries.append(at.tuple([at.constant(name), at.thunk(at.name(name)),
                                     at.name(setter), at.constant("local")]))
    if not entries:
        return None, defs
    spec = at.thunk(at.tuple(entries))      # lambda: (entry, ...)
    ctx.top_lambdas.append(spec)     # (as `expressions.thunk`'s, also where the construct
    return spec, defs                # is nested in another: Context.converted_body_scope)


def _carried(at: "_Builder", text: str, target):
    """`(text, lambda: (obj, 'attr'), 'attr')` for an attribute, `(text, lambda: (obj,
    key), 'item')` for an item: one lambda, the owner, from which the runtime reads and
    writes the place (an attribute's name `ag__.attribute_name(lambda: text)` where
    Python mangles it)."""
    obj = target.value
    if type(target) is gast.Attribute:
        if target.attr.startswith("__") and not target.attr.endswith("__"):
            attr = at.operator("attribute_name", [at.thunk(at.copy(target))])
        else:
            attr = at.constant(target.attr)
        return at.tuple([at.constant(text), at.thunk(at.tuple([at.copy(obj), attr])),
                         at.constant("attr")])
    owner = at.thunk(at.tuple([at.copy(obj), at.copy(target.slice)]))
    return at.tuple([at.constant(text), owner, at.constant("item")])


def _uncarried(at: "_Builder", text: str, reason: str, lineno: int, obj=None):
    """`(text, lambda: obj or None, None, reason, line, 'write')`: a write that cannot be
    carried; `obj`: the object written into, when it can be read (a staged list takes
    item writes itself)."""
    getter = at.thunk(at.copy(obj)) if obj is not None else at.constant(None)
    return at.tuple([at.constant(text), getter, at.constant(None), at.constant(reason),
                     at.constant(lineno), at.constant("write")])


class _Builder:
    """The nodes of a `composite=` argument, as `ast.parse` gives them for its text (which
    it was, printed and parsed again: a good part of the time of converting a construct),
    every node at the construct's line `lineno`, every name marked as autograph's. The
    places' expressions are copied from the tree: the same nodes as their printed text
    parses to, since they hold no calls, lambdas or comprehensions (`_unsafe`)."""

    __slots__ = ("lineno",)

    def __init__(self, lineno: int):
        self.lineno = lineno

    def _node(self, cls, fields: dict):
        line = self.lineno
        fields["lineno"], fields["col_offset"] = line, 0
        fields["end_lineno"], fields["end_col_offset"] = line, 0
        node = _AST_NEW(cls)
        node.__dict__ = fields
        return node

    def constant(self, value):
        return self._node(gast.Constant, {"value": value, "kind": None})

    def name(self, id_: str, ctx=None):
        return self._node(gast.Name, {"id": id_, "ctx": ctx or _LOAD, "annotation": None,
                                      "type_comment": None, anno.GENERATED: True})

    def tuple(self, elts: list):
        return self._node(gast.Tuple, {"elts": elts, "ctx": _LOAD})

    def call(self, func, args: list):
        return self._node(gast.Call, {"func": func, "args": args, "keywords": []})

    def operator(self, op: str, args: list):
        """`ag__.op(*args)`."""
        return self.call(self._node(gast.Attribute, {"value": self.name("ag__"), "attr": op,
                                                     "ctx": _LOAD}), args)

    def thunk(self, body, param: str = None):
        """`lambda: body`, or `lambda param: body`."""
        args = _AST_NEW(gast.arguments)
        args.__dict__ = {"posonlyargs": [], "args": [self.name(param, _PARAM)] if param else [],
                         "vararg": None, "kwonlyargs": [], "kw_defaults": [], "kwarg": None,
                         "defaults": []}
        return self._node(gast.Lambda, {"args": args, "body": body})

    def copy(self, node):
        """A copy of the expression `node`, as parsing its printed text gives it: its
        fields only, contexts `Load`."""
        kind = type(node)
        if kind is gast.Name:
            return self.name(node.id)
        fields = {}
        for field in kind._fields:
            value = getattr(node, field, None)
            if type(value) is list:          # (a Compare's operators are kept, as below)
                value = [self.copy(v) if isinstance(v, gast.AST) and not isinstance(
                    v, _OPERATORS) else v for v in value]
            elif isinstance(value, gast.expr_context):
                value = _LOAD
            elif isinstance(value, gast.AST) and not isinstance(value, _OPERATORS):
                value = self.copy(value)
            fields[field] = value
        if "lineno" in kind._attributes:
            return self._node(kind, fields)
        new = _AST_NEW(kind)
        new.__dict__ = fields
        return new


_AST_NEW = ast.AST.__new__                 # (every node class's: see templates.make)
_LOAD, _PARAM = gast.Load(), gast.Param()
_OPERATORS = (gast.operator, gast.unaryop, gast.cmpop, gast.boolop)   # (shared, as parsed)
