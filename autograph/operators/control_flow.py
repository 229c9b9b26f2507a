"""`if`, `while` and `for` as functions: Python semantics on Python values, staged on tensors.

Converted code calls these with the construct's pieces as local functions:

    def if_true(y):          def loop_test(i, s):         def loop_body(i, s):
        y = x                    return i < n                 s = s + i
        return y                                              return s
    y = ag__.if_stmt(x > 0, if_true, None, (y,), ('y',))
    s = ag__.for_stmt(range(n), loop_body, (s,), ('s',))

The design in full: docs/architecture.md, under `autograph/operators/control_flow.py`.
"""
from __future__ import annotations

from builtins import (  # the originals: see operators/__init__
    all, any, bool, bytes, dict, enumerate, frozenset, getattr, int,
    iter, len, list, max, next, range, set, str, tuple, type, zip)

from typing import Any, Callable, Optional, Sequence

from autograph.errors import (StagingError, StagingTypeError, StagingValueError, unlink_frames,
                             user_location)
from autograph.operators import composite as places_
from autograph.operators import lists as lists_
from autograph.operators import recursion, unrolling
from autograph.operators import loop_checks
from autograph.operators.iterables import (  # noqa: F401
    PLAIN, StagedEnumerate, backend_of, backend_of_iterable, iteration_plan)
from autograph.operators.tracer import Tracer, pack, unpack
from autograph.operators.undefined import MaybeUndefined, Undefined, is_undefined, unwrap
from autograph.operators.watch import CONTAINERS, Watch, refuse_changes


# A Python loop that runs this many iterations while tracing is watched for unrolling.
_WATCHED = unrolling.ITERATIONS
_SHORT = frozenset({range, list, tuple, str, bytes, dict, set, frozenset})   # with a len()
_OPERATORS = (__file__[:-len("control_flow.py")],)    # this directory, with its separator


def _hide_own_frames(error: BaseException) -> None:
    """Unlink the operators' frames from the traceback of `error`, which is passing out of
    an operator: what the user's code (or a library walking tracebacks) sees is the
    user's frames, the generated branch and loop functions among them (they carry the
    user's function name and lines), as if the construct had run inline. (A
    RecursionError is also told why converted code recurses less deep: see recursion.)"""
    unlink_frames(error, _OPERATORS)
    if type(error) is RecursionError:
        recursion.explain(error)


def _staged(construct: Callable) -> Callable:
    """(decorator) A staged construct, whose branches or body run once, while tracing,
    for every value the graph will see. An exception that leaves it is told to the
    backend (`left_staged(error, where)`, optional): should code of the traced function
    catch it (a `try`, a `with` that suppresses it, a `return` in a `finally`), the
    graph would give that handler's answer whatever the values, so a backend refuses a
    trace that ends normally after one (the runtime does). The innermost construct an
    exception leaves tells; autograph sets `error.ag_left_staged` to None where it
    handles the exception itself (see tracer.Tracer)."""
    def run(backend, *args, **kwargs):
        try:
            return construct(backend, *args, **kwargs)
        except Exception as e:
            if "ag_left_staged" not in getattr(e, "__dict__", ()):
                e.ag_left_staged = user_location(2)
                tell = getattr(backend, "left_staged", None)
                if tell is not None:
                    tell(e, e.ag_left_staged)
            raise
    run.__name__, run.__qualname__, run.__doc__ = (construct.__name__, construct.__qualname__,
                                                   construct.__doc__)
    return run


def _with_flags(outs: Sequence[Any], defined: Sequence[Any], names: Sequence[str]) -> list:
    return [v if d is None else MaybeUndefined(v, d, name)
            for v, d, name in zip(outs, defined, names)]


def _check_returns(outputs: list, names: Sequence[str]) -> None:
    """A path that returns a value while another returns nothing cannot be staged."""
    if len(outputs) != 2 or None in outputs:
        return
    for i, name in enumerate(names):
        a, b = outputs[0][i], outputs[1][i]
        if (a is None) != (b is None):
            where = "true" if a is None else "false"
            if name == _RETURN_VALUE or name.startswith("retval_"):
                lacking = "main" if a is None else "else"
                what = (f"the return value is None in the {where} branch but a value in the "
                        f"other: the {lacking} branch must also have a return statement")
            else:
                what = f"'{name}' is None in the {where} branch but a value in the other"
            raise StagingValueError(
                f"{user_location(3)}: {what}; with a tensor condition every path must give a "
                f"value of the same structure (add a `return` / assignment on the path that "
                f"lacks it)")


_RETURN_VALUE = "the return value"


def _flag(value: Any) -> Any:
    """Whether a branch output is defined: True, False, or a staged bool."""
    kind = type(value)
    return False if kind is Undefined else value.defined if kind is MaybeUndefined else True


@_staged
def staged_if(backend, test, if_true, if_false, state, names, out_names, caught=False,
               watch=None):
    """Stage an `if`. When a state value may be undefined (an Undefined marker or a
    MaybeUndefined), every output also carries its `defined` flag through the `cond`,
    so that a flag made by a construct inside a branch survives the merge."""
    n = len(names)
    with_flags = n and any(type(v) in (Undefined, MaybeUndefined) for v in state)
    if watch is None:
        watch = Watch([if_true, if_false])
    tracer = Tracer(backend, max(n, 1), caught, watch, names)
    if not n:
        post = lambda r: (r,)
    elif with_flags:
        post = lambda r: unpack(r, n) + tuple(_flag(v) for v in unpack(r, n))
    else:
        post = lambda r: unpack(r, n)
    true_fn = tracer.wrap(if_true, post)
    false_fn = tracer.wrap(if_false if if_false is not None else lambda *s: pack(s, n), post)
    cond_names = tuple(out_names) + (tuple(f"{x} (defined)" for x in out_names)
                                     if with_flags else ())
    try:
        outs, defined = backend.cond(test, lambda: true_fn(*state), lambda: false_fn(*state),
                                     cond_names, is_undefined)
    except TypeError as e:
        _check_returns(tracer.outputs, out_names)
        raise tracer.staging_error(
            e, out_names, "Give it the same dtype and structure on both branches") from e
    except ValueError as e:         # (a condition with no truth value: of many elements)
        raise tracer.staging_error(e, out_names, "") from e
    if len(tracer.undefined_reads) == 2:        # neither branch can run: as Python would
        raise tracer.undefined_reads[0]
    if tracer.deferred:
        # The branch that raised never completes (its graph asserts first): what the
        # other branch gives is the value, not a maybe-undefined one.
        defined = tuple(None for _ in defined)
    _check_returns(tracer.outputs, out_names)
    width = max(n, 1)         # (no names: one value, a return value or an expression's)
    if len(tracer.raw_outputs) == 2:
        # A container both branches give as it is (`b = a` where `b` is `a` already)
        # stays that object: the `cond`'s rebuilt copy would lose the names it has.
        same = [i for i, (t, f) in enumerate(zip(*tracer.raw_outputs))
                if i < width and t is f and isinstance(t, CONTAINERS)]
        if same:
            outs = list(outs)
            for i in same:
                outs[i] = tracer.raw_outputs[0][i]
    # (one that either gives, where they differ: a new one, which refuses changes)
    outs = refuse_changes(outs, tracer.raw_outputs, width, out_names, watch)
    if not n:
        # A value (return value, expression): a branch gives an Undefined marker only for
        # `retval_` under `if do_return:`, whose flag says that branch is not taken, or
        # when it reads an unassigned name. No branch with a value: fail as Python would.
        if is_undefined(outs[0]) and tracer.undefined_reads:
            raise tracer.undefined_reads[0]
        return outs[0]
    if out_names[0] == _RETURN_VALUE and is_undefined(outs[0]) and tracer.undefined_reads:
        raise tracer.undefined_reads[0]        # the same, with places (staged_if_places)
    if not with_flags:
        return pack(_with_flags(outs, defined, out_names), n)
    results = []
    for i, name in enumerate(out_names):
        value = outs[i]
        always = all(out is None or out[n + i] is True for out in tracer.outputs)
        results.append(value if always or is_undefined(value)
                       else MaybeUndefined(value, outs[n + i], name))
    return pack(results, n)


def if_stmt(test: Any, if_true: Callable, if_false: Optional[Callable] = None,
            state: Sequence[Any] = (), names: Sequence[str] = (),
            composite: Optional[Callable] = None, lists: Sequence[int] = (),
            caught: bool = False) -> Any:
    """`if test:` with the branches as functions of `state`; returns the new values of
    `names`. Without `if_false`, `state` holds the current values of `names`.
    `composite`: the attributes, items and global names the branches write (see
    operators/composite.py), carried when the `if` is staged. `lists`: positions in
    `state` of Python lists the branches append to (see operators/lists.py)."""
    try:
        if type(test) not in PLAIN:
            test = unwrap(test)
            backend = backend_of(test)
            if backend is not None:
                places, state = _staging(backend, composite, state, lists, names)
                if places is not None:
                    return staged_if_places(backend, test, if_true, if_false, state,
                                             tuple(names), places, caught)
                return staged_if(backend, test, if_true, if_false, state, tuple(names),
                                  tuple(names) or (_RETURN_VALUE,), caught)
        if test:
            return if_true(*state)
        if if_false is None:
            return pack(state, len(names))
        return if_false(*state)
    except BaseException as e:
        _hide_own_frames(e)
        raise


def staged_if_places(backend, test, if_true, if_false, state, names, places, caught=False):
    """A staged `if` whose branches also write `places`: their values are more outputs
    of the `cond` (each branch starts from the values before the `if`)."""
    if not places.names:
        return staged_if(backend, test, if_true, if_false, state, names,
                          names or (_RETURN_VALUE,), caught)
    n = len(names)
    width = n or 1                    # no names: the branches give one value (or None)
    init = places.read()
    if if_false is None:
        if_false = lambda *s: pack(s, n)
    places.write(init)
    watch = Watch([if_true, if_false], restore=lambda: places.write(init))
    true_fn = places_.wrap_branch(if_true, places, init, width, places.unset["main"])
    false_fn = places_.wrap_branch(if_false, places, init, width, places.unset["else"])
    out_names = (names or (_RETURN_VALUE,)) + tuple(places.names)
    outs = unpack(staged_if(backend, test, true_fn, false_fn, state, out_names, out_names,
                              caught, watch), len(out_names))
    _settle(backend, places, outs[width:], "if")
    if n:
        return pack(outs[:n], n)
    # The value of a return-form `if` (see staged_if): a branch without one is a branch
    # whose `do_return` flag says it is not taken, so the value is the other branch's.
    return unwrap(outs[0])


def _settle(backend, places, values, construct: str) -> None:
    """Write the places' values after a staged construct. A place that only some paths
    assign gets its value, checked at run time: the graph raises if the path taken did
    not assign it. (A local variable written through as a cell keeps the MaybeUndefined:
    its reads check it, as for any local only some paths assign.)"""
    final = []
    where = user_location(3)
    for i, (name, value) in enumerate(zip(places.names, values)):
        if type(value) is MaybeUndefined and not places.locals[i]:
            if construct == "if":
                lacking = "else" if i in places.unset["else"] else "main"
                text = (f"'{name}' must also be initialized in the {lacking} branch: the "
                        f"staged `if` at {where} assigns it on one path only, and the path "
                        f"taken did not assign it. Assign it on both paths, or before the `if`")
            else:
                text = (f"loop must iterate at least once to initialize {name!r}: the staged "
                        f"loop at {where} assigns it, and it had no value before the loop")
            backend.assert_(value.defined, text)
            value = value.value
        final.append(value)
    places.write(final)


def if_exp(test: Any, if_true: Callable, if_false: Callable) -> Any:
    """`if_true() if test else if_false()`."""
    try:
        test = unwrap(test)
        backend = backend_of(test)
        if backend is None:
            return if_true() if test else if_false()
        return staged_if(backend, test, if_true, if_false, (), (), ("the conditional expression",))
    except BaseException as e:
        _hide_own_frames(e)
        raise


def while_stmt(test: Callable, body: Callable, state: Sequence[Any] = (),
               names: Sequence[str] = (), opts: Optional[dict] = None,
               composite: Optional[Callable] = None, lists: Sequence[int] = ()) -> Any:
    """`while test(*state): state = body(*state)`.

    The loop runs as Python while the test gives Python values; the first time it gives
    a tensor, the remaining iterations are staged from the current state.
    """
    try:
        n = len(names)
        state = tuple(state)
        count = 0
        while True:
            before = unrolling.graph_size()
            cond = test(*state)
            if type(cond) is not bool:
                cond = unwrap(cond)
                backend = backend_of(cond)
                if backend is not None:
                    loop_checks.test_runs_again(backend, before)
                    places, state = _staging(backend, composite, state, lists, names)
                    return pack(_staged_loop_places(backend, test, body, state, tuple(names),
                                                     opts, places, Watch([test, body])), n)
            if not cond:
                return pack(state, n)
            if count != _WATCHED:
                result = body(*state)
            else:     # unrolled into a graph? (see unrolling)
                before = unrolling.graph_size()
                result = body(*state)
                if before is not None:
                    unrolling.check(before, count + 1, unrolling.location())
            count += 1
            state = result if n > 1 else (result,) if n else ()
    except BaseException as e:
        _hide_own_frames(e)
        raise


def _staging(backend, composite, state, lists, names):
    """For a construct about to be staged: its carried places (None without any), and its
    state with the Python lists it appends to made staged lists (the places are read
    first, while those lists are still the user's)."""
    places = None
    if composite is not None:
        places = places_.places(composite, lists_.originals(state, lists))
    if lists:
        try:
            state = lists_.staged(backend, state, lists)
        except TypeError as e:     # a backend without lists whose length the data decides
            changed = ", ".join(f"'{names[i]}'" for i in lists if i < len(names))
            raise StagingTypeError(f"{user_location()}: the list {changed}: {e}") from None
    return places, tuple(state)


def _staged_loop_places(backend, test, body, state, names, opts, places, watch):
    """A staged loop whose body also writes `places` (None: no places): their values are
    more loop variables (the test and the body see them in place)."""
    n = len(names)
    if places is None or not places.names:
        return _staged_while(backend, test, body, state, names, opts, watch)
    k = len(places.names)

    def place_test(*vs):
        places.write(vs[n:])
        return test(*vs[:n])

    def place_body(*vs):
        places.write(vs[n:])
        outs = unpack(body(*vs[:n]), n)
        return pack(outs + places.read(), n + k)

    init = places.read()
    places.write(init)
    watch.restore = lambda: places.write(init)
    watch.rebase()
    outs = _staged_while(backend, place_test, place_body, state + init,
                         names + tuple(places.names), opts, watch)
    _settle(backend, places, outs[n:], "loop")
    return outs[:n]


def _staged_while(backend, test, body, state, names, opts, watch=None):
    if opts:
        loop_checks.check_options(opts, names)
    refs = [i for i, v in enumerate(state) if getattr(type(v), "__autograph_reference__", False)]
    if refs:
        return _staged_while_refs(backend, test, body, state, names, opts, refs, watch)
    return _staged_while_values(backend, test, body, state, names, opts, watch)


def _staged_while_refs(backend, test, body, state, names, opts, refs, watch):
    """A loop whose state holds references (staged lists): they change through their own
    ops, so they are not loop variables; the body must not rebind them."""
    n = len(names)
    keep = [i for i in range(n) if i not in refs]

    def full(vs):
        values = list(state)
        for i, v in zip(keep, vs):
            values[i] = v
        return values

    def ref_body(*vs):
        outs = unpack(body(*full(vs)), n)
        for i in refs:
            if outs[i] is not state[i]:
                raise StagingError(
                    f"{user_location(3)}: the list '{names[i]}' is appended to and also "
                    f"assigned in a staged loop; change it only with its methods "
                    f"(append, pop, items) inside the loop")
        return pack([outs[i] for i in keep], len(keep))

    outs = _staged_while_values(backend, lambda *vs: test(*full(vs)), ref_body,
                                tuple(state[i] for i in keep),
                                tuple(names[i] for i in keep), opts, watch)
    return full(outs)


@_staged
def _staged_while_values(backend, test, body, state, names, opts, watch=None):
    """Stage a loop. A loop variable that may be undefined (Undefined or MaybeUndefined
    before the loop) carries its `defined` flag as one more loop variable: the body sees
    it wrapped again (so reads check it, and `if`s inside merge it), and the flag after an
    iteration says whether some path assigned the variable. (The backend's own flag for
    an Undefined init only knows whether the body *can* assign it.)"""
    n = len(names)
    flagged = [i for i, v in enumerate(state) if type(v) in (Undefined, MaybeUndefined)]

    def wrapped(vs):
        values = list(vs[:n])
        for j, i in enumerate(flagged):
            if not is_undefined(values[i]):
                values[i] = MaybeUndefined(values[i], vs[n + j], names[i])
        return values

    def flagged_body(*vs):
        outs = unpack(body(*wrapped(vs)), n)
        flags = tuple(outs[i].defined if type(outs[i]) is MaybeUndefined else True
                      for i in flagged)
        return tuple(unwrap(v) for v in outs) + flags

    tracer = Tracer(watch=watch, names=names)
    body_fn = tracer.wrap(flagged_body, tuple)
    init = tuple(unwrap(v) for v in state) + tuple(_flag(state[i]) for i in flagged)
    all_names = tuple(names) + tuple(f"{names[i]} (defined)" for i in flagged)
    try:
        outs, defined = backend.while_loop(lambda *vs: unwrap(test(*wrapped(vs))), body_fn,
                                           init, all_names, is_undefined, dict(opts or {}))
    except TypeError as e:
        raise tracer.staging_error(
            e, names, "A loop variable must keep its dtype and structure across "
                      "iterations: give it its final dtype before the loop") from e
    except ValueError as e:           # a shape that does not fit its shape invariant
        raise tracer.staging_error(e, names, "") from e
    results = _with_flags(refuse_changes(outs[:n], tracer.raw_outputs, n, names, watch),
                          defined[:n], names)
    for j, i in enumerate(flagged):
        if not is_undefined(outs[i]):
            results[i] = MaybeUndefined(outs[i], outs[n + j], names[i])
    return results


def for_stmt(iterable: Any, body: Callable, state: Sequence[Any] = (),
             names: Sequence[str] = (), extra_test: Optional[Callable] = None,
             opts: Optional[dict] = None, composite: Optional[Callable] = None,
             lists: Sequence[int] = ()) -> Any:
    """`for item in iterable: state = body(item, *state)`, stopping early when
    `extra_test(*state)` is false (checked before each item is fetched, as `break` does)."""
    try:
        iterable = unwrap(iterable)
        n = len(names)
        state = tuple(state)
        backend = backend_of_iterable(iterable)
        if backend is not None:
            places, state = _staging(backend, composite, state, lists, names)
            return _staged_for(backend, iterable, body, state, tuple(names), extra_test, opts,
                               places)
        if type(iterable) not in _SHORT or len(iterable) > _WATCHED:
            iterable = unrolling.watched(iterable)
        if extra_test is None:
            if n == 1:
                value = state[0]
                for item in iterable:
                    value = body(item, value)
                return value
            for item in iterable:
                result = body(item, *state)
                state = result if n else ()
            return pack(state, n)
        items = iter(iterable)
        while True:
            go = unwrap(extra_test(*state))
            go_backend = backend_of(go)
            if go_backend is not None:
                places, state = _staging(go_backend, composite, state, lists, names)
                return _staged_python_for(go_backend, items, body, state, tuple(names), extra_test,
                                          places)
            if not go:
                return pack(state, n)
            try:
                item = next(items)
            except StopIteration:
                return pack(state, n)
            state = unpack(body(item, *state), n)
    except BaseException as e:
        _hide_own_frames(e)
        raise


def _staged_python_for(backend, items, body, state, names, extra_test, places):
    """A Python iterable whose `break` flag became a tensor: each remaining item runs
    under a staged `if` on the flag."""
    n = len(names)
    for item in items:
        go = unwrap(extra_test(*state))
        branch = lambda *s, item=item: body(item, *s)
        if places is not None:
            result = staged_if_places(backend_of(go) or backend, go, branch, None, state,
                                       names, places)
        else:
            result = staged_if(backend_of(go) or backend, go, branch, None, state, names, names,
                                watch=Watch([body, extra_test]))
        state = unpack(result, n)
    return pack(state, n)


def _staged_for(backend, iterable, body, state, names, extra_test, opts, places=None):
    n = len(names)
    enumerated = type(iterable) is StagedEnumerate
    plan = iteration_plan(backend, iterable.tensor if enumerated else iterable)
    if len(plan) == 3:
        return _staged_iterator_for(backend, plan, iterable.start if enumerated else None, body,
                                    state, names, extra_test, opts, places)
    if enumerated:
        length, get_element = plan
        start = iterable.start
        get_item = lambda i: (i + start, get_element(i))
    else:
        length, get_item = plan
    if type(length) is int:     # a trip count known while staging: a bound for the backend
        if length == 0:
            return pack(state, n)    # (no item: the body never runs, as in Python)
        opts = {**(opts or {}), "trip_count": length, "exact": extra_test is None}

    def test(i, *vs):
        more = i < length
        if extra_test is None:
            return more
        return _joined(backend, more, extra_test, vs)

    def loop_body(i, *vs):
        new = (i + 1,) + unpack(body(get_item(i), *vs), n)
        return new if n else new[0]  # _staged_while unpacks one value as itself

    outs = _staged_loop_places(backend, test, loop_body, (0,) + state,
                               ("the iteration index",) + names, opts, places,
                               Watch([body, extra_test]))
    return pack(outs[1:], n)


@_staged
def _staged_iterator_for(backend, plan, start, body, state, names, extra_test, opts, places):
    """`for` over a staged iterator (a backend's plan ("iterator", first, next): `first()`
    and `next(it)` give (more, item, it)): one loop whose variables are the iterator, the
    item fetched ahead (the body runs on it while `more`) and the loop's state. `start`:
    not None for `enumerate(..., start)`, whose count is carried too."""
    n = len(names)
    _, first, next_ = plan
    if start is not None:
        inner_first, inner_next = first, next_

        def first():
            more, item, it = inner_first()
            return more, (start, item), (start, it)

        def next_(it):
            more, item, inner = inner_next(it[1])
            count = it[0] + 1
            return more, (count, item), (count, inner)

    def test(fetched, *vs):
        if extra_test is None:
            return fetched[0]
        return _joined(backend, fetched[0], extra_test, vs)

    def loop_body(fetched, *vs):
        new = (next_(fetched[2]),) + unpack(body(fetched[1], *vs), n)
        return new if n else new[0]

    outs = _staged_loop_places(backend, test, loop_body, (first(),) + state,
                               ("the iterator",) + names, opts, places, Watch([body, extra_test]))
    return pack(outs[1:], n)


def _joined(backend, more, extra_test, vs):
    """A staged `for`'s test: items remain, and no `break`/`return` flag is set (the
    flags' test, which conversion writes, has no effects: a backend's `logical_and`
    evaluates it always, as a JAX user writes `(i < n) & ~done`)."""
    both = getattr(backend, "logical_and", None)
    if both is None:
        return _staged_and(backend, more, lambda: extra_test(*vs))
    return both(more, unwrap(extra_test(*vs)))


def _staged_and(backend, a, b_fn):
    outs, _ = backend.cond(a, lambda: (unwrap(b_fn()),), lambda: (False,), ("and",), is_undefined)
    return outs[0]
