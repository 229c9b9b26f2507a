"""What the converters of one function share: its namespace, fresh names, and results
that later converters read (names that may hold an `Undefined` marker)."""
from __future__ import annotations

from typing import Any, Optional

import builtins
import logging
import sys
from collections import ChainMap

from autograph import anno
from autograph import nodes as gast
from autograph.operators import calls
from autograph.tree import Scan, children, walk  # noqa: F401  (converters import them here)

logger = logging.getLogger("autograph")

SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_SCOPE_KINDS = frozenset(SCOPES)     # (a set lookup of the exact class: gast's have no subclasses)


class Context:
    def __init__(self, fn_node: gast.AST, filename: str, namespace: Optional[dict] = None,
                 recursive: bool = True, scan: Optional[Scan] = None):
        self.fn_node = fn_node
        self.filename = filename
        self.namespace = namespace or {}      # globals + closure values of the user function
        self.recursive = recursive
        self.features: frozenset = frozenset()   # autograph.experimental.Feature values
        if scan is None:                       # one walk: it is a good part of conversion time
            # (parsing.parse_function gathers it while it converts the tree)
            scan = anno.popanno(fn_node, anno.SCAN) or Scan().add(fn_node, outer=fn_node)
        names, stored, defined, kinds = scan.names, scan.stored, scan.defined, scan.kinds
        # For composite: whether the function (nested ones included) writes attributes or
        # items or calls methods that change containers; whether it appends or pops.
        self.composite_features = (scan.place_writes, scan.list_calls)
        self.return_count = scan.returns         # `return`s in the function, nested ones too
        self.loop_else = scan.loop_else          # some loop has an `else`
        self.node_kinds = kinds
        self.has_nested_functions = bool(defined)
        self.used_names = names | defined | {getattr(fn_node, "name", "")}
        self.may_hold_undefined: set = set()   # names an Undefined marker may reach
        self.needs_init: set = set()           # names bound to a marker at function entry
        self.all_locals = stored | defined      # names some scope of the function binds
        self.has_class_cell = False
        args = getattr(fn_node, "args", None)
        positional = (args.posonlyargs + args.args) if args is not None else []
        self.first_param = positional[0].id if positional else None
        self.graph = self.graph_act = None
        self.captured: set = set()
        self.cells: set = set()                 # locals nested functions/lambdas read
        self.nested_writes: set = set()         # locals nested functions write (nonlocal)
        self.fresh: dict = {}
        self.taken: set = set()
        self.next_unique: dict = {}              # base -> where new_name(unique) goes on
        # generated functions tail_chains moved (in any scope: one list, shared)
        self.moved: list = []
        # Whether the converted code defines functions or lambdas the original has not
        # (a converted `if` or loop, a `lambda:` operand of `and_`); what they may read
        # from the function's scope (see `converted_body_scope`).
        self.new_scopes = False
        self.closure_reads = self.top_writes = frozenset()    # (cfg.Graph's, by pipeline)
        self.fn_locals = None                                 # (the same, where analysed)
        self.scope_depth = 0                # (expressions.rewrite_tree: 1 in the function)
        self.super_params: list = []        # (rewrite_tree: see call_trees, `super()`)
        self.top_lambdas: list = []         # what the `lambda:`s made at that depth hold

    def converted_body_scope(self, cells: frozenset = frozenset()) -> bool:
        """Whether the converted body needs a function of its own (two_paths._nested):
        where a function or lambda it defines (that the original has not) reads or
        writes one of the function's variables that is not a cell in the original
        (`cells`, where known). Were the converted body the function's own, that
        variable would become a cell of the function, and the original body (its
        Python path) would read it more slowly than the original does. Those variables:
        what the function's outermost constructs read and do not assign (the rest is
        their functions' arguments and their own), what they write through (`cells`
        that a nested function or an enclosing `try` reads), what the `lambda:`s made
        in the function itself (`top_lambdas`) read (in straight-line code, not
        analysed, any name they read counts). Without, the converted statements stand
        in the function itself: one frame less while staging."""
        if not self.new_scopes:
            return False
        own = self.taken | cells

        def closes_over(names: set) -> bool:
            if "super" in names and self.first_param:
                names.add(self.first_param)         # `super()` reads it once converted
            if self.fn_locals is not None:  # (else, straight-line code: any name may be one)
                names &= self.fn_locals
            return not names.issubset(own)

        if closes_over(set(self.closure_reads) | (self.top_writes & self.cells)):
            return True
        # (the lambdas are walked only when the constructs did not decide it)
        return bool(self.top_lambdas) and closes_over(
            {n.id for node in self.top_lambdas for n in walk(node) if type(n) is gast.Name})

    def for_scope(self, fn_node: gast.AST) -> "Context":
        """A context for a nested function: its own analyses, the same fresh names."""
        child = Context.__new__(Context)
        child.__dict__.update(self.__dict__)
        child.fn_node = fn_node
        child.may_hold_undefined, child.needs_init = set(), set()
        child.graph = child.graph_act = None
        child.captured = set()
        child.cells = set()
        child.nested_writes = set()
        child.top_lambdas = []
        args = fn_node.args
        positional = args.posonlyargs + args.args
        child.first_param = positional[0].id if positional else None
        return child

    def log(self, node: gast.AST, message: str) -> None:
        """Conversion decisions, shown with `ag.set_verbosity(1)`."""
        logger.info("%s:%s: %s", self.filename, getattr(node, "lineno", "?"), message)

    def left_to_python(self, node: gast.AST, construct: str, head: gast.AST,
                       reason: str) -> None:
        """Logs that `node` stays a Python construct, and records why, so that a tensor
        reaching its condition (`head`) gets an error that says so."""
        self.log(node, f"`{construct}` left to Python: {reason}")
        from autograph.errors import record_python_construct
        record_python_construct(self.filename, node.lineno,
                                getattr(head, "end_lineno", None) or node.lineno,
                                construct, reason)

    def new_name(self, base: str, unique: bool = False) -> str:
        """`base`, or `base_1`, ...: a name the user's code does not use. With `unique`,
        a name not returned before either (for flags that can be live together)."""
        if base in self.fresh and not unique:
            return self.fresh[base]
        # A unique search goes on from where the last one for `base` stopped: the names
        # before were used or taken, and still are (both sets only grow). From 0 each
        # time, a function's n flags cost n**2/2 tries.
        i = self.next_unique.get(base, 0) if unique else 0
        name = f"{base}{i}" if i else base
        while name in self.used_names or (unique and name in self.taken):
            i += 1
            name = f"{base}{i}"
        if unique:
            self.next_unique[base] = i
        self.fresh[base] = name
        self.taken.add(name)
        return name


def walk_scope(node: Any):
    """Like gast.walk, but does not enter nested functions, lambdas or classes."""
    todo = [node] if not isinstance(node, list) else list(node)
    pop, extend, scopes = todo.pop, todo.extend, _SCOPE_KINDS
    while todo:
        n = pop()
        yield n
        if type(n) in scopes and n is not node:
            continue
        extend(children(n))


def contains(node: Any, kinds: tuple, stop: tuple = ()) -> bool:
    """Whether `node` (or list) has a node of `kinds` outside nested scopes and `stop` nodes
    (a `def` or `lambda` given as `node` is a nested scope too: its `return`s are its own)."""
    todo = [node] if not isinstance(node, list) else list(node)
    pop, extend, scopes = todo.pop, todo.extend, _SCOPE_KINDS
    while todo:
        n = pop()
        if isinstance(n, kinds):
            return True
        if type(n) in scopes:
            continue
        if stop:
            extend([child for child in children(n) if not isinstance(child, stop)])
        else:
            extend(children(n))
    return False


_METHODS: dict = {}    # transformer class -> {node class -> its visit method}
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _has_blocks(kind: type) -> bool:
    return any(f in _BLOCKS for f in getattr(kind, "_fields", ()))


def _unchanged(self, node):
    return node


_NO_NAMES = frozenset()


class StatementTransformer(gast.NodeTransformer):
    """A NodeTransformer that visits statements only: their nested statement lists, never
    their expressions, and not nested functions or classes (they are their own scopes).

    It also tracks `observed`: names that code running after an exception may read —
    the handlers and `finally` of enclosing `try`s, and what follows a `with` whose
    context manager might suppress exceptions. A converted construct keeps its state in
    local functions until it completes, so an exception in the middle would hide
    partial updates of these names from that code; constructs that modify them stay
    Python (see state.blocker).
    """

    ctx: Context

    def visit(self, node):
        """As NodeVisitor's, with the method looked up once per (transformer, node) class."""
        table = _METHODS.get(type(self))
        method = table.get(type(node)) if table is not None else None
        if method is None:
            method = _method(type(self), type(node))
        return method(self, node)

    def visit_FunctionDef(self, node):
        """Generated functions hold converted user code; user functions are other scopes."""
        return self.generic_visit(node) if anno.getanno(node, anno.GENERATED, False) else node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def observed(self) -> frozenset:
        stack = self.__dict__.get("_observed")
        return frozenset().union(*stack) if stack else _NO_NAMES

    def _visit_observed(self, node, names, fields):
        stack = self.__dict__.setdefault("_observed", [])
        stack.append(names)
        anno.delanno(node, anno.PLACES)      # (see generic_visit)
        try:
            for field in fields:
                items = getattr(node, field)
                holder = gast.If(test=None, body=items, orelse=[])
                self.generic_visit(holder)
                setattr(node, field, holder.body)
        finally:
            stack.pop()

    def visit_Try(self, node):
        # (`live_at_handlers` counts the `finally` as one more handler.)
        handlers = (anno.getanno(node, anno.LIVE_AT_HANDLERS, frozenset()) if node.handlers
                    else frozenset())
        # After an exception the `finally` runs and the exception goes on: the code after
        # the `try` never runs, so only names the `finally` itself reads are observed (an
        # enclosing `try` adds its own). Live at the `finally` counts what follows it too.
        final = anno.getanno(node, anno.LIVE_AT_FINALLY, frozenset())
        if final:
            final = final & {n.id for n in walk_scope(node.finalbody) if isinstance(n, gast.Name)}
        self._catching(bool(node.handlers), self._visit_observed, node, handlers | final, ["body"])
        self._visit_observed(node, final, ["orelse", "finalbody"])
        for handler in node.handlers:
            self._visit_observed(handler, final, ["body"])
        return node

    visit_TryStar = visit_Try

    def visit_With(self, node):
        suppressing = not all(non_suppressing(item.context_expr, self.ctx)
                              for item in node.items)
        names = (anno.getanno(node, anno.LIVE_AFTER_WITH, frozenset()) if suppressing
                 else frozenset())
        self._catching(suppressing, self._visit_observed, node, names, ["body"])
        return node

    def _catching(self, catches: bool, visit, *args) -> None:
        """`visit(*args)`, counting it as code whose exceptions the user's own code may
        catch (a `try` with handlers, a `with` that may suppress) when `catches`."""
        depth = self.__dict__.get("_caught", 0)
        self._caught = depth + catches
        try:
            visit(*args)
        finally:
            self._caught = depth

    def caught(self) -> bool:
        """Whether the statement being visited is inside a `try` with handlers or a `with`
        that may suppress exceptions (of the function being converted)."""
        return self.__dict__.get("_caught", 0) > 0

    def generic_visit(self, node):
        # What a statement holds is cached on it (composite.py's `anno.PLACES`): its blocks
        # are rebuilt here, and so is every block on the way to a statement that changes.
        anno.delanno(node, anno.PLACES)
        d = node.__dict__
        block_fields = _BLOCK_FIELDS.get(type(node))
        if block_fields is None:
            block_fields = _BLOCK_FIELDS[type(node)] = tuple(
                f for f in ("body", "orelse", "finalbody", "handlers")
                if f in getattr(type(node), "_fields", ()))
        own = type(self)
        # `visit` inlined, with its table (unless a subclass has a `visit` of its own)
        table = _table(own) if own.visit is StatementTransformer.visit else None
        for case in d.get("cases", ()):                  # `match`: convert inside its cases
            self.generic_visit(case)
        for field in block_fields:
            old = d.get(field)
            if not old or type(old) is not list:
                continue
            new = []
            for item in old:
                kind = type(item)
                if kind in _SCOPE_KINDS and not anno.getanno(item, anno.GENERATED, False):
                    new.append(item)
                    continue
                if table is None:
                    result = self.visit(item)
                else:
                    method = table.get(kind)
                    if method is None:
                        method = _method(own, kind)
                    if method is _unchanged:    # a statement with no blocks, not converted
                        new.append(item)
                        continue
                    result = method(self, item)
                if type(result) is list:
                    new.extend(result)
                elif result is not None:
                    new.append(result)
            d[field] = new
        return node


_BLOCK_FIELDS: dict = {}    # node class -> its fields among body/orelse/finalbody/handlers


def _table(transformer: type) -> dict:
    table = _METHODS.get(transformer)
    if table is None:
        table = _METHODS[transformer] = {}
    return table


def _method(transformer: type, kind: type):
    """`visit_<class>`, else `generic_visit` for a statement with blocks, else nothing to
    do (`_unchanged`): a statement without blocks has nothing to visit."""
    method = getattr(transformer, "visit_" + kind.__name__, None)
    if method is None:
        method = transformer.generic_visit if _has_blocks(kind) else _unchanged
    _table(transformer)[kind] = method
    return method


_SUPPRESSING = ("contextlib.suppress", "contextlib.ExitStack", "contextlib.AsyncExitStack")


def non_suppressing(expr: gast.AST, ctx: "Context") -> bool:
    """Whether a context manager is known not to swallow exceptions: one made by a
    builtin, numpy, a registered library (`calls.register_library`: a tensor runtime) or the
    standard library (except contextlib.suppress and
    the exit stacks). A user's class, or a test framework's (`pytest.raises`), may."""
    target = resolve(expr.func if isinstance(expr, gast.Call) else expr, ctx)
    if target is UNKNOWN:
        return False
    module = getattr(target, "__module__", None)
    if not isinstance(module, str):
        return False
    if f"{module}.{getattr(target, '__qualname__', '')}" in _SUPPRESSING:
        return False
    top = module.partition(".")[0]
    return top in calls.LIBRARIES or (
        top in sys.stdlib_module_names and top != "unittest")


UNKNOWN = object()


def resolve(node: gast.AST, ctx: "Context"):
    """The object a callee expression names at conversion time, or UNKNOWN."""
    kind = type(node)
    if kind is gast.Name:
        name = node.id
        if name in ctx.all_locals:
            return UNKNOWN
        namespace = ctx.namespace
        # (a ChainMap's own `in` and `[]` are Python code, with a generator per test:
        # its maps are asked in turn here, as it would)
        for scope in namespace.maps if type(namespace) is ChainMap else (namespace,):
            if name in scope:
                return scope[name]
        return getattr(builtins, name, UNKNOWN)
    if kind is gast.Attribute:
        base = resolve(node.value, ctx)
        if base is not UNKNOWN and type(base).__name__ == "module":
            return getattr(base, node.attr, UNKNOWN)
    return UNKNOWN
