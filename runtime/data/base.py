"""`rt.data.Dataset`: the base class, its public methods, eager iteration and `reduce`.

Every dataset is a graph-representable pipeline with a staged iterator protocol, which a
staged `for` and the eager iterator both use:

    state = ds._init(epoch)                  # a tuple of tensors
    valid, element, state = ds._next(state)  # `valid` false: the dataset is exhausted

Datasets whose elements follow from their position also offer random access (`_length()`,
`_get(i)`); a staged `for` is one while loop (docs/architecture.md, "Input pipelines").
"""
from __future__ import annotations

import numpy as np

from .. import nest
from ..core import dtypes, hooks
from ..core.graph import current_graph
from ..control_flow import cond
from ..core.tensor import Tensor
from ..function import function as rt_function
from ..ops.core import constant, constant_value
from ..ops.math_ops import add, cast, greater, less, maximum, minimum, where
from ..control_flow import stage_while
from .counts import i64, is_dynamic
from .more_methods import MoreTransformations
from .structure import TracedFunction, relaxed, structure_of, to_tensors, zeros_for

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
AUTOTUNE = -1

_KINDS: dict = {}


def kind(cls):
    """Registers a dataset class for the base class's methods (which build them)."""
    _KINDS[cls.__name__] = cls
    return cls


def static_count(value, what: str) -> int:
    """A count argument (a Python int or a tensor whose value is known now) as an int."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Tensor):
        if not value.dtype.is_integer:
            raise TypeError(f"{what} must be an integer tensor, got dtype {value.dtype.name}")
        v = constant_value(value)
        if v is not None and np.ndim(v) == 0:
            return int(v)
        raise ValueError(f"{what} must be known when the dataset is built (a Python int or an "
                         f"eager tensor), got the symbolic tensor {value!r}")
    raise TypeError(f"{what} must be an integer, got {value!r}")


class DatasetType(type):
    """Datasets name autograph's staging backend while a graph is built (a `for` over a
    dataset in an `rt.function` becomes one staged loop) and none eagerly (a Python loop
    over the eager iterator). The backend is set by runtime/autograph_backend.py."""
    backend = None

    @property
    def __autograph_backend__(cls):
        return DatasetType.backend if current_graph() is not None else None


class Dataset(MoreTransformations, metaclass=DatasetType):
    """A sequence of elements (nests of tensors), built and transformed lazily, as `tf.data.Dataset`.

    Made from tensors (`from_tensor_slices`, `from_tensors`), a range (`range`) or a Python
    generator (`from_generator`), combined with `zip`, and transformed by `map`, `filter`,
    `batch`, `shuffle`, `repeat`, `take`, `skip`, `enumerate`, `prefetch` and `cache`;
    each returns a new Dataset. Eagerly a Dataset is iterable (its elements are tensors;
    `as_numpy_iterator()` gives numpy values) and `reduce` folds it. Inside an
    `rt.function` (with autograph, the default) a `for` over a dataset is one staged loop
    whose graph does not grow with the data. `element_spec` describes an element and
    `cardinality()` counts them (rt.data.INFINITE_CARDINALITY, UNKNOWN_CARDINALITY).

    >>> ds = rt.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2)
    >>> [int(x) for x in ds]
    [2, 4, 6]
    >>> evens = rt.data.Dataset.range(7).filter(lambda x: x % 2 == 0).batch(2)
    >>> [b.tolist() for b in evens.as_numpy_iterator()]
    [[0, 2], [4, 6]]
    >>> rt.data.Dataset.from_tensor_slices(([1.0, 2.0], [0, 1])).element_spec
    (TensorSpec(shape=(), dtype=rt.float32, name=None), TensorSpec(shape=(), dtype=rt.int32, name=None))
    >>> @rt.function
    ... def total(ds):
    ...     s = rt.constant(0, rt.int64)
    ...     for x in ds:
    ...         s += x
    ...     return s
    >>> print(total(rt.data.Dataset.range(5)))
    rt.Tensor(10, shape=(), dtype=int64)
    """

    _spec = None            # the element_spec
    _random_access = False  # whether `_length` / `_get` exist
    _source_is_python = False

    # -- the protocol (subclasses) ------------------------------------------------------
    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def _length(self):
        """Random access: the number of elements, a Python int (None: infinite) or an int64
        scalar tensor (known only when the graph runs)."""
        raise NotImplementedError

    def _get(self, i):
        """Random access: the element at the int64 scalar tensor index `i`."""
        raise NotImplementedError

    def _init(self, epoch):
        return (constant(0, dtypes.int64),)

    def _next(self, state):
        """Random access datasets: the element at the index held in the state."""
        i = state[0]
        n = self._length()
        valid = constant(True) if n is None else less(i, i64(n))
        return valid, self._safe_get(i), (add(i, constant(1, dtypes.int64)),)

    def _safe_get(self, i):
        """`_get(i)` with `i` clamped into range (past the end the element is unused). A
        length known only at run time may be 0: then no element is read at all (a staged
        `if`, decided while compiling under XLA, where the length is known)."""
        n = self._length()
        if n is None:
            return self._get(i)
        if not is_dynamic(n):
            if n == 0:
                return zeros_for(self._spec)
            return self._get(maximum(minimum(i, i64(n - 1)), i64(0)))
        spec = self._spec
        return cond(greater(n, i64(0)),
                    lambda: self._get(maximum(minimum(i, n - 1), i64(0))),
                    lambda: zeros_for(spec))

    def _staged_plan(self):
        """For a staged `for` (autograph's stateful-iterator plan): ("iterator", first,
        next): `first()` and `next(state)` give (more, element, state)."""
        return ("iterator", lambda: self._next(self._init(constant(0, dtypes.int64))),
                self._next)

    # -- constructors ---------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """The slices of `tensors` along their first dimension (a tensor, or a tuple/dict
        nest of tensors with the same first dimension).

            list(rt.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).as_numpy_iterator())
            # [(1, 3), (2, 4)]
        """
        return _KINDS["TensorSlices"](tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """One element: `tensors` (a tensor or a nest of tensors).

            rt.data.Dataset.from_tensors([1, 2]).cardinality()   # 1
        """
        return _KINDS["FromTensors"](tensors)

    @staticmethod
    def range(*args, output_type=None, name=None, dtype=None):
        """`range(stop)`, `range(start, stop[, step])` as scalars of `output_type`
        (TensorFlow's keyword; `dtype` is the same; default int64, as TensorFlow's).

            list(rt.data.Dataset.range(1, 6, 2).as_numpy_iterator())   # [1, 3, 5]
            rt.data.Dataset.range(3, output_type=rt.int32)
        """
        if output_type is not None and dtype is not None and (
                dtypes.as_dtype(output_type) is not dtypes.as_dtype(dtype)):
            raise TypeError(f"range: output_type={output_type!r} and dtype={dtype!r} differ; "
                            "give one (output_type is TensorFlow's name)")
        chosen = output_type if output_type is not None else dtype
        return _KINDS["Range"](*args, dtype=dtypes.int64 if chosen is None else chosen)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """The elements a Python generator yields. `generator` is a callable returning an
        iterator (called anew for each iteration, with `args`); `output_signature` is a
        nest of `rt.TensorSpec` describing each element. Inside an `rt.function` it runs
        through host calls (`rt.py_function`): it works on the numpy backend, cannot be
        compiled with `jit_compile=True`, and cannot be saved.

            ds = rt.data.Dataset.from_generator(lambda: iter([1, 2]),
                     output_signature=rt.TensorSpec([], rt.int32))
        """
        return _KINDS["Generator"](generator, output_types, output_shapes, args,
                                   output_signature)

    @staticmethod
    def zip(*datasets, name=None):
        """Elements of several datasets side by side, as tuples (a dict or tuple of
        datasets gives that structure); stops with the shortest.

            rt.data.Dataset.zip((a, b))     # or rt.data.Dataset.zip(a, b)
        """
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        return _KINDS["Zip"](datasets)

    # -- transformations ------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """`map_func` applied to each element (a tuple element is spread over its
        arguments). The function is converted with autograph and traced once.

            rt.data.Dataset.range(3).map(lambda x: x * 2)     # 0, 2, 4
        """
        return _KINDS["Map"](self, map_func)

    def filter(self, predicate, name=None):
        """The elements for which `predicate` (a scalar bool function, traced once) holds.

            rt.data.Dataset.range(6).filter(lambda x: x % 2 == 0)   # 0, 2, 4
        """
        return _KINDS["Filter"](self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Consecutive elements stacked into batches of `batch_size` (the last smaller
        unless `drop_remainder`).

            rt.data.Dataset.range(5).batch(2)      # [0 1], [2 3], [4]
        """
        return _KINDS["Batch"](self, batch_size, drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements in a random order: each comes from a buffer of `buffer_size` elements
        (a full shuffle when it holds the whole dataset). With a `seed` the orders are
        reproducible; `reshuffle_each_iteration` gives each iteration (each epoch of a
        `repeat`, each eager loop, each call of an `rt.function` looping over a dataset
        made outside it) its own order.

            rt.data.Dataset.range(10).shuffle(10, seed=1)
        """
        return _KINDS["Shuffle"](self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The dataset `count` times (None or -1: forever).

            rt.data.Dataset.range(2).repeat(2)     # 0, 1, 0, 1
        """
        return _KINDS["Repeat"](self, count)

    def take(self, count, name=None):
        """The first `count` elements (-1: all).

            rt.data.Dataset.range(10).take(3)      # 0, 1, 2
        """
        return _KINDS["Take"](self, count)

    def skip(self, count, name=None):
        """All but the first `count` elements (-1: none).

            rt.data.Dataset.range(5).skip(3)       # 3, 4
        """
        return _KINDS["Skip"](self, count)

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 counting from `start`.

            rt.data.Dataset.from_tensor_slices([7, 8]).enumerate()   # (0, 7), (1, 8)
        """
        return Dataset.zip((Dataset.range(start, None), self))

    def prefetch(self, buffer_size, name=None):
        """The same elements (prefetching changes no order or value here).

            ds.prefetch(rt.data.AUTOTUNE)
        """
        static_count(buffer_size, "prefetch: buffer_size")
        return self

    def cache(self, filename="", name=None):
        """The same elements (every source here is already in memory or recomputed)."""
        return self

    # -- what a dataset is -----------------------------------------------------------------
    @property
    def element_spec(self):
        """The nest of `rt.TensorSpec` describing an element."""
        return self._spec

    def cardinality(self):
        """The number of elements as an int64 scalar tensor: `rt.data.INFINITE_CARDINALITY`
        (-1) for an infinite dataset, `rt.data.UNKNOWN_CARDINALITY` (-2) when it is not
        known (a filter, a generator).

            rt.data.Dataset.range(10).batch(3).cardinality()      # 4
        """
        return i64(self._cardinality())

    def __len__(self):
        n = self._cardinality()
        if is_dynamic(n):
            raise TypeError("The dataset length is known only when the graph runs (it depends "
                            "on a tensor of unknown shape); use dataset.cardinality(), a "
                            "tensor, instead of len()")
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<{type(self).__name__}Dataset element_spec={self._spec}>"

    # -- iteration ------------------------------------------------------------------------
    def __iter__(self):
        """An `rt.data` iterator (iterator.py): eagerly, or in a graph (where `next` on it
        runs at every run of the graph, and a `for` over the dataset itself, converted by
        autograph, is one staged loop)."""
        return _KINDS["Iterator"](self)

    def as_numpy_iterator(self):
        """An iterator of the elements as numpy values (nests of arrays).

            list(rt.data.Dataset.range(3).as_numpy_iterator())    # [0, 1, 2]
        """
        for element in self:
            yield nest.map_structure(lambda t: t.numpy(), element)

    def _next_function(self):
        """`_next` as an rt.function of the state (traced once per dataset), for eager
        iteration."""
        fn = self.__dict__.get("_next_fn")
        if fn is None:
            fn = self.__dict__["_next_fn"] = rt_function(
                lambda *state: self._next(tuple(state)), autograph=False)
        return fn

    def _init_function(self):
        """`_init` as an rt.function of the epoch, for eager iteration."""
        fn = self.__dict__.get("_init_fn")
        if fn is None:
            fn = self.__dict__["_init_fn"] = rt_function(self._init, autograph=False)
        return fn

    def _epoch(self) -> int:
        """The number of eager iterations begun (each gets its own shuffle order)."""
        n = self.__dict__.get("_epochs", 0)
        self.__dict__["_epochs"] = n + 1
        return n

    # -- reduce ---------------------------------------------------------------------------
    def reduce(self, initial_state, reduce_func, name=None):
        """Folds the elements: `state = reduce_func(state, element)` from
        `initial_state`; returns the final state. The function is traced once and the
        fold is one staged loop.

            rt.data.Dataset.range(5).reduce(rt.constant(0, rt.int64), lambda s, x: s + x)  # 10
        """
        init = to_tensors(initial_state)
        spec = structure_of(init)
        step = TracedFunction(reduce_func, (spec, self._spec), "reduce: reduce_func")
        if _fits(step.output_spec, spec):
            wider = relaxed(spec, step.output_spec)
            if wider != spec:   # a state whose shape changes: traced again for any shape
                spec = wider
                step = TracedFunction(reduce_func, (spec, self._spec), "reduce: reduce_func")
        if not _fits(step.output_spec, spec):
            raise TypeError(f"reduce: reduce_func must return a state of the structure and "
                            f"dtypes of initial_state {spec}, got {step.output_spec}")
        if current_graph() is not None:
            return self._fold(init, step)
        if hooks.recording.tapes:    # op by op, for the tape (a gradient, as staged)
            return self._eager_fold(init, step)
        fold = rt_function(lambda *flat: self._fold(nest.pack_sequence_as(init, flat), step),
                           autograph=False)
        return fold(*nest.flatten(init))

    def _fold(self, init, step):
        valid, element, state = self._next(self._init(constant(0, dtypes.int64)))

        def body(v, e, s, acc):
            acc = step(acc, e)
            v, e, s = self._next(s)
            return v, e, s, acc

        out, _ = stage_while(lambda v, e, s, acc: v, body, (valid, element, state, init),
                             names=("the element is valid", "the element", "the iterator",
                                    "the reduce state"),
                             maximum_iterations=self._iteration_bound())
        return out[3]

    def _iteration_bound(self):
        """The number of elements, where it is known before the loop runs (an int, or a
        count tensor): the fold's bound on iterations, which XLA needs to keep each
        iteration's values for a gradient. None where the count is unknown or infinite."""
        n = self._cardinality()
        if is_dynamic(n):    # (an int32 count, as while_loop takes: infinite is its largest)
            most = i64(np.iinfo(np.int32).max)
            return cast(where(less(n, i64(0)), most, minimum(n, most)), dtypes.int32)
        return n if n >= 0 else None


    def _eager_fold(self, init, step):
        state = init
        valid, element, s = self._next(self._init(constant(self._epoch(), dtypes.int64)))
        while bool(valid.numpy()):
            state = step(state, element)
            valid, element, s = self._next(s)
        return state


def _fits(a, b) -> bool:
    try:
        pairs = list(zip(nest.flatten(a), nest.flatten(b)))
        nest.map_structure(lambda x, y: None, a, b)
    except (TypeError, ValueError):
        return False
    return all(x.dtype is y.dtype for x, y in pairs)
