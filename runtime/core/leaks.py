"""Errors for symbolic tensors used outside the graph that made them (leaked out of a
trace through a global, a list or an attribute)."""
from __future__ import annotations

from ..errors import InvalidArgumentError


def _origin(t) -> str:
    loc = t.op.location
    return f" (created at {loc[0]}:{loc[1]} in {loc[2]})" if loc else ""


def leaked_tensor_error(t) -> TypeError:
    return TypeError(
        f"The symbolic tensor '{t.name}' created by node '{t.op.name}'{_origin(t)} belongs to "
        f"the graph '{t.graph.name}' and was used outside it, where it has no value. It "
        "probably leaked out of a traced function through a global, a list or an attribute. "
        "Return it from the function instead and use the returned value.")


def foreign_tensor_error(t, graph) -> TypeError:
    return TypeError(
        f"The graph '{graph.name}' captured an external symbolic tensor: '{t.name}' created by "
        f"node '{t.op.name}'{_origin(t)} belongs to another graph ('{t.graph.name}'). A graph "
        "cannot take symbolic tensors from another graph as inputs. Pass the value as an "
        "argument or return it from the function that made it.")


def no_value_error(t):
    """A backend needs `t` and has no value for it: a placeholder not fed, or a tensor
    of another graph (an InvalidArgumentError to raise)."""
    if t.op.opdef.feedable:
        return InvalidArgumentError(
            f"You must feed a value for placeholder tensor '{t.op.name}' with dtype "
            f"{t.dtype.name} and shape {t.shape}", t.op.name)
    return InvalidArgumentError(
        f"the graph needs '{t.name}', which has no value: a placeholder that was not "
        "fed, or a tensor from another graph")

