"""The XLA backend's table of op rules, keyed by OpDef: each rules module's table, merged
here (an op given a rule by two modules is an error), then the rules of the ops that may
take an `rt.range` of run-time length wrapped to take one (`arrays.range_aware`)."""
from __future__ import annotations

from ..rule_tables import merged
from . import rules_decompositions, rules_draws_checks, rules_scatter
from . import rules_summary
from . import rules_gradients
from . import rules_data
from . import rules_special
from . import (arrays, rules_effects, rules_elementwise, rules_indexing, rules_math, rules_nn,
               rules_reductions, rules_shapes, rules_structure)

RULES = merged(rules_shapes.RULES, rules_elementwise.RULES, rules_reductions.RULES,
               rules_indexing.RULES, rules_effects.RULES, rules_math.RULES, rules_nn.RULES,
               rules_structure.RULES, rules_decompositions.RULES, rules_scatter.RULES,
               rules_draws_checks.RULES,
               rules_summary.RULES, rules_gradients.RULES, rules_data.RULES, arrays.RULES,
               rules_special.RULES)
RULES.update(arrays.range_aware(RULES))

HOST_OPS = (rules_effects.HOST_OPS | rules_math.HOST_OPS | rules_summary.HOST_OPS
            | rules_draws_checks.HOST_OPS)  # host callbacks
PREDRAWN = rules_effects.PREDRAWN | rules_math.PREDRAWN | rules_draws_checks.PREDRAWN  # drawn before a call
