"""Which locals may be unassigned, and which may be assigned, at each point.

Full reaching definitions would name the assignments; the converters only ask two
questions of each name — "can it be unassigned here?" and "can it be assigned here?" —
so each point carries two sets, `maybe_undefined` and `maybe_defined`. Annotates each
read `Name` with `maybe_undefined` (a local that some path leaves unassigned) and each
compound statement with `defined_on_entry` / `undefined_on_entry` (from its `cfg_before`).
"""
from __future__ import annotations

from autograph import anno
from autograph.analysis.cfg import Graph


def annotate(graph: Graph) -> None:
    local = graph.locals
    state_in = {n: None for n in graph.nodes}
    state_out = {n: None for n in graph.nodes}
    state_out[graph.entry] = (frozenset(local - graph.params), frozenset(graph.params))
    work = [n for n in graph.nodes if n is not graph.entry]
    pending = set(work)
    work.reverse()
    while work:
        node = work.pop()
        pending.discard(node)
        ins = [state_out[p] for p in node.pred if state_out[p] is not None]
        if not ins:
            continue
        undef = frozenset().union(*(s[0] for s in ins))
        defd = frozenset().union(*(s[1] for s in ins))
        state_in[node] = (undef, defd)
        act = node.act
        out = ((undef - act.writes) | (act.deletes & local),
               (defd | act.writes) - act.deletes)
        if out != state_out[node]:
            state_out[node] = out
            for s in node.succ:
                if s not in pending:
                    pending.add(s)
                    work.append(s)
    graph.maybe_undefined_reads = 0
    for node in graph.nodes:
        state = state_in[node]
        if state is None:
            continue
        for name in node.act.read_nodes:
            if name.id in state[0]:
                anno.set_(name, "maybe_undefined", True)
                graph.maybe_undefined_reads += 1
        stmt = node.ast
        if stmt is not None and anno.get(stmt, "cfg_before", None) is node:
            anno.set_(stmt, "undefined_on_entry", state[0])
            anno.set_(stmt, "defined_on_entry", state[1])
