"""What `rt.saved.load` returns: the `Loaded` object, its `LoadedFunction`s, and the
`GuardedFunction`s of a load with run guards (`RunGuards`)."""
from __future__ import annotations

from typing import NamedTuple, Optional

from ..concrete import ConcreteFunction
from ..core import hooks
from ..core.graph import current_graph
from ..errors import InvalidArgumentError


class RunGuards(NamedTuple):
    """What a loaded graph may do when it runs (see `load`); the executor checks them.

    A named tuple, the one `rt.saved.load` makes from its arguments and gives each
    GuardedFunction as `run_guards`.

    Args:
      max_loop_iterations: the most iterations of all loops of one call, or None.
      deadline_seconds: the most seconds one call may take (checked at each loop
        iteration), or None.
      max_elements: the most elements one kernel may allocate from sizes computed while
        running, or None.

    >>> rt.saved.RunGuards(max_loop_iterations=100, deadline_seconds=None, max_elements=None)
    RunGuards(max_loop_iterations=100, deadline_seconds=None, max_elements=None)
    """
    max_loop_iterations: Optional[int]
    deadline_seconds: Optional[float]
    max_elements: Optional[int]


class Loaded:
    """What `rt.saved.load` returns: one attribute per saved function, and the restored state.

    Attributes:
      signatures: a dict {name: ConcreteFunction} of the saved signatures.
      variables: the restored Variables, in the saved order.
      trainable_variables: those of them saved with trainable=True.

    Calling it calls a saved `__call__` (an rt.Module's, for example); without one, it
    raises TypeError.

    >>> import tempfile, os
    >>> class Scale(rt.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = rt.Variable(2.0)
    ...     @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    ...     def __call__(self, x):
    ...         return x * self.w
    >>> path = os.path.join(tempfile.mkdtemp(), "m")
    >>> rt.saved.save(Scale(), path)
    >>> loaded = rt.saved.load(path)
    >>> print(loaded(rt.constant([1.0, 2.0])))
    rt.Tensor([2. 4.], shape=(2,), dtype=float32)
    >>> loaded.trainable_variables
    [<rt.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>]
    """

    def __init__(self, objects: dict, signatures: dict, variables: list):
        self.signatures = signatures
        self.variables = variables
        self._names = sorted(objects)
        for name, f in objects.items():
            setattr(self, name, f)

    @property
    def trainable_variables(self) -> list:
        """The restored Variables saved with trainable=True."""
        return [v for v in self.variables if v.trainable]

    def __call__(self, *args, **kwargs):
        """Calls the saved `__call__` (an rt.Module's, for example)."""
        f = self.__dict__.get("__call__")
        if f is None:
            raise TypeError("this saved object is not callable: no __call__ function was saved")
        return f(*args, **kwargs)

    def __repr__(self):
        return (f"<rt.saved.Loaded functions={self._names} "
                f"signatures={sorted(self.signatures)}>")


class GuardedFunction(ConcreteFunction):
    """A loaded concrete function that runs under its `run_guards` (see `rt.saved.load`).

    Its plan checks the guards. It runs only on its own: traced into another function,
    compiled with XLA or differentiated, its graph would run where the guards do not
    follow, so that raises InvalidArgumentError.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m")
    >>> f = rt.function(lambda x: x + 1, input_signature=[rt.TensorSpec([], rt.int32)])
    >>> rt.saved.save({"inc": f}, path)
    >>> cf = rt.saved.load(path, max_loop_iterations=10).signatures["serving_default"]
    >>> type(cf).__name__, cf.run_guards.max_loop_iterations
    ('GuardedFunction', 10)
    >>> print(cf(rt.constant(1)))
    rt.Tensor(2, shape=(), dtype=int32)
    """

    run_guards: Optional[RunGuards] = None

    def _compiled(self):
        plan = self._plan
        if plan is None:
            graph, inputs, outputs = self._optimized()
            graph.run_guards = self.run_guards
            plan = self._plan = graph.compile(inputs, outputs, backend=self.backend)
        return plan

    def __call__(self, *args, **kwargs):
        self._alone()
        return super().__call__(*args, **kwargs)

    def run_flat(self, arrays):
        self._alone()
        return super().run_flat(arrays)

    def inline(self, tensors):
        self._alone()
        return super().inline(tensors)

    def _alone(self):
        if self.backend is not None or hooks.recording.tapes or current_graph() is not None:
            raise InvalidArgumentError(
                f"{self.name}: a function loaded with run guards (max_loop_iterations, "
                "deadline_seconds, max_elements) runs only when called on its own with the "
                "numpy backend, not traced into another function, compiled with XLA or under "
                "a GradientTape (load it with max_elements=None and no other guard for that)")


class LoadedFunction:
    """A saved function: calls go to the first of its concrete functions that takes the arguments.

    As a traced `rt.function` picks its trace. Arguments none of them takes raise
    TypeError listing the saved signatures (`pretty_printed_concrete_signatures()`).

    Attributes:
      concrete_functions: the loaded ConcreteFunctions, in the saved order.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m")
    >>> @rt.function
    ... def double(x):
    ...     return x * 2
    >>> _ = double(rt.constant(1.0)), double(rt.constant([1, 2]))
    >>> rt.saved.save({"double": double}, path)
    >>> loaded = rt.saved.load(path)
    >>> loaded.double
    <rt.saved.LoadedFunction double>
    >>> print(loaded.double(rt.constant([3, 4])))
    rt.Tensor([6 8], shape=(2,), dtype=int32)
    """

    def __init__(self, name: str, concrete_functions: list):
        self.__name__ = name
        self.concrete_functions = concrete_functions

    def __call__(self, *args, **kwargs):
        if len(self.concrete_functions) == 1:
            return self.concrete_functions[0](*args, **kwargs)
        staged = current_graph() is not None    # called while a function is traced
        for cf in self.concrete_functions:
            values = _matched(cf, args, kwargs, cf.tensor_for if staged else cf.array_for)
            if values is not None:
                return cf.inline(values) if staged else cf.run_flat(values)
        raise TypeError(f"{self.__name__}: no saved concrete function takes these arguments; "
                        "it was saved for:\n" + self.pretty_printed_concrete_signatures())

    def pretty_printed_concrete_signatures(self) -> str:
        return "\n\n".join(cf.pretty_printed_signature() for cf in self.concrete_functions)

    def __repr__(self):
        return f"<rt.saved.LoadedFunction {self.__name__}>"


def _matched(cf, args, kwargs, fill):
    """The input values (made by `fill`: arrays, or tensors of the graph being built) when
    `cf` accepts the call, else None."""
    try:
        bound = cf.python_signature.bind_partial(*args, **kwargs)
        arrays = [None] * len(cf.inputs)
        for pname, traced in cf.traced_arguments.items():
            if pname in bound.arguments:
                cf.match_argument(pname, traced, bound.arguments[pname], arrays, fill)
        if any(a is None for a in arrays):
            return None
        return arrays
    except (TypeError, InvalidArgumentError):
        return None
