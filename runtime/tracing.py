"""Tracing one call of an `rt.function` into a graph: a placeholder per tensor argument,
the converted Python function run inside the graph, its results made tensors, and the
ConcreteFunction that runs them. Also the two checks a trace makes: that the function
does not call itself with the same kind of arguments while traced (the recursion stack),
and that it creates Variables on its first trace only (the variable-creation guard)."""
from __future__ import annotations

import threading
import types

import numpy as np

from . import nest, trace_errors, trace_keys, traceback_filter, unknown_dims
from .concrete import ConcreteFunction, Placeholder, to_spec, traced_python_value
from .core.graph import Graph
from .core.opdef import placeholder_op
from .core.shapes import TensorSpec
from .core.tensor import SymbolicTensor, Tensor
from .errors import StagingError
from .ops import state_ops
from .ops.core import convert_to_tensor, identity
from .ops.list_ops import StagedList
from .ops.state_ops import Variable
from .ops.tensor_array import TensorArray

VARIABLE_ADVICE = (
    "rt.function only supports singleton rt.Variables created on the first call. Make sure "
    "the rt.Variable is only created once or created outside rt.function (for example: start "
    "from None and create it when it is None, or pass it in as an argument).")

_tracing = threading.local()  # stack of (Function id, key) being traced, for recursion


def tracing_stack() -> list:
    """This thread's stack of the (Function id, key) markers of the calls being traced."""
    stack = getattr(_tracing, "stack", None)
    if stack is None:
        stack = _tracing.stack = []
    return stack


def refuse_recursion(marker, name: str, key) -> None:
    """A StagingError when (Function id, key) `marker` is being traced already in this
    thread: the function calls itself with the same kind of arguments while it is traced,
    so the trace would never end."""
    if marker in tracing_stack():
        raise StagingError(
            f"{name} calls itself with the same kind of arguments "
            f"({trace_keys.key_text(key)}) "
            "while it is being traced, so the trace would never end. A recursion on tensor "
            "values cannot be staged; write it as a loop (`while`/`for`) instead.")


class VariableGuard:
    """While inside (`with`): the Variables created in this thread, in `created`, or a
    ValueError at the first one when `allow` is False (a function may create Variables
    on its first trace only)."""

    def __init__(self, allow: bool):
        self.allow = allow
        self.created = []
        self._previous = None

    def __call__(self, var):
        if not self.allow:
            raise ValueError(VARIABLE_ADVICE)
        self.created.append(var)

    def __enter__(self):
        self._previous = state_ops.set_creation_hook(self)
        return self

    def __exit__(self, *exc):
        state_ops.set_creation_hook(self._previous)
        return False


def trace(name, sig, bound, call, marker, specs=None, allow_variables=True, backend=None):
    """(ConcreteFunction, Variables created): `call(args, kwargs)` (the converted function)
    traced into a new graph for the arguments `bound` (an inspect.BoundArguments of `sig`),
    with a placeholder per tensor leaf, shaped by `specs` (relaxed shapes) where given.
    `marker` (Function id, key) is on the tracing stack while the function runs."""
    graph = Graph(name)
    graph.building_function = True
    with graph.as_default():
        traced_args, ba, placeholders = _arguments(graph, sig, bound, specs)
        guard = VariableGuard(allow_variables)
        stack = tracing_stack()
        with guard:
            stack.append(marker)
            try:
                out = call(ba.args, ba.kwargs)
                if isinstance(out, types.GeneratorType):
                    raise NotImplementedError(
                        f"{name} is a generator function: a graph cannot pause and "
                        "resume, so generators are not supported by rt.function; return a "
                        "list, a TensorArray or a tensor instead")
                trace_errors.refuse_caught(graph, name)
            except RecursionError as e:
                raise traceback_filter.recursion_error(e, name) from None
            except Exception as e:
                unknown_dims.add_hint(e, graph)
                trace_errors.note_user_line(e, name)
                raise
            finally:
                stack.pop()
        outputs = nest.map_structure(lambda v: output_tensor(graph, v), out,
                                     expand_composites=True)
    tensors = [t for t in nest.flatten(outputs, True) if isinstance(t, Tensor)]
    graph.prune(tensors)
    cf = ConcreteFunction(name, sig, graph, traced_args, [p for p, _ in placeholders],
                          outputs, tensors, backend=backend)
    cf.inputs_specs = [ph for _, ph in placeholders]
    return cf, guard.created


def _arguments(graph, sig, bound, specs):
    """(the arguments as traced, by name; the arguments the traced call gets, bound to
    `sig`; [(placeholder tensor, Placeholder record)]), the graph's inputs set."""
    placeholders, counter = [], iter(specs) if specs is not None else None
    traced_args, call_args = {}, {}
    for pname, value in bound.arguments.items():
        traced_args[pname], call_args[pname] = _inputs(graph, pname, value, placeholders,
                                                       counter)
    graph.inputs = [t for t, _ in placeholders]
    ba = sig.bind_partial()
    ba.arguments.update(call_args)
    return traced_args, ba, placeholders


def _inputs(graph, pname, value, placeholders, relaxed_shapes):
    """(the argument as traced, the argument as the traced call gets it): a placeholder
    record and tensor per tensor leaf (appended to `placeholders`), Python values as
    they are."""
    def leaf(v):
        spec = to_spec(v, pname)
        if spec is None:
            if isinstance(v, SymbolicTensor):
                spec = TensorSpec(v.shape, v.dtype, pname)
            else:
                return traced_python_value(v), v
        if relaxed_shapes is not None:
            spec = TensorSpec(next(relaxed_shapes), spec.dtype, spec.name)
        t = placeholder_op(graph, spec.dtype, spec.shape, name=pname)
        ph = Placeholder(TensorSpec(spec.shape, spec.dtype, pname), len(placeholders))
        placeholders.append((t, ph))
        return ph, t
    if nest.is_nested(value, expand_composites=True):
        value = nest.composite_specs(value)    # a SparseTensor traced by its spec
        pairs = [leaf(v) for v in nest.flatten(value, True)]
        return (nest.pack_sequence_as(value, [p[0] for p in pairs], True),
                nest.pack_sequence_as(value, [p[1] for p in pairs], True))
    return leaf(value)


def output_tensor(graph, v):
    """A traced function's result leaf as a tensor of `graph` (None and an empty staged
    list as they are); a TypeError for a value that cannot be one."""
    if v is None:
        return None
    if isinstance(v, StagedList) and v.dtype is None:
        # Nothing was ever appended to it while tracing (that would have set its dtype)
        # and it started empty: it is the empty list at every run.
        return []
    if isinstance(v, (TensorArray, StagedList)):
        v = v.stack()
    if isinstance(v, Variable):
        v = v.read_value()
    if isinstance(v, (Tensor, np.ndarray, np.generic, *trace_keys.PRIMITIVES)):
        return identity(v if isinstance(v, Tensor) else convert_to_tensor(v), name="Identity")
    raise TypeError(f"a traced function must return tensors, Python numbers or None (possibly "
                    f"nested in lists, tuples and dicts); it returned {v!r}")
