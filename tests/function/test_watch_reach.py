"""What a staged `if` or loop changes through objects it reaches without assigning them
(builtin methods taken before it, generators, itertools iterators, standard-library
objects, helpers' default arguments, a class's methods and properties, a defaultdict's
missing keys): staging traces every branch (and a loop's body once), so such a change
would happen whatever the condition. Each program runs plain and converted on Python
values, which agree; staged, it is an error, never a silently different answer."""
import argparse
import collections
import functools
import io
import itertools
import queue
import random

import pytest

import autograph as ag
import runtime as rt
from runtime.errors import InvalidArgumentError


def bound_append(x):
    log = []
    push = log.append
    if x > 0:
        push(1)
    return len(log)


def bound_setitem_in_loop(n):
    d = {}
    put = d.__setitem__
    for i in rt.range(n):
        put("k", 1)
    return len(d)


def partial_of_a_method(x):
    seen = set()
    mark = functools.partial(seen.add, 1)
    if x > 0:
        mark()
    return len(seen)


def generator_send(x):
    log = []

    def gen():
        while True:
            v = yield
            log.append(v)
    g = gen()
    next(g)
    if x > 0:
        g.send(1)
    return len(log)


def itertools_count(x):
    it = itertools.count()
    if x > 0:
        next(it)
    return next(it)


def itertools_chain_through_next_method(x):
    it = itertools.chain([1], [2])
    step = it.__next__
    if x > 0:
        step()
    return step()


def string_buffer(x):
    buf = io.StringIO()
    if x > 0:
        buf.write("a")
    return len(buf.getvalue())


def a_queue(x):
    q = queue.Queue()
    if x > 0:
        q.put(1)
    return q.qsize()


def a_random_generator(x):
    rng = random.Random(0)
    if x > 0:
        rng.random()
    return int(rng.random() * 1000)


def _set_verbose(ns):
    ns.verbose = 3


def a_namespace_a_helper_sets(x):
    ns = argparse.Namespace(verbose=0)
    if x > 0:
        _set_verbose(ns)
    return ns.verbose


def _remember(v, seen=[]):     # noqa: B006 — the point: a default that changes
    seen.append(v)
    return len(seen)


def a_helpers_default_argument(x):
    before = _remember.__defaults__[0][:]
    if x > 0:
        _remember(1)
    return len(_remember.__defaults__[0]) - len(before)


_CALLS = []


class _Logs:
    def __call__(self):
        _CALLS.append(1)

    @property
    def value(self):
        _CALLS.append(2)
        return 1


def a_call_through_a_class(x):
    before = len(_CALLS)
    f = _Logs()
    if x > 0:
        f()
    return len(_CALLS) - before


def a_property_with_a_side_effect(x):
    before = len(_CALLS)
    f = _Logs()
    y = 0
    if x > 0:
        y = f.value
    return len(_CALLS) - before + y


def a_static_method_of_a_builtin_one(x):
    log = []

    class Holder:
        push = staticmethod(log.append)
    if x > 0:
        Holder.push(1)
    return len(log)


WATCHED = [a_static_method_of_a_builtin_one, bound_append, bound_setitem_in_loop, partial_of_a_method, generator_send,
           itertools_count, itertools_chain_through_next_method, string_buffer, a_queue,
           a_random_generator, a_namespace_a_helper_sets, a_helpers_default_argument,
           a_call_through_a_class, a_property_with_a_side_effect]


@pytest.mark.parametrize("fn", WATCHED, ids=lambda fn: fn.__name__)
def test_a_change_the_construct_makes_through_what_it_reaches_is_an_error(fn):
    for x in (-1, 2):
        assert ag.to_graph(fn)(x) == fn(x)
    with pytest.raises(ag.StagingError, match="staged construct here changes"):
        rt.function(fn)(rt.constant(-1))


def defaultdict_key(x):
    d = collections.defaultdict(int)
    if x > 0:
        d["a"] += 1
    return len(d)


def counter_key(x):
    c = collections.Counter()
    if x > 0:
        c["a"] += 1
    return len(c)


@pytest.mark.parametrize("fn", [defaultdict_key, counter_key], ids=lambda fn: fn.__name__)
def test_a_key_a_staged_branch_adds_to_a_defaultdict_is_not_made_on_the_other_path(fn):
    """Reading a missing key of a defaultdict (or Counter) makes it (or gives 0): the
    construct reads the key as absent, so the path that does not assign it fails when
    taken, as for any dict, instead of leaving a key Python would not have."""
    assert ag.to_graph(fn)(-1) == fn(-1) == 0
    staged = rt.function(fn)
    assert int(staged(rt.constant(2))) == fn(2) == 1
    with pytest.raises(InvalidArgumentError, match="must also be initialized in the else"):
        staged(rt.constant(-1))


def range_of_a_float(x):
    s = 0
    for _ in range(x):
        s = s + 1
    return s


def test_range_of_a_float_tensor_is_a_type_error_as_in_python():
    with pytest.raises(TypeError, match="integer"):
        range_of_a_float(2.5)
    with pytest.raises(TypeError, match="range\\(\\) takes integers, not a float32 tensor"):
        rt.function(range_of_a_float)(rt.constant(2.5))
    assert int(rt.function(range_of_a_float)(rt.constant(3))) == 3
