"""`rt.function`: a Python function turned into a `Function` that converts it with
autograph, traces it into graphs, caches the graphs (ConcreteFunctions) by input
signature and runs them.

The cache key of a call (SPEC): a tensor by dtype and shape, a Python primitive by value,
a Variable by identity, nested lists/tuples/dicts/namedtuples by structure and leaves, any
other object by identity (held weakly: the entries go when the object does).
"""
from __future__ import annotations

import collections
import functools
import inspect
import logging
import threading
import types
import weakref
from typing import Callable, Optional

import autograph as ag
import numpy as np
from autograph import experimental as ag_experimental

from . import (config, distribute, nest, signature, trace_errors, trace_keys,
               traceback_filter, unknown_dims)
from .concrete import ConcreteFunction, Placeholder, to_spec, traced_python_value
from .core import backend_registry, dtypes, hooks
from .core.graph import Graph, current_graph
from .core.opdef import placeholder_op
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import EagerTensor, SymbolicTensor, Tensor
from .errors import StagingError
from .gradients import function_grad
from .ops import state_ops
from .ops.core import convert_to_tensor, identity
from .ops.list_ops import StagedList
from .ops.state_ops import Variable
from .ops.tensor_array import TensorArray

logger = logging.getLogger("runtime")

_NUMERIC_DTYPES = {d.np_dtype: d for d in dtypes.ALL if not d.is_string}
_tracing = threading.local()  # stack of (Function id, key) being traced, for recursion

VARIABLE_ADVICE = (
    "rt.function only supports singleton rt.Variables created on the first call. Make sure "
    "the rt.Variable is only created once or created outside rt.function (for example: start "
    "from None and create it when it is None, or pass it in as an argument).")


def function(func: Optional[Callable] = None, *, input_signature=None, autograph: bool = True,
             reduce_retracing: bool = False, jit_compile=None, experimental_relax_shapes=None,
             experimental_autograph_options=None, name: Optional[str] = None,
             backend: Optional[str] = None, data_parallel=None):
    """Makes `func` a `Function` (also a decorator, with or without arguments).

    Each call with a new input signature (dtypes and shapes of the tensor arguments, values
    of the Python ones) traces `func` into a graph (a ConcreteFunction), converting its
    Python `if`/`while`/`for` with autograph; calls that match run the graph.

    Where the graphs run (`core.backend_registry`): `jit_compile=True` compiles each concrete
    function with XLA through JAX (the "xla" backend, runtime/backends/xla/backend.py; without JAX
    installed, an ImportError naming the install command here, at decoration); False or
    None run on the default numpy backend. `backend` (runtime-specific, mostly for tests
    and experiments) names a registered backend directly; it cannot be combined with
    `jit_compile=True`. Gradients through the function run on the same backend.

    Args:
      func: the Python function (omit it to get a decorator).
      input_signature: a (nested) list of TensorSpec: one trace for all calls.
      autograph: convert Python control flow with autograph (default True).
      reduce_retracing: trace with relaxed (None) dimensions after shapes vary.
      jit_compile: True compiles with XLA through JAX.
      experimental_relax_shapes: the older name of reduce_retracing.
      experimental_autograph_options: `autograph.experimental.Feature` values (one, or a
        list/tuple) handed to the converter (`autograph.to_graph`'s
        `experimental_optional_features`), as in TensorFlow.
      name: the function's name (default func's).
      backend: the name of a registered backend to run on.
      data_parallel: True (or an `rt.distribute.DataParallel`), with jit_compile=True,
        splits each call's batch over the devices JAX sees (runtime/distribute.py).

    Returns:
      A `Function`, or a decorator making one when func is None.

    Raises:
      TypeError: for a bad input_signature or experimental_autograph_options.
      ValueError: for data_parallel without jit_compile, or an unknown backend.

    >>> @rt.function
    ... def f(x):
    ...     if x > 0:
    ...         return x * 2
    ...     return -x
    >>> print(f(rt.constant(3)), f(rt.constant(-4)))
    rt.Tensor(6, shape=(), dtype=int32) rt.Tensor(4, shape=(), dtype=int32)
    >>> f.experimental_get_tracing_count()
    1
    """
    backend = _backend_name(backend, jit_compile)
    if data_parallel not in (None, False) and backend != "xla":
        raise ValueError("rt.function: data_parallel runs on XLA: pass jit_compile=True too")
    data_parallel = distribute.as_data_parallel(data_parallel)
    if input_signature is not None:
        if not isinstance(input_signature, (list, tuple)) or not all(
                isinstance(s, TensorSpec) for s in nest.flatten(input_signature, True)):
            raise TypeError("input_signature must be a possibly nested sequence of TensorSpec "
                            f"(or SparseTensorSpec) objects, got {input_signature!r}")
    relax = bool(reduce_retracing or experimental_relax_shapes)
    if experimental_autograph_options is not None:
        try:
            if isinstance(experimental_autograph_options, (str, bytes)):
                raise TypeError
            ag_experimental.features(experimental_autograph_options)
        except TypeError:
            raise TypeError("rt.function: experimental_autograph_options must be "
                            "autograph.experimental.Feature values (one, or a list or tuple of "
                            f"them), got {experimental_autograph_options!r}") from None

    def make(f):
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=relax, name=name,
                        autograph_options=experimental_autograph_options, backend=backend,
                        data_parallel=data_parallel)
    return make if func is None else make(func)


def _backend_name(backend, jit_compile) -> Optional[str]:
    """The name of the backend a Function runs on (None: the default), checked now, so a
    backend that does not exist fails at decoration rather than at the first call."""
    if jit_compile:
        if backend is not None and backend != "xla":
            raise ValueError(f"rt.function: jit_compile=True compiles with XLA; it cannot run "
                             f"on backend {backend!r} too")
        backend = "xla"
    if backend is not None:
        backend_registry.get(backend)  # ImportError (xla without JAX) or ValueError (unknown name)
    return backend


class Function:
    """A polymorphic callable: one ConcreteFunction (graph) per input signature.

    What `rt.function` returns. Calling it traces (once per new signature) and runs the
    graph; as a method it binds to its instance. `get_concrete_function(...)` traces
    without running, `experimental_get_tracing_count()` counts the traces and
    `pretty_printed_concrete_signatures()` lists them.

    Args:
      python_function: the Python function.
      input_signature: an optional (nested) list of TensorSpec.
      autograph: convert Python control flow with autograph.
      reduce_retracing: trace with relaxed shapes after shapes vary.
      name: the function's name.
      autograph_options: autograph.experimental.Feature values.
      backend: the backend's name (None: the default numpy backend).
      data_parallel: an rt.distribute.DataParallel or None.

    >>> @rt.function
    ... def double(x):
    ...     return x * 2
    >>> double
    <rt.Function double>
    >>> print(double(rt.constant(1.5)))
    rt.Tensor(3.0, shape=(), dtype=float32)
    >>> print(double.pretty_printed_concrete_signatures())
    double(x)
      Args:
        x: float32 Tensor, shape=()
      Returns:
        float32 Tensor, shape=()
    """

    def __init__(self, python_function, input_signature=None, autograph=True,
                 reduce_retracing=False, name=None, _instance_ref=None, autograph_options=None,
                 backend=None, data_parallel=None):
        self._python_function = python_function
        self._backend = backend       # the backend's name for its ConcreteFunctions
        self._data_parallel = data_parallel  # an rt.distribute.DataParallel, or None
        self._autograph_options = autograph_options
        self._input_signature = input_signature
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._instance_ref = _instance_ref
        self.__name__ = name or getattr(python_function, "__name__", "function")
        functools.update_wrapper(self, python_function, updated=())
        self.__name__ = name or self.__name__
        sig = inspect.signature(python_function)
        if _instance_ref is not None:
            params = list(sig.parameters.values())[1:]
            sig = sig.replace(parameters=params)
        self._sig = sig
        params = list(sig.parameters.values())
        self._simple_arity = (len(params) if all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
                              else -1)
        self._cache: dict = {}
        self._relaxed: dict = {}      # dtype-and-structure key -> [ConcreteFunction]
        self._concretes: list = []    # in trace order
        self._lock = threading.RLock()
        self._trace_count = 0
        self._created_variables = False
        self._recent = collections.deque(maxlen=10)
        self._retrace_warnings: dict = {}    # reason -> times the retracing warning was due
        self._last_key = None
        self._converted = None
        self._instances = weakref.WeakKeyDictionary()
        self._watched: dict = {}

    # -- public API ---------------------------------------------------------------------
    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        return self._trace_count

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        return "\n\n".join(cf.pretty_printed_signature() for cf in self._concretes)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            return self._instances[instance]
        except KeyError:
            pass
        except TypeError:  # not weakly referenceable: trace per call site
            return functools.partial(self.__call__, instance)
        with self._lock:
            bound = self._instances.get(instance)
            if bound is None:
                bound = Function(self._python_function, self._input_signature, self._autograph,
                                 self._reduce_retracing, self.__name__, weakref.ref(instance),
                                 self._autograph_options, self._backend, self._data_parallel)
                self._instances[instance] = bound
        return bound

    def __repr__(self):
        return f"<rt.Function {self.__name__}>"

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The ConcreteFunction for these arguments (tensors, TensorSpecs or Python values),
        tracing it if needed."""
        if self._input_signature is not None and not args and not kwargs:
            args = tuple(self._input_signature)
        bound = self._bind(args, kwargs)
        if self._input_signature is not None:
            bound, _ = self._apply_signature(bound)
        return self._concrete_for(bound)

    def __call__(self, *args, **kwargs):
        try:
            if config.functions_run_eagerly():
                return self._call_python(self._python_function, args, kwargs)
            if current_graph() is not None:
                return self._call_inline(args, kwargs)
            if hooks.recording.tapes:  # an open GradientTape records the call as one entry
                return self._call_taped(args, kwargs)
            # Fast path: positional tensors and primitives, an exact cache hit.
            if not kwargs and len(args) == self._simple_arity and self._input_signature is None:
                key = []
                arrays = []
                for a in args:
                    t = type(a)
                    if t is np.ndarray:
                        dtype = _NUMERIC_DTYPES.get(a.dtype)
                        if dtype is None:
                            break
                        # as the slow path has it: the key of trace_keys.leaf_key
                        key.append(("T", dtype, a.shape))
                        arrays.append(a)
                    elif t is EagerTensor:
                        key.append(("T", a._dtype, np.shape(a._value)))
                        arrays.append(a._value)
                    elif t in trace_keys.PRIMITIVES:
                        key.append((t, a))
                    else:
                        break
                else:
                    cf = self._cache.get(tuple(key))
                    if cf is not None:
                        self._recent.append(False)
                        if cf.private_arrays:   # the user's arrays copied, as array_for does
                            arrays = [np.array(a) if type(a) is np.ndarray else
                                      a._value for a in args
                                      if type(a) is np.ndarray or type(a) is EagerTensor]
                        return cf.run_flat(arrays)
            bound = self._bind(args, kwargs)
            if self._input_signature is not None:
                spec_bound, bound = self._apply_signature(bound)
                return self._concrete_for(spec_bound)(*bound.args)
            cf = self._concrete_for(bound)
            return cf(*bound.args, **bound.kwargs)
        except Exception as e:
            # The user's frames only (generated and runtime frames hidden), as TensorFlow
            # filters its own; rt.config.disable_traceback_filtering() shows them all.
            if config.traceback_filtering_enabled():
                traceback_filter.filter_traceback(e)
            raise

    # -- calling helpers ----------------------------------------------------------------
    def _call_taped(self, args, kwargs):
        """A call while a tape is open: find the ConcreteFunction, then call it as one tape
        entry (gradients.function_grad)."""
        bound = self._bind(args, kwargs)
        if self._input_signature is not None:
            spec_bound, bound = self._apply_signature(bound)
            return function_grad.call(self._concrete_for(spec_bound), bound.args, {})
        return function_grad.call(self._concrete_for(bound), bound.args, bound.kwargs)

    def _call_python(self, fn, args, kwargs):
        if self._instance_ref is not None:
            return fn(self._instance(), *args, **kwargs)
        return fn(*args, **kwargs)

    def _instance(self):
        inst = self._instance_ref()
        if inst is None:
            raise ReferenceError(f"the object whose method {self.__name__} this is was deleted")
        return inst

    def _bind(self, args, kwargs) -> inspect.BoundArguments:
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return bound

    def _apply_signature(self, bound):
        """(arguments as the signature's TensorSpecs, arguments as tensors); ValueError
        naming each argument that does not fit (see runtime/signature.py)."""
        if bound.kwargs:
            raise ValueError(f"{self.__name__}(): keyword-only arguments "
                             f"{sorted(bound.kwargs)} are not in the input_signature")
        try:
            specs, values = signature.fit(list(self._sig.parameters), list(bound.args),
                                          list(self._input_signature))
        except signature.DoesNotFit as e:
            # TensorFlow's text (the guides print it), then each argument that does not fit
            inputs = ",\n    ".join(str(a) for a in bound.args)
            sig = ",\n    ".join(repr(s) for s in self._input_signature)
            raise ValueError("Python inputs incompatible with input_signature:\n"
                             f"  inputs: (\n    {inputs})\n  input_signature: (\n    {sig}).\n"
                             + "\n".join(f"{self.__name__}(): {p}" for p in e.problems)) from None
        return self._bind(tuple(specs), {}), self._bind(tuple(values), {})

    def _call_inline(self, args, kwargs):
        """Called while another function is traced: run the (converted) Python code inside
        that trace, so the graphs nest without a separate trace. An input_signature
        checks and converts the arguments as it does for a call from outside (Python
        numbers become tensors of the signature's dtypes)."""
        bound = self._bind(args, kwargs)
        if self._input_signature is not None:
            _, bound = self._apply_signature(bound)
        key = self._key(bound)
        stack = getattr(_tracing, "stack", None)
        if stack is None:
            stack = _tracing.stack = []
        marker = (id(self), key)
        if marker in stack:
            raise StagingError(
                f"{self.__name__} calls itself with the same kind of arguments "
                f"({trace_keys.key_text(key)}) "
                "while it is being traced, so the trace would never end. A recursion on tensor "
                "values cannot be staged; write it as a loop (`while`/`for`) instead.")
        stack.append(marker)
        try:
            return self._call_python(self._converted_function(), bound.args, bound.kwargs)
        finally:
            stack.pop()

    def _converted_function(self):
        if self._converted is None:
            if self._autograph:
                self._converted = ag.for_staging(
                    self._python_function,
                    experimental_optional_features=self._autograph_options)
            else:
                self._converted = self._python_function
        return self._converted

    # -- the cache ----------------------------------------------------------------------
    def _track(self, obj):
        oid = id(obj)
        if oid in self._watched:
            return
        try:
            self._watched[oid] = weakref.finalize(obj, self._forget, oid)
        except TypeError:  # not weakly referenceable: keep it alive with its traces
            self._watched[oid] = obj

    def _forget(self, oid):
        with self._lock:
            self._watched.pop(oid, None)
            for key in [k for k in self._cache if trace_keys.mentions(k, oid)]:
                cf = self._cache.pop(key)
                if cf in self._concretes:
                    self._concretes.remove(cf)

    def _key(self, bound):
        return tuple(trace_keys.leaf_key(bound.arguments[p], self._track)
                     for p in self._sig.parameters
                     if p in bound.arguments)

    def _concrete_for(self, bound) -> ConcreteFunction:
        key = self._key(bound)
        cf = self._cache.get(key)
        if cf is not None:
            self._recent.append(False)
            return cf
        with self._lock:
            cf = self._cache.get(key)
            if cf is not None:
                return cf
            specs = None
            if self._reduce_retracing:
                cf, specs = self._relaxed_match(bound, key)
                if cf is not None:
                    self._cache[key] = cf
                    return cf
            cf = self._trace(bound, specs)
            self._cache[key] = cf
            self._note_trace(key, cf)
            if specs is not None:
                self._relaxed.setdefault(trace_keys.shapeless(key), []).append(cf)
            elif self._reduce_retracing:
                self._relaxed.setdefault(trace_keys.shapeless(key), []).append(cf)
            return cf

    def _relaxed_match(self, bound, key):
        """With reduce_retracing: a traced function whose (relaxed) shapes fit this call, or
        the relaxed specs to trace one with."""
        previous = self._relaxed.get(trace_keys.shapeless(key))
        if not previous:
            return None, None
        leaves = trace_keys.tensor_leaves(bound)
        for cf in previous:
            cspecs = [p.spec for p in cf.inputs_specs]
            if len(cspecs) == len(leaves) and all(
                    s.shape.is_compatible_with(TensorShape(np.shape(getattr(v, "_value", v))
                                                           if not isinstance(v, (TensorSpec, SymbolicTensor))
                                                           else v.shape))
                    for s, v in zip(cspecs, leaves)):
                return cf, None
        last = previous[-1]
        relaxed = []
        for p, v in zip(last.inputs_specs, leaves):
            shape = v.shape if isinstance(v, (Tensor, TensorSpec)) else TensorShape(np.shape(v))
            relaxed.append(TensorShape(p.spec.shape).most_specific_common(shape))
        return None, relaxed

    def _note_trace(self, key, cf):
        """Logs the trace (INFO), and warns when most recent calls traced: once per
        reason in full, then with a count at the 2nd, 4th, 8th... time."""
        why = trace_keys.why(self._sig, self._last_key, key)
        self._last_key = key
        if logger.isEnabledFor(logging.INFO):
            head = cf.pretty_printed_signature(verbose=False).partition("\n")[0]
            specs = ", ".join(f"{p.spec.name}: {signature.describe(p.spec.dtype, p.spec.shape)}"
                              for p in cf.inputs_specs)
            logger.info("rt.function: traced %s%s (trace %d, because %s)", head,
                        f" with {specs}" if specs else "", self._trace_count, why)
        self._recent.append(True)
        if sum(self._recent) < 5 or len(self._recent) < 5:
            return
        reason = why.partition(" changed")[0]      # "argument 'x'": one count per argument
        count = self._retrace_warnings[reason] = self._retrace_warnings.get(reason, 0) + 1
        if count == 1:
            logger.warning(
                "%d out of the last %d calls to %s triggered rt.function retracing. Tracing is "
                "expensive. This call retraced because %s. Pass tensors instead of Python "
                "values that change, use input_signature, or reduce_retracing=True.",
                sum(self._recent), len(self._recent), self.__name__, why)
        elif count & (count - 1) == 0:
            logger.warning("%s retraced for the same reason again (%d times since the first "
                           "warning): %s", self.__name__, count, why)

    # -- tracing ------------------------------------------------------------------------
    def _trace(self, bound, specs=None) -> ConcreteFunction:
        first = self._trace_count == 0 and not self._created_variables
        cf, created = self._trace_once(bound, specs, allow_variables=first)
        if created:
            # Variables were made: trace again to check the function does not make new
            # ones on every call (the function must be a singleton-variable function).
            self._created_variables = True
            cf, _ = self._trace_once(bound, specs, allow_variables=False)
        return cf

    def _trace_once(self, bound, specs, allow_variables):
        graph = Graph(self.__name__)
        graph.building_function = True
        placeholders, counter = [], iter(specs) if specs is not None else None
        created = []

        def on_create(var):
            if not allow_variables:
                raise ValueError(VARIABLE_ADVICE)
            created.append(var)

        traced_args, call_args = {}, {}
        with graph.as_default():
            for pname, value in bound.arguments.items():
                traced_args[pname], call_args[pname] = self._trace_inputs(
                    graph, pname, value, placeholders, counter)
            graph.inputs = [t for t, _ in placeholders]
            ba = self._sig.bind_partial()
            ba.arguments.update(call_args)
            previous = getattr(state_ops._creation_hooks, "hook", None)
            state_ops._creation_hooks.hook = on_create
            stack = getattr(_tracing, "stack", None)
            if stack is None:
                stack = _tracing.stack = []
            stack.append((id(self), self._key(bound)))
            try:
                out = self._call_python(self._converted_function(), ba.args, ba.kwargs)
                if isinstance(out, types.GeneratorType):
                    raise NotImplementedError(
                        f"{self.__name__} is a generator function: a graph cannot pause and "
                        "resume, so generators are not supported by rt.function; return a "
                        "list, a TensorArray or a tensor instead")
                trace_errors.refuse_caught(graph, self.__name__)
            except RecursionError as e:
                raise traceback_filter.recursion_error(e, self.__name__) from None
            except Exception as e:
                unknown_dims.add_hint(e, graph)
                trace_errors.note_user_line(e, self.__name__)
                raise
            finally:
                stack.pop()
                state_ops._creation_hooks.hook = previous
            outputs = nest.map_structure(lambda v: _output_tensor(graph, v), out,
                                         expand_composites=True)
        tensors = [t for t in nest.flatten(outputs, True) if isinstance(t, Tensor)]
        graph.prune(tensors)
        self._trace_count += 1
        cf = ConcreteFunction(self.__name__, self._sig, graph, traced_args,
                              [p for p, _ in placeholders], outputs, tensors,
                              backend=self._backend)
        cf.inputs_specs = [ph for _, ph in placeholders]
        if self._data_parallel is not None:
            self._data_parallel.attach(cf)
        self._concretes.append(cf)
        return cf, created

    def _trace_inputs(self, graph, pname, value, placeholders, relaxed_shapes):
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


def _output_tensor(graph, v):
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

