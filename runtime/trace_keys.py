"""How `rt.function` keys its traces: each argument as a hashable key (tensors by dtype and
shape, numpy arrays, numeric numpy scalars and jax arrays as the tensors they become (as
TensorFlow keys numpy values), Python values by value, Variables and
other objects by identity, composites by their spec), and the words that say why a call
traced again."""
from __future__ import annotations

import numpy as np

from . import nest
from .core import dtypes
from .core.device_tensor import DeviceTensor, is_device_array
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import EagerTensor, SymbolicTensor, Tensor
from .ops.state_ops import Variable

PRIMITIVES = (int, float, str, bool, bytes, type(None), complex)
PRIMITIVE_TYPES = frozenset(PRIMITIVES)     # (`type(v) in`: one hash lookup)
# numpy's numeric dtypes -> ours: one dict lookup where `dtypes.as_dtype` takes several steps
NUMERIC_DTYPES = {d.np_dtype: d for d in dtypes.ALL if not d.is_string}


def call_key(values, track) -> tuple:
    """The cache key of a call: a leaf key per argument value, in parameter order. What
    both the fast path of a call (positional arguments) and the bound arguments use."""
    key = []
    for v in values:     # (a loop: a comprehension costs a call more, on the fast path)
        key.append(leaf_key(v, track))
    return tuple(key)


def leaf_key(v, track):
    """One argument as a hashable key; `track(obj)` is told of each object keyed by identity.
    The common arguments (eager tensors, Python numbers, numpy arrays) are tested first."""
    t = type(v)
    if t is EagerTensor:
        return ("T", v._dtype, np.shape(v._value))
    if t in PRIMITIVE_TYPES:
        return value_key(v) if t is float or t is complex else (t, v)
    if t is np.ndarray:
        dtype = NUMERIC_DTYPES.get(v.dtype)
        return ("T", dtype if dtype is not None else dtypes.as_dtype(v.dtype), v.shape)
    if t is DeviceTensor:   # (its shape without reading its value)
        return ("T", v._dtype, v.device_array.shape)
    if isinstance(v, np.generic) and v.dtype in NUMERIC_DTYPES:    # np.float32(1.0)
        return ("T", NUMERIC_DTYPES[v.dtype], ())
    if isinstance(v, SymbolicTensor):
        return ("T", v.dtype, v.shape.as_tuple())
    if isinstance(v, TensorSpec):
        return ("T", v.dtype, v.shape.as_tuple())
    if isinstance(v, np.ndarray):
        return ("T", dtypes.as_dtype(v.dtype), v.shape)
    if isinstance(v, EagerTensor):
        return ("T", v._dtype, np.shape(v._value))
    if is_device_array(v):
        return ("T", dtypes.as_dtype(v.dtype), tuple(v.shape))
    if nest.is_composite(v):     # rt.SparseTensor: keyed by its spec, as TensorFlow does
        spec = nest.composite_specs(v)
        return (spec._rt_static_key(), *(leaf_key(c, track) for c in spec._rt_components()))
    if nest.is_nested(v):
        if isinstance(v, dict):     # (in its order: the function may iterate it)
            return (type(v).__name__,) + tuple((k, leaf_key(v[k], track)) for k in v)
        return (type(v).__name__,) + tuple(leaf_key(x, track) for x in v)
    track(v)
    return ("V" if isinstance(v, Variable) else "O", id(v))


def value_key(v):
    """A Python value (None, a bool, number, str or bytes) as a key: equal for the same
    value, apart for values `==` does not tell apart (`0.0` and `-0.0`, also as a part of
    a complex: by the text that does, as math.copysign does), and NaN equal to NaN."""
    t = type(v)
    if t is complex or (t is float and (v != v or not v)):
        return (t, repr(v))
    return (t, v)


def tensor_leaves(bound):
    """The leaves of the arguments `bound` that are traced as tensors (each a placeholder,
    in order): those `leaf_key` keys as tensors, numeric numpy scalars and jax arrays too
    (a relaxed retrace pairs these with its placeholders one for one)."""
    out = []
    for v in bound.arguments.values():
        for leaf in nest.flatten(v, expand_composites=True):
            if isinstance(leaf, (Tensor, TensorSpec, np.ndarray)) or is_device_array(leaf) or (
                    isinstance(leaf, np.generic) and leaf.dtype in NUMERIC_DTYPES):
                out.append(leaf)
    return out


def shapeless(key):
    if isinstance(key, tuple) and len(key) == 3 and key[0] == "T":
        return ("T", key[1])
    if isinstance(key, tuple):
        return tuple(shapeless(k) for k in key)
    return key


def mentions(key, oid) -> bool:
    if isinstance(key, tuple):
        if len(key) == 2 and key[0] in ("V", "O") and key[1] == oid:
            return True
        return any(mentions(k, oid) for k in key)
    return False


def key_text(key) -> str:
    return ", ".join(leaf_text(k) for k in key)


def leaf_text(k) -> str:
    if isinstance(k, tuple) and len(k) == 3 and k[0] == "T":
        return f"{k[1].name} tensor of shape {TensorShape(k[2])}"
    if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type):
        value = k[1] if k[0] in (float, complex) and type(k[1]) is str else repr(k[1])
        return f"{k[0].__name__} value {value}"
    if isinstance(k, tuple) and len(k) == 2 and k[0] in ("V", "O"):
        return "Variable" if k[0] == "V" else "object"
    return "nested structure"


def why(sig, old, new) -> str:
    if old is None:
        return "it was the first call"
    names = list(sig.parameters)
    for name, a, b in zip(names, old, new):
        if a != b:
            return f"argument '{name}' changed from {leaf_text(a)} to {leaf_text(b)}"
    return "the arguments changed"
