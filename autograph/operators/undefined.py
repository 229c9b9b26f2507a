"""Markers for names that some paths leave unassigned.

`Undefined('x')` stands for "x has no value yet"; it is what a converted construct
receives for a name that is assigned only inside it. `MaybeUndefined` is a staged
value whose presence is only known at run time (the `defined` flag of the protocol).
Reads of such names go through `ld`, which raises as Python would.
"""
from __future__ import annotations

from builtins import bool, str, type  # the originals: see operators/__init__

import sys as _sys
from typing import Any

from autograph.errors import user_location
from autograph.operators.staging_backends import backend_of


class Undefined:
    """The value of a local that has not been assigned on the path taken."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"


class MaybeUndefined:
    """A staged value plus a staged bool saying whether the path taken assigned it."""

    __slots__ = ("value", "defined", "name")

    def __init__(self, value: Any, defined: Any, name: str):
        self.value, self.defined, self.name = value, defined, name

    def __repr__(self) -> str:
        return f"MaybeUndefined({self.name!r}, {self.value!r})"


def is_undefined(value: Any) -> bool:
    return type(value) is Undefined


def unwrap(value: Any) -> Any:
    """The value operators pass on: a MaybeUndefined's value, anything else as is."""
    return value.value if type(value) is MaybeUndefined else value


_UNBOUND = ("cannot access local variable '%s' where it is not associated with a value"
            if _sys.version_info >= (3, 11) else "local variable '%s' referenced before assignment")


_UNBOUND_FREE = ("cannot access free variable '%s' where it is not associated with a value "
                 "in enclosing scope" if _sys.version_info >= (3, 11)
                 else "free variable '%s' referenced before assignment in enclosing scope")


def ld(value: Any) -> Any:
    """Read a name that may be unassigned: raise like Python, or check at run time."""
    kind = type(value)
    if kind is Undefined:
        raise _unassigned(UnboundLocalError(_UNBOUND % value.name), value)  # Python's message
    if kind is MaybeUndefined:
        return _checked(value)
    return value


def ld_free(value: Any) -> Any:
    """`ld` where a nested function (or lambda, generator expression, class body) reads
    the name of the function around it: Python's NameError for a free variable."""
    kind = type(value)
    if kind is Undefined:
        raise _unassigned(NameError(_UNBOUND_FREE % value.name), value)
    if kind is MaybeUndefined:
        return _checked(value)
    return value


def _unassigned(error: Exception, value: Undefined) -> Exception:
    # Inside a staged branch this becomes a run-time check (see control_flow._Tracer),
    # whose message says where: the location travels with the error, not in it.
    error.ag_undefined = (value.name, user_location(3))
    return error


def _checked(value: MaybeUndefined) -> Any:
    backend = backend_of(value.defined)
    if backend is None:       # a flag a staged construct gave as a concrete value
        if not value.defined:
            raise _unassigned(UnboundLocalError(_UNBOUND % value.name), value)
        return value.value
    backend.assert_(
        value.defined,
        f"name '{value.name}' is used at {user_location(3)} but was not assigned "
        f"on the path taken; assign it on every path before this line")
    return value.value
