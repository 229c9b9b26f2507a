"""A value of a staged construct split into what JAX carries and what stays Python.

A variable's value is a pytree (tuples, lists, dicts, namedtuples, registered dataclasses);
its leaves that are arrays or Python numbers become JAX values (the operands and results
of `lax.cond` / `lax.while_loop`); the others (functions, strings, autograph's undefined
marker) are "static": both branches, or the loop before and after an iteration, must give
the very same object. `Layout` records the split, `check` compares two layouts of one
variable and names it in the TypeError JAX users can act on.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import tree_util

_NUMBERS = (bool, int, float, complex, np.ndarray, np.generic)


def is_array(leaf: Any) -> bool:
    return isinstance(leaf, (jax.Array,) + _NUMBERS)


def describe_aval(aval: Any) -> str:
    """`float32`, `float32[3]`, `int32[2,5]` (JAX's own short spelling, dtype in full)."""
    dims = ",".join(str(d) for d in aval.shape)
    try:
        name = np.dtype(aval.dtype).name
    except TypeError:                          # (an extended dtype: key<fry>)
        name = str(aval.dtype)
    return f"{name}[{dims}]" if aval.shape else name


class _Shown:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


class Layout:
    """One variable's value: its tree structure, the static leaves (None where a leaf is
    an array) and the avals of its array leaves."""

    __slots__ = ("treedef", "statics", "avals")

    def __init__(self, treedef: Any, statics: list, avals: list):
        self.treedef, self.statics, self.avals = treedef, statics, avals

    @classmethod
    def of(cls, value: Any) -> tuple:
        """(layout, the array leaves as JAX values) of `value`."""
        leaves, treedef = tree_util.tree_flatten(value)
        statics, arrays = [], []
        for leaf in leaves:
            if is_array(leaf):
                statics.append(None)
                arrays.append(jnp.asarray(leaf))
            else:
                statics.append(leaf)
        return cls(treedef, statics, [jax.typeof(a) for a in arrays]), arrays

    def with_avals(self, avals: Sequence[Any]) -> "Layout":
        return Layout(self.treedef, self.statics, list(avals))

    def rebuild(self, arrays: Sequence[Any]) -> Any:
        it = iter(arrays)
        return self.treedef.unflatten([next(it) if s is None else s for s in self.statics])

    def zeros(self) -> list:
        return [jnp.zeros(a.shape, a.dtype) for a in self.avals]

    def describe(self) -> str:
        it = iter(self.avals)
        shown = [_Shown(describe_aval(next(it))) if s is None else _Shown(repr(s))
                 for s in self.statics]
        return repr(self.treedef.unflatten(shown))


def merged_avals(name: str, a: Layout, b: Layout, where_a: str, where_b: str,
                 is_undefined: Callable[[Any], bool], promote_a: bool = True) -> list:
    """The avals both sides are cast to, or TypeError naming `name` and both types. A
    weakly typed side (a Python number) takes the other's dtype where JAX's promotion
    gives it; `promote_a=False`: only `b` may change (a loop's variable keeps its type)."""
    def mismatch(what: str) -> TypeError:
        return TypeError(f"'{name}' is {a.describe()} {where_a} but {b.describe()} {where_b}"
                         f"{what}")
    if a.treedef != b.treedef:
        raise mismatch(" (a different structure)")
    for x, y in zip(a.statics, b.statics):
        if (x is None) != (y is None) or not (x is y or (is_undefined(x) and is_undefined(y))):
            if x is None or y is None:
                raise mismatch("")
            raise mismatch(" (a Python object, not an array: it must be the same object)")
    out = []
    for x, y in zip(a.avals, b.avals):
        if x.shape != y.shape:
            raise mismatch(" (JAX arrays keep their shape through `lax` control flow)")
        dtype = x.dtype
        if x.dtype != y.dtype:
            try:
                dtype = jnp.result_type(
                    jax.ShapeDtypeStruct((), x.dtype, weak_type=x.weak_type),
                    jax.ShapeDtypeStruct((), y.dtype, weak_type=y.weak_type))
            except (TypeError, ValueError):      # (a PRNG key and a number: no promotion)
                raise mismatch("") from None
            if not ((dtype == x.dtype and y.weak_type)
                    or (dtype == y.dtype and x.weak_type and promote_a)):
                raise mismatch("")
        out.append(jax.ShapeDtypeStruct(x.shape, dtype, weak_type=(
            x.weak_type and y.weak_type and x.dtype == y.dtype)))
    return out


def cast(arrays: Sequence[Any], avals: Sequence[Any]) -> list:
    """`arrays` as `avals` (dtype and weak type)."""
    out = []
    for x, aval in zip(arrays, avals):
        if not isinstance(x, jax.Array):
            if not aval.weak_type:    # (a constant stays one: jnp.asarray would stage it)
                out.append(np.asarray(x, aval.dtype))
                continue
            x = jnp.asarray(x, aval.dtype)
        if x.dtype != aval.dtype or jax.typeof(x).weak_type != aval.weak_type:
            x = jax.lax.convert_element_type(x, aval.dtype)     # (strong: see merged_avals)
        out.append(x)
    return out
