"""Live names: those whose current value may still be read.

Annotates each compound statement with `live_in` (live at its entry or, for loops, at
the top of each iteration) and `live_out` (live right after it), and each `try` with
`live_at_handlers` / `live_at_finally` (read on the paths an exception takes). A converted construct
carries as state only the names it modifies that are live in or out: a name assigned
in a loop body and read only later in the same iteration stays local to the body.
"""
from __future__ import annotations

import gast

from autograph.analysis.cfg import Graph


_NOTHING = frozenset()


def annotate(graph: Graph) -> None:
    live_in = {n: _NOTHING for n in graph.nodes}
    work = list(reversed(graph.nodes))
    pending = set(work)
    while work:
        node = work.pop()
        pending.discard(node)
        succ = node.succ
        out = live_in[succ[0]] if len(succ) == 1 else \
            _NOTHING.union(*[live_in[s] for s in succ])
        act = node.act
        new = (out - act.writes) | act.reads if act.writes or act.reads else out
        if new != live_in[node]:
            live_in[node] = new
            for p in node.pred:
                if p not in pending:
                    pending.add(p)
                    work.append(p)
    for node in graph.nodes:
        stmt = node.ast
        if stmt is None:
            continue
        d = stmt.__dict__     # its annotations (`anno` stores them as `ag_` attributes)
        for key in ("handlers", "finally"):     # `try`: what an exception's path reads
            entries = d.get("ag_cfg_" + key)
            if entries is not None and "ag_live_at_" + key not in d:
                d["ag_live_at_" + key] = frozenset().union(*(live_in[e] for e in entries))
        if d.get("ag_cfg_after") is node:
            d["ag_live_out"] = live_in[node]
            if isinstance(stmt, gast.With):
                d["ag_cfg_after_live"] = live_in[node]
        if d.get("ag_cfg_head") is node:
            d["ag_live_in"] = live_in[node]
