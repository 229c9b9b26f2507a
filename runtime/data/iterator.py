"""`iter(dataset)`: an iterator whose position is state of its own, as TensorFlow's
iterator resource.

Eagerly `next(it)` runs the dataset's `_next` on the position and keeps the new one; the
first time a graph uses the iterator its position moves into Variables, so a function
given an iterator advances it at each call. Past the end, `next` raises StopIteration
eagerly and OutOfRangeError in a graph (docs/architecture.md, "Input pipelines",
iterators).
"""
from __future__ import annotations

from .. import nest
from ..core import dtypes
from ..core.graph import current_graph, eager_scope
from ..core.tensor import EagerTensor, Tensor
from ..errors import OutOfRangeError
from ..ops.core import constant
from ..ops.io_ops import assert_that
from ..ops.state_ops import runtime_variable
from .base import Dataset, DatasetType, kind
from .eager_steps import CHUNK, steps_for
from .structure import structure_of, zeros_for

# A Python loop (not converted by autograph) calling `next` on an iterator made in the
# graph being built never ends when the dataset's length is unknown while tracing: past
# this many calls at trace time it is an error instead.
_PYTHON_LOOP_LIMIT = 100


@kind
class Iterator(metaclass=DatasetType):
    """The iterator of an `rt.data.Dataset` (`iter(ds)`): `next(it)` gives the next
    element; `get_next()` is the same, raising OutOfRangeError at the end.

    >>> it = iter(rt.data.Dataset.from_tensor_slices([1, 2, 3]))
    >>> @rt.function
    ... def consume(it):
    ...     rt.print("Value:", next(it))
    >>> consume(it); consume(it)
    Value: 1
    Value: 2
    >>> print(next(it))
    rt.Tensor(3, shape=(), dtype=int32)
    """

    def __init__(self, dataset):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"expected an rt.data.Dataset, got {dataset!r}")
        self._dataset = dataset
        self._variables = None
        self._graph = current_graph()
        self._taken = 0          # next() calls traced in the graph that made it
        self._steps = None       # eagerly: the flat steps (eager_steps.py), or False
        self._base = None        # their position: flat arrays, and a chunk's results
        self._ahead, self._used, self._single = [], 0, 0
        if self._graph is None:
            epoch = constant(dataset._epoch(), dtypes.int64)
            self._position = tuple(dataset._init_function()(epoch))
        else:                    # the graph sets the position at every run
            self._position = None
            state = dataset._init(constant(0, dtypes.int64))
            self._variables = _variables_for(state)
            for v, t in zip(self._variables, state):
                v.assign(t)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        if current_graph() is not None:
            raise TypeError(
                "iterating over an rt.data iterator in a Python loop while a graph is built "
                "needs autograph: write the `for` loop in a function that rt.function "
                "converts (the default, autograph=True), where it becomes one staged loop")
        return self

    def __next__(self):
        if current_graph() is None:
            valid, element = self._eager_next()
            if not bool(valid.numpy()):
                raise StopIteration
            return element
        self._count_python_loop()
        valid, element = self._advance()
        assert_that(valid, "End of sequence", name="IteratorGetNext", error="out_of_range")
        return element

    def get_next(self):
        """The next element; past the end, OutOfRangeError (in a graph: when it runs)."""
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None

    def __repr__(self):
        return f"<rt.data.Iterator element_spec={self._dataset.element_spec}>"

    # -- the position ---------------------------------------------------------------------
    def _read(self):
        if self._variables is None:
            self._settle()
            return self._position
        return tuple(v.read_value() for v in self._variables)

    def _write(self, state):
        if self._variables is None:
            self._settle()
            self._position = tuple(state)
        else:
            for v, t in zip(self._variables, state):
                v.assign(t)

    def _eager_next(self):
        if self._steps is None and self._variables is None:
            self._steps = steps_for(self._dataset, self._position) or False
            if self._steps:
                self._base = [t._value for t in nest.flatten(self._position)]
                self._position = None
        if self._steps:
            return self._flat_next()
        valid, element, state = self._dataset._next_function()(*self._read())
        self._write(state)
        return valid, element

    # eagerly, with flat steps (eager_steps.py): the position is `_base`, moved by the
    # first `_used` elements of the chunk `_ahead` computed from it
    def _flat_next(self):
        steps = self._steps
        if self._used < len(self._ahead):
            self._used += 1     # (past the end: the next steps, as the old path)
            return self._ahead[self._used - 1]
        if self._ahead:
            self._base, self._ahead, self._used = self._chunk_end, [], 0
        if steps.chunked is not None and self._single <= 0:
            try:
                out = steps.run(steps.chunked, self._base)
            except Exception:   # again step by step: the error at its element
                self._single = CHUNK
            else:
                self._ahead = self._chunk_elements(out)
                self._chunk_end = [t._value for t in out[len(out) - len(self._base):]]
                return self._flat_next()
        self._single -= 1
        out = steps.run(steps.single, self._base)
        self._base = [t._value for t in out[len(out) - len(self._base):]]
        return self._chunk_elements(out)[0]

    def _chunk_elements(self, out):
        """[(valid, element)] of a run's results."""
        element = self._steps.element
        width = len(nest.flatten(element)) + 1
        count = (len(out) - len(self._base)) // width
        if isinstance(element, Tensor):
            return [(out[i * width], out[i * width + 1]) for i in range(count)]
        return [(out[i * width], nest.pack_sequence_as(element, list(
            out[i * width + 1:(i + 1) * width]))) for i in range(count)]

    def _settle(self):
        """The position as tensors again (`_position`), past the elements taken."""
        if not self._steps or self._position is not None:
            return
        flat = self._base
        for _ in range(self._used):
            out = self._steps.run(self._steps.single, flat)
            flat = [t._value for t in out[len(out) - len(flat):]]
        structure = self._steps.structure
        tensors = [EagerTensor(a, t.dtype) for a, t in zip(flat, nest.flatten(structure))]
        self._position = tuple(nest.pack_sequence_as(structure, tensors))
        self._steps = False

    def _resource(self):
        """The Variables holding the position (made from it on the first use in a graph)."""
        if self._variables is None:
            self._settle()
            self._variables = _variables_for(self._position, self._position)
            self._position = None
        return self._variables

    def _advance(self):
        """In a graph: the element at the position, and the position moved past it."""
        variables = self._resource()
        valid, element, state = self._dataset._next(tuple(v.read_value() for v in variables))
        for v, t in zip(variables, state):
            v.assign(t)
        return valid, element

    def _count_python_loop(self):
        """`next` traced in the graph that made the iterator runs once per run of it: a
        Python loop calling it stops at the dataset's end when its length is known then."""
        if self._graph is None or current_graph() is not self._graph:
            return
        self._taken += 1
        n = self._dataset._cardinality()
        if isinstance(n, int) and 0 <= n < self._taken:
            raise StopIteration
        if self._taken > _PYTHON_LOOP_LIMIT:
            raise TypeError(
                f"next() was traced {self._taken} times on one rt.data iterator: a Python loop "
                "over a dataset whose length is unknown while tracing never ends. Write the "
                "`for` loop in a function that rt.function converts (autograph=True, the "
                "default), where it becomes one staged loop")

    def _staged_plan(self):
        """For a staged `for` (see Dataset._staged_plan): the position is written back
        as each element is taken, not when the next one is fetched ahead."""
        variables = self._resource()
        dataset = self._dataset

        def first():
            return dataset._next(tuple(v.read_value() for v in variables))

        def following(state):
            for v, t in zip(variables, state):
                v.assign(t)
            return dataset._next(state)
        return ("iterator", first, following)


def _variables_for(state, values=None):
    """Variables for an iterator position (`values`: eager tensors to start from)."""
    with eager_scope():
        starts = values if values is not None else zeros_for(structure_of(tuple(state)))
    return tuple(runtime_variable(v, "iterator_position", shape=t.shape)
                 for v, t in zip(starts, state))
