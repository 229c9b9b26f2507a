"""Attributes, items and globals carried through staged constructs (operators/composite.py):
each carried attribute or item is one owner thunk in the generated code, from which the
runtime reads and writes the place."""
import inspect
import threading

import pytest

import autograph as ag
from corpus import attr_in_if as attr_if, item_in_while as item_while, through_property
from fake_backend import BACKEND, FakeRuntimeError, sym, value


def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


class Box:
    def __init__(self, v=0):
        self.v = v


class Empty:
    pass


class WithDefault:
    v = 0                 # a class attribute: the instance has none of its own


def item_if(x):
    d = {"k": 0}
    if x > 0:
        d["k"] = x * 2
    else:
        d["k"] = -x
    return d["k"]


def attr_while(n):
    b = Box()
    i = 0
    while i < n:
        b.v = b.v + i
        i = i + 1
    return b.v


def attr_and_item_for(n):
    b = Box()
    d = {"s": 1}
    for i in range(n):
        b.v = b.v + i
        d["s"] = d["s"] * 2
    return b.v, d["s"]


def item_with_computed_key(n):
    d = [0, 0, 0]
    k = 1
    i = 0
    while i < n:
        d[k + 1] = d[k + 1] + i
        i = i + 1
    return d[2]


def absent_attribute_in_one_branch(x):
    b = Empty()
    if x > 0:
        b.v = x
        seen = 0
    else:
        seen = 1 if hasattr(b, "v") else 0    # the other branch's write is undone
        b.v = -x
    return b.v, seen


def absent_key_in_one_branch(x):
    d = {}
    if x > 0:
        d["k"] = x
        seen = 0
    else:
        seen = 1 if "k" in d else 0
        d["k"] = -x
    return d["k"], seen


def class_attribute_in_one_branch(x):
    w = WithDefault()
    if x > 0:
        w.v = x
        own = 0
    else:
        own = 1 if "v" in w.__dict__ else 0   # still the class's value, not a copy
    return own


class Mangled:
    def __init__(self):
        self.__x = 0

    def run(self, x):
        if x > 0:
            self.__x = x
        else:
            self.__x = -x
        return self.__x


G = 0


def global_in_loop(n):
    global G
    i = 0
    while i < n:
        G = G + i
        i = i + 1
    return G


class Hooked:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)


class OwnItems(dict):
    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)


def through_setattr(x):
    h = Hooked()
    h.v = 0
    while x > 0:
        h.v = x
        x = x - 1
    return h.v


def through_setitem(n):
    d = OwnItems(k=0)
    for i in range(n):
        d["k"] = i
    return d["k"]


def staged_key(x):
    d = {}
    if x > 0:
        d[x] = 1
    return 0


# (kept in a thread-local, which the watch of staged constructs does not look into: a
# getter that changes what a branch can reach is otherwise refused while tracing)
_COUNTS = threading.local()
_COUNTS.reads = READS = []


class Counting:
    """`o.inner` counts its reads (in READS): the owner is evaluated on every read and
    write."""

    def __init__(self):
        self._inner = Box()

    @property
    def inner(self):
        _COUNTS.reads.append(self)
        return self._inner


def owner_each_time(o, x):
    if x > 0:
        o.inner.v = x
    else:
        o.inner.v = -x
    return x


def test_one_owner_lambda_per_carried_attribute_and_item():
    code = ag.to_code(attr_and_item_for)
    assert "('b.v', lambda: (b, 'v'), 'attr')" in code
    assert "(\"d['s']\", lambda: (d, 's'), 'item')" in code
    assert "set_attr" not in code and "set_item" not in code
    assert "composite=lambda: (('G', globals(), 'global'),)" in ag.to_code(global_in_loop)


@pytest.mark.parametrize("fn, args, construct", [
    (attr_if, (3,), "cond"), (attr_if, (-3,), "cond"),
    (item_if, (3,), "cond"), (item_if, (-3,), "cond"),
    (attr_while, (4,), "while_loop"), (item_while, (4,), "while_loop"),
    (attr_and_item_for, (4,), "while_loop"), (item_with_computed_key, (3,), "while_loop"),
    (absent_attribute_in_one_branch, (2,), "cond"),
    (absent_attribute_in_one_branch, (-2,), "cond"),
    (absent_key_in_one_branch, (2,), "cond"), (absent_key_in_one_branch, (-2,), "cond"),
    (class_attribute_in_one_branch, (-2,), "cond"),
    (global_in_loop, (4,), "while_loop"),
])
def test_carried_through_a_staged_construct(fn, args, construct):
    global G
    G = 0
    expected = fn(*args)
    G = 0
    before = BACKEND.counts[construct]
    assert value(ag.to_graph(fn)(*sym(args))) == value(expected)
    assert BACKEND.counts[construct] == before + 1


def maybe_sets(x, b):
    if x > 0:
        b.v = x
    return x


def test_an_absent_attribute_set_on_one_path():
    b = Empty()
    ag.to_graph(maybe_sets)(sym(1), b)
    assert value(b.v) == 1
    b = Empty()
    with pytest.raises(FakeRuntimeError, match="'b.v' must also be initialized in the else"):
        ag.to_graph(maybe_sets)(sym(-1), b)
    assert not hasattr(b, "v")         # as before the `if`: removed after the branch set it


def test_a_class_attribute_written_back_unchanged_stays_the_class_value():
    w = WithDefault()

    def keep(x, w):
        if x > 0:
            y = x
        else:
            y = -x
            w.v = w.v
        return y

    ag.to_graph(keep)(sym(1), w)
    assert "v" not in w.__dict__ or value(w.v) == 0


def test_mangled_private_attribute():
    m = Mangled()
    assert value(ag.to_graph(m.run)(sym(-4))) == 4
    assert value(m._Mangled__x) == 4
    assert "ag__.attribute_name(lambda: self.__x)" in ag.to_code(Mangled.run)


def test_the_owner_is_evaluated_on_every_read_and_write():
    python, staged = Counting(), Counting()
    owner_each_time(python, 3)
    ag.to_graph(owner_each_time)(staged, sym(3))
    assert READS.count(python) == 1
    # every read and write of the place evaluates `o.inner` again, as the separate getter
    # and setter lambdas of the specs' earlier form did (twelve then too): the read
    # before the `if` and its class-attribute check, the write before the branches, for
    # each branch the write putting the value back, its own `o.inner.v = ...`, the read
    # after it and the write restoring the value, and the write after the `if`
    assert READS.count(staged) == 12
    assert value(staged._inner.v) == 3


@pytest.mark.parametrize("fn, arg, text, what", [
    (through_property, 3, "if x > 0", "set through a property"),
    (through_setattr, 3, "while x > 0", r"set through Hooked.__setattr__"),
    (through_setitem, 3, "for i in range(n)", r"set through its own __setitem__"),
    (staged_key, 3, "if x > 0", "a staged value cannot be a key"),
])
def test_a_write_staging_cannot_carry_names_the_users_line(fn, arg, text, what):
    assert fn(arg) is not None
    with pytest.raises(ag.StagingError, match=what) as info:
        ag.to_graph(fn)(sym(arg))
    assert str(info.value).startswith(f"{inspect.getsourcefile(fn)}:{_line_of(fn, text)}: ")


def test_specs_in_the_form_earlier_versions_wrote_are_still_read():
    """Files that `autograph convert` wrote before hold a getter and a setter per place
    (and an attribute's owner after them): the runtime still carries those."""
    from autograph.operators import composite as places_

    class O:
        a = 0
    o, d = O(), {"k": 2}
    o.a = 1
    specs = (("o.a", lambda: o.a, lambda v: places_.set_attr(o, "a", v), lambda: (o, "a")),
             ("d['k']", lambda: d["k"], lambda v: places_.set_item(d, "k", v)))
    p = places_.Places(specs, "f.py:3")
    assert p.names == ["o.a", "d['k']"]
    assert p.read() == (1, 2)
    p.write((5, 6))
    assert o.a == 5 and d == {"k": 6}
