"""Changes a staged construct makes to Python state through the functions it calls.

The design in full: docs/architecture.md, under `autograph/operators/watch.py`.
"""
from __future__ import annotations

from builtins import dict, getattr, id, isinstance, list, set, tuple, type

import array
import collections
import functools
import itertools
import types
import warnings
from typing import Any, Callable, Iterable, Optional, Sequence

from autograph.errors import StagingError, user_location
from autograph.operators.calls import ALLOWLIST, is_allowlisted
from autograph.operators.staging_backends import backend_of

_SKIP = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
         type, types.CodeType)


# Containers fingerprinted by what they hold (subclasses too: OrderedDict, defaultdict,
# Counter), and those by their bytes.
_SEQUENCES = (list, collections.deque)
CONTAINERS = (dict, list, set, collections.deque)
BUFFERS = (bytearray, array.array)


def _fingerprint(value: Any) -> Optional[tuple]:
    kind = type(value)
    if kind is types.CellType:          # a closure's variable: what it is bound to
        try:
            return (id(value.cell_contents),)
        except ValueError:
            return ()
    if kind in _ITERATORS or kind is types.GeneratorType:
        return _position(value)
    state = _library_state(kind)
    if state is not None:
        return state(value)
    if isinstance(value, dict):
        return tuple((id(k), id(v)) for k, v in value.items())
    if isinstance(value, _SEQUENCES):
        return tuple(id(v) for v in value)
    if isinstance(value, set):
        return tuple(sorted(id(v) for v in value))
    if isinstance(value, BUFFERS):
        return (bytes(value),)
    if kind is type:
        return tuple((k, id(v)) for k, v in value.__dict__.items())   # a user class
    attrs = getattr(value, "__dict__", None)
    if type(attrs) is dict:
        return tuple((k, id(v)) for k, v in attrs.items())
    if _is_small_array(value):
        return (value.shape, value.dtype.str, value.tobytes())
    slots = _slots(kind)
    if slots:
        return tuple(id(getattr(value, name, _ABSENT)) for name in slots)
    return None


_ABSENT = object()


def _slots(kind: type) -> tuple:
    """The `__slots__` names of a class and its bases (those of a class without a
    `__dict__` for its instances)."""
    names = []
    for base in kind.__mro__:
        slots = base.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return tuple(n for n in names if n not in ("__dict__", "__weakref__"))


# Python's own iterators: where one is (`next(it)` moves it) is in what `__reduce__`
# gives (the list and the index, for a list's); a generator's, in its frame.
_ITERATORS = frozenset(type(it) for it in (
    iter([]), iter(()), iter(range(0)), iter(""), iter({}), iter(set()), iter({}.values()),
    iter({}.items()), iter(bytearray()), iter(b""), reversed([]), enumerate([]), zip(),
    map(len, []), filter(None, []),
    # itertools' (pairwise's `__reduce__` says nothing: not watched)
    itertools.count(), itertools.cycle(()), itertools.repeat(0), itertools.islice((), 0),
    itertools.chain(), itertools.accumulate(()), itertools.product(), itertools.tee(())[0],
    itertools.zip_longest(), itertools.starmap(len, ()), itertools.compress((), ()),
    itertools.dropwhile(len, ()), itertools.takewhile(len, ()),
    itertools.filterfalse(len, ()), itertools.groupby(()), itertools.permutations(()),
    itertools.combinations((), 0), itertools.combinations_with_replacement((), 0)))


def _position(it: Any) -> Optional[tuple]:
    if type(it) is types.GeneratorType:
        # (`g.send(v)` in a loop may come back to the same `yield`: its variables differ)
        frame = it.gi_frame
        if frame is None:
            return (None,)
        return (id(frame), frame.f_lasti, tuple(id(v) for v in frame.f_locals.values()))
    try:
        with warnings.catch_warnings():         # (itertools' pickling: deprecated in 3.12)
            warnings.simplefilter("ignore")
            reduced = it.__reduce__()
    except Exception:
        return None
    parts = []
    for part in reduced[1:]:
        for v in (part if type(part) is tuple else (part,)):
            inner = _position(v) if type(v) in _ITERATORS or type(v) is types.GeneratorType \
                else None
            parts.append(inner if inner is not None else
                         v if type(v) in (int, bool, type(None)) else id(v))
    return tuple(parts)


def _is_small_array(value: Any) -> bool:
    """A numpy array small enough to compare by its bytes (in-place writes keep its id)."""
    return (type(value).__module__ == "numpy" and hasattr(value, "tobytes")
            and getattr(value, "size", _LIMIT) < _LIMIT)


_LIMIT = 100000         # objects fingerprinted, and array elements, at most


# Standard-library objects whose changes a branch may make by calling their methods
# (`buf.write(s)`, `q.put(x)`, `rng.random()`, a helper setting `ns.verbose`), by the
# module and name of their class: their state as a fingerprint. (By name: importing
# these modules here would slow every converted module's import.) Other standard-library
# objects are not watched: their methods change caches that say nothing (a logger's).
_LIBRARY_STATE = {
    ("_io", "StringIO"): lambda v: (v.tell(), v.getvalue()),
    ("_io", "BytesIO"): lambda v: (v.tell(), v.getvalue()),
    ("random", "Random"): lambda v: v.getstate(),
    ("argparse", "Namespace"): lambda v: tuple((k, id(x)) for k, x in vars(v).items()),
    ("queue", "Queue"): lambda v: (v.unfinished_tasks, tuple(id(x) for x in v.queue)),
    ("_queue", "SimpleQueue"): lambda v: (v.qsize(),),
    # (not its flags: arithmetic sets them)
    ("decimal", "Context"): lambda v: (v.prec, v.rounding, v.Emin, v.Emax, v.capitals, v.clamp),
}


def _library_state(kind: type) -> Optional[Callable]:
    """The fingerprint function of a class in (or derived from one in) `_LIBRARY_STATE`:
    `LifoQueue`'s is `Queue`'s."""
    for base in kind.__mro__[:-1]:
        state = _LIBRARY_STATE.get((base.__module__, base.__qualname__))
        if state is not None:
            return state
    return None


def _watched(value: Any) -> bool:
    kind = type(value)
    if kind is not type and _library_state(kind) is not None:
        return True
    if kind is type:
        module = getattr(value, "__module__", None)     # a user's class: its attributes
        return not (isinstance(module, str) and module.partition(".")[0] in ALLOWLIST)
    if value is None or isinstance(value, _SKIP):
        return False
    if (_is_small_array(value) or kind is types.SimpleNamespace or kind in _ITERATORS
            or kind is types.GeneratorType):
        return True
    if (getattr(kind, "__autograph_reference__", False)
            or backend_of(value) is not None):
        return False
    if isinstance(value, CONTAINERS) or isinstance(value, BUFFERS):
        return True
    module = getattr(kind, "__module__", None)
    return ((getattr(value, "__dict__", None) is not None or bool(_slots(kind)))
            and not (isinstance(module, str) and module.partition(".")[0] in ALLOWLIST))


_BOUND_BUILTINS = (types.BuiltinMethodType, types.MethodWrapperType)
# What a class holds that stands for functions: the functions themselves.
_WRAPPED = {property: lambda p: (p.fget, p.fset, p.fdel),
            staticmethod: lambda m: (m.__func__,), classmethod: lambda m: (m.__func__,)}


def _names(code: types.CodeType, out: set) -> None:
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _names(const, out)


_SCALARS = (int, float, str, bytes, bool)      # (not followed: nothing in them changes)


def _attributes(value: Any, label: str) -> tuple:
    """(label, value) of an object's attributes (its `__dict__`'s, else those of its
    slots that are set), and whether it has a `__dict__` or slots (an instance)."""
    attrs = getattr(value, "__dict__", None)
    if type(attrs) is dict:
        return [(f"{label}.{k}", v) for k, v in attrs.items()], True
    slots = _slots(type(value))
    return [(f"{label}.{k}", getattr(value, k)) for k in slots if hasattr(value, k)], bool(slots)


class _Reach:
    """What a construct's functions can reach: `found` (id -> (object, label), in the
    order met) holds the objects to fingerprint. Functions are followed into the helpers
    they call, objects into what they hold (four levels deep at most), and the users'
    classes met into their functions."""

    __slots__ = ("found", "seen", "named", "classes")

    def __init__(self):
        self.found: dict = {}
        self.seen: set = set()          # ids of the functions scanned
        self.named: set = set()         # the names the code scanned uses (`co_names`)
        self.classes: list = []         # (class, label, depth) of the users' classes met

    def add(self, value: Any, label: str, depth: int = 0) -> None:
        """`value`, met under `label`, `depth` steps from the construct's functions."""
        kind = type(value)
        if kind is types.FunctionType:
            if depth < 3 and id(value) not in self.seen and not is_allowlisted(value):
                self.seen.add(id(value))
                self.scan(value, depth + 1)     # a helper the construct may call
        elif kind is types.MethodType:          # `go = obj.go`: the function and `obj`
            self.add(value.__func__, label, depth)
            self.add(value.__self__, label, depth)
        elif kind in _BOUND_BUILTINS:           # `push = xs.append`, `d.__setitem__`: `xs`
            owner = getattr(value, "__self__", None)
            if owner is not None and type(owner) is not types.ModuleType:
                self.add(owner, label, depth)
        elif kind is functools.partial:         # the function and what it was given
            self.add(value.func, label, depth)
            for v in (*value.args, *value.keywords.values()):
                self.add(v, f"an argument of {label}", depth)
        elif kind is tuple:                     # (not changed in place; what it holds may be)
            if depth < 4:
                for v in value:
                    self.add(v, f"{label}[...]", depth + 1)
        else:
            if kind is types.GeneratorType:
                self.add_generator_locals(value, label, depth)
            self.add_object(value, label, depth)

    def add_generator_locals(self, gen: types.GeneratorType, label: str, depth: int) -> None:
        """What a generator's body may change when it runs: its frame's variables."""
        if id(gen) in self.found or depth >= 4:
            return
        frame = gen.gi_frame
        if frame is not None:
            for k, v in frame.f_locals.items():
                if not isinstance(v, _SCALARS):
                    self.add(v, f"{k} (in the generator {label})", depth + 1)

    def add_object(self, value: Any, label: str, depth: int) -> None:
        """An object to fingerprint (once, if watched at all), and what it holds."""
        found = self.found
        if id(value) in found or len(found) > _LIMIT or not _watched(value):
            return
        found[id(value)] = (value, label)
        if depth >= 4:
            return
        if type(value) is type:
            self.add_class(value, label, depth)
        else:
            self.add_held(value, label, depth)

    def add_class(self, cls: type, label: str, depth: int) -> None:
        """A user's class: the containers it holds; its functions later (`add_methods`:
        which of them depends on the names all the code scanned uses)."""
        for k, v in cls.__dict__.items():
            if isinstance(v, CONTAINERS):
                self.add(v, f"{label}.{k}", depth + 1)
        self.classes.append((cls, label, depth))

    def add_held(self, value: Any, label: str, depth: int) -> None:
        """What a watched object holds: a container's items; an instance's class (for
        its containers), then its attributes."""
        if isinstance(value, dict):
            inner = [(f"{label}[{k!r}]", v) for k, v in value.items()]
        elif isinstance(value, (list, set, collections.deque)):
            inner = [(f"{label}[...]", v) for v in value]
        elif isinstance(value, BUFFERS):
            return
        else:
            inner, instance = _attributes(value, label)
            if instance:
                self.add(type(value), f"the class of {label}", depth + 1)
        for inner_label, v in inner:
            if not isinstance(v, _SCALARS):
                self.add(v, inner_label, depth + 1)

    def scan(self, fn: types.FunctionType, depth: int) -> None:
        """A function the construct may call: its defaults, and what its closure and
        globals hold under the names its code uses."""
        names: set = set()
        _names(fn.__code__, names)
        self.named.update(names)
        for value in (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()):
            self.add(value, f"a default argument of {fn.__name__}", depth)
        self.scan_closure(fn, names, depth)
        self.scan_globals(fn, names, depth)

    def scan_closure(self, fn: types.FunctionType, names: set, depth: int) -> None:
        """Each variable of a function's closure (the variable itself: a `nonlocal`
        assignment in a helper rebinds it), and what it is bound to."""
        found = self.found
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            found.setdefault(id(cell), (cell, name))
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if type(value) is types.ModuleType:     # (`import m` in the function)
                self.add_module(value, name, names, depth)
            else:
                self.add(value, name, depth)

    def scan_globals(self, fn: types.FunctionType, names: set, depth: int) -> None:
        """A function's globals, and what they hold under the names its code uses."""
        namespace = fn.__globals__
        self.found.setdefault(id(namespace), (namespace, "the module's globals"))
        for name in names:
            if name in namespace:
                value = namespace[name]
                if type(value) is types.ModuleType:
                    self.add_module(value, name, names, depth)
                else:
                    self.add(value, name, depth)

    def add_module(self, value: types.ModuleType, name: str, names: set, depth: int) -> None:
        """A module the code names (not one of ours, numpy's or the standard
        library's): its globals, and what it holds under the names the code uses."""
        if value.__name__.partition(".")[0] in ALLOWLIST:
            return
        namespace = value.__dict__
        self.found.setdefault(id(namespace), (namespace, f"the globals of {value.__name__}"))
        for attr in names:
            if attr in namespace and type(namespace[attr]) is not types.ModuleType:
                self.add(namespace[attr], f"{name}.{attr}", depth)

    def add_methods(self) -> None:
        """The functions of the users' classes met (methods, properties, static and
        class methods) that the code scanned names, and their special methods
        (`__call__`, `__add__`, `__enter__`: Python calls them), until no more."""
        done: set = set()
        while True:
            size = len(self.named), len(self.classes)
            for cls, label, depth in list(self.classes):
                self.add_class_functions(cls, label, depth, done)
            if (len(self.named), len(self.classes)) == size:
                return

    def add_class_functions(self, cls: type, label: str, depth: int, done: set) -> None:
        """Those of `cls`'s functions `add_methods` wants, not yet in `done` ((id of the
        class, name) of those added)."""
        named = self.named
        for k, v in cls.__dict__.items():
            if k not in named and not (k[:2] == "__" == k[-2:]) or (id(cls), k) in done:
                continue
            done.add((id(cls), k))
            wrapped = _WRAPPED.get(type(v))
            for f in (wrapped(v) if wrapped else (v,)):
                if f is not None:          # (functions, bound methods, objects)
                    self.add(f, f"{label}.{k}", depth)


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
        reach = _Reach()
        for fn in functions:
            if isinstance(fn, types.FunctionType):
                reach.seen.add(id(fn))
                reach.scan(fn, 0)
        self.state = set()          # ids of the objects the variables hold
        for name, value in state:
            if id(value) not in reach.found:
                reach.add(value, name)
                self.state.add(id(value))
        reach.add_methods()
        self.objects = list(reach.found.values())
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
    if kind is types.CellType:
        return f"the variable `{label}` of an enclosing function (a `nonlocal` assignment)"
    if label == "the module's globals":
        return "a global variable"
    if label.startswith("the globals of "):
        return f"a global variable of {label[len('the globals of '):]}"
    if kind in _ITERATORS or kind is types.GeneratorType:
        return f"the iterator `{label}` (`next` moves it)"
    if isinstance(value, dict):
        return f"an item of the dict `{label}`"
    if isinstance(value, CONTAINERS) or isinstance(value, BUFFERS):
        return f"the {kind.__name__} `{label}`"
    if kind is type:
        return f"an attribute of the class `{label}`"
    if _is_small_array(value):
        return f"the array `{label}`"
    return f"an attribute of `{label}` (a {kind.__name__})"


# -- a list or dict a staged construct chose between existing ones ---------------------
#
# `if c: cur = a` / `else: cur = b`, with `c` staged: in Python, `cur` *is* `a` or `b`,
# and `cur[0] = x` after the `if` changes that one. Staged, `cur` is a new list the `cond`
# built of its outputs: reading it is right, but a change to it would reach neither `a`
# nor `b`. So where a branch (or a loop's body) gives an existing list or dict, and the
# other path another object, the value after the construct refuses changes in place.

def refuse_changes(outs: Sequence, raw_outputs: list, n: int, names: Sequence[str],
                   watch: Optional[Watch]) -> Sequence:
    """A staged construct's first `n` outputs `outs` (rebuilt by the backend), where a
    branch or body gave one an existing list or dict (one its functions reach: `watch`
    fingerprinted it), at any depth in tuples, lists and dicts, with that list or dict as
    one that refuses changes in place (`chosen`). (Not where every path gives that same
    object, kept as it is; nor for the values the construct is given: `if c: xs = [t]`
    keeps `xs` as it was on the other path, and that list has no other name the
    construct could know of.)"""
    if watch is None:
        return outs
    known = None
    for raw in raw_outputs:
        for i, value in enumerate(raw[:n]):
            if outs[i] is value or not isinstance(value, _NESTED):
                continue
            if known is None:
                known = {id(v): label for v, label in watch.objects}
            new = _refusing(value, outs[i], names[i], known, watch.where, 0)
            if new is not outs[i]:
                outs = list(outs)
                outs[i] = new
    return outs


_NESTED = (tuple, list, dict)


def _refusing(raw: Any, out: Any, name: str, known: dict, where: str, depth: int) -> Any:
    """`out` (the backend's rebuilt copy of `raw`), with the lists and dicts in it whose
    counterparts in `raw` existed before the construct as `chosen` ones."""
    if out is raw or depth > 4:
        return out
    kind = type(out)
    if kind in (list, tuple) and isinstance(raw, (list, tuple)) and len(raw) == len(out):
        items = [_refusing(r, o, name, known, where, depth + 1) for r, o in zip(raw, out)]
    elif kind is dict and isinstance(raw, dict) and raw.keys() == out.keys():
        items = {k: _refusing(raw[k], o, name, known, where, depth + 1)
                 for k, o in out.items()}
    else:
        return out
    label = known.get(id(raw)) if kind is not tuple else None
    if label is not None:
        return chosen(items, name, label, where)
    values = items.values() if kind is dict else items
    if all(a is b for a, b in zip(values, out.values() if kind is dict else out)):
        return out                  # (nothing in it chosen: as the backend built it)
    if kind is tuple:
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if kind is list:
        out[:] = items              # (the backend's new list: no one else holds it)
    else:
        out.update(items)
    return out


def chosen(value: Any, name: str, label: str, where: str) -> Any:
    """`value` (the list or dict a staged construct rebuilt for `name`, which may be the
    existing `label`) as one that refuses changes in place; other values as they are."""
    kind = _CHOSEN.get(type(value))
    if kind is None:
        return value
    new = kind(value)
    kind_name = type(value).__name__
    what, copy = ((f"'{name}'", f"{name} = {kind_name}({label})") if name.isidentifier()
                  else (f"this value ({name})", f"{kind_name}({label})"))
    new._ag_message = (
        f"{what} is the {kind_name} `{label}` or another, as the staged construct at "
        f"{where} chose, and staging made it a new {kind_name}: a change to it would not "
        f"change `{label}`. Change `{label}` itself, or copy what the construct chooses "
        f"(`{copy}`) to change that")
    return new


def _refuse(self, *args, **kwargs):
    raise StagingError(f"{user_location(2)}: {self._ag_message}")


_LIST_CHANGES = ("__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend",
                 "insert", "pop", "remove", "clear", "sort", "reverse")
_DICT_CHANGES = ("__setitem__", "__delitem__", "__ior__", "pop", "popitem", "clear",
                 "update", "setdefault")


class ChosenList(list):
    """A list a staged construct chose (see `chosen`): read as any list; changes raise."""
    __slots__ = ("_ag_message",)

    def __reduce_ex__(self, protocol):         # (copies are plain lists, free to change)
        return list, (list(self),)


class ChosenDict(dict):
    """A dict a staged construct chose (see `chosen`): read as any dict; changes raise."""
    __slots__ = ("_ag_message",)

    def __reduce_ex__(self, protocol):
        return dict, (dict(self),)


for _kind, _changes in ((ChosenList, _LIST_CHANGES), (ChosenDict, _DICT_CHANGES)):
    for _name in _changes:
        setattr(_kind, _name, _refuse)


_CHOSEN = {list: ChosenList, dict: ChosenDict, ChosenList: ChosenList, ChosenDict: ChosenDict}
