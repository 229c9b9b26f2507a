"""A control-flow node's sub-graph: `Body`, a traced graph used as a function."""
from __future__ import annotations


class Body:
    """A traced sub-graph used as a function: `params[i]` is the placeholder fed by the
    node's i-th input (None when unused), `outputs` the tensors it returns."""

    __slots__ = ("graph", "params", "outputs")

    def __init__(self, graph, params: list, outputs: list):
        self.graph = graph
        self.params = params
        self.outputs = outputs
