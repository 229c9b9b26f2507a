"""Staged control flow, one module per op: `conditionals` (`cond`) and `loops`
(`while_loop`) each hold their node's definition, its staging and its gradient rule;
`body` the sub-graph both nodes carry, `values` what travels through them. The backends
keep only their lowering (a `core.walk.Visitor`'s `cond` and `while_loop`)."""
from __future__ import annotations

from .body import Body
from .conditionals import IF, IF_STATEFUL, CondDef, cond, is_cond, stage_cond
from .loops import (GRADIENT_STACK, WHILE, WHILE_STATEFUL, WhileDef, WhileInputs, is_while,
                    stage_while, while_loop)

# The control-flow ops, for the tables of every op (a saved graph names its ops).
OPS = [IF, IF_STATEFUL, WHILE, WHILE_STATEFUL]

__all__ = ["GRADIENT_STACK", "IF", "IF_STATEFUL", "OPS", "WHILE", "WHILE_STATEFUL", "Body",
           "CondDef", "WhileDef", "WhileInputs", "cond", "is_cond", "is_while", "stage_cond",
           "stage_while", "while_loop"]
