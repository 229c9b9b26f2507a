"""`window`, as `tf.data`'s: a dataset of windows, each a finite dataset of elements.

Window k holds the input elements at positions k*shift + j*stride (j < size) that exist;
windows start while k*shift is a position of the input, and with `drop_remainder` only
full windows are kept. The staged iterator holds a buffer of the next
span = (size - 1) * stride + 1 input elements (each component stacked, shape
[span, *element shape]) and how many it holds:

    fill the buffer from the input up to span elements (or the input's end);
    no element, or drop_remainder and fewer than span: the end;
    the window: the buffer's rows 0, stride, 2*stride, ... (as many as it holds);
    shift < held: the buffer moves up by shift rows; else it empties and the input
        skips shift - held more elements.

A window is a `WindowDataset`: a random access dataset of its rows [size, *shape] and
its count. It is a composite (runtime/nest.py), so it travels through staged loops,
conds and `rt.function` outputs as its two tensors: eagerly, and inside `rt.function`
through `flat_map`/`interleave` (`ds.window(3, 1).flat_map(lambda w: w.batch(3))`).
Its spec, `DatasetSpec`, is no tensor spec: a transformation that needs an element of
tensors (`map`, `batch`, `filter` ... of the windows themselves) says so."""
from __future__ import annotations

import numpy as np

from .. import nest
from ..control_flow import while_loop
from ..core import dtypes
from ..core.graph import current_graph
from ..core.shapes import TensorShape, TensorSpec
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops.array_ops import expand_dims, gather, reshape
from ..ops.core import constant, constant_value
from ..ops.makers import range as rt_range
from ..ops.math_ops import (add, equal, floordiv, greater, greater_equal, less, logical_and,
                            logical_not, logical_or, maximum, minimum, subtract, where)
from ..core.apply import in_graph
from .base import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, static_count
from .batching_more import state_shapes
from .counts import cardinality_of, i64, is_dynamic
from .more_methods import more_kind
from .structure import zeros_for

_WORKS = ("what works with windows: iterating them eagerly (each window an rt.data.Dataset), "
          "and, eagerly and inside rt.function, ds.window(...).flat_map(lambda w: w.batch(n)) "
          "(or interleave; a tuple/dict element gives a tuple/dict of windows: "
          "flat_map(lambda a, b: rt.data.Dataset.zip((a.batch(n), b.batch(n)))))")


def not_tensors_error(what: str) -> TypeError:
    return TypeError(f"{what}: the elements of a window() dataset are datasets, not tensors; "
                     + _WORKS)


class DatasetSpec:
    """The spec of a window: a dataset of at most `size` elements of `element_spec`
    (as `tf.data.DatasetSpec`)."""

    def __init__(self, element_spec: TensorSpec, size: int, full: bool = False):
        self._element_spec = element_spec
        self._size = size
        self._full = full      # every window holds `size` elements (drop_remainder)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def shape(self):
        raise not_tensors_error("DatasetSpec.shape")

    @property
    def dtype(self):
        raise not_tensors_error("DatasetSpec.dtype")

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, TensorShape([]))"

    def __eq__(self, other):
        return type(other) is DatasetSpec and self._rt_static_key() == other._rt_static_key()

    def __hash__(self):
        return hash(self._rt_static_key())

    # -- the composite protocol (runtime/nest.py) -------------------------------------------
    def _rt_components(self):
        s = self._element_spec
        return (TensorSpec(TensorShape([self._size] + s.shape.as_list()), s.dtype),
                TensorSpec(TensorShape([]), dtypes.int64))

    @classmethod
    def _rt_from_components(cls, template, components):
        return WindowDataset(*components, spec=template._element_spec, full=template._full)

    def _rt_static_key(self):
        s = self._element_spec
        return ("rt.data.DatasetSpec", s.shape.as_tuple(), s.dtype.name, self._size,
                self._full)


class WindowDataset(Dataset):
    """One window: the first `count` rows of `rows` ([size, *element shape]); `full`:
    count is size, known while the graph is built (a window of drop_remainder), so that
    what is made of it (a batch) has static shapes, as XLA needs."""

    _random_access = True
    _rt_component_names = ("rows", "count")

    def __init__(self, rows, count, spec=None, full=False):
        self._rows, self._count, self._full = rows, count, full
        if spec is None:
            shape = getattr(rows, "shape", None)
            spec = TensorSpec(TensorShape(shape.as_list()[1:]), rows.dtype)
        self._spec = spec

    def _length(self):
        if self._full:
            return self._rt_size()
        c = self._count
        if isinstance(c, Tensor):
            value = constant_value(c)
            if value is not None and current_graph() is None:
                return int(value)
        return c

    def _cardinality(self):
        return cardinality_of(self._length())

    def _get(self, i):
        g = current_graph()
        rows = self._rows if g is None else in_graph(g, self._rows)
        return gather(rows, i)

    def _vget(self, indices):
        """The elements at the int64 vector `indices`, stacked (what `batch` reads)."""
        return self._get(indices)

    # -- the composite protocol (runtime/nest.py) -------------------------------------------
    def _rt_components(self):
        return (self._rows, self._count)

    @classmethod
    def _rt_from_components(cls, template, components):
        return cls(*components, spec=template._spec, full=template._full)

    def _rt_static_key(self):
        s = self._spec
        return ("rt.data.DatasetSpec", s.shape.as_tuple(), s.dtype.name,
                self._rt_size(), self._full)

    def _rt_size(self):
        shape = getattr(self._rows, "shape", None)
        dims = shape.as_list() if shape is not None and shape.rank is not None else [None]
        return dims[0]

    def _rt_spec(self):
        return DatasetSpec(self._spec, self._rt_size(), self._full)

    def _rt_is_compatible_with(self, other) -> bool:
        return type(other) is type(self) and self._rt_static_key() == other._rt_static_key()

    @property
    def shape(self):
        raise not_tensors_error("a window's shape")

    @property
    def dtype(self):
        raise not_tensors_error("a window's dtype")


def _window_count(n, size, shift, stride, drop):
    """The number of windows of an input of `n` elements (tf.data's cardinality)."""
    if is_dynamic(n) or n < 0:
        return n if not is_dynamic(n) else UNKNOWN_CARDINALITY
    if drop:
        rest = n - ((size - 1) * stride + 1)
        return 0 if rest < 0 else rest // shift + 1
    return -(-n // shift)


@more_kind
class Window(Dataset):
    def __init__(self, inner, size, shift, stride, drop_remainder):
        if not isinstance(inner, Dataset):
            raise TypeError(f"expected an rt.data.Dataset, got {inner!r}")
        self._size = static_count(size, "window: size")
        self._shift = self._size if shift is None else static_count(shift, "window: shift")
        self._stride = static_count(stride, "window: stride")
        for what, v in (("size", self._size), ("shift", self._shift),
                        ("stride", self._stride)):
            if v <= 0:
                raise InvalidArgumentError(f"window: {what} must be greater than zero, got {v}")
        self._drop = bool(drop_remainder)
        flat = nest.flatten(inner._spec)
        if any(isinstance(s, DatasetSpec) for s in flat):
            raise not_tensors_error("window of windows")
        unknown = [s for s in flat if not s.shape.is_fully_defined()]
        if unknown:
            raise ValueError(f"window: the elements' shapes must be known when the dataset "
                             f"is built, got {inner._spec} (fix them with map and "
                             f"rt.ensure_shape or reshape)")
        self._inner = inner
        self._in_specs = flat
        self._span = (self._size - 1) * self._stride + 1
        self._spec = nest.map_structure(lambda s: DatasetSpec(s, self._size, self._drop),
                                        inner._spec)
        self._source_is_python = inner._source_is_python

    def _cardinality(self):
        n = self._inner._cardinality()
        if not is_dynamic(n) and n == INFINITE_CARDINALITY:
            return n
        return _window_count(n, self._size, self._shift, self._stride, self._drop)

    def _init(self, epoch):
        buffers = [zeros_for(TensorSpec(TensorShape([self._span] + s.shape.as_list()),
                                        s.dtype)) for s in self._in_specs]
        return (self._inner._init(epoch), tuple(buffers), i64(0), constant(False))

    def _next(self, state):
        inner, span = self._inner, self._span
        outer, buffers, held, ended = state
        positions = rt_range(span, dtype=dtypes.int64)

        def at(row_mask, x, buf):       # buf with row `held` replaced by x
            mask = reshape(row_mask, [span] + [1] * x.shape.rank)
            return where(mask, expand_dims(x, 0), buf)

        def filling(outer, buffers, held, ended):
            return logical_and(less(held, i64(span)), logical_not(ended))

        def fill(outer, buffers, held, ended):
            valid, element, outer2 = inner._next(outer)
            row = logical_and(equal(positions, held), valid)
            buffers = tuple(at(row, x, b) for x, b in zip(nest.flatten(element), buffers))
            return outer2, buffers, where(valid, add(held, i64(1)), held), logical_not(valid)

        invariants = (state_shapes(outer), tuple(b.shape for b in buffers), TensorShape([]),
                      TensorShape([]))
        outer, buffers, held, ended = while_loop(filling, fill, (outer, buffers, held, ended),
                                                 shape_invariants=invariants)
        valid = greater(held, i64(0))
        if self._drop:
            valid = logical_and(valid, equal(held, i64(span)))
        taken = constant(np.arange(self._size, dtype=np.int64) * self._stride)
        count = add(floordiv(maximum(subtract(held, i64(1)), i64(0)), i64(self._stride)),
                    i64(1))
        count = where(valid, minimum(count, i64(self._size)), i64(0))
        windows = [WindowDataset(gather(b, taken), count, spec, self._drop)
                   for b, spec in zip(buffers, self._in_specs)]
        element = nest.pack_sequence_as(self._inner._spec, windows)

        # Move on: the buffer moves up by shift rows, or empties and the input skips the
        # rest of the shift (only after a window was given).
        shift = i64(self._shift)
        moved = minimum(add(positions, shift), i64(span - 1))
        empties = greater_equal(shift, held)
        buffers = tuple(gather(b, moved) for b in buffers)
        skip = where(logical_and(valid, empties), subtract(shift, held), i64(0))
        held = where(valid, maximum(subtract(held, shift), i64(0)), held)

        def skipping(outer, k, ended):
            return logical_and(less(k, skip), logical_not(ended))

        def skip_one(outer, k, ended):
            v, _, outer2 = inner._next(outer)
            return outer2, add(k, i64(1)), logical_or(ended, logical_not(v))

        outer, _, ended = while_loop(skipping, skip_one, (outer, i64(0), ended),
                                     shape_invariants=(state_shapes(outer), TensorShape([]),
                                                       TensorShape([])))
        return valid, element, (outer, buffers, held, ended)
