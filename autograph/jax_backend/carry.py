"""Loop variables that always hold the same value, carried once.

Conversion gives a loop with `break` or `return` flags that move together: `break_`,
`do_return` and the flag saying the return value is defined start False and are set True
by the same `if`. Each is one more value XLA carries through every iteration (on a CPU a
scalar loop's time grows with its carry), where a JAX user writes one flag. `shared`
finds such variables: equal before the loop, and made equal by the body when they were
(value numbering of the body's jaxpr, refined to a fixed point).
"""
from __future__ import annotations

from typing import Any, Sequence

import jax
import numpy as np
from jax.extend.core import Literal


def _initial_classes(leaves: Sequence[Any]) -> list:
    """Leaves equal before the loop share a class: the same tracer, or equal constants of
    one type."""
    classes, seen = [], {}
    for leaf in leaves:
        if isinstance(leaf, jax.core.Tracer):
            key: Any = ("tracer", id(leaf))
        else:
            value = np.asarray(leaf)
            aval = jax.typeof(leaf)
            key = ("constant", value.tobytes(), str(aval), aval.weak_type) \
                if value.size <= 64 else ("large", id(leaf))
        classes.append(seen.setdefault(key, len(seen)))
    return classes


def _hashable(params: dict) -> Any:
    key = tuple(sorted(params.items()))
    hash(key)
    return key


def _outputs(closed: Any, classes: Sequence[int], ids: dict) -> list:
    """The value number of each output of `closed` when input i has number classes[i]."""
    jaxpr = closed.jaxpr
    env: dict = {}
    for v, c in zip(jaxpr.invars, classes):
        env[v] = ids.setdefault(("in", c), len(ids))
    for k, v in enumerate(jaxpr.constvars):
        env[v] = ids.setdefault(("const", k), len(ids))

    def number(atom: Any) -> int:
        if isinstance(atom, Literal):
            return ids.setdefault(("literal", repr(atom.val), str(atom.aval)), len(ids))
        return env[atom]

    for eqn in jaxpr.eqns:
        try:
            if eqn.effects:
                raise TypeError
            key: Any = (eqn.primitive.name, _hashable(eqn.params),
                        tuple(number(a) for a in eqn.invars))
            base = ids.setdefault(key, len(ids))
        except TypeError:                   # (params that do not hash: no match)
            base = ids.setdefault(("unique", id(eqn)), len(ids))
        for k, out in enumerate(eqn.outvars):
            env[out] = ids.setdefault(("output", base, k), len(ids))
    return [number(v) for v in jaxpr.outvars]


def shared(leaves: Sequence[Any], body: Any) -> list:
    """For each carried leaf, the index of the first leaf that always equals it (itself
    where none does). `body`: the closed jaxpr of one iteration, leaves to leaves."""
    classes = _initial_classes(leaves)
    while True:
        ids: dict = {}
        outs = _outputs(body, classes, ids)
        refined, seen = [], {}
        for c, o in zip(classes, outs):
            refined.append(seen.setdefault((c, o), len(seen)))
        if len(seen) == len(set(classes)):
            break
        classes = refined
    first: dict = {}
    return [first.setdefault(c, i) for i, c in enumerate(classes)]
