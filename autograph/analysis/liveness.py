"""Live names: those whose current value may still be read.

Annotates each compound statement with `live_in` (live at its entry or, for loops, at
the top of each iteration) and `live_out` (live right after it), and each `try` with
`live_at_handlers` / `live_at_finally` (read on the paths an exception takes). A converted construct
carries as state only the names it modifies that are live in or out: a name assigned
in a loop body and read only later in the same iteration stays local to the body.
"""
from __future__ import annotations

import gast

from autograph.analysis.bits import Names
from autograph.analysis.cfg import Graph


_NOTHING = frozenset()
_TRY_KEYS = (("ag_cfg_handlers", "ag_live_at_handlers"), ("ag_cfg_finally", "ag_live_at_finally"))


def annotate(graph: Graph) -> None:
    # Sets of names as bits of ints (`bits.Names`): a union or difference is one
    # operation on a machine word or a few, whatever the sets hold.
    names = Names()
    mask = names.mask
    reads = [mask(n.act.reads) if n.act.reads else 0 for n in graph.nodes]
    writes = [mask(n.act.writes) if n.act.writes else 0 for n in graph.nodes]
    graph.bits = (names, writes)      # (reaching_definitions numbers the names the same)
    live_in = [0] * len(graph.nodes)
    # A backward analysis: the nodes nearest the exit first (`pop` takes the last), so
    # that each node mostly sees its successors' final sets (the other way round, each
    # change walks back through the whole function again).
    work = list(graph.nodes)
    pending = set(work)
    while work:
        node = work.pop()
        pending.discard(node)
        out = 0
        for s in node.succ:
            out |= live_in[s.index]
        i = node.index
        new = (out & ~writes[i]) | reads[i]
        if new != live_in[i]:
            live_in[i] = new
            for p in node.pred:
                if p not in pending:
                    pending.add(p)
                    work.append(p)
    names_of = names.names
    for node in graph.nodes:
        stmt = node.ast
        if stmt is None:
            continue
        d = stmt.__dict__     # its annotations (`anno` stores them as `ag_` attributes)
        for key, result in _TRY_KEYS:        # `try`: what an exception's path reads
            entries = d.get(key)
            if entries is not None and result not in d:
                mask = 0
                for e in entries:
                    mask |= live_in[e.index]
                d[result] = names_of(mask)
        if d.get("ag_cfg_after") is node:
            d["ag_live_out"] = names_of(live_in[node.index])
            if isinstance(stmt, gast.With):
                d["ag_cfg_after_live"] = d["ag_live_out"]
        if d.get("ag_cfg_head") is node:
            d["ag_live_in"] = names_of(live_in[node.index])
