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
from ..core.tensor import EagerTensor
from ..errors import OutOfRangeError
from ..ops.core import constant
from ..ops.io_ops import assert_that
from ..ops.state_ops import runtime_variable
from .base import Dataset, DatasetType, kind
from .eager_blocks import blocks_for, may_give_blocks
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
            self._assign(state)

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
            ahead, used = self._ahead, self._used
            if used < len(ahead):           # an element computed ahead (see _flat_next)
                self._used = used + 1
                valid, element = ahead[used]
            else:
                valid, element = self._eager_next()
            if not valid._value:
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
        return self._variables.read()

    def _write(self, state):
        if self._variables is None:
            self._settle()
            self._position = tuple(state)
        else:
            self._assign(state)

    def _assign(self, state):
        for v, t in zip(self._variables, nest.flatten(tuple(state))):
            v.assign(t)

    def _eager_next(self):
        if self._steps is None and self._variables is None:
            self._steps = _flat_steps(self._dataset, self._position) or False
            if self._steps:
                self._base = [t._value for t in nest.flatten(self._position)]
                self._position = None
        if self._steps:
            return self._flat_next()
        valid, element, state = self._dataset._next_function()(*self._read())
        self._write(state)
        return valid, element

    # eagerly, with flat steps (eager_steps.py) or blocks (eager_blocks.py): the position
    # is `_base`, moved by the first `_used` elements of the chunk `_ahead` computed from it
    def _flat_next(self):
        ahead = self._ahead
        if self._used < len(ahead):
            self._used += 1     # (past the end: the next steps, as the old path)
            return ahead[self._used - 1]
        steps = self._steps
        if ahead:
            self._base, self._ahead, self._used = self._chunk_end, [], 0
        if self._single <= 0:
            try:
                got = steps.chunk(self._base)
            except Exception:   # again step by step: the error at its element
                self._single = CHUNK
            else:
                if got is not None:
                    # (a chunk may say where its elements begin: past a block's refill,
                    # which then is not run again where the position settles)
                    self._ahead, self._chunk_end = got[0], got[1]
                    if len(got) > 2:
                        self._base = got[2]
                    self._used = 1
                    return self._ahead[0]
        self._single -= 1
        element, self._base = steps.step(self._base)
        return element

    def _settle(self):
        """The position as tensors again (`_position`), past the elements taken."""
        if not self._steps or self._position is not None:
            return
        if self._ahead and self._used == len(self._ahead):
            flat = self._chunk_end          # (past the whole chunk: its end)
        else:
            flat = self._base
            for _ in range(self._used):
                _, flat = self._steps.step(flat)
        structure = self._steps.structure
        tensors = [EagerTensor(a, t.dtype) for a, t in zip(flat, nest.flatten(structure))]
        self._position = tuple(nest.pack_sequence_as(structure, tensors))
        self._steps = False
        self._ahead, self._used = [], 0

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
        valid, element, state = self._dataset._next(variables.read())
        self._assign(state)
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
            return dataset._next(variables.read())

        def following(state):
            self._assign(state)
            return dataset._next(state)
        return ("iterator", first, following)


def _flat_steps(dataset, position):
    """Eager iteration's steps: the dataset's blocks (eager_blocks.py) where it gives them,
    else its flat steps (eager_steps.py), or None."""
    blocky = may_give_blocks(dataset)
    steps = steps_for(dataset, position, chunks=not blocky)
    if steps is None or not blocky:
        return steps
    return blocks_for(dataset, steps, nest.flatten(tuple(position))) or steps


class _PositionVariables(tuple):
    """The Variables holding an iterator position's tensors, one per leaf of its nest."""
    structure: tuple = ()

    def read(self):
        return tuple(nest.pack_sequence_as(self.structure, [v.read_value() for v in self]))


def _variables_for(state, values=None):
    """Variables for an iterator position (`values`: eager tensors to start from)."""
    state = tuple(state)
    with eager_scope():
        starts = values if values is not None else zeros_for(structure_of(state))
    out = _PositionVariables(runtime_variable(v, "iterator_position", shape=t.shape)
                             for v, t in zip(nest.flatten(tuple(starts)), nest.flatten(state)))
    out.structure = state
    return out
