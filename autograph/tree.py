"""Walking gast trees, fast: the converters and analyses walk every function several
times, so these walks are a good part of conversion time.

`children(node)` gives what `gast.iter_child_nodes` gives, minus the leaves no walk
looks for (expression contexts `Load`/`Store`/`Param`/`Del` and operators), in field
order; it reads each class's node-holding fields from a table rather than testing every
field's value.
"""
from __future__ import annotations

from autograph import nodes as gast

# Fields that never hold nodes, in ast and gast alike: identifiers, flags, numbers, strings.
SCALAR_FIELDS = frozenset({"id", "arg", "attr", "name", "module", "level", "kind",
                           "type_comment", "conversion", "simple", "is_async", "asname", "tag",
                           "rest", "kwd_attrs"})
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})                # contexts and operators
_MAY_HOLD_NONE = frozenset({"kw_defaults", "keys"})         # lists with None entries


def holds_nodes(kind: type, field: str) -> bool:
    """Whether `field` of node class `kind` (of ast or of gast) may hold nodes."""
    name = kind.__name__
    if field == "name":
        # gast's `except ... as name` is a Name; so is the name of a `type X = ...`
        # (Python 3.12's TypeAlias, in ast and gast alike)
        return kind is gast.ExceptHandler or name == "TypeAlias"
    if field == "value" and name in ("Constant", "MatchSingleton"):
        return False                               # a Python value
    if field == "names" and name in ("Global", "Nonlocal"):
        return False                               # strings
    return field not in SCALAR_FIELDS


def _fields_of(kind: type) -> tuple:
    if not issubclass(kind, gast.AST):
        return ()
    return tuple((f, f in _MAY_HOLD_NONE) for f in kind._fields
                 if f not in _LEAF_FIELDS and holds_nodes(kind, f))


class PerClass(dict):
    """node class -> `of(class)`, worked out the first time a class is met."""

    def __init__(self, of):
        super().__init__()
        self.of = of

    def __missing__(self, kind):
        value = self[kind] = self.of(kind)
        return value


FIELDS = PerClass(_fields_of)   # node class -> ((field, may hold None), ...)
# The fields of a statement that hold statements (or the handlers and cases that do).
_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
_BLOCK_FIELDS = PerClass(lambda kind: tuple(f for f in kind._fields if f in _BLOCKS))


def children(node: gast.AST) -> list:
    """The child nodes of `node` (as `gast.iter_child_nodes`, without contexts and
    operators)."""
    out = []
    d = node.__dict__
    for field, may_hold_none in FIELDS[type(node)]:
        value = d.get(field)
        if value is None:
            continue
        if type(value) is list:
            out.extend([v for v in value if v is not None] if may_hold_none else value)
        else:
            out.append(value)
    return out


def walk(node: gast.AST):
    """Every node under `node` (itself included), in no particular order."""
    todo = [node]
    pop, extend = todo.pop, todo.extend
    while todo:
        n = pop()
        yield n
        extend(children(n))


def statements(body: list, stop=frozenset()):
    """Every statement in `body`, in its blocks, and in the bodies of its nested `def`s
    and classes but those of a class in `stop` (yielded, not entered), in `walk_scope`'s
    order: a `def` or a `nonlocal` is a statement, so finding one needs no walk through
    the expressions, most of the nodes."""
    todo = list(body)
    pop, extend, fields_of = todo.pop, todo.extend, _BLOCK_FIELDS
    while todo:
        node = pop()
        yield node
        kind = type(node)
        if kind not in stop:
            d = node.__dict__
            for field in fields_of[kind]:
                extend(d[field])


_LOOPS = frozenset({gast.For, gast.AsyncFor, gast.While})
_NEW_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})
_JUMPS = frozenset({gast.Break, gast.Continue})


def jump_outside_loop(body: list):
    """The first `break` or `continue` in the statements `body` that no loop of its own
    scope encloses (a loop's `else` is outside it), or None. Python's parser and symbol
    table accept such a jump; only its code generator refuses it."""
    todo = [(stmt, False) for stmt in body]
    pop, push, fields_of = todo.pop, todo.append, _BLOCK_FIELDS
    while todo:
        node, in_loop = pop()
        kind = type(node)
        if kind in _JUMPS:
            if not in_loop:
                return node
            continue
        d = node.__dict__
        if kind in _LOOPS:
            for stmt in d["body"]:
                push((stmt, True))
            for stmt in d["orelse"]:
                push((stmt, in_loop))
            continue
        inner = False if kind in _NEW_SCOPES else in_loop
        for field in fields_of[kind]:
            for stmt in d[field]:
                push((stmt, inner))
    return None


class Scan:
    """What the converters ask of a whole function before converting it: the node
    classes in it, the names it uses and binds, and the functions and classes it
    defines. `parsing.from_ast` can gather it while it converts a tree, or `add` walks."""

    __slots__ = ("kinds", "names", "stored", "defined", "strings", "place_writes", "list_calls",
                 "returns", "loop_else")

    def __init__(self):
        self.kinds: set = set()
        self.names: set = set()      # every Name's id
        self.stored: set = set()     # ids of Names that are not read (Store, Del, Param)
        self.defined: set = set()    # names of nested functions and classes
        self.strings: list = []      # (first, last line) of strings over several lines
        # For converters/composite: an attribute or item written or deleted, or a method
        # in MUTATORS called; a method in LIST_METHODS called.
        self.place_writes = False
        self.list_calls = False
        self.returns = 0             # `return` statements, nested functions' too
        self.loop_else = False       # a `for` or `while` with an `else`

    def add(self, node: gast.AST, outer: gast.AST = None) -> "Scan":
        """Everything under `node`; `outer` (a function being converted) is not a nested
        definition of itself."""
        kinds, names, stored, defined = self.kinds, self.names, self.stored, self.defined
        for n in walk(node):
            kind = type(n)
            kinds.add(kind)
            if kind is gast.Name:
                names.add(n.id)
                if type(n.ctx) is not gast.Load:
                    stored.add(n.id)
            elif kind in _DEFINITIONS and n is not outer:
                defined.add(n.name)
            elif kind in _CAPTURES:     # a `case` pattern's names bind locals
                name = n.rest if kind is gast.MatchMapping else n.name
                if name:
                    names.add(name)
                    stored.add(name)
            elif kind is gast.Return:
                self.returns += 1
            elif kind in _LOOPS:
                if n.orelse:
                    self.loop_else = True
            elif kind in _PLACES:
                if type(n.ctx) is not gast.Load:
                    self.place_writes = True
            elif kind is gast.Call:
                func = n.func
                if type(func) is gast.Attribute and func.attr in MUTATORS:
                    self.place_writes = True
                    if func.attr in LIST_METHODS:
                        self.list_calls = True
        return self


_DEFINITIONS = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})
_PLACES = frozenset({gast.Attribute, gast.Subscript})
_CAPTURES = frozenset({gast.MatchAs, gast.MatchStar, gast.MatchMapping})
_LOOPS = frozenset({gast.For, gast.While, gast.AsyncFor})

# Methods of list/dict/set/bytearray/deque/array (and OrderedDict's) that change the
# object (see converters/composite).
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                      "add", "discard", "setdefault", "popitem", "sort", "reverse",
                      "difference_update", "intersection_update",
                      "symmetric_difference_update", "__setitem__", "__delitem__",
                      "appendleft", "extendleft", "popleft", "rotate", "move_to_end",
                      "frombytes", "fromlist"})
LIST_METHODS = frozenset({"append", "pop"})
