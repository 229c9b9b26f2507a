"""`interleave` and `flat_map` (interleave with cycle_length 1), as `tf.data`'s.

`map_func` makes a dataset of each input element. The interleave holds `cycle_length`
slots, each the input element it was made from and the position of its dataset's staged
iterator, and steps as tf.data's deterministic interleave does:

    while the input has elements or a slot is open:
        the slot at the cycle index is open: its dataset's next element is the output
            (after block_length of them, or at its end, the cycle index moves on);
            at its end the slot closes;
        else, while the input has elements: the next input element opens the slot;
        else the cycle index moves on.

`_next` is one staged loop whose body holds, per slot, the graph of its dataset's `_next`
(`map_func` is traced once per slot when the graph is built, with the slot's element)."""
from __future__ import annotations

import os

import autograph as ag

from .. import nest
from ..control_flow import cond, while_loop
from ..core import dtypes
from ..core.graph import Graph, current_graph
from ..core.opdef import placeholder_op
from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from ..ops.core import constant
from ..ops.math_ops import (add, equal, greater, logical_and, logical_not, logical_or, multiply,
                            subtract, where)
from .base import AUTOTUNE, UNKNOWN_CARDINALITY, Dataset, static_count
from .batching_more import state_shapes
from .counts import i64
from .more_methods import more_kind
from .structure import structure_of, zeros_for

_EPOCH_STRIDE = 1 << 20    # the epochs of the datasets one epoch of the input opens


def _flat(value):
    return nest.flatten(value, expand_composites=True)


def _shapes(specs):
    return [s.shape for s in specs]


@more_kind
class Interleave(Dataset):
    def __init__(self, inner, map_func, cycle_length, block_length):
        if not isinstance(inner, Dataset):
            raise TypeError(f"expected an rt.data.Dataset, got {inner!r}")
        if not callable(map_func):
            raise TypeError(f"interleave: map_func must be callable, got {map_func!r}")
        if cycle_length is None or (not hasattr(cycle_length, "dtype")
                                    and cycle_length == AUTOTUNE):
            cycle_length = os.cpu_count() or 1
        self._c = static_count(cycle_length, "interleave: cycle_length")
        self._block = static_count(block_length, "interleave: block_length")
        if self._c <= 0:
            raise InvalidArgumentError(f"interleave: cycle_length must be greater than zero, "
                                       f"got {self._c}")
        if self._block <= 0:
            raise InvalidArgumentError(f"interleave: block_length must be greater than zero, "
                                       f"got {self._block}")
        self._inner = inner
        self._fn = ag.for_staging(map_func)
        self._in_specs = _flat(inner._spec)
        # Traced once now with an element of the input's spec: what the datasets it makes
        # yield, and the shapes of their iterators' positions.
        graph = Graph("interleave_map_func", outer=current_graph())
        graph.building_function = True
        with graph.as_default():
            flat = [placeholder_op(graph, s.dtype, s.shape, name="args") for s in self._in_specs]
            made = self._dataset(flat)
            state = made._init(constant(0, dtypes.int64))
        self._spec = made._spec
        self._out_specs = _flat(made._spec)
        self._state_specs = structure_of(state)
        self._source_is_python = inner._source_is_python or made._source_is_python

    def _dataset(self, flat_element):
        element = nest.pack_sequence_as(self._inner._spec, list(flat_element),
                                        expand_composites=True)
        if isinstance(element, tuple) and not hasattr(element, "_fields"):
            made = self._fn(*element)
        else:
            made = self._fn(element)
        if not isinstance(made, Dataset):
            raise TypeError(f"interleave/flat_map: map_func must return an rt.data.Dataset, "
                            f"got {made!r}")
        return made

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _init(self, epoch):
        slots = tuple((constant(False), zeros_for(self._in_specs), zeros_for(self._state_specs))
                      for _ in range(self._c))
        return (epoch, i64(0), self._inner._init(epoch), i64(0), i64(0), i64(0),
                constant(False), slots)

    def _next(self, state):
        c, block, inner = self._c, self._block, self._inner
        epoch = state[0]

        def following(ci):
            nxt = add(ci, i64(1))
            return where(equal(nxt, i64(c)), i64(0), nxt)

        def step(j, found, out, opened, outer, ci, bi, num_open, eoi, slots):
            is_open, elem, pos = slots[j]

            def with_slot(new):
                return tuple(new if k == j else s for k, s in enumerate(slots))

            def from_open():
                v, e, pos2 = self._dataset(elem)._next(pos)

                def produced():
                    bi2 = add(bi, i64(1))
                    full = equal(bi2, i64(block))
                    return (constant(True), _flat(e), opened, outer,
                            where(full, following(ci), ci), where(full, i64(0), bi2),
                            num_open, eoi, with_slot((is_open, elem, pos2)))

                def ended():
                    return (found, out, opened, outer, following(ci), i64(0),
                            subtract(num_open, i64(1)), eoi,
                            with_slot((constant(False), elem, pos)))
                return cond(v, produced, ended)

            def from_closed():
                def pull():
                    ov, oe, outer2 = inner._next(outer)

                    def opens():
                        oe_flat = _flat(oe)
                        first = add(multiply(epoch, i64(_EPOCH_STRIDE)), opened)
                        pos2 = self._dataset(oe_flat)._init(first)
                        return (found, out, add(opened, i64(1)), outer2, ci, bi,
                                add(num_open, i64(1)), eoi,
                                with_slot((constant(True), oe_flat, pos2)))

                    def exhausted():
                        return (found, out, opened, outer2, ci, bi, num_open, constant(True),
                                slots)
                    return cond(ov, opens, exhausted)

                def skip():
                    return (found, out, opened, outer, following(ci), i64(0), num_open, eoi,
                            slots)
                return cond(eoi, skip, pull)
            return cond(is_open, from_open, from_closed)

        def body(found, out, opened, outer, ci, bi, num_open, eoi, slots):
            values = (found, out, opened, outer, ci, bi, num_open, eoi, slots)
            start = ci
            for j in range(c):
                values = cond(equal(start, i64(j)),
                              lambda j=j, values=values: step(j, *values),
                              lambda values=values: values)
            return values

        def more(found, out, opened, outer, ci, bi, num_open, eoi, slots):
            return logical_and(logical_not(found),
                               logical_or(logical_not(eoi), greater(num_open, i64(0))))

        _, opened, outer, ci, bi, num_open, eoi, slots = state
        scalar = TensorShape([])
        slot_shapes = tuple((scalar, _shapes(self._in_specs),
                             nest.map_structure(lambda s: s.shape, self._state_specs))
                            for _ in range(c))
        found, out, opened, outer, ci, bi, num_open, eoi, slots = while_loop(
            more, body,
            (constant(False), zeros_for(self._out_specs), opened, outer, ci, bi, num_open,
             eoi, slots),
            shape_invariants=(scalar, _shapes(self._out_specs), scalar, state_shapes(outer),
                              scalar, scalar, scalar, scalar, slot_shapes))
        element = nest.pack_sequence_as(self._spec, list(out), expand_composites=True)
        return found, element, (epoch, opened, outer, ci, bi, num_open, eoi, slots)
