"""Nested structures (lists, tuples, namedtuples, dicts) flattened to leaves and back.

Dicts flatten in sorted key order, as in TensorFlow's `tf.nest`.
"""
from __future__ import annotations


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict))


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x, key=_sort_key)]
    return list(x)


def _sort_key(k):
    return (type(k).__name__, k) if not isinstance(k, (int, float)) else ("", k)


def flatten(structure) -> list:
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(x, out):
    if is_nested(x):
        for c in _children(x):
            _flatten_into(c, out)
    else:
        out.append(x)


def pack_sequence_as(structure, flat):
    flat = list(flat)
    packed, used = _pack(structure, flat, 0)
    if used != len(flat):
        raise ValueError(f"structure has {used} leaves but {len(flat)} values were given")
    return packed


def _pack(s, flat, i):
    if not is_nested(s):
        return flat[i], i + 1
    vals = []
    for c in _children(s):
        v, i = _pack(c, flat, i)
        vals.append(v)
    if isinstance(s, dict):
        keys = sorted(s, key=_sort_key)
        return type(s)(zip(keys, vals)), i
    if _is_namedtuple(s):
        return type(s)(*vals), i
    if isinstance(s, tuple):
        return tuple(vals), i
    return list(vals), i


def map_structure(fn, *structures):
    first = structures[0]
    for s in structures[1:]:
        assert_same_structure(first, s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(first, [fn(*xs) for xs in zip(*flats)])


def structure_repr(x) -> str:
    """A short description of the nesting, leaves shown as '.'."""
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {structure_repr(x[k])}" for k in sorted(x, key=_sort_key)) + "}"
    if isinstance(x, tuple):
        inner = ", ".join(structure_repr(c) for c in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    if isinstance(x, list):
        return "[" + ", ".join(structure_repr(c) for c in x) + "]"
    return "."


def same_structure(a, b) -> bool:
    if is_nested(a) != is_nested(b):
        return False
    if not is_nested(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a, key=_sort_key) != sorted(b, key=_sort_key):
        return False
    if isinstance(a, list) != isinstance(b, list):
        return False
    ca, cb = _children(a), _children(b)
    return len(ca) == len(cb) and all(same_structure(x, y) for x, y in zip(ca, cb))


def assert_same_structure(a, b, what: str = "values") -> None:
    if not same_structure(a, b):
        raise ValueError(f"the two {what} do not have the same nested structure: "
                         f"{structure_repr(a)} vs {structure_repr(b)}")
