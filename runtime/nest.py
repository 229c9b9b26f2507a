"""Nested structures (lists, tuples, namedtuples, dicts) flattened to leaves and back.

Dicts flatten in sorted key order, as in TensorFlow's `tf.nest`.

Composites (`rt.SparseTensor`, `rt.SparseTensorSpec`): objects with `_rt_components()`
(their tensors, a tuple) and a classmethod `_rt_from_components(template, components)`
(rebuilds one like `template`), optionally `_rt_static_key()` (a hashable description
of what is static about them, for function cache keys) and `_rt_component_names`. As in
TensorFlow, they are leaves unless `expand_composites=True`, which the runtime passes
wherever values become graph inputs and outputs (rt.function, cond, while_loop).
"""
from __future__ import annotations


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_composite(x) -> bool:
    """Whether `x` follows the composite protocol (see the module's docstring)."""
    return hasattr(type(x), "_rt_components") and not isinstance(x, type)


def is_nested(x, expand_composites: bool = False) -> bool:
    return isinstance(x, (list, tuple, dict)) or (expand_composites and is_composite(x))


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x, key=_sort_key)]
    if isinstance(x, (list, tuple)):
        return list(x)
    return list(x._rt_components())


def _sort_key(k):
    return (type(k).__name__, k) if not isinstance(k, (int, float)) else ("", k)


def flatten(structure, expand_composites: bool = False) -> list:
    out = []
    _flatten_into(structure, out, expand_composites)
    return out


def _flatten_into(x, out, expand):
    if is_nested(x, expand):
        for c in _children(x):
            _flatten_into(c, out, expand)
    else:
        out.append(x)


def pack_sequence_as(structure, flat, expand_composites: bool = False):
    flat = list(flat)
    packed, used = _pack(structure, flat, 0, expand_composites)
    if used != len(flat):
        raise ValueError(f"structure has {used} leaves but {len(flat)} values were given")
    return packed


def _pack(s, flat, i, expand):
    if not is_nested(s, expand):
        if i >= len(flat):
            raise ValueError(f"structure has more leaves than the {len(flat)} values given")
        return flat[i], i + 1
    vals = []
    for c in _children(s):
        v, i = _pack(c, flat, i, expand)
        vals.append(v)
    return _rebuild(s, vals), i


def _rebuild(s, children):
    """A container (or composite) like `s` holding `children` (in `_children` order)."""
    if not isinstance(s, (list, tuple, dict)):
        return type(s)._rt_from_components(s, tuple(children))
    if isinstance(s, dict):
        # (flattened in sorted key order; rebuilt in `s`'s own order, as Python iterates it)
        by_key = dict(zip(sorted(s, key=_sort_key), children))
        return type(s)((k, by_key[k]) for k in s)
    if _is_namedtuple(s):
        return type(s)(*children)
    if isinstance(s, tuple):
        return tuple(children)
    return list(children)


def map_structure(fn, *structures, expand_composites: bool = False):
    first = structures[0]
    for s in structures[1:]:
        assert_same_structure(first, s, expand_composites=expand_composites)
    flats = [flatten(s, expand_composites) for s in structures]
    return pack_sequence_as(first, [fn(*xs) for xs in zip(*flats)], expand_composites)


def map_composites(fn, structure):
    """`structure` with each composite `c` in it replaced by `fn(c)` (other leaves kept)."""
    if is_composite(structure):
        return fn(structure)
    if not isinstance(structure, (list, tuple, dict)):
        return structure
    return _rebuild(structure, [map_composites(fn, c) for c in _children(structure)])


def relax_composites(structure):
    """`structure` with each composite replaced by its `_rt_relaxed()` form (its static
    description reduced to what stays true whatever its components hold), for values
    rebuilt from staged loops."""
    return map_composites(lambda c: c._rt_relaxed() if hasattr(c, "_rt_relaxed") else c,
                          structure)


def common_composites(a, b):
    """`a` (of the same structure as `b`), where a composite's static description differs
    from `b`'s, relaxed (`_rt_relaxed()`): what a value that is `a` or `b` may claim."""
    if is_composite(a):
        same = getattr(a, "_rt_static_key", None) is None or (
            a._rt_static_key() == b._rt_static_key())
        return a if same or not hasattr(a, "_rt_relaxed") else a._rt_relaxed()
    if not isinstance(a, (list, tuple, dict)):
        return a
    return _rebuild(a, [common_composites(x, y) for x, y in zip(_children(a), _children(b))])


def same_composite_statics(a, b) -> bool:
    """Whether every composite in `a` has the static description (`_rt_static_key()`) of
    its counterpart in `b` (the two of one structure)."""
    if is_composite(a):
        key = getattr(a, "_rt_static_key", None)
        return key is None or key() == b._rt_static_key()
    if not isinstance(a, (list, tuple, dict)):
        return True
    return all(same_composite_statics(x, y) for x, y in zip(_children(a), _children(b)))


def composite_specs(structure):
    """`structure` with each composite value replaced by its spec (`_rt_spec()`, e.g. an
    rt.SparseTensorSpec), which is what a traced function keys and traces it by."""
    return map_composites(lambda c: c._rt_spec() if hasattr(c, "_rt_spec") else c, structure)


def structure_repr(x) -> str:
    """A short description of the nesting, leaves shown as '.'."""
    if is_composite(x):
        inner = ", ".join(structure_repr(c) for c in _children(x))
        return f"{type(x).__name__}({inner})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {structure_repr(x[k])}" for k in sorted(x, key=_sort_key)) + "}"
    if isinstance(x, tuple):
        inner = ", ".join(structure_repr(c) for c in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    if isinstance(x, list):
        return "[" + ", ".join(structure_repr(c) for c in x) + "]"
    return "."


def same_structure(a, b, expand_composites: bool = False) -> bool:
    e = expand_composites
    if is_nested(a, e) != is_nested(b, e):
        return False
    if not is_nested(a, e):
        return True
    if is_composite(a) or is_composite(b):
        if not (is_composite(a) and is_composite(b)) or _kind(a) != _kind(b):
            return False
        ca, cb = _children(a), _children(b)
        return len(ca) == len(cb) and all(same_structure(x, y, e) for x, y in zip(ca, cb))
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a, key=_sort_key) != sorted(b, key=_sort_key):
        return False
    if isinstance(a, list) != isinstance(b, list):
        return False
    ca, cb = _children(a), _children(b)
    return len(ca) == len(cb) and all(same_structure(x, y, e) for x, y in zip(ca, cb))


def _kind(x):
    """What kind of composite `x` is: its static key's first element (a SparseTensor and
    a SparseTensorSpec are one kind), else its type."""
    key = getattr(x, "_rt_static_key", None)
    return key()[0] if key is not None else type(x)


def assert_same_structure(a, b, what: str = "values", expand_composites: bool = False) -> None:
    if not same_structure(a, b, expand_composites):
        raise ValueError(f"the two {what} do not have the same nested structure: "
                         f"{structure_repr(a)} vs {structure_repr(b)}")
