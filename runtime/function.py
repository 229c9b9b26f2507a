"""`rt.function`: a Python function turned into a `Function` that converts it with
autograph, traces it into graphs (runtime/tracing.py), caches the graphs
(ConcreteFunctions) by the key of each call's arguments (runtime/trace_keys.py) and runs
them.

The cache key of a call: a tensor (and a numpy array, a numeric numpy scalar or a jax
array, as TensorFlow keys numpy values) by dtype and shape, a Python primitive by value, a
Variable by identity, nested lists/tuples/dicts/namedtuples by structure and leaves, any
other object by identity (held weakly: the entries go when the object does).
"""
from __future__ import annotations

import functools
import inspect
import threading
import weakref
from typing import Callable, Optional

import numpy as np

import autograph as ag
from autograph import experimental as ag_experimental

from . import (config, distribute, method_binding, nest, retracing, signature, trace_keys,
               traceback_filter, tracing)
from .call_runners import positional_arrays
from .concrete import ConcreteFunction
from .core import backend_registry, hooks
from .config import functions_run_eagerly
from .core.graph import thread_graphs
from .core.device_tensor import DeviceTensor, is_device_array
from .core.tensor import EagerTensor
from .core.shapes import TensorSpec
from .trace_keys import call_key
from .gradients import function_grad

# Python values the fastest call path keys by value (floats apart: see `__call__`)
_FAST_VALUES = frozenset((int, bool, str, bytes, type(None)))
_recording = hooks.recording     # (module-level: each call reads them)
_graphs = thread_graphs
_MAX_RUNNERS = 1024     # (an argument of many values keeps only the first ones fast)
# Types of array arguments the fastest call path keys by type, dtype and shape: numpy
# arrays, and the numeric numpy scalar types and jax array types seen (`_add_runner`)
_ARRAY_TYPES = {np.ndarray}


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
    data_parallel = distribute.as_data_parallel(data_parallel, backend)
    _check_signature(input_signature)
    relax = bool(reduce_retracing or experimental_relax_shapes)
    _check_autograph_options(experimental_autograph_options)

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


def _check_signature(input_signature) -> None:
    if input_signature is not None:
        if not isinstance(input_signature, (list, tuple)) or not all(
                isinstance(s, TensorSpec) for s in nest.flatten(input_signature, True)):
            raise TypeError("input_signature must be a possibly nested sequence of TensorSpec "
                            f"(or SparseTensorSpec) objects, got {input_signature!r}")


def _check_autograph_options(options) -> None:
    if options is not None:
        try:
            if isinstance(options, (str, bytes)):
                raise TypeError
            ag_experimental.features(options)
        except TypeError:
            raise TypeError("rt.function: experimental_autograph_options must be "
                            "autograph.experimental.Feature values (one, or a list or tuple of "
                            f"them), got {options!r}") from None


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
        self._runners: dict = {}      # positional arguments' fast key -> run(args)
        self._relaxed: dict = {}      # dtype-and-structure key -> [ConcreteFunction]
        self._concretes: list = []    # in trace order
        self._lock = threading.RLock()
        self._trace_count = 0
        self._created_variables = False
        self._log = retracing.TraceLog()   # recent calls, retracing warnings
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

    @property
    def concrete_functions(self) -> list:
        """The ConcreteFunctions traced so far, in trace order (those of arguments since
        deleted dropped)."""
        return list(self._concretes)

    def experimental_get_tracing_count(self) -> int:
        return self._trace_count

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        return "\n\n".join(cf.pretty_printed_signature() for cf in self._concretes)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if method_binding.is_temporary(method_binding.references(instance)):
            # `Temporary().method(x)`: nothing else holds the object until the call (see
            # runtime/method_binding.py), so this bound method holds it, uncached
            return Function(self._python_function, self._input_signature, self._autograph,
                            self._reduce_retracing, self.__name__, lambda: instance,
                            self._autograph_options, self._backend, self._data_parallel)
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
            if functions_run_eagerly():
                return self._call_python(self._python_function, args, kwargs)
            if _graphs.stack:       # (current_graph(): a graph is being built)
                return self._call_inline(args, kwargs)
            if _recording.tapes:  # an open GradientTape records the call as one entry
                return self._call_taped(args, kwargs)
            runners = self._runners
            if runners and not kwargs:
                # Fastest path: positional tensors and Python values seen before, keyed by
                # type, dtype and shape (values by value) inline, straight to the runner
                # of their ConcreteFunction (no key of the general form, no binding).
                if len(args) == 1:      # (the most common call, without a loop)
                    a = args[0]
                    t = type(a)
                    if t is np.ndarray:
                        run = runners.get((t, a.dtype, a.shape))
                    elif t is EagerTensor:
                        run = runners.get((t, a._dtype, getattr(a._value, "shape", None)))
                    elif t is DeviceTensor:     # (a result of a jit_compile function)
                        run = runners.get((t, a._dtype, a.device_array.shape))
                    else:
                        run = None
                    if run is not None:      # (it notes the call in the log)
                        return run(args)
                fast = []
                for a in args:
                    t = type(a)
                    if t is EagerTensor:
                        fast += (t, a._dtype, getattr(a._value, "shape", None))
                    elif t is DeviceTensor:
                        fast += (t, a._dtype, a.device_array.shape)
                    elif t in _ARRAY_TYPES:
                        fast += (t, a.dtype, a.shape)
                    elif t is float:    # (-0.0 is not 0.0, NaN is NaN: as value_key has it)
                        fast += (t, a if a == a and a else repr(a))
                    elif t in _FAST_VALUES:
                        fast += (t, a)
                    else:
                        break
                else:
                    run = runners.get(tuple(fast))
                    if run is not None:      # (it notes the call in the log)
                        return run(args)
            key = None
            # Fast path: positional arguments keyed as they come (no binding); an exact
            # cache hit with tensors and Python values only runs the graph on their arrays.
            if not kwargs and len(args) == self._simple_arity and self._input_signature is None:
                key = call_key(args, self._track)
                cf = self._cache.get(key)
                if cf is not None:
                    arrays = positional_arrays(args, cf.private_arrays, cf.takes_device_arrays)
                    if arrays is not None:
                        self._log.recent.append(False)
                        self._add_runner(args, cf)
                        return cf.run_flat(arrays)
            bound = self._bind(args, kwargs)
            if self._input_signature is not None:
                spec_bound, bound = self._apply_signature(bound)
                return self._concrete_for(spec_bound)(*bound.args)
            cf = self._concrete_for(bound, key)
            out = cf(*bound.args, **bound.kwargs)
            if key is not None:
                self._add_runner(args, cf)
            return out
        except Exception as e:
            # The user's frames only (generated and runtime frames hidden), as TensorFlow
            # filters its own; rt.config.disable_traceback_filtering() shows them all.
            if config.traceback_filtering_enabled():
                traceback_filter.filter_traceback(e)
            raise

    # -- calling helpers ----------------------------------------------------------------
    def _add_runner(self, args, cf) -> None:
        """Remembers how to run `cf` for positional arguments like `args` (their types,
        dtypes and shapes; Python values by value), which just ran it, for
        `__call__`'s fastest path: where each is an eager tensor, a numeric numpy array or
        scalar, a jax array, or a Python number, string, bool or None."""
        fast: list = []
        kinds: list = []
        for a in args:
            t = type(a)
            if t is EagerTensor:
                shape = getattr(a._value, "shape", None)
                if shape is None:
                    return
                fast += (t, a._dtype, shape)
                kinds.append(1)
            elif t is DeviceTensor:
                fast += (t, a._dtype, a.device_array.shape)
                kinds.append(4 if cf.takes_device_arrays else 1)
            elif t is np.ndarray or isinstance(a, np.generic) or is_device_array(a):
                if a.dtype not in trace_keys.NUMERIC_DTYPES:
                    return
                _ARRAY_TYPES.add(t)
                fast += (t, a.dtype, a.shape)
                if t is not np.ndarray and is_device_array(a):  # (copied to the host, or not)
                    kinds.append(2 if cf.takes_device_arrays else 3)
                else:
                    kinds.append(3 if cf.private_arrays else 2)
            elif t is float or t in _FAST_VALUES:
                fast += (t, trace_keys.value_key(a)[1])
                kinds.append(0)
            else:
                return
        if len(self._runners) < _MAX_RUNNERS:
            self._runners[tuple(fast)] = cf.positional_runner(tuple(kinds),
                                                                self._log.recent.append)

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
        args = list(bound.args)
        if any(is_device_array(v) for v in nest.flatten(args)):
            # a jax array fits a TensorSpec as the numpy array of its value does (it is
            # keyed as a tensor without a signature too)
            args = nest.map_structure(lambda v: np.asarray(v) if is_device_array(v) else v,
                                      args)
        try:
            specs, values = signature.fit(list(self._sig.parameters), args,
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
        marker = (id(self), key)
        tracing.refuse_recursion(marker, self.__name__, key)
        stack = tracing.tracing_stack()
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
        return call_key([bound.arguments[p] for p in self._sig.parameters
                         if p in bound.arguments], self._track)

    def _concrete_for(self, bound, key=None) -> ConcreteFunction:
        """The ConcreteFunction for the arguments `bound` (their cache key `key` when
        the caller has it), traced on a miss."""
        if key is None:
            key = self._key(bound)
        cf = self._cache.get(key)
        if cf is not None:
            self._log.recent.append(False)
            return cf
        with self._lock:
            cf = self._cache.get(key)
            if cf is not None:
                return cf
            specs = None
            if self._reduce_retracing:
                previous = self._relaxed.get(trace_keys.shapeless(key))
                if previous:
                    cf, specs = retracing.relaxed_match(previous, bound)
                    if cf is not None:
                        self._cache[key] = cf
                        return cf
            cf = self._trace(bound, key, specs)
            self._cache[key] = cf
            self._log.traced(self.__name__, self._sig, key, cf, self._trace_count)
            if self._reduce_retracing:
                self._relaxed.setdefault(trace_keys.shapeless(key), []).append(cf)
            return cf

    # -- tracing ------------------------------------------------------------------------
    def _trace(self, bound, key, specs=None) -> ConcreteFunction:
        """A new ConcreteFunction for `bound` (runtime/tracing.py). Variables may be made
        on the first trace only; one that makes them is traced again, which must make none
        (the function makes its Variables once, not on every call)."""
        first = self._trace_count == 0 and not self._created_variables
        cf, created = self._trace_once(bound, key, specs, allow_variables=first)
        if created:
            self._created_variables = True
            cf, _ = self._trace_once(bound, key, specs, allow_variables=False)
        return cf

    def _trace_once(self, bound, key, specs, allow_variables):
        call = functools.partial(self._call_python, self._converted_function())
        if self._data_parallel is not None:   # (across processes: the batch axis relaxed)
            specs = self._data_parallel.trace_shapes(self.__name__, self._sig, bound, specs)
        cf, created = tracing.trace(self.__name__, self._sig, bound, call, (id(self), key),
                                    specs, allow_variables, self._backend)
        self._trace_count += 1
        if self._data_parallel is not None:
            self._data_parallel.attach(cf)
        self._concretes.append(cf)
        return cf, created
