"""The runtime's side of autograph's staging protocol (see `autograph.operators`).

Symbolic tensors name this backend in their class attribute `__autograph_backend__`;
autograph's operators call it when a condition or an iterable is symbolic, and never
import the runtime themselves.
"""
from __future__ import annotations

import warnings

import numpy as np

from autograph.operators import calls as _calls       # (autograph never imports us)
from autograph.operators import lists as _lists
from autograph.operators import py_builtins as _builtins
from autograph.operators import python_path as _staging
from autograph.operators import unrolling as _unrolling

from .control_flow import stage_cond, stage_while
from .data.base import Dataset, DatasetType
from .data.iterator import Iterator as DatasetIterator
from .core import dtypes, hooks
from .core.graph import Graph, current_graph
from .core.tensor import SymbolicTensor, Tensor
from .ops.array_ops import reshape, shape
from .ops.core import constant, convert_to_tensor
from .ops.io_ops import assert_that, print_
from .ops.list_ops import StagedList
from .ops.makers import range as range_, zeros
from .ops.math_ops import (cast, equal, greater, less, logical_not, minimum, not_equal,
                           where)
from .ops.reduce_ops import reduce_any, reduce_max, reduce_min
from .ops.tensor_array import TensorArray
from .truth import truth_value


def _numpy_indexes_one_element_arrays() -> bool:
    """Whether this numpy makes an int of a one-element array, as an eager tensor's
    __index__ (range()'s bound) does: numpy before 2.3 does (deprecated), later ones
    refuse, eagerly and so staged."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            int(np.ones(1, np.int64))      # (an eager tensor's __index__)
    except TypeError:
        return False
    return True


NUMPY_INDEXES_ONE_ELEMENT = _numpy_indexes_one_element_arrays()


class RuntimeBackend:
    """Builds cond / while_loop nodes for autograph's `if`, `while` and `for`."""

    def convert(self, value):
        return convert_to_tensor(value)

    def cond(self, pred, true_fn, false_fn, names, is_undefined):
        # (Python's truth value of the condition: `if n:` of a number, of a one-element
        # tensor; see truth.py)
        what = _CONDITION_OF.get(names[0] if names else None, "the condition of a staged `if`")
        return stage_cond(truth_value(pred, what), true_fn, false_fn, names=tuple(names),
                          is_undefined=is_undefined)

    def while_loop(self, cond_fn, body_fn, init, names, is_undefined, opts=None):
        opts = opts or {}
        test = lambda *vs: truth_value(cond_fn(*vs), "the test of a staged loop")
        return stage_while(test, body_fn, tuple(init), names=tuple(names),
                           maximum_iterations=opts.get("maximum_iterations"),
                           shape_invariants=opts.get("shape_invariants"),
                           relax_shapes=True, is_undefined=is_undefined)

    def left_staged(self, error, where: str) -> None:
        """`error` left a staged construct at `where` while tracing (see the graph's
        `left_staged`, read by rt.function)."""
        graph = current_graph()
        if graph is not None:
            graph.left_staged.append(error)

    def effects_since(self, count: int):
        """Of the ops added to the graph being built since it had `count`, the first that
        running once more would show (a Variable's update, a print, a change to a staged
        list; not a read or a check), as 'what, at file:line', or None. (A `while`'s test
        runs once to find whether the loop is staged; the staged loop runs it again.)"""
        graph = current_graph()
        return None if graph is None else _first_effect(graph.operations[count:])

    def iterate(self, iterable):
        if isinstance(iterable, (Dataset, DatasetIterator)):   # stateful: see Dataset._staged_plan
            return iterable._staged_plan()
        if isinstance(iterable, StagedList):
            return iterable.length(), (lambda i: iterable[i])
        t = iterable
        if t.shape.rank == 0:
            raise TypeError(f"cannot iterate over the scalar tensor {t!r}")
        first = t.shape[0] if t.shape.rank is not None else None
        if first == 0 and t.shape[1:].is_fully_defined():
            # no item at all: the body is traced on a stand-in of an item's shape (XLA
            # cannot even compile a slice of an empty dimension)
            return constant(0, dtypes.int32), (lambda i: zeros(t.shape[1:], t.dtype))
        n = constant(first, dtypes.int32) if first is not None else cast(shape(t)[0], dtypes.int32)
        return n, (lambda i: t[i])

    def range(self, start, limit, delta):
        bounds = []
        for bound in (start, limit, delta):     # (as Python's range of a numpy array)
            if (isinstance(bound, Tensor) and bound.shape.rank not in (0, None)
                    and bound.shape.num_elements() == 1 and NUMPY_INDEXES_ONE_ELEMENT):
                bound = reshape(bound, [])     # as this numpy's range() of it, eagerly
            bounds.append(bound)
            if isinstance(bound, Tensor) and bound.shape.rank not in (0, None):
                raise TypeError(f"range() takes scalar integers, not a tensor of shape "
                                f"{bound.shape}: {bound!r}; index it (t[0]) or reshape it "
                                f"to a scalar (rt.reshape(t, []))")
        return range_(*bounds)

    def minimum(self, a, b):
        return minimum(a, b)

    def extremum(self, values, largest):
        """Python's `max(*values)` (largest) or `min`, of staged scalars, or of the
        elements of one staged vector (a NaN is the answer only where it comes first)."""
        what = "max" if largest else "min"
        if len(values) == 1:
            x = convert_to_tensor(values[0])
            if x.shape.rank != 1:
                raise TypeError(f"{what}() of a tensor of shape {x.shape} compares its "
                                f"rows or elements as Python values; use "
                                f"rt.reduce_{what}(x) or rt.{what}imum(a, b)")
            if x.shape[0] == 0:
                raise ValueError(f"{what}() arg is an empty sequence")
            if x.shape[0] is None:      # known when it runs: checked then (a reduction of
                # nothing would give its identity, the dtype's lowest or highest value)
                assert_that(greater(shape(x)[0], 0), f"{what}() arg is an empty sequence")
            if not x.dtype.is_floating:
                return (reduce_max if largest else reduce_min)(x)
            nan = not_equal(x, x)
            fill = constant(float("-inf") if largest else float("inf"), x.dtype)
            best = (reduce_max if largest else reduce_min)(where(nan, fill, x))
            return where(nan[0], x[0], best)
        result = values[0]
        for value in values[1:]:
            for v in (result, value):
                if isinstance(v, Tensor) and v.shape.rank != 0:
                    raise TypeError(f"{what}() of tensors compares them as Python values; "
                                    f"use rt.{what}imum(a, b) for the elementwise {what}")
            result, value = convert_to_tensor(result), convert_to_tensor(value)
            better = greater(value, result) if largest else less(value, result)
            result = where(better, value, result)
        return result

    def len(self, value):
        """`len(value)` for a staged value: a Python int when the first dimension is known
        while tracing, else a scalar int32 tensor read when the graph runs (also for an
        unknown rank). A TensorArray gives its size; a scalar has no length (TypeError)."""
        if isinstance(value, TensorArray):
            return value.size()
        if isinstance(value, StagedList):
            return value.length()
        if not isinstance(value, Tensor):
            return len(value)
        rank = value.shape.rank
        if rank == 0:
            raise TypeError(f"len() of a scalar tensor is not defined: {value!r} has shape (); "
                            "use rt.size for its number of elements")
        if rank is not None and value.shape[0] is not None:
            return value.shape[0]
        return shape(value)[0]

    def contains(self, container, item):
        """`item in container` for a staged tensor container: whether any element equals
        `item` (elementwise equality with broadcasting, as TensorFlow's `in`), a scalar
        bool tensor."""
        if not isinstance(container, Tensor):
            raise TypeError(f"`in` on a staged value needs a tensor container, got "
                            f"{type(container).__name__}; use rt.reduce_any(rt.equal(...))")
        if container.dtype.is_string and container.shape.rank in (0, None):
            # (Python's `in` of a string looks for a substring; elementwise equality of a
            # scalar would silently answer another question)
            raise TypeError("`in` on a staged string (a substring test in Python) is not "
                            "supported: keep the string a Python value (choose it before "
                            "the staged construct), or compare whole strings with ==")
        try:
            item = convert_to_tensor(item, dtype_hint=container.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"cannot test whether {item!r} is in {container!r}: {e}") from None
        if item.dtype is not container.dtype:
            raise TypeError(f"cannot test whether a {item.dtype.name} value is in a tensor of "
                            f"dtype {container.dtype.name}: rt.cast one of them first")
        return reduce_any(equal(container, item))

    def print(self, values, sep, end, file):
        """`print(*values, sep=sep, end=end, file=file)` of staged values (autograph's
        `Feature.BUILTIN_FUNCTIONS`): `rt.print`, which prints at every run of the graph
        (`file=None`: the `sys.stdout` of that moment)."""
        print_(*values, sep=sep, end=end, output_stream=file)

    def logical_not(self, x):
        return logical_not(truth_value(x, "the operand of `not`"))

    def assert_(self, pred, message: str):
        assert_that(truth_value(pred, "the condition of an `assert`"), message)

    def new_list(self, items, element_type=None):
        """A Python list that a staged construct changes, as a StagedList (ops/list_ops.py);
        `element_type`: (dtype, shape) from `ag.set_element_type`, or None."""
        dtype, shape = element_type if element_type is not None else (None, None)
        return StagedList(items, dtype, shape)

    def stack(self, items, element_type=None):
        """`ag.stack(l)`: a StagedList stacked, or a Python list's values as one tensor."""
        if isinstance(items, StagedList):
            return items.stack()
        return self.new_list(items, element_type).stack()


# What a `cond`'s condition is, by the name autograph gives its one output.
_CONDITION_OF = {"the `and` expression": "an operand of `and`",
                 "the `or` expression": "an operand of `or`",
                 "the conditional expression": "the condition of `x if c else y`"}


def _first_effect(ops):
    """What the first op of `ops` that tracing again would repeat does, in words (OpDef
    traits: `repeatable` effects are left out, `effect` says what one does), or None."""
    for op in ops:
        opdef = op.opdef
        if not opdef.side_effect or opdef.repeatable:
            continue
        bodies = [b.graph for b in op.attrs.values()
                  if isinstance(getattr(b, "graph", None), Graph)]
        if bodies:          # a cond's or while_loop's: what its branches or body do
            for body in bodies:
                found = _first_effect(body.operations)
                if found:
                    return found
            continue
        what = opdef.effect or f"has a side effect ({opdef.name})"
        return f"{what} (at {op.location[0]}:{op.location[1]})" if op.location else what
    return None


BACKEND = RuntimeBackend()


def _graph_size():
    graph = current_graph()
    return None if graph is None else len(graph.operations)


def install() -> None:
    """Connects autograph to the runtime: symbolic tensors name the backend autograph
    stages them with; lists made staged by a construct use it too; and while a graph is
    built, converted functions take their staging path (`ag__.staging`, see
    autograph.operators.python_path)."""
    SymbolicTensor.__autograph_backend__ = StagedList.__autograph_backend__ = BACKEND
    DatasetType.backend = BACKEND      # datasets name it while a graph is built
    _lists.register_default_backend(BACKEND)
    _builtins.register_len(TensorArray, BACKEND.len)     # len(ta): its size, a tensor
    _calls.register_library("runtime", logger="runtime")   # never converted; re-raises; logs
    hooks.on_graph_building(_staging.enter, _staging.exit)
    _unrolling.register_graph_size(_graph_size)   # (a Python loop unrolled while tracing warns)
