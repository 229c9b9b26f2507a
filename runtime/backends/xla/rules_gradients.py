"""The XLA rules of the ops the gradients layer makes (runtime/gradients/): a
`CustomGradient` op is the identity on its last `n_out` inputs (the results of the
function whose gradient the user gave; the gradient was added to the graph as ops)."""
from __future__ import annotations

from ...gradients.custom_gradient import CUSTOM_GRADIENT
from ..rule_tables import registrar

RULES: dict = {}
rule = registrar(RULES)


@rule(CUSTOM_GRADIENT)
def _custom_gradient(lw, op, *args):
    return tuple(args[len(args) - op.attrs["n_out"]:])
