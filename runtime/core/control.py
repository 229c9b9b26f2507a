"""The control-flow ops of the graph IR: `cond` and `while_loop` nodes, which describe
their own sub-graphs and input layout, so that every walker and backend reads them the
same way (the staging that builds them is `runtime.control_flow` and
`runtime.while_staging`).

A cond node's inputs are `[pred, *captured]`; attributes `then_body`, `else_body`
(`Body`s fed the captured inputs) and `out_specs`.
A while node's inputs are `[*loop_vars, *captured, (maximum_iterations)]`; attributes
`cond_body` and `body` (fed the loop variables then the captured inputs), `out_specs`,
`num_loop_vars` and `has_max`. `WhileInputs.of(op)` decodes that layout.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from .opdef import OpDef


class Body:
    """A traced sub-graph used as a function: `params[i]` is the placeholder fed by the
    node's i-th input (None when unused), `outputs` the tensors it returns."""

    __slots__ = ("graph", "params", "outputs")

    def __init__(self, graph, params: list, outputs: list):
        self.graph = graph
        self.params = params
        self.outputs = outputs


# (The inference functions' parameters name the attributes: saved graphs are checked
# against them.)
def _cond_specs(inputs, then_body, else_body, out_specs):
    return out_specs


def _while_specs(inputs, cond_body, body, out_specs, num_loop_vars, has_max):
    return out_specs


class CondDef(OpDef):
    """A two-way branch: `then_body` or `else_body` runs on the captured inputs."""

    __slots__ = ()

    def __init__(self, name, side_effect):
        super().__init__(name, _cond_specs, None, side_effect=side_effect, default_name="cond")
        self.body_attrs = ("then_body", "else_body")


class WhileDef(OpDef):
    """A loop: `body` runs while `cond_body` gives true (at most `maximum_iterations`)."""

    __slots__ = ()

    def __init__(self, name, side_effect):
        super().__init__(name, _while_specs, None, side_effect=side_effect,
                         default_name="while")
        self.body_attrs = ("cond_body", "body")


class WhileInputs(NamedTuple):
    """A while node's inputs by role: the initial loop values, the captured tensors, and
    the maximum number of iterations (None when unbounded)."""
    init: list
    captured: list
    maximum_iterations: Optional[object]

    @staticmethod
    def of(op, values=None) -> "WhileInputs":
        """`op`'s inputs (or `values`, one per input: names, arrays...) by role."""
        values = list(op.inputs if values is None else values)
        n = op.attrs["num_loop_vars"]
        limit = values.pop() if op.attrs["has_max"] else None
        return WhileInputs(values[:n], values[n:], limit)


IF = CondDef("StatelessIf", side_effect=False)
IF_STATEFUL = CondDef("If", side_effect=True)
WHILE = WhileDef("StatelessWhile", side_effect=False)
WHILE_STATEFUL = WhileDef("While", side_effect=True)
OPS = [IF, IF_STATEFUL, WHILE, WHILE_STATEFUL]


def is_cond(op) -> bool:
    return isinstance(op.opdef, CondDef)


def is_while(op) -> bool:
    return isinstance(op.opdef, WhileDef)
