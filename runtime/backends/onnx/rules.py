"""The ONNX backend's table of op rules, keyed by OpDef (`RULES[opdef](exporter, op, input
names) -> output names`), and why an op cannot be exported (`unsupported_reason`: the
ops with no ONNX equivalent, and the `LIMITS` of those that have one). Each rules module
exports its own tables; they are merged here, an op in two of them an error.

Placeholders, constants and control flow are not in the table: the exporter's graph
walker meets them by their traits (a constant is written by `rules_layout.lower_const`)."""
from __future__ import annotations

from typing import Optional

from ...control_flow import CondDef, WhileDef
from ..rule_tables import merged
from . import rules_draws_checks
from . import rules_decompositions, rules_scatter
from . import rules_summary
from . import rules_gradients
from . import rules_data
from . import rules_special
from . import (rules_edges, rules_effects, rules_elementwise, rules_layout, rules_math,
               rules_nn, rules_structure)

RULES = merged(rules_elementwise.RULES, rules_layout.RULES, rules_effects.RULES,
               rules_math.RULES, rules_nn.RULES, rules_structure.RULES, rules_edges.RULES,
               rules_scatter.RULES, rules_gradients.RULES, rules_special.RULES)
# a reason when an op that has a rule cannot be exported (or None)
LIMITS = merged(rules_elementwise.LIMITS, rules_layout.LIMITS, rules_effects.LIMITS,
                rules_math.LIMITS, rules_nn.LIMITS, rules_edges.LIMITS, rules_scatter.LIMITS,
                rules_special.LIMITS)
NO_EQUIVALENT = merged(rules_effects.NO_EQUIVALENT, rules_elementwise.NO_EQUIVALENT,
                       rules_math.NO_EQUIVALENT, rules_nn.NO_EQUIVALENT,
                       rules_structure.NO_EQUIVALENT, rules_decompositions.NO_EQUIVALENT,
                       rules_draws_checks.NO_EQUIVALENT, rules_summary.NO_EQUIVALENT,
                       rules_data.NO_EQUIVALENT, rules_special.NO_EQUIVALENT)


def unsupported_reason(op) -> Optional[str]:
    """Why the graph operation `op` cannot be exported to ONNX, or None when it can.

    `rt.onnx.export` checks every op of a graph with it before writing anything.

    Args:
      op: an Operation of a graph (e.g. from `concrete_fn.graph.get_operations()`).

    Returns:
      A str saying why (a Python call, a variable write, an op with no ONNX equivalent),
      or None.

    >>> g = rt.function(lambda x: rt.py_function(lambda v: v, [x], rt.float32),
    ...                 input_signature=[rt.TensorSpec([], rt.float32)])
    >>> ops = g.get_concrete_function().graph.get_operations()
    >>> [(op.name, rt.onnx.unsupported_reason(op)) for op in ops]
    [('x', None), ('EagerPyFunc', 'rt.py_function calls Python'), ('Identity', None)]
    """
    d = op.opdef
    if d in NO_EQUIVALENT:
        return NO_EQUIVALENT[d]
    if d.calls_python:
        return "rt.py_function calls Python"
    if d.writes_variables:
        return "ONNX models hold no mutable state (variable writes)"
    if d.constant:
        if op.outputs[0].dtype.name == "variant":
            return "a constant TensorArray is not exported"
        return None
    if d.feedable or isinstance(d, (CondDef, WhileDef)):
        return None
    if d not in RULES:
        return "no ONNX rule for this op yet"
    limit = LIMITS.get(d)
    return limit(op) if limit is not None else None
