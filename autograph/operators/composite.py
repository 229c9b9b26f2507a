"""State that is not a local name: attributes, items, and global/nonlocal names.

A staged construct that writes `self.best`, `d["k"]`, `l[0]` or a `global` name carries
it like a local: read before, passed through the branches or iterations, written back
after. The converter describes each such place by a spec, built only when the
construct is staged (the `composite=` argument is a function returning the specs):

The design in full: docs/architecture.md, under `autograph/operators/composite.py`.
"""
from __future__ import annotations

from builtins import (  # the originals: see operators/__init__
    delattr, dict, getattr, hasattr, isinstance, list, set, setattr, tuple, type, zip)

import builtins as _BUILTINS
from typing import Any, Callable, Sequence

from autograph.errors import StagingError, user_location
from autograph.operators.staging_backends import backend_of
from autograph.operators.undefined import Undefined
from autograph.operators.watch import BUFFERS, CONTAINERS

# Python containers that a method call changes in place: a staged construct cannot
# carry such a change (the branches would both change the one object).
_MUTABLE = CONTAINERS + BUFFERS
_ABSENT = (AttributeError, KeyError, IndexError, NameError, UnboundLocalError)


def _plain_attribute(obj: Any, name: str, where: str = None) -> None:
    """A carried attribute is written once per branch or iteration traced: only plain
    storage (no property or other data descriptor, no custom `__setattr__`) gives the
    same result as Python's single write. `where`: the user's 'file:line' that the error
    names (by default found from the frames, see set_attr)."""
    kind = type(obj)
    descriptor = getattr(kind, name, None)
    if (kind.__setattr__ is not object.__setattr__ and kind.__setattr__ is not type.__setattr__
            or hasattr(type(descriptor), "__set__")):
        what = "a property" if isinstance(descriptor, property) else (
            "a data descriptor" if hasattr(type(descriptor), "__set__")
            else f"{kind.__name__}.__setattr__")
        raise StagingError(
            f"{where or user_location(3)}: the attribute {name!r} of a {kind.__name__} is set "
            f"through {what}, which staging would run once per branch or iteration traced, "
            f"not once as Python does; assign a local name in the staged construct and set the "
            f"attribute after it")


def _plain_container(obj: Any, where: str = None) -> None:
    kind = type(obj)
    if kind in (dict, list):
        return
    for base in (dict, list):
        if isinstance(obj, base) and kind.__setitem__ is base.__setitem__ \
                and kind.__getitem__ is base.__getitem__:
            return
    raise StagingError(
        f"{where or user_location(3)}: an item of a {kind.__name__} is set through its own "
        f"__setitem__, which staging would run once per branch or iteration traced, not "
        f"once as Python does; assign a local name in the staged construct and set the item "
        f"after it")


def set_attr(obj: Any, name: str, value: Any, where: str = None) -> None:
    """`obj.name = value`; an Undefined value removes the attribute (it had none).
    `where`: the user's 'file:line' that an error names; by default the innermost frame
    outside autograph above this call."""
    _plain_attribute(obj, name, where)
    if type(value) is Undefined:
        if hasattr(obj, name):
            delattr(obj, name)
        return
    setattr(obj, name, value)


def attribute_name(getter: Callable) -> str:
    """The attribute `lambda: obj.__x` reads, as Python compiled it (`_C__x` in a method
    of class `C`)."""
    return getter.__code__.co_names[-1]


def set_item(obj: Any, key: Any, value: Any, where: str = None) -> None:
    """`obj[key] = value`; an Undefined value removes the key (it had none). `where`: as
    for set_attr."""
    _plain_container(obj, where)
    if backend_of(key) is not None:
        raise StagingError(f"{where or user_location(3)}: a staged value cannot be a key or "
                           f"index of a Python container carried through a staged construct")
    if type(value) is Undefined:
        try:
            del obj[key]
        except (KeyError, IndexError):
            pass
        return
    obj[key] = value


class Places:
    """The carried places of one staged construct: read them, write them, and say where
    a write that cannot be carried is."""

    __slots__ = ("names", "getters", "setters", "owners", "locals", "filename", "where",
                 "staged_lists", "unset", "first", "inherited")

    def __init__(self, specs: Sequence[tuple], where: str, staged_lists: Sequence[Any] = ()):
        self.names, self.getters, self.setters, self.owners = [], [], [], []
        self.locals = []           # a local variable (a cell): reads check it (`ag__.ld`)
        self.first = self.inherited = None     # the values first read; which were the class's
        self.where = where         # the user's 'file:line' of the construct: errors name it
        self.filename = where.rpartition(":")[0]
        self.staged_lists = staged_lists     # Python lists the construct made staged lists
        self.unset = {"main": set(), "else": set()}  # places a staged `if`'s branch leaves unset
        for spec in specs:
            kind = spec[-1]
            if kind == "attr":
                owner = spec[1]
                getter, setter = _accessors(owner, getattr, set_attr, where)
            elif kind == "item":
                owner = None
                getter, setter = _accessors(spec[1], _item, set_item, where)
            elif kind == "global":
                owner = None
                getter = _global_getter(spec[1], spec[0])
                setter = _global_setter(spec[1], spec[0])
            elif len(spec) == 6:   # "write", "method": cannot be carried
                self._check_uncarried(spec)
                continue
            else:   # "local"; or the form of earlier versions (files `autograph convert`
                # wrote then): (text, getter, setter[, owner])
                getter, setter = spec[1], spec[2]
                owner = spec[3] if len(spec) > 3 and kind != "local" else None
            self.names.append(spec[0])
            self.getters.append(getter)
            self.setters.append(setter)
            self.owners.append(owner)
            self.locals.append(kind == "local")

    def _check_uncarried(self, spec: tuple) -> None:
        name, getter, _, reason, lineno, kind = spec
        if getter is not None:
            try:
                value = getter()
            except _ABSENT:
                return
            if (getattr(type(value), "__autograph_reference__", False)
                    or any(value is x for x in self.staged_lists)):
                return           # a staged list: its changes are ops
            if kind == "method" and not isinstance(value, _MUTABLE):
                return           # not a Python container: its own methods stage
        raise StagingError(
            f"{self.filename}:{lineno}: `{name}` cannot be changed inside a staged construct: "
            f"{reason}. Make it a local name assigned in the construct (read after it), a "
            f"TensorArray, or compute the value before the construct")

    def read(self) -> tuple:
        values = []
        for name, getter in zip(self.names, self.getters):
            try:
                values.append(getter())
            except _ABSENT:
                values.append(Undefined(name))
        values = tuple(values)
        if self.first is None:
            self.first = values
            self.inherited = [owner is not None and _from_class(*owner()) for owner in self.owners]
        return values

    def write(self, values: Sequence[Any]) -> None:
        for i, (setter, value) in enumerate(zip(self.setters, values)):
            if self.inherited is not None and self.inherited[i] and value is self.first[i]:
                obj, attr = self.owners[i]()
                if attr in getattr(obj, "__dict__", ()):
                    delattr(obj, attr)      # back to the class's value, as it was
                continue
            setter(value)


# The getter and setter of a place from its owner (see the module docstring), called
# again for each read and write as the place's own expression would be evaluated.

def _accessors(owner: Callable, read: Callable, write: Callable, where: str) -> tuple:
    """(getter, setter) of the place `owner()` gives: `read(obj, key)`, `write(obj, key,
    value, where)`."""
    def get():
        return read(*owner())

    def set_(value):
        obj, key = owner()
        write(obj, key, value, where)
    return get, set_


def _item(obj: Any, key: Any) -> Any:
    if isinstance(obj, dict) and key not in obj:
        # absent, also in a defaultdict or Counter (whose `d[key]` would make it, or
        # give 0): the construct must not create a key only reading it
        raise KeyError(key)
    return obj[key]


def _global_getter(namespace: dict, name: str) -> Callable:
    def get():             # as the function's own read of the name: globals, then builtins
        try:
            return namespace[name]
        except KeyError:
            builtins_ = namespace.get("__builtins__", _BUILTINS)
            if type(builtins_) is not dict:
                builtins_ = builtins_.__dict__
            if name in builtins_:
                return builtins_[name]
            raise NameError(f"name {name!r} is not defined") from None
    return get


def _global_setter(namespace: dict, name: str) -> Callable:
    return lambda value: set_global(namespace, name, value)


def _from_class(obj: Any, attr: str) -> bool:
    """Whether `obj.attr` is a plain value read from its class (no instance attribute of
    that name; a property or other data descriptor is not such a value)."""
    if attr in getattr(obj, "__dict__", {attr: None}):
        return False
    return not hasattr(type(getattr(type(obj), attr, None)), "__set__")


def _frozen(value: Any) -> Any:
    """`value` with its dicts, lists and tuples copied (their leaves shared): what a branch
    returns, as it is when the branch ends."""
    kind = type(value)
    if kind is dict:
        return {k: _frozen(v) for k, v in value.items()}
    if kind is list:
        return [_frozen(v) for v in value]
    if isinstance(value, tuple):
        items = [_frozen(v) for v in value]
        return kind(*items) if hasattr(value, "_fields") else kind(items)
    return value


def set_global(namespace: dict, name: str, value: Any) -> None:
    """`global name; name = value` (Undefined: the name stays unbound)."""
    if type(value) is not Undefined:
        namespace[name] = value


def places(composite: Callable[[], Sequence[tuple]], staged_lists: Sequence[Any] = ()) -> Places:
    """The specs the converter wrote (see the module docstring); the user's code that
    called the operator is their file, and the line (the construct's) that an error
    writing a place names. `staged_lists`: the Python lists of the construct's state that
    became staged lists."""
    return Places(composite(), user_location(2), staged_lists)


def wrap_branch(fn: Callable, places: Places, init: tuple, n: int, unset: set) -> Callable:
    """A branch that starts from the places' values before the construct and returns its
    outputs (`n` of them: a bare value for one) followed by the places' values after;
    `unset` receives the positions of the places it leaves without a value."""
    def branch(*state):
        places.write(init)
        result = _frozen(fn(*state))    # the next branch puts the places back in the
        outs = (result,) if n == 1 else tuple(result) if n else ()   # containers it returns
        after = places.read()
        unset.update(i for i, v in enumerate(after) if type(v) is Undefined)
        return outs + after
    return branch
