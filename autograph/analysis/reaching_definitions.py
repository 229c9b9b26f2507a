"""Which locals may be unassigned, and which may be assigned, at each point.

Full reaching definitions would name the assignments; the converters only ask two
questions of each name — "can it be unassigned here?" and "can it be assigned here?" —
so each point carries two sets, `maybe_undefined` and `maybe_defined`. Annotates each
read `Name` with `maybe_undefined` (a local that some path leaves unassigned) and each
compound statement with `defined_on_entry` / `undefined_on_entry` (from its `cfg_before`).
"""
from __future__ import annotations

from autograph.analysis.bits import Names, NameSet
from autograph.analysis.cfg import Graph


def annotate(graph: Graph) -> None:
    # Sets of names as bits of ints (`bits.Names`), as in liveness.
    nodes = graph.nodes
    shared = graph.bits          # liveness's numbering of the names and write masks
    if shared is not None:
        names, writes = shared
    else:
        names = Names()
        writes = [names.mask(n.act.writes) if n.act.writes else 0 for n in nodes]
    mask = names.mask
    local = mask(graph.locals)
    params = mask(graph.params)
    deletes = [mask(n.act.deletes) if n.act.deletes else 0 for n in nodes]
    state_in: list = [None] * len(nodes)
    state_out: list = [None] * len(nodes)
    state_out[graph.entry.index] = (local & ~params, params)
    work = [n for n in nodes if n is not graph.entry]
    pending = set(work)
    work.reverse()
    while work:
        node = work.pop()
        pending.discard(node)
        undef = defd = 0
        seen = False
        for p in node.pred:
            out = state_out[p.index]
            if out is not None:
                undef |= out[0]
                defd |= out[1]
                seen = True
        if not seen:
            continue
        i = node.index
        state_in[i] = (undef, defd)
        out = ((undef & ~writes[i]) | (deletes[i] & local), (defd | writes[i]) & ~deletes[i])
        if out != state_out[i]:
            state_out[i] = out
            for s in node.succ:
                if s not in pending:
                    pending.add(s)
                    work.append(s)
    graph.maybe_undefined_reads = 0
    bit = names.bit
    for node in nodes:
        state = state_in[node.index]
        if state is None:
            continue
        undef = state[0]
        if undef:
            for name in node.act.read_nodes:
                if bit.get(name.id, 0) & undef:
                    name.ag_maybe_undefined = True
                    graph.maybe_undefined_reads += 1
        stmt = node.ast
        if stmt is not None and stmt.__dict__.get("ag_cfg_before", None) is node:
            # (sets that test membership by bit: see bits.NameSet)
            stmt.ag_undefined_on_entry = NameSet(undef, names)
            stmt.ag_defined_on_entry = NameSet(state[1], names)
