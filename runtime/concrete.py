"""ConcreteFunction: one traced graph of a `Function`, callable with the signature it was
traced for, and how such a signature is printed.

A ConcreteFunction runs its (optimised) graph on a backend (`core.backend_registry`): `backend`
names it, None for the default ("numpy"); `rt.function(jit_compile=True)` asks for "xla".
Gradients through the function (`gradients.function_grad`) run on the same backend.

What the gradients and saving layers use: `python_signature`, `traced_arguments` (the
call's structure with `Placeholder`s where tensors go), `match_argument` (checks one
argument against its traced structure, filling the input arrays), `array_for` (one input
array, checked) and `run_flat` (runs the graph on one array per input).
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from . import call_runners, config, nest
from .core import dtypes, hooks
from .core.apply import in_graph
from .core.device_tensor import DeviceTensor, is_device_array
from .core.graph import current_graph
from .core.leaks import leaked_tensor_error
from .core.opdef import to_numpy
from .core.opdef import wrap as wrap_array
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import EagerTensor, Tensor
from .errors import InvalidArgumentError
from .inline import inline_graph
from .ops.state_ops import Variable
from .ops.introspection_ops import ensure_shape
from .optimize import optimize
from .trace_keys import NUMERIC_DTYPES, value_key


def _no_taped_call(cf, args, kwargs):
    raise RuntimeError("a GradientTape is open but no Function-call recorder is registered "
                       "(runtime.gradients.function_grad registers it)")


# How a ConcreteFunction is called while a GradientTape is open: the gradients layer
# (function_grad) registers `call(cf, args, kwargs)`, which records the call as one tape
# entry. This module imports nothing from the gradients layer, which sits above it.
_taped_call = _no_taped_call


def on_taped_call(call) -> None:
    """Registers how calls are made while a tape is open (see `_taped_call`)."""
    global _taped_call
    _taped_call = call


class Placeholder:
    """In a structured input signature: where a tensor goes (its spec and flat position)."""

    __slots__ = ("spec", "index")

    def __init__(self, spec: TensorSpec, index: int):
        self.spec = spec
        self.index = index


class ConcreteFunction:
    """A traced graph with the signature it was traced for.

    `args`/`kwargs` hold the call's structure with `Placeholder`s where tensors go and the
    traced Python values elsewhere; calling checks the Python values are the same and the
    tensors fit, then runs the compiled graph. `graph`, `inputs`, `outputs` and
    `structured_outputs` show what was traced. Made by `Function.get_concrete_function` (or
    a call), never by hand.

    >>> f = rt.function(lambda x: x + 1, input_signature=[rt.TensorSpec([None], rt.int32)])
    >>> cf = f.get_concrete_function()
    >>> cf
    <ConcreteFunction <lambda>(x)>
    >>> cf.inputs
    [Tensor("x:0", shape=(None,), dtype=int32)]
    >>> print(cf(rt.constant([1, 2])))
    rt.Tensor([2 3], shape=(2,), dtype=int32)
    """

    def __init__(self, name, python_signature, graph, bound_args, placeholders, outputs_struct,
                 output_tensors, backend=None):
        self.name = name
        self.python_signature = python_signature
        self.graph = graph
        # param name -> the argument's structure (Placeholders where tensors go, traced values)
        self.traced_arguments = bound_args
        self.inputs = placeholders
        self.structured_outputs = outputs_struct
        self.outputs = output_tensors
        self.inputs_specs = []  # the Placeholder records of `inputs`, in order
        self.backend = backend  # the backend's name (core.backend_registry); None: the default
        # Made once by gradients.function_grad when the function is called under a tape:
        # its compiled forward and backward plans, and the Variables its graph reads.
        self.tape_backward = None
        self.variables_read = None
        # (eager tensor, its Const) pairs of the float eager tensors the graph reads, made
        # outside it: a tape around a call differentiates them too (gradients.function_grad)
        self.eager_sources = None
        self._plan = None
        self._opt = None

    # -- signature ----------------------------------------------------------------------
    @property
    def structured_input_signature(self):
        args, kwargs = [], {}
        for p in self.python_signature.parameters.values():
            if p.name not in self.traced_arguments:
                continue
            v = _as_specs(self.traced_arguments[p.name])
            if p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = v
            elif p.kind == p.VAR_POSITIONAL:
                args.extend(v)
            elif p.kind == p.VAR_KEYWORD:
                kwargs.update(v)
            else:
                args.append(v)
        return tuple(args), kwargs

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        names = []
        tensor_args = []
        for p in self.python_signature.parameters.values():
            if p.name not in self.traced_arguments:
                continue
            v = self.traced_arguments[p.name]
            leaves = nest.flatten(v, expand_composites=True)
            if any(isinstance(x, Placeholder) for x in leaves):
                names.append(p.name)
                tensor_args.append((p.name, v))
            else:
                names.append(f"{p.name}={_python_text(v)}")
        lines = [f"{self.name}({', '.join(names)})"]
        if tensor_args:
            lines.append("  Args:")
            for name, v in tensor_args:
                lines.append(f"    {name}: {_describe(v)}")
        lines.append("  Returns:")
        lines.append(f"    {_describe(self.structured_outputs)}")
        return "\n".join(lines)

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self):
        return f"<ConcreteFunction {self.name}{_short_sig(self)}>"

    # -- calling ------------------------------------------------------------------------
    @property
    def optimized_graph(self):
        """The graph as it runs: `graph` after the optimisation passes (constant folding,
        arithmetic simplification, common subexpressions, dead code; runtime/optimize).
        `graph` stays the graph as traced."""
        return self._optimized()[0]

    def graph_for(self, optimized: bool = False):
        """The traced graph, or with `optimized=True` the optimised one that runs."""
        return self.optimized_graph if optimized else self.graph

    @property
    def variables(self) -> tuple:
        """The Variables the function's graph reads or writes (its sub-graphs too), in the
        order the graph first uses them (TensorFlow's `ConcreteFunction.variables`).

        >>> v = rt.Variable(1.0)
        >>> cf = rt.function(lambda x: v.assign_add(x)).get_concrete_function(rt.constant(1.0))
        >>> cf.variables == (v,)
        True
        """
        return tuple(_graph_variables(self.graph, {}).values())

    @property
    def trainable_variables(self) -> tuple:
        """Those of `variables` made with trainable=True."""
        return tuple(v for v in self.variables if v.trainable)

    def _optimized(self):
        """(graph, input placeholders, output tensors) of the optimised graph, made once."""
        opt = self._opt
        if opt is None:
            leaves = [t for t in nest.flatten(self.structured_outputs, expand_composites=True)
                      if isinstance(t, Tensor)]
            if not config.graphs_optimized():
                opt = (self.graph, list(self.inputs), leaves)
            elif [id(t) for t in self.graph.inputs] == [id(t) for t in self.inputs]:
                g, outs = optimize(self.graph, leaves)
                opt = (g, list(g.inputs), outs)
            else:  # inputs the graph does not list: run it as traced
                opt = (self.graph, list(self.inputs), leaves)
            self._opt = opt
        return opt

    def _compiled(self):
        plan = self._plan
        if plan is None:
            graph, inputs, outputs = self._optimized()
            plan = self._plan = graph.compile(inputs, outputs, backend=self.backend)
        return plan

    def __call__(self, *args, **kwargs):
        if current_graph() is not None:  # called while another function is traced
            return self.inline(self.graph_inputs(args, kwargs))
        if hooks.recording.tapes:  # an open GradientTape records the call as one entry
            return _taped_call(self, args, kwargs)
        return self.run_flat(self._bind_inputs(args, kwargs, self.array_for))

    def _bind_inputs(self, args, kwargs, fill) -> list:
        """One input value per `inputs` from a call's arguments, each made by
        `fill(placeholder record, value, parameter name)` (`array_for`, `tensor_for`)."""
        try:
            return self._structured_inputs(args, kwargs, fill)
        except TypeError:
            # As in TensorFlow: tensors alone, positionally, fill the tensor inputs in order
            # (the traced Python arguments are already part of the graph).
            if kwargs or len(args) != len(self.inputs) or not all(
                    isinstance(a, (Tensor, np.ndarray, Variable)) for a in args):
                raise
        return [fill(ph, a, ph.spec.name) for ph, a in zip(self.inputs_specs, args)]

    def _structured_inputs(self, args, kwargs, fill) -> list:
        try:
            bound = self.python_signature.bind_partial(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}{_short_sig(self)}: {e}") from None
        values = [None] * len(self.inputs)
        for pname, traced in self.traced_arguments.items():
            if pname in bound.arguments:
                self.match_argument(pname, traced, bound.arguments[pname], values, fill)
            elif any(isinstance(x, Placeholder)
                     for x in nest.flatten(traced, expand_composites=True)):
                raise TypeError(f"{self.name}{_short_sig(self)}: missing a required tensor "
                                f"argument: '{pname}'")
        return values

    # -- called while another function is traced -----------------------------------------
    def graph_inputs(self, args, kwargs) -> list:
        """The tensors of the graph being built that a call's arguments give the inputs,
        one per `inputs`, checked as a call checks them (`tensor_for`)."""
        return self._bind_inputs(args, kwargs, self.tensor_for)

    def inline(self, tensors: list):
        """The function's graph copied into the graph being built, fed `tensors` (one per
        `inputs`, from `graph_inputs`): its structured outputs as tensors of that graph.
        As TensorFlow inlines a function called from a function: gradients, backends and
        export see the callee's ops (runtime/inline.py)."""
        leaves = [t for t in nest.flatten(self.structured_outputs, expand_composites=True)
                  if isinstance(t, Tensor)]
        feeds = {id(p): t for p, t in zip(self.inputs, tensors)}
        copies = dict(zip([id(t) for t in leaves],
                          inline_graph(self.graph, feeds, leaves, self.name)))
        return nest.map_structure(lambda t: copies[id(t)] if isinstance(t, Tensor) else t,
                                  self.structured_outputs, expand_composites=True)

    def tensor_for(self, ph: Placeholder, value, pname):
        """The input tensor, in the graph being built, for Placeholder record `ph` from a
        call's `value`: checked against its spec as `array_for` checks an array. Where the
        static shape is less specific than the spec, the graph checks it when it runs (an
        EnsureShape): the callee's graph may rely on the spec's shape."""
        spec = ph.spec
        graph = current_graph()
        if isinstance(value, Variable):
            value = value.read_value()
        if isinstance(value, Tensor):
            if value.dtype is not spec.dtype:
                raise self._dtype_error(ph, value.dtype)
            shape = value.shape
        else:
            arr = self._converted(ph, value, pname)
            value, shape = EagerTensor(arr, spec.dtype), TensorShape(np.shape(arr))
        if not spec.shape.is_compatible_with(shape):
            raise self._shape_error(ph, shape)
        t = in_graph(graph, value)
        if shape.merge_with(spec.shape) != shape:
            t = ensure_shape(t, spec.shape)
        return t

    @functools.cached_property
    def private_arrays(self) -> bool:
        """Whether the arrays given to `run_flat` must be the function's own: a backend
        whose results may share memory with its inputs (the numpy executor returns an
        input as it came) needs copies of the user's arrays."""
        return getattr(self._compiled(), "copies_inputs", True)

    @functools.cached_property
    def takes_device_arrays(self) -> bool:
        """Whether the backend takes device arrays (jax arrays: a DeviceTensor's, a
        user's) as inputs as they are, and gives its results as device arrays
        (`run_device`): the XLA backend's plans."""
        return getattr(self._compiled(), "takes_device_arrays", False)

    def run_flat(self, arrays):
        """Runs the graph on one array per input (in `inputs` order, already checked);
        returns the structured outputs."""
        plan = self._plan
        if plan is None:
            plan = self._compiled()
        results = getattr(plan, "run_device", plan)(*arrays)
        pack = self._pack
        return (pack if pack is not None else self._packer())(results)

    _pack = None

    def _packer(self):
        """A function of the plan's results giving the structured outputs, made once: a
        tensor, or a plain tuple or list of tensors and Python values, without walking
        the structure on each call."""
        out = self.structured_outputs
        plan = self._plan if self._plan is not None else self._compiled()
        device = hasattr(plan, "run_device")
        wrap = call_runners.device_result if device else wrap_array
        if isinstance(out, Tensor):
            dtype = out.dtype
            if device:
                pack = call_runners.device_packer(dtype)
            else:
                def pack(results):
                    return wrap(results[0], dtype)
        elif type(out) in (tuple, list) and not any(
                nest.is_nested(t, expand_composites=True) for t in out):
            kind, slots = type(out), []
            for t in out:
                slots.append((True, t.dtype) if isinstance(t, Tensor) else (False, t))

            def pack(results):
                it = iter(results)
                return kind([wrap(next(it), v) if is_tensor else v for is_tensor, v in slots])
        else:
            def pack(results):
                it = iter(results)
                return nest.map_structure(
                    lambda t: wrap(next(it), t.dtype) if isinstance(t, Tensor) else t,
                    out, expand_composites=True)
        self._pack = pack
        return pack

    def positional_runner(self, kinds, note):
        """A function of a call's positional arguments running the graph on them, for
        calls whose arguments are, by position, `kinds`: 0 a Python value (traced in the
        graph), 1 an EagerTensor, 2 an array given as it is (numpy, a numpy scalar, a
        jax array the backend takes), 3 one copied into a numpy array first
        (`private_arrays`), 4 a DeviceTensor whose device array the backend takes. The
        caller has matched the arguments to the trace (`Function`'s cache of runners,
        keyed by their types, dtypes and shapes). Each run calls `note(False)` first (the
        Function's log of recent calls)."""
        if type(self).run_flat is not ConcreteFunction.run_flat:   # (a loaded function)
            def run(args):
                note(False)
                return self.run_flat(call_runners.picked(args, kinds))
            return run
        plan = self._compiled() if self._plan is None else self._plan
        pack = self._pack if self._pack is not None else self._packer()
        return call_runners.positional_runner(plan, pack, self.structured_outputs, kinds,
                                             note)

    def match_argument(self, pname, traced, value, arrays, fill=None):
        """Checks argument `pname`'s `value` against its traced structure `traced` (from
        `traced_arguments`): Python values must be the traced ones, tensors must fit their
        spec; puts each tensor's array (`fill`'s value: `array_for` by default) at its
        input index in `arrays`. TypeError (or InvalidArgumentError) when it does not fit."""
        if isinstance(traced, Placeholder):
            arrays[traced.index] = (fill or self.array_for)(traced, value, pname)
            return
        if nest.is_composite(traced):
            if not traced._rt_is_compatible_with(value):
                raise TypeError(f"{self.name}: argument {pname} is {_describe(value)}, but the "
                                f"function was traced for {_describe(traced)}")
            for t, v in zip(traced._rt_components(), value._rt_components()):
                self.match_argument(pname, t, v, arrays, fill)
            return
        if nest.is_nested(traced):
            if not nest.same_structure(traced, value, expand_composites=True) and not (
                    isinstance(traced, (list, tuple)) and isinstance(value, (list, tuple))
                    and len(traced) == len(value)):
                raise TypeError(f"{self.name}: argument {pname} has structure "
                                f"{nest.structure_repr(value)}, but the function was traced "
                                f"for {nest.structure_repr(traced)}")
            for t, v in zip(nest.flatten(traced), nest.flatten(value)):   # composites whole
                self.match_argument(pname, t, v, arrays, fill)
            return
        if isinstance(traced, Variable):
            if value is not traced:
                raise TypeError(f"{self.name}: argument {pname} must be the Variable the "
                                f"function was traced with ({traced.name})")
            return
        if isinstance(traced, WeakArg):
            same = traced.ref() is value
        elif _is_primitive(traced):
            same = value_key(traced) == value_key(value)    # -0.0 is not 0.0; NaN is NaN
        else:
            same = traced is value
        if not same:
            raise TypeError(
                f"ConcreteFunction {self.name}{_short_sig(self)} was constructed with "
                f"{type(traced).__name__} value {traced!r} in {pname}, but was called with "
                f"{type(value).__name__} value {value!r}.")

    def array_for(self, ph: Placeholder, value, pname):
        """The input array for Placeholder record `ph` from a call's `value`, checked
        against its spec (InvalidArgumentError naming the input when it does not fit)."""
        spec = ph.spec
        if isinstance(value, Variable):
            value = value.read_value()
        if isinstance(value, EagerTensor):
            if value.dtype is not spec.dtype:
                raise self._dtype_error(ph, value.dtype)
            arr = (value.device_array if type(value) is DeviceTensor and self.takes_device_arrays
                   else value._value)
        elif isinstance(value, Tensor):
            raise leaked_tensor_error(value)
        elif is_device_array(value):    # a jax array: as it is where the backend takes it
            if self.takes_device_arrays and value.dtype == spec.dtype.np_dtype:
                arr = value
            else:
                arr = self._converted(ph, np.asarray(value), pname)
        else:
            arr = self._converted(ph, value, pname)
        if not spec.shape.is_compatible_with(np.shape(arr)):
            raise self._shape_error(ph, TensorShape(np.shape(arr)))
        return arr

    def _converted(self, ph: Placeholder, value, pname) -> np.ndarray:
        """A Python or numpy `value` as an array of `ph`'s dtype (InvalidArgumentError when
        it cannot be one)."""
        try:
            return to_numpy(value, ph.spec.dtype)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(
                f"cannot compute {self.name}: input #{ph.index}(zero-based) ({pname}) "
                f"cannot be a {ph.spec.dtype.name} tensor: {e}") from None

    def _dtype_error(self, ph: Placeholder, dtype) -> InvalidArgumentError:
        return InvalidArgumentError(
            f"cannot compute {self.name} as input #{ph.index}(zero-based) was expected "
            f"to be a {ph.spec.dtype.name} tensor but is a {dtype.name} tensor")

    def _shape_error(self, ph: Placeholder, shape) -> InvalidArgumentError:
        return InvalidArgumentError(
            f"cannot compute {self.name} as input #{ph.index}(zero-based) was expected to "
            f"have shape {ph.spec.shape} but has shape {shape}")



class WeakArg:
    """A traced Python object argument, held weakly so the trace does not keep it alive."""

    __slots__ = ("ref",)

    def __init__(self, obj):
        self.ref = weakref.ref(obj)

    def __repr__(self):
        obj = self.ref()
        return repr(obj) if obj is not None else "<deleted object>"


def traced_python_value(v):
    """How a trace keeps a Python argument: primitives, containers and Variables as they
    are, other objects weakly where they allow it."""
    if _is_primitive(v) or isinstance(v, Variable) or nest.is_nested(v):
        return v
    try:
        return WeakArg(v)
    except TypeError:
        return v


def _graph_variables(graph, found: dict) -> dict:
    """{id: Variable} of the Variables `graph` (and its control-flow bodies) reads or writes."""
    for op in graph.operations:
        d = op.opdef
        if d.reads_variables or d.writes_variables:
            var = op.attrs.get("variable")
            if isinstance(var, Variable):
                found.setdefault(id(var), var)
        if d.body_attrs:
            for body in d.bodies(op):
                _graph_variables(body.graph, found)
    return found


def _is_primitive(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str, bytes, complex))


def _spec_of(v):
    return v.spec if isinstance(v, Placeholder) else v


def _as_specs(v):
    """A traced argument with TensorSpecs for its Placeholders, and the spec of each
    composite (an rt.SparseTensorSpec) for the composite."""
    return nest.map_structure(_spec_of, nest.composite_specs(v))


def _python_text(v) -> str:
    return repr(v)


def _describe(v) -> str:
    """An argument or a result as the signature shows it: `float32 Tensor, shape=(2,)`."""
    if isinstance(v, Placeholder):
        v = v.spec
    if nest.is_composite(v):
        spec = v._rt_spec() if hasattr(v, "_rt_spec") else v
        return repr(spec)
    if isinstance(v, (Tensor, TensorSpec)):
        return f"{v.dtype.name} Tensor, shape={v.shape}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_describe(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    return repr(v)


def _short_sig(cf) -> str:
    return "(" + ", ".join(p for p in cf.python_signature.parameters) + ")"


def to_spec(value, name=None):
    """The TensorSpec a call argument leaf stands for, or None when it is not a tensor."""
    if isinstance(value, TensorSpec):
        return TensorSpec(value.shape, value.dtype, value.name or name)
    if isinstance(value, EagerTensor):
        return TensorSpec(value.shape, value.dtype, name)
    if isinstance(value, np.ndarray):
        return TensorSpec(value.shape, dtypes.as_dtype(value.dtype), name)
    if isinstance(value, np.generic) and value.dtype in NUMERIC_DTYPES:  # np.float32(1.0)
        return TensorSpec((), NUMERIC_DTYPES[value.dtype], name)
    if is_device_array(value):      # as TensorFlow keys numpy arrays: by dtype and shape
        return TensorSpec(value.shape, dtypes.as_dtype(value.dtype), name)
    return None
