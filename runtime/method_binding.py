"""Whether a method is looked up on a temporary object (`Shift().apply(x)`), which nothing
else holds: CPython drops the object once the attribute is found, before the call, so a
bound `rt.function` method holding its instance weakly (as it must, to let the object go
while its traces are cached) would find it gone. Such a lookup gets a bound method that
holds the object for as long as the method itself lives.

Told by the object's reference count inside `__get__`, compared with the counts this
Python gives a temporary and a held object there (measured once, below). Where the two
cannot be told apart, no lookup counts as temporary (the weak binding as before)."""
from __future__ import annotations

import sys


def references(instance) -> int:
    """The reference count of `instance` seen from a descriptor's `__get__` that calls
    this first (with its own parameter as the argument)."""
    return sys.getrefcount(instance)


def _counts() -> tuple:
    seen: dict = {}

    class Probe:
        def __get__(self, instance, owner=None):
            if instance is not None:
                seen[instance.kind] = references(instance)
            return self

    class Holder:
        attr = Probe()

        def __init__(self, kind):
            self.kind = kind

    Holder("temporary").attr        # noqa: B018 (the lookup is the measurement)
    held = Holder("held")
    held.attr                       # noqa: B018
    return seen["temporary"], seen["held"]


_TEMPORARY, _HELD = _counts()


def is_temporary(count: int) -> bool:
    """Whether `references(instance)`, taken first thing in `__get__`, says nothing but
    the lookup holds the instance."""
    return _TEMPORARY < _HELD and count <= _TEMPORARY
