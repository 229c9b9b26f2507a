"""Changes a staged construct makes to Python state through the functions it calls.

Staging traces both branches of an `if` (and a loop's body once), so a change that a
branch makes through a call — `helper(d)` setting `d["k"]`, `o.set(x)`, a function that
rebinds a global, `setattr(o, "a", x)` — happens while tracing whatever the condition,
and the converter cannot carry what it does not see. Before the construct is traced,
`Watch` takes a fingerprint of the Python objects its functions can reach (their
closure, the globals they name and their module's globals, one attribute level deep);
after each branch or body is traced it compares them, and a difference is a
StagingError at the construct's line instead of a silently different answer. Changes
the construct makes itself are carried (operators/composite.py) and put back before the
comparison.
"""
from __future__ import annotations

from builtins import dict, getattr, id, isinstance, list, set, tuple, type

import array
import collections
import types
from typing import Any, Callable, Iterable, Optional, Sequence

from autograph.errors import StagingError, user_location
from autograph.operators.calls import ALLOWLIST, is_allowlisted

_SKIP = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
         type, types.CodeType)


# Containers fingerprinted by what they hold (subclasses too: OrderedDict, defaultdict,
# Counter), and those by their bytes.
_SEQUENCES = (list, collections.deque)
_CONTAINERS = (dict, list, set, collections.deque)
_BUFFERS = (bytearray, array.array)


def _fingerprint(value: Any) -> Optional[tuple]:
    kind = type(value)
    if isinstance(value, dict):
        return tuple((id(k), id(v)) for k, v in value.items())
    if isinstance(value, _SEQUENCES):
        return tuple(id(v) for v in value)
    if isinstance(value, set):
        return tuple(sorted(id(v) for v in value))
    if isinstance(value, _BUFFERS):
        return (bytes(value),)
    if kind is type:
        return tuple((k, id(v)) for k, v in value.__dict__.items())   # a user class
    attrs = getattr(value, "__dict__", None)
    if type(attrs) is dict:
        return tuple((k, id(v)) for k, v in attrs.items())
    if _is_small_array(value):
        return (value.shape, value.dtype.str, value.tobytes())
    return None


def _is_small_array(value: Any) -> bool:
    """A numpy array small enough to compare by its bytes (in-place writes keep its id)."""
    return (type(value).__module__ == "numpy" and hasattr(value, "tobytes")
            and getattr(value, "size", _LIMIT) < _LIMIT)


_LIMIT = 100000         # objects fingerprinted, and array elements, at most


def _watched(value: Any) -> bool:
    kind = type(value)
    if kind is type:
        module = getattr(value, "__module__", None)     # a user's class: its attributes
        return not (isinstance(module, str) and module.partition(".")[0] in ALLOWLIST)
    if value is None or isinstance(value, _SKIP):
        return False
    if _is_small_array(value) or kind is types.SimpleNamespace:
        return True
    if (getattr(kind, "__autograph_reference__", False)
            or getattr(kind, "__autograph_backend__", None) is not None):
        return False
    if isinstance(value, _CONTAINERS) or isinstance(value, _BUFFERS):
        return True
    module = getattr(kind, "__module__", None)
    return (getattr(value, "__dict__", None) is not None
            and not (isinstance(module, str) and module.partition(".")[0] in ALLOWLIST))


def _names(code: types.CodeType, out: set) -> None:
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _names(const, out)


class Watch:
    """Fingerprints of what the construct's functions can reach (see module docstring)."""

    __slots__ = ("objects", "before", "restore", "where", "state")

    def __init__(self, functions: Sequence[Callable], restore: Optional[Callable] = None,
                 state: Iterable = (), where: Optional[str] = None):
        """`state`: (name, value) of the values a branch or loop body is given (the
        construct's variables): the objects they hold must not change in place either
        (`xs += [1]` on a list, `a += 1` on a numpy array, `o = o.add(1)` where `add`
        changes `o` and returns it). `where`: the construct's 'file:line'."""
        self.restore = restore
        self.where = where or user_location(3)
        found: dict = {}

        def add(value, label, depth=0):
            if isinstance(value, types.FunctionType):
                if depth < 2 and id(value) not in seen and not is_allowlisted(value):
                    seen.add(id(value))
                    scan(value, depth + 1)      # a helper the construct may call
                return
            if id(value) in found or len(found) > _LIMIT or not _watched(value):
                return
            found[id(value)] = (value, label)
            if depth >= 3 or type(value) is type:
                return
            kind = type(value)           # what it holds, three levels deep at most
            if isinstance(value, dict):
                inner = [(f"{label}[{k!r}]", v) for k, v in value.items()]
            elif isinstance(value, (list, set, collections.deque)):
                inner = [(f"{label}[...]", v) for v in value]
            elif isinstance(value, _BUFFERS):
                inner = []
            else:
                attrs = getattr(value, "__dict__", None)
                inner = ([(f"{label}.{k}", v) for k, v in attrs.items()]
                         if type(attrs) is dict else [])
            for inner_label, v in inner:
                if not isinstance(v, (int, float, str, bytes, bool, types.FunctionType)):
                    add(v, inner_label, depth + 1)

        def scan(fn, depth):
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
                try:
                    add(cell.cell_contents, name, depth)
                except ValueError:
                    pass
            namespace = fn.__globals__
            found.setdefault(id(namespace), (namespace, "the module's globals"))
            names: set = set()
            _names(fn.__code__, names)
            for name in names:
                if name in namespace:
                    add(namespace[name], name, depth)

        seen: set = set()
        for fn in functions:
            if isinstance(fn, types.FunctionType):
                seen.add(id(fn))
                scan(fn, 0)
        self.state = set()          # ids of the objects the variables hold
        for name, value in state:
            if id(value) not in found:
                add(value, name)
                self.state.add(id(value))
        self.objects = list(found.values())
        self.rebase()

    def rebase(self) -> None:
        """Takes the fingerprints (again: after the construct first puts its carried
        places back, which may give an object an attribute its class had)."""
        self.before = [_fingerprint(v) for v, _ in self.objects]

    def check(self) -> None:
        """Raises when a watched object differs from its fingerprint."""
        if self.restore is not None:
            self.restore()
        for (value, label), before in zip(self.objects, self.before):
            if _fingerprint(value) == before:
                continue
            if id(value) in self.state:
                raise StagingError(
                    f"{self.where}: the staged construct here changes {_what(value, label)} in "
                    f"place (`{label} += ...`, a method that changes it, or a function it "
                    f"calls). Staging traces every branch (and a loop's body once), so that "
                    f"change would happen whatever the condition: assign a new value instead "
                    f"(`{label} = {label} + ...`), or make the change before the construct")
            raise StagingError(
                f"{self.where}: the staged construct here changes {_what(value, label)} "
                f"through a function it calls, not by an assignment of its own. Staging "
                f"traces every branch (and a loop's body once), so that change would "
                f"happen whatever the condition: make it in the construct itself (assign "
                f"the attribute, item or global there), or compute the value before it")


def _what(value: Any, label: str) -> str:
    kind = type(value)
    if label == "the module's globals":
        return "a global variable"
    if isinstance(value, dict):
        return f"an item of the dict `{label}`"
    if isinstance(value, _CONTAINERS) or isinstance(value, _BUFFERS):
        return f"the {kind.__name__} `{label}`"
    if kind is type:
        return f"an attribute of the class `{label}`"
    if _is_small_array(value):
        return f"the array `{label}`"
    return f"an attribute of `{label}` (a {kind.__name__})"
