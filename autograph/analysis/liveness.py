"""Live names: those whose current value may still be read.

Annotates each compound statement with `live_in` (live at its entry or, for loops, at
the top of each iteration) and `live_out` (live right after it), and each `try` with
`live_at_handlers` / `live_at_finally` (read on the paths an exception takes). A converted construct
carries as state only the names it modifies that are live in or out: a name assigned
in a loop body and read only later in the same iteration stays local to the body.
"""
from __future__ import annotations

from autograph import nodes as gast
from autograph.analysis.bits import Names
from autograph.analysis.cfg import Graph


_NOTHING = frozenset()
_TRIES = frozenset({gast.Try, getattr(gast, "TryStar", gast.Try)})
_TRY_KEYS = (("ag_cfg_handlers", "ag_live_at_handlers"), ("ag_cfg_finally", "ag_live_at_finally"))


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
        d = stmt.__dict__     # its annotations (`anno` stores them as `ag_` attributes)
        kind = type(stmt)
        if kind in _TRIES:        # `try`: what an exception's path reads
            for key, result in _TRY_KEYS:
                if result not in d:
                    mask = 0
                    for e in d[key]:
                        mask |= live_in[e.index]
                    d[result] = names_of(mask)
        live_out = d["ag_live_out"] = names_of(live_in[d["ag_cfg_after"].index])
        if kind is gast.With:
            d["ag_cfg_after_live"] = live_out
        head = d.get("ag_cfg_head")
        if head is not None:
            d["ag_live_in"] = names_of(live_in[head.index])
