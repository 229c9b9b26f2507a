"""Which locals may be unassigned, and which may be assigned, at each point.

Full reaching definitions would name the assignments; the converters only ask two
questions of each name — "can it be unassigned here?" and "can it be assigned here?" —
so each point carries two sets, `maybe_undefined` and `maybe_defined`. Annotates each
read `Name` with `maybe_undefined` (a local that some path leaves unassigned) and each
compound statement with `defined_on_entry` / `undefined_on_entry` (from its `cfg_before`).
"""
from __future__ import annotations

from autograph import anno
from autograph.analysis.bits import Names, NameSet
from autograph.analysis.cfg import Graph


def annotate(graph: Graph) -> None:
    # Sets of names as bits of ints (`bits.Names`), as in liveness.
    nodes = graph.nodes
    shared = graph.bits    # liveness's numbering of the names, read and write masks, edges
    if shared is not None:
        names, reads, writes, succ, pred = shared
    else:
        names = Names()
        reads = [names.mask(n.act.reads) if n.act.reads else 0 for n in nodes]
        writes = [names.mask(n.act.writes) if n.act.writes else 0 for n in nodes]
        succ, pred = [n.succ for n in nodes], [n.pred for n in nodes]
    mask = names.mask
    local = mask(graph.locals)
    params = mask(graph.params)
    deletes = [mask(n.act.deletes) if n.act.deletes else 0 for n in nodes]
    # Each node's state on entry and on exit, as two lists: the names maybe undefined
    # (None: the node is not reached, yet) and those maybe defined.
    undefined_in: list = [None] * len(nodes)
    defined_in: list = [0] * len(nodes)
    undefined_out: list = [None] * len(nodes)
    defined_out: list = [0] * len(nodes)
    entry = graph.entry.index
    undefined_out[entry], defined_out[entry] = local & ~params, params
    # Forward: the nodes nearest the entry first (`pop` takes the last).
    work = [i for i in range(len(nodes) - 1, -1, -1) if i != entry]
    pending = bytearray(b"\x01") * len(nodes)    # whether a node is in `work`
    pending[entry] = 0
    while work:
        i = work.pop()
        pending[i] = 0
        undef = None
        for p in pred[i]:
            u = undefined_out[p]
            if u is not None:
                if undef is None:
                    undef, defd = u, defined_out[p]
                else:
                    undef |= u
                    defd |= defined_out[p]
        if undef is None:
            continue
        undefined_in[i], defined_in[i] = undef, defd
        w, dels = writes[i], deletes[i]
        if dels:
            undef, defd = (undef & ~w) | (dels & local), (defd | w) & ~dels
        else:
            undef, defd = undef & ~w, defd | w
        if undef != undefined_out[i] or defd != defined_out[i]:
            undefined_out[i], defined_out[i] = undef, defd
            for s in succ[i]:
                if not pending[s]:
                    pending[s] = 1
                    work.append(s)
    count = 0
    bit = names.bit
    for node in nodes:
        undef = undefined_in[node.index]
        if undef and reads[node.index] & undef:     # (None: not reached)
            for name in node.act.read_nodes:
                if bit.get(name.id, 0) & undef:
                    anno.setanno(name, anno.MAYBE_UNDEFINED, True)
                    count += 1
    graph.maybe_undefined_reads = count
    for stmt in graph.compounds:
        i = anno.getanno(stmt, anno.CFG_BEFORE).index
        if undefined_in[i] is not None:
            # (sets that test membership by bit: see bits.NameSet)
            anno.setanno(stmt, anno.UNDEFINED_ON_ENTRY, NameSet(undefined_in[i], names))
            anno.setanno(stmt, anno.DEFINED_ON_ENTRY, NameSet(defined_in[i], names))
