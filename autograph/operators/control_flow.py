"""`if`, `while` and `for` as functions: Python semantics on Python values, staged on tensors.

Converted code calls these with the construct's pieces as local functions:

    def if_true(y):          def loop_test(i, s):         def loop_body(i, s):
        y = x                    return i < n                 s = s + i
        return y                                              return s
    y = ag__.if_stmt(x > 0, if_true, None, (y,), ('y',))
    s = ag__.for_stmt(range(n), loop_body, (s,), ('s',))

`state` holds the current values of the construct's state names (`names`); the
functions take them as arguments and return their new values (a bare value for one
name, a tuple for several). With `names=()` an `if_stmt` returns what the taken branch
returns (a `return` inside both branches). Whether a construct is staged is decided
by the value of its condition (or iterable), through the protocol in
notes/protocol.md: `type(value).__autograph_backend__`.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from autograph.errors import StagingError, user_location
from autograph.operators.undefined import MaybeUndefined, Undefined, is_undefined, unwrap


def backend_of(value: Any) -> Any:
    """The staging backend of `value`, or None for a Python value."""
    return getattr(type(value), "__autograph_backend__", None)


def _pack(values: Sequence[Any], n: int) -> Any:
    if n == 1:
        return values[0]
    return tuple(values) if n else None


def _unpack(result: Any, n: int) -> tuple:
    if n == 1:
        return (result,)
    return tuple(result) if n else ()


def _with_flags(outs: Sequence[Any], defined: Sequence[Any], names: Sequence[str]) -> list:
    return [v if d is None else MaybeUndefined(v, d, name)
            for v, d, name in zip(outs, defined, names)]


class _Tracer:
    """Runs branch/body functions for a backend; tells user errors from staging errors."""

    def __init__(self) -> None:
        self.user_errors: set = set()
        self.outputs: list = []

    def wrap(self, fn: Callable, post: Callable) -> Callable:
        def run(*args):
            try:
                result = fn(*args)
            except BaseException as e:
                self.user_errors.add(id(e))
                raise
            result = tuple(unwrap(v) for v in post(result))
            self.outputs.append(result)
            return result
        return run

    def staging_error(self, error: TypeError, names: Sequence[str], advice: str) -> Exception:
        if id(error) in self.user_errors:
            return error
        text = str(error)
        if not any(word in text for word in ("branch", "iteration", "loop")):
            advice = ""        # e.g. a condition that is not a bool: the message says it all
        return StagingError(f"{user_location(3)}: {text}. {advice}".rstrip())


def _check_returns(outputs: list, names: Sequence[str]) -> None:
    """A path that returns a value while another returns nothing cannot be staged."""
    if len(outputs) != 2:
        return
    for i, name in enumerate(names):
        a, b = outputs[0][i], outputs[1][i]
        if (a is None) != (b is None):
            where = "true" if a is None else "false"
            raise StagingError(
                f"{user_location(3)}: {name} is None in the {where} branch but a value in "
                f"the other: with a tensor condition every path must give a value of the "
                f"same structure (add a `return` / assignment on the path that lacks it)")


def _staged_if(backend, test, if_true, if_false, state, names, out_names):
    n = len(names)
    tracer = _Tracer()
    post = (lambda r: _unpack(r, n)) if n else (lambda r: (r,))
    true_fn = tracer.wrap(if_true, post)
    false_fn = tracer.wrap(if_false if if_false is not None else lambda *s: _pack(s, n), post)
    try:
        outs, defined = backend.cond(test, lambda: true_fn(*state), lambda: false_fn(*state),
                                     tuple(out_names), is_undefined)
    except TypeError as e:
        _check_returns(tracer.outputs, out_names)
        raise tracer.staging_error(
            e, out_names, "Give it the same dtype and structure on both branches") from e
    _check_returns(tracer.outputs, out_names)
    if not n:
        # A value (return value, expression): a branch gives an Undefined marker only for
        # `retval_` under `if do_return:`, whose flag says that branch is not taken.
        return outs[0]
    return _pack(_with_flags(outs, defined, out_names), n)


def if_stmt(test: Any, if_true: Callable, if_false: Optional[Callable] = None,
            state: Sequence[Any] = (), names: Sequence[str] = ()) -> Any:
    """`if test:` with the branches as functions of `state`; returns the new values of
    `names`. Without `if_false`, `state` holds the current values of `names`."""
    test = unwrap(test)
    backend = backend_of(test)
    if backend is None:
        if test:
            return if_true(*state)
        if if_false is None:
            return _pack(state, len(names))
        return if_false(*state)
    return _staged_if(backend, test, if_true, if_false, tuple(state), tuple(names),
                      tuple(names) or ("the return value",))


def if_exp(test: Any, if_true: Callable, if_false: Callable) -> Any:
    """`if_true() if test else if_false()`."""
    test = unwrap(test)
    backend = backend_of(test)
    if backend is None:
        return if_true() if test else if_false()
    return _staged_if(backend, test, if_true, if_false, (), (), ("the conditional expression",))


def while_stmt(test: Callable, body: Callable, state: Sequence[Any] = (),
               names: Sequence[str] = (), opts: Optional[dict] = None) -> Any:
    """`while test(*state): state = body(*state)`.

    The loop runs as Python while the test gives Python values; the first time it gives
    a tensor, the remaining iterations are staged from the current state.
    """
    n = len(names)
    state = tuple(state)
    while True:
        cond = unwrap(test(*state))
        backend = backend_of(cond)
        if backend is not None:
            return _pack(_staged_while(backend, test, body, state, tuple(names), opts), n)
        if not cond:
            return _pack(state, n)
        state = _unpack(body(*state), n)


def _staged_while(backend, test, body, state, names, opts):
    n = len(names)
    tracer = _Tracer()
    body_fn = tracer.wrap(body, lambda r: _unpack(r, n))
    init = tuple(unwrap(v) for v in state)
    try:
        outs, defined = backend.while_loop(lambda *vs: unwrap(test(*vs)), body_fn, init, names,
                                           is_undefined, dict(opts or {}))
    except TypeError as e:
        raise tracer.staging_error(
            e, names, "A loop variable must keep its dtype and structure across "
                      "iterations: give it its final dtype before the loop") from e
    return _with_flags(outs, defined, names)


def for_stmt(iterable: Any, body: Callable, state: Sequence[Any] = (),
             names: Sequence[str] = (), extra_test: Optional[Callable] = None,
             opts: Optional[dict] = None) -> Any:
    """`for item in iterable: state = body(item, *state)`, stopping early when
    `extra_test(*state)` is false (checked before each item is fetched, as `break` does)."""
    iterable = unwrap(iterable)
    n = len(names)
    state = tuple(state)
    backend = backend_of(iterable.tensor if type(iterable) is _StagedEnumerate else iterable)
    if backend is not None:
        return _staged_for(backend, iterable, body, state, tuple(names), extra_test, opts)
    if extra_test is None:
        for item in iterable:
            state = _unpack(body(item, *state), n)
        return _pack(state, n)
    items = iter(iterable)
    while True:
        go = unwrap(extra_test(*state))
        go_backend = backend_of(go)
        if go_backend is not None:
            return _staged_python_for(go_backend, items, body, state, tuple(names), extra_test)
        if not go:
            return _pack(state, n)
        try:
            item = next(items)
        except StopIteration:
            return _pack(state, n)
        state = _unpack(body(item, *state), n)


def _staged_python_for(backend, items, body, state, names, extra_test):
    """A Python iterable whose `break` flag became a tensor: each remaining item runs
    under a staged `if` on the flag."""
    n = len(names)
    for item in items:
        go = unwrap(extra_test(*state))
        state = _unpack(_staged_if(backend_of(go) or backend, go,
                                   lambda *s, item=item: body(item, *s), None,
                                   state, names, names), n)
    return _pack(state, n)


def _staged_for(backend, iterable, body, state, names, extra_test, opts):
    n = len(names)
    if type(iterable) is _StagedEnumerate:
        length, get_element = backend.iterate(iterable.tensor)
        start = iterable.start
        get_item = lambda i: (i + start, get_element(i))
    else:
        length, get_item = backend.iterate(iterable)

    def test(i, *vs):
        more = i < length
        if extra_test is None:
            return more
        return _staged_and(backend, more, lambda: extra_test(*vs))

    def loop_body(i, *vs):
        new = (i + 1,) + _unpack(body(get_item(i), *vs), n)
        return new if n else new[0]  # _staged_while unpacks one value as itself

    outs = _staged_while(backend, test, loop_body, (0,) + state,
                         ("the iteration index",) + names, opts)
    return _pack(outs[1:], n)


def _staged_and(backend, a, b_fn):
    outs, _ = backend.cond(a, lambda: (unwrap(b_fn()),), lambda: (False,), ("and",), is_undefined)
    return outs[0]


def range_(*args: Any) -> Any:
    """`range(...)` in a `for`: a staged range when a bound is a tensor."""
    args = tuple(unwrap(a) for a in args)
    for a in args:
        backend = backend_of(a)
        if backend is not None:
            start, limit, delta = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
            return backend.range(start, limit, delta)
    return range(*args)


class _StagedEnumerate:
    """`enumerate(t)` of a staged tensor, for `for_stmt` to iterate as a staged loop."""

    __slots__ = ("tensor", "start")

    def __init__(self, tensor: Any, start: Any):
        self.tensor, self.start = tensor, start


def enumerate_(iterable: Any, start: Any = 0) -> Any:
    """`enumerate(...)` in a `for`: staged when it enumerates a staged tensor."""
    iterable = unwrap(iterable)
    if backend_of(iterable) is None:
        return enumerate(iterable, start)
    return _StagedEnumerate(iterable, start)
