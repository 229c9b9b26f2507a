"""Control flow graph of one function, one node per simple statement or condition.

Compound statements get a `before` and an `after` node (no code) so that analyses can
ask "what holds on entry to this `if`/loop" and "what is live after it". The nodes are
recorded on the statement as annotations `cfg_before`, `cfg_after` and `cfg_head` (the
test of an `if`/`while`, the per-iteration target assignment of a `for`).
Exceptions: every node inside a `try` body may jump to each handler and to `finally`.
"""
from __future__ import annotations

from typing import Optional

from autograph import anno
from autograph import nodes as gast
from autograph.analysis import activity
from autograph.errors import ConversionError


class Node:
    """A node: `index` in its graph's `nodes`, the statement it belongs to (`ast`), the
    activity of its code (`act`), and its successors and predecessors as indices (the
    analyses keep their sets in lists by index)."""
    __slots__ = ("index", "ast", "act", "succ", "pred")

    def __init__(self, index: int, ast_node: Optional[gast.AST], act: activity.Activity):
        self.index, self.ast, self.act = index, ast_node, act
        self.succ: list = []
        self.pred: list = []

    def __repr__(self) -> str:
        return f"Node({self.index}, {type(self.ast).__name__})"


class Graph:
    def __init__(self, fn_node: gast.AST):
        self.fn_node = fn_node
        self.nodes: list = []
        self.compounds: list = []      # the compound statements, in the order built
        self.params = set(activity.params(fn_node))
        self.bits = None        # liveness: (its bits.Names, each node's reads, writes as
                                # bits, each node's successors, predecessors)
        # Of the function's outermost compound statements: the names they read (in their
        # bodies, and the tests of loops) but do not assign, and those they assign. The
        # functions conversion makes of them read the former from the function's scope
        # (the rest is their arguments, or their own).
        self.closure_reads: set = set()
        self.top_writes: set = set()
        self.entry = self.new(None)
        self.exit = self.new(None)

    def release(self) -> None:
        """Break the graph's reference cycles (statements <-> nodes, function <-> graph;
        nodes name each other by index) once the converters are done with it, so that it is freed at
        once rather than by a pass of the cyclic GC over every tree it reaches."""
        for node in self.nodes:
            node.ast = None
        self.nodes = []
        self.compounds = []
        self.fn_node = self.entry = self.exit = None

    def summarise(self) -> None:
        """The activity of the whole body, from its nodes' (every part of every statement
        is in exactly one node), and the function's locals."""
        body = self.body_activity = activity.Activity()
        writes, deletes, captured, declared_global, declared_nonlocal = (
            set(), set(), set(), set(), set())
        for node in self.nodes:
            act = node.act
            if act is _NO_ACTIVITY:
                continue
            writes |= act.writes
            # (the rarer sets are shared empty ones in most nodes: see activity.Activity)
            if act.deletes:
                deletes |= act.deletes
            if act.captured:
                captured |= act.captured
            if act.declared_global:
                declared_global |= act.declared_global
            if act.declared_nonlocal:
                declared_nonlocal |= act.declared_nonlocal
        writes |= self.params
        body.writes, body.deletes, body.captured = writes, deletes, captured
        body.declared_global, body.declared_nonlocal = declared_global, declared_nonlocal
        self.declared = body.declared_global | body.declared_nonlocal
        self.locals = (body.writes | body.deletes) - self.declared

    def new(self, ast_node: Optional[gast.AST], act: Optional[activity.Activity] = None) -> Node:
        node = Node(len(self.nodes), ast_node, act or _NO_ACTIVITY)
        self.nodes.append(node)
        return node


_NO_ACTIVITY = activity.Activity()     # of the nodes without code (read only, shared)


def _link(preds: list, node: Node) -> None:
    i = node.index
    for p in preds:
        if i not in p.succ:
            p.succ.append(i)
            node.pred.append(p.index)


class _Builder:
    def __init__(self, graph: Graph):
        self.g = graph
        self.loops: list = []       # (continue target, list of break sources)
        self.raise_targets: list = []   # stack of handler/finally entry lists
        self.bodies: list = []          # (writes, features) of the compound statements built
        self.top_reads: set = set()     # what the outermost one being built reads
        self.loop_levels: list = []     # len(self.bodies) when each enclosing loop began
        # `super()` reads the first parameter (converted, `super(__class__, self)`)
        args = getattr(graph.fn_node, "args", None)
        positional = (args.posonlyargs + args.args) if args is not None else ()
        self.first_param = positional[0].id if positional else None

    def node(self, ast_node: gast.AST, part: Optional[gast.AST], preds: list) -> Node:
        """A node for `part` (code: an expression, statement or list; or None), after
        `preds`. (Graph.new and _link inlined: this runs once per statement.)"""
        nodes = self.g.nodes
        if part is None:
            act = _NO_ACTIVITY
        else:
            act = activity.of(part, record_nodes=True)
            if "super" in act.reads and self.first_param:
                act.reads.add(self.first_param)
            if self.bodies:
                # What the enclosing compound statements contain: the names they assign
                # and what can keep them Python (see converters/state.blocker). The
                # innermost body only: each body adds what it found to the one around
                # it when it ends (`_body`). (To every enclosing body here, a function
                # whose constructs nest n deep, as lowered returns make them, cost n per
                # node.) Returns and jumps are recorded by their own methods.
                writes, found = self.bodies[-1]
                writes |= act.writes
                self.top_reads |= act.reads
                if act.opaque_calls:
                    found |= act.opaque_calls
                if act.has_yield or act.has_await:
                    found.add("yield")
                if act.deletes:
                    found.add("del")
        i = len(nodes)
        n = Node(i, ast_node, act)
        nodes.append(n)
        pred = n.pred
        for p in preds:
            if i not in p.succ:
                p.succ.append(i)
                pred.append(p.index)
        for targets in self.raise_targets:      # (handlers and `finally`s around it)
            for t in targets:
                _link([n], t)
        return n

    def block(self, stmts: list, preds: list) -> list:
        methods = _STMT_METHODS
        for s in stmts:
            method = methods.get(type(s))
            if method is None:
                method = methods[type(s)] = _stmt_method(type(s))
            preds = method(self, s, preds)
        return preds

    def stmt_simple(self, s, preds):
        """A statement without blocks (most of them)."""
        return [self.node(s, s, preds)]

    stmt_FunctionDef = stmt_ClassDef = stmt_AsyncFunctionDef = stmt_simple

    def stmt_Return(self, s, preds):
        if self.bodies:
            self.bodies[-1][1].add("return")
        return self.stmt_Raise(s, preds)

    def stmt_Raise(self, s, preds):
        _link([self.node(s, s, preds)], self.g.exit)
        return []

    def _jump(self) -> None:
        """A `break` or `continue` leaves every construct from its own loop inwards."""
        start = self.loop_levels[-1] if self.loop_levels else 0
        for _, found in self.bodies[start:]:
            found.add("jump")

    def stmt_Break(self, s, preds):
        n = self.node(s, s, preds)
        self._jump()
        if self.loops:
            self.loops[-1][1].append(n)
        return []

    def stmt_Continue(self, s, preds):
        n = self.node(s, s, preds)
        self._jump()
        if self.loops:
            _link([n], self.loops[-1][0])
        return []

    def stmt_unsupported(self, s, preds):
        raise ConversionError(f"line {getattr(s, 'lineno', '?')}: "
                              f"`{type(s).__name__}` is not supported")

    def _around(self, s: gast.AST, preds: list) -> Node:
        before = self.node(s, None, preds)
        anno.setanno(s, anno.CFG_BEFORE, before)
        self.g.compounds.append(s)
        return before

    def _after(self, s: gast.AST, exits: list) -> list:
        after = self.g.new(s)
        _link(exits, after)
        anno.setanno(s, anno.CFG_AFTER, after)
        return [after]

    def _body(self, s, build):
        """Run `build`, recording on `s` the names its nodes write (`modified`) and what
        they contain (`features`)."""
        writes, features = set(), set()
        loop = isinstance(s, (gast.While, gast.For))
        if loop:
            self.loop_levels.append(len(self.bodies))
        if not self.bodies:         # an outermost one: a loop's test is a function too
            self.top_reads = set(anno.getanno(s, anno.CFG_HEAD).act.reads) if loop else set()
        self.bodies.append((writes, features))
        try:
            return build()
        finally:
            self.bodies.pop()
            if self.bodies:           # what this body found, the one around it contains
                outer_writes, outer_found = self.bodies[-1]
                outer_writes |= writes
                # ("jump" is recorded on the bodies a break or continue leaves, no further)
                outer_found |= features - _JUMP if "jump" in features else features
            else:
                self.g.closure_reads |= self.top_reads - writes
                self.g.top_writes |= writes
            if loop:
                self.loop_levels.pop()
            anno.setanno(s, anno.MODIFIED, writes)
            anno.setanno(s, anno.FEATURES, features)

    def stmt_If(self, s, preds):
        before = self._around(s, preds)
        test = self.node(s, s.test, [before])
        anno.setanno(s, anno.CFG_HEAD, test)
        exits = self._body(s, lambda: self.block(s.body, [test]) + self.block(s.orelse, [test]))
        return self._after(s, exits)

    def _loop(self, s, head, body_preds):
        breaks: list = []
        self.loops.append((head, breaks))
        exits = self.block(s.body, body_preds)
        self.loops.pop()
        _link(exits, head)
        return breaks

    def stmt_While(self, s, preds):
        before = self._around(s, preds)
        test = self.node(s, s.test, [before])
        anno.setanno(s, anno.CFG_HEAD, test)
        breaks = self._body(s, lambda: self._loop(s, test, [test]))
        return self._after(s, breaks + self.block(s.orelse, [test]))

    def stmt_For(self, s, preds):
        before = self._around(s, preds)
        iterate = self.node(s, s.iter, [before])
        head = self.node(s, anno.getanno(s, anno.EXTRA_TEST, None), [iterate])
        anno.setanno(s, anno.CFG_HEAD, head)
        breaks = self._body(s, lambda: self._loop(s, head, [self.node(s, s.target, [head])]))
        return self._after(s, breaks + self.block(s.orelse, [head]))

    def stmt_With(self, s, preds):
        # A context manager may suppress an exception: any statement of the body may
        # continue right after the `with`.
        before = self._around(s, preds)
        items = self.node(s, [i for it in s.items for i in (it.context_expr, it.optional_vars) if i],
                          [before])
        after = self.g.new(s)
        anno.setanno(s, anno.CFG_AFTER, after)
        self.raise_targets.append([after])
        exits = self.block(s.body, [items])
        self.raise_targets.pop()
        _link(exits, after)
        return [after]

    def stmt_Try(self, s, preds):
        before = self._around(s, preds)
        handler_entries = [self.g.new(h, activity.of([x for x in (h.type, h.name) if x]))
                           for h in s.handlers]
        final_entry = self.g.new(s) if s.finalbody else None
        targets = handler_entries + ([final_entry] if final_entry else [])
        anno.setanno(s, anno.CFG_HANDLERS, targets)
        anno.setanno(s, anno.CFG_FINALLY, [final_entry] if final_entry else [])
        for t in targets:
            _link([before], t)
        self.raise_targets.append(targets)
        body_exits = self.block(s.body, [before])
        self.raise_targets.pop()
        if final_entry is not None:
            self.raise_targets.append([final_entry])
        exits = self.block(s.orelse, body_exits)
        for h, entry in zip(s.handlers, handler_entries):
            exits += self.block(h.body, [entry])
        if final_entry is not None:
            self.raise_targets.pop()
            _link(exits, final_entry)
            exits = self.block(s.finalbody, [final_entry])
            _link(exits, self.g.exit)     # re-raise after finally
        return self._after(s, exits)

    stmt_TryStar = stmt_Try

    def stmt_Match(self, s, preds):
        # The `match` itself stays Python; the code in its cases is analysed and converted.
        before = self._around(s, preds)
        subject = self.node(s, s.subject, [before])
        exits, test = [], subject
        for case in s.cases:
            test = self.node(case, [case.pattern] + ([case.guard] if case.guard else []), [test])
            exits += self.block(case.body, [test])
        return self._after(s, exits + [test])


_JUMP = frozenset({"jump"})
_STMT_METHODS: dict = {}     # statement class -> its _Builder method


def _stmt_method(kind: type):
    method = getattr(_Builder, "stmt_" + kind.__name__, None)
    if method is not None:
        return method
    if kind in (gast.AsyncWith, gast.AsyncFor) or "body" in kind._fields:
        return _Builder.stmt_unsupported
    return _Builder.stmt_simple


def build(fn_node: gast.AST) -> Graph:
    graph = Graph(fn_node)
    builder = _Builder(graph)
    exits = builder.block(fn_node.body, [graph.entry])
    _link(exits, graph.exit)
    graph.summarise()
    anno.setanno(fn_node, anno.CFG, graph)
    return graph
