"""Static analyses. Each one annotates nodes (see `autograph.anno`); converters only read.

`analyze(fn_node)` runs them all on one function, in dependency order:
activity (names read and written) -> cfg -> liveness, reaching definitions.
"""
from __future__ import annotations

from autograph import nodes as gast
from autograph.analysis import cfg, liveness, reaching_definitions


def analyze(fn_node: gast.FunctionDef) -> cfg.Graph:
    graph = cfg.build(fn_node)
    liveness.annotate(graph)
    reaching_definitions.annotate(graph)
    return graph
