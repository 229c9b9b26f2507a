"""The sources of datasets: tensor slices, one element of tensors, a range (random
access), and a Python generator (host calls through `rt.py_function`)."""
from __future__ import annotations

import itertools

import numpy as np

from .. import nest
from ..core import dtypes
from ..core.apply import in_graph
from ..core.graph import current_graph
from ..core.shapes import TensorShape, TensorSpec
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops.array_ops import gather, shape
from ..ops.core import constant, constant_value
from ..ops.io_ops import py_function
from ..ops.math_ops import (add, cast, floordiv, maximum, multiply, negative,
                          subtract)
from .base import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, kind, static_count
from .counts import i64, is_dynamic
from .structure import to_tensors


def _here(t):
    """`t` as a tensor of the graph being built (eagerly: itself)."""
    g = current_graph()
    return t if g is None else in_graph(g, t)


@kind
class TensorSlices(Dataset):
    _random_access = True

    def __init__(self, tensors):
        self._tensors = to_tensors(tensors)
        leaves = nest.flatten(self._tensors)
        if not leaves:
            raise ValueError("from_tensor_slices needs at least one tensor")
        sizes = set()
        for t in leaves:
            if t.shape.rank == 0:
                raise ValueError(f"from_tensor_slices: every tensor needs a first dimension "
                                 f"to slice, got the scalar {t!r}")
            sizes.add(t.shape[0])
        known = sizes - {None}
        if len(known) > 1:
            raise InvalidArgumentError(f"from_tensor_slices: the tensors' first dimensions "
                                       f"must be equal, got {sorted(known)}")
        # None: a first dimension known only when the graph runs (then read from the first
        # tensor whose dimension is unknown, the others checked against it when they run)
        self._n = known.pop() if known else None
        self._counted = next(t for t in leaves if t.shape[0] is None) if None in sizes else None
        self._spec = nest.map_structure(
            lambda t: TensorSpec(TensorShape(t.shape.as_list()[1:]), t.dtype), self._tensors)

    def _cardinality(self):
        return self._length()

    def _length(self):
        if self._counted is None:
            return self._n
        return shape(_here(self._counted), out_type=dtypes.int64)[0]

    def _get(self, i):
        return nest.map_structure(lambda t: gather(_here(t), i), self._tensors)

    _vget = _get   # a vector of indices gathers a batch


@kind
class FromTensors(Dataset):
    _random_access = True

    def __init__(self, tensors):
        self._tensors = to_tensors(tensors)
        self._spec = nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype), self._tensors)

    def _cardinality(self):
        return 1

    def _length(self):
        return 1

    def _get(self, i):
        return nest.map_structure(_here, self._tensors)


@kind
class Range(Dataset):
    """range(stop) / range(start, stop[, step]); `stop` None: counting forever (the
    index of `enumerate`). A bound may be a tensor known only when the graph runs
    (`range(rt.size(x))` in an rt.function): the length is then a count tensor."""
    _random_access = True

    def __init__(self, *args, dtype=dtypes.int64):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range takes 1 to 3 positional arguments, got {len(args)}")
        if len(args) == 1:
            args = (0, args[0], 1)
        args = tuple(args) + (1,) * (3 - len(args))
        start, stop, step = args
        self._start = _bound(start, "range: start")
        self._stop = None if stop is None else _bound(stop, "range: stop")
        self._step = _bound(step, "range: step")
        if not is_dynamic(self._step) and self._step == 0:
            raise InvalidArgumentError("range: step must not be 0")
        self._dtype = dtypes.as_dtype(dtype)
        self._spec = TensorSpec(TensorShape([]), self._dtype)

    def _cardinality(self):
        n = self._length()
        return INFINITE_CARDINALITY if n is None else n

    def _length(self):
        if self._stop is None:
            return None
        start, stop, step = self._start, self._stop, self._step
        if not any(is_dynamic(v) for v in (start, stop, step)):
            return max(0, -(-(stop - start) // step))
        start, stop, step = (_here(i64(v)) for v in (start, stop, step))
        return maximum(constant(0, dtypes.int64), negative(floordiv(subtract(start, stop), step)))

    def _get(self, i):
        start = _here(self._start) if is_dynamic(self._start) else constant(self._start, dtypes.int64)
        step = _here(self._step) if is_dynamic(self._step) else constant(self._step, dtypes.int64)
        v = add(start, multiply(i, step))
        return v if self._dtype is dtypes.int64 else cast(v, self._dtype)

    _vget = _get


def _bound(value, what: str):
    """A bound of `range`: an int, or an int64 tensor where it is known only when the
    graph runs."""
    if isinstance(value, Tensor) and constant_value(value) is None:
        if not value.dtype.is_integer or value.shape.rank not in (None, 0):
            raise TypeError(f"{what} must be an integer scalar, got {value!r}")
        return value if value.dtype is dtypes.int64 else cast(value, dtypes.int64)
    return static_count(value, what)


_OPEN: dict = {}           # handle -> the Python iterator of a generator dataset's run
_HANDLES = itertools.count(1)


@kind
class Generator(Dataset):
    """Elements from a Python generator, fetched by host calls (`rt.py_function`) when
    the graph runs: one call starts an iterator, one call per element pulls from it."""
    _source_is_python = True

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError(f"from_generator: `generator` must be callable, got {generator!r}")
        if output_signature is None:
            if output_types is None:
                raise TypeError("from_generator needs output_signature (a nest of "
                                "rt.TensorSpec), or output_types")
            shapes = output_shapes if output_shapes is not None else nest.map_structure(
                lambda _: None, output_types)
            output_signature = nest.map_structure(
                lambda d, s: TensorSpec(TensorShape(s), dtypes.as_dtype(d)), output_types,
                shapes)
        for s in nest.flatten(output_signature):
            if not isinstance(s, TensorSpec):
                raise TypeError(f"from_generator: output_signature must be a nest of "
                                f"rt.TensorSpec, got {s!r}")
        self._generator = generator
        self._args = tuple(args) if args is not None else ()
        self._spec = output_signature

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _open(self):
        args = [a.numpy() if hasattr(a, "numpy") else a for a in self._args]
        handle = next(_HANDLES)
        _OPEN[handle] = iter(self._generator(*args))
        return np.int64(handle)

    def _pull(self, handle):
        handle = int(handle.numpy())
        specs = nest.flatten(self._spec)
        it = _OPEN.get(handle)
        try:
            if it is None:
                raise StopIteration
            value = next(it)
        except StopIteration:
            _OPEN.pop(handle, None)
            return [np.bool_(False)] + [_empty(s) for s in specs]
        try:
            leaves = [h.value for h in nest.flatten(_up_to(self._spec, value))]
        except (TypeError, ValueError, KeyError, IndexError):
            leaves = None
        if leaves is None or len(leaves) != len(specs):
            raise TypeError(f"from_generator: the generator yielded {value!r}, which does not "
                            f"match the structure of output_signature {self._spec}")
        out = [np.bool_(True)]
        for v, s in zip(leaves, specs):
            arr = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
            try:
                cast_arr = arr.astype(s.dtype.np_dtype) if s.dtype is not dtypes.string \
                    else arr.astype(object)
            except (TypeError, ValueError):
                cast_arr = None
            if cast_arr is None or (s.dtype.is_integer and arr.dtype.kind == "f") or (
                    not s.shape.is_compatible_with(TensorShape(arr.shape))):
                raise TypeError(f"from_generator: the generator yielded {v!r} (shape "
                                f"{arr.shape}, dtype {arr.dtype}), which does not match "
                                f"{s} of output_signature")
            out.append(cast_arr)
        return out

    def _init(self, epoch):
        return (py_function(self._open, [], dtypes.int64, name="Dataset.from_generator"),)

    def _next(self, state):
        specs = nest.flatten(self._spec)
        outs = py_function(self._pull, [state[0]], [dtypes.bool_] + [s.dtype for s in specs],
                           name="Dataset.from_generator")
        valid, leaves = outs[0], outs[1:]
        valid.set_shape(TensorShape([]))
        for t, s in zip(leaves, specs):
            t.set_shape(s.shape)
        return valid, nest.pack_sequence_as(self._spec, leaves), (state[0],)


class _Leaf:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _up_to(spec, value):
    """`value` shaped as the structure `spec`, its leaves (whatever they hold) wrapped."""
    if isinstance(spec, TensorSpec):
        return _Leaf(value)
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise ValueError("structure")
        return {k: _up_to(spec[k], value[k]) for k in spec}
    if not isinstance(value, (tuple, list)) or len(value) != len(spec):
        raise ValueError("structure")
    vals = [_up_to(s, v) for s, v in zip(spec, value)]
    return type(spec)(*vals) if hasattr(spec, "_fields") else type(spec)(vals)


def _empty(spec):
    dims = [0 if d is None else d for d in spec.shape.as_list()] if spec.shape.rank is not None \
        else [0]
    if spec.dtype is dtypes.string:
        return np.full(dims, b"", dtype=object)
    return np.zeros(dims, dtype=spec.dtype.np_dtype)
