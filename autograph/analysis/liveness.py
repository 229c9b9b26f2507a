"""Live names: those whose current value may still be read.

Annotates each compound statement with `live_in` (live at its entry or, for loops, at
the top of each iteration) and `live_out` (live right after it), and each `try` with
`live_at_handlers` / `live_at_finally` (read on the paths an exception takes). A converted construct
carries as state only the names it modifies that are live in or out: a name assigned
in a loop body and read only later in the same iteration stays local to the body.
"""
from __future__ import annotations

from autograph import anno
from autograph import nodes as gast
from autograph.analysis.bits import Names
from autograph.analysis.cfg import Graph


_NOTHING = frozenset()
_TRIES = frozenset({gast.Try, getattr(gast, "TryStar", gast.Try)})
_TRY_KEYS = ((anno.CFG_HANDLERS, anno.LIVE_AT_HANDLERS), (anno.CFG_FINALLY, anno.LIVE_AT_FINALLY))


def annotate(graph: Graph) -> None:
    # Sets of names as bits of ints (`bits.Names`): a union or difference is one
    # operation on a machine word or a few, whatever the sets hold.
    names = Names()
    mask = names.mask
    nodes = graph.nodes
    reads = [mask(n.act.reads) if n.act.reads else 0 for n in nodes]
    writes = [mask(n.act.writes) if n.act.writes else 0 for n in nodes]
    succ, pred = [n.succ for n in nodes], [n.pred for n in nodes]
    # (reaching_definitions numbers the names the same, and reads the same edges)
    graph.bits = (names, reads, writes, succ, pred)
    live_in = [0] * len(nodes)
    # A backward analysis: the nodes nearest the exit first (`pop` takes the last), so
    # that each node mostly sees its successors' final sets (the other way round, each
    # change walks back through the whole function again).
    work = list(range(len(nodes)))
    pending = bytearray(b"\x01") * len(nodes)    # whether a node is in `work`
    while work:
        i = work.pop()
        pending[i] = 0
        out = 0
        for s in succ[i]:
            out |= live_in[s]
        new = (out & ~writes[i]) | reads[i]
        if new != live_in[i]:
            live_in[i] = new
            for p in pred[i]:
                if not pending[p]:
                    pending[p] = 1
                    work.append(p)
    names_of = names.names
    for stmt in graph.compounds:     # (the graph's nodes of each are on it: see cfg)
        kind = type(stmt)
        if kind in _TRIES:        # `try`: what an exception's path reads
            for key, result in _TRY_KEYS:
                if not anno.hasanno(stmt, result):
                    mask = 0
                    for e in anno.getanno(stmt, key):
                        mask |= live_in[e.index]
                    anno.setanno(stmt, result, names_of(mask))
        live_out = names_of(live_in[anno.getanno(stmt, anno.CFG_AFTER).index])
        anno.setanno(stmt, anno.LIVE_OUT, live_out)
        if kind is gast.With:
            anno.setanno(stmt, anno.LIVE_AFTER_WITH, live_out)
        head = anno.getanno(stmt, anno.CFG_HEAD, None)
        if head is not None:
            anno.setanno(stmt, anno.LIVE_IN, names_of(live_in[head.index]))
