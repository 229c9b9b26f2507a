"""A second staging backend for tests: symbolic values that are numpy arrays underneath.

`Sym` plays a runtime's symbolic tensor: `bool()` of it raises, so Python control flow
on it fails unless autograph stages it. The backend implements docs/staging_protocol.md
"eagerly": `cond` runs both branches (as a tracer would) and selects with numpy,
`while_loop` iterates in Python on `Sym`s. It records how often it was asked to stage
each construct, so tests can check that something was staged and not run as Python.
The tests that use it run inside `Staging()` (conftest.py), as a backend that builds a
graph would hold it, so that converted functions take their converted bodies.
"""
from __future__ import annotations

import collections
import sys

import numpy as np

_DTYPES = {bool: np.bool_, int: np.int32, float: np.float32}


class FakeRuntimeError(Exception):
    """What a graph run raises when a staged assertion fails."""


def _convert(value):
    if isinstance(value, Sym):
        return value
    if isinstance(value, (bool, int, float)):
        return Sym(np.asarray(value, dtype=_DTYPES[type(value)]))
    if isinstance(value, np.ndarray):
        return Sym(value)
    return value


def _binary(op):
    def method(self, other):
        other = _convert(other)
        if not isinstance(other, Sym):
            return NotImplemented
        return Sym(op(self.value, other.value))
    return method


def _rbinary(op):
    def method(self, other):
        return Sym(op(_convert(other).value, self.value))
    return method


class Sym:
    __slots__ = ("value",)

    def __init__(self, value):
        value = np.asarray(value)
        if value.dtype == np.int64:
            value = value.astype(np.int32)
        if value.dtype == np.float64:
            value = value.astype(np.float32)
        self.value = value

    @property
    def dtype(self):
        return self.value.dtype

    def __bool__(self):
        raise TypeError("using a symbolic value as a Python bool is not allowed")

    def __iter__(self):
        raise TypeError("iterating over a symbolic value is not allowed")

    def __index__(self):
        raise TypeError("a symbolic value is not a Python int")

    __hash__ = object.__hash__
    __add__, __radd__ = _binary(np.add), _rbinary(np.add)
    __sub__, __rsub__ = _binary(np.subtract), _rbinary(np.subtract)
    __mul__, __rmul__ = _binary(np.multiply), _rbinary(np.multiply)
    __truediv__, __rtruediv__ = _binary(np.true_divide), _rbinary(np.true_divide)
    __floordiv__, __rfloordiv__ = _binary(np.floor_divide), _rbinary(np.floor_divide)
    __mod__, __rmod__ = _binary(np.mod), _rbinary(np.mod)
    __pow__ = _binary(np.power)
    __lt__, __le__ = _binary(np.less), _binary(np.less_equal)
    __gt__, __ge__ = _binary(np.greater), _binary(np.greater_equal)
    __eq__, __ne__ = _binary(np.equal), _binary(np.not_equal)
    __and__, __or__ = _binary(np.logical_and), _binary(np.logical_or)

    def __neg__(self):
        return Sym(-self.value)

    def __abs__(self):
        return Sym(np.abs(self.value))

    def __getitem__(self, index):
        index = index.value if isinstance(index, Sym) else index
        return Sym(self.value[index])

    def __repr__(self):
        return f"Sym({self.value!r})"


def _merge(name, a, b, pred, where):
    """Select between two branch values, checking they have one dtype and structure."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        if type(a) is not type(b) or len(a) != len(b):
            raise TypeError(f"'{name}' has a different structure in the true branch than "
                            f"in the false branch")
        return type(a)(_merge(name, x, y, pred, where) for x, y in zip(a, b))
    a, b = _convert(a), _convert(b)
    if not isinstance(a, Sym) or not isinstance(b, Sym):
        if a is b:
            return a
        raise TypeError(f"'{name}' is {a!r} in the true branch but {b!r} in the false branch")
    if a.dtype != b.dtype:
        raise TypeError(f"'{name}' is {a.dtype} in the true branch but {b.dtype} in the "
                        f"false branch")
    return Sym(np.where(pred.value, a.value, b.value))


class FakeBackend:
    """Assertions recorded while a `cond` branch runs belong to that branch: they are
    checked only if the branch is the one taken (as a graph would run them), and
    those recorded while learning a loop's types are dropped."""

    def __init__(self):
        self.counts = collections.Counter()
        self.pending: list = []          # stack of assertion lists of the branches running

    def _run_branch(self, fn):
        self.pending.append([])
        try:
            return fn(), self.pending[-1]
        finally:
            self.pending.pop()

    def _check(self, asserts):
        for pred, message in asserts:
            self.assert_(pred, message)

    def convert(self, value):
        return _convert(value)

    def cond(self, pred, true_fn, false_fn, names, is_undefined):
        self.counts["cond"] += 1
        pred = _convert(pred)
        (outs_t, asserts_t), (outs_f, asserts_f) = self._run_branch(true_fn), self._run_branch(false_fn)
        self._check(asserts_t if pred.value else asserts_f)
        outs, defined = [], []
        for name, a, b in zip(names, outs_t, outs_f):
            if is_undefined(a) and is_undefined(b):
                outs.append(a)
                defined.append(None)
            elif is_undefined(a) or is_undefined(b):
                value = _convert(b if is_undefined(a) else a)
                outs.append(value)
                defined.append(Sym(np.logical_not(pred.value) if is_undefined(a) else pred.value))
            else:
                outs.append(_merge(name, a, b, pred, "cond"))
                defined.append(None)
        return tuple(outs), tuple(defined)

    def while_loop(self, cond_fn, body_fn, init, names, is_undefined, opts):
        self.counts["while_loop"] += 1
        values = [v if is_undefined(v) else _convert(v) for v in init]
        defined = [None] * len(values)
        if any(is_undefined(v) for v in values):
            scratch, _ = self._run_branch(lambda: body_fn(*values))   # learn dtypes
            for i, v in enumerate(values):
                if is_undefined(v) and not is_undefined(scratch[i]):
                    values[i] = Sym(np.zeros_like(_convert(scratch[i]).value))
                    defined[i] = Sym(False)
        values = [v if is_undefined(v) else _convert(v) for v in values]
        limit = opts.get("maximum_iterations")
        count = 0
        while True:
            c = _convert(cond_fn(*values))
            if not c.value or (limit is not None and count >= limit):
                break
            new = list(body_fn(*values))
            for i, (name, old, v) in enumerate(zip(names, values, new)):
                if is_undefined(v):
                    continue
                v = _convert(v)
                if is_undefined(old):
                    raise TypeError(f"'{name}' is undefined before the loop")
                if isinstance(old, Sym) and (not isinstance(v, Sym) or v.dtype != old.dtype):
                    raise TypeError(f"'{name}' is {old.dtype} before the loop but "
                                    f"{getattr(v, 'dtype', type(v).__name__)} after an iteration")
                if defined[i] is not None:
                    defined[i] = Sym(True)
                new[i] = v
            values = new
            count += 1
        return tuple(values), tuple(defined)

    def iterate(self, iterable):
        self.counts["iterate"] += 1
        values = iterable.value

        def get_item(i):        # a tracer never reads an element while tracing: no IndexError
            i = int(i.value)
            if i < len(values):
                return Sym(values[i])
            return Sym(np.zeros(values.shape[1:], values.dtype))
        return Sym(np.int32(len(values))), get_item

    def range(self, start, limit, delta):
        values = [v.value if isinstance(v, Sym) else v for v in (start, limit, delta)]
        return Sym(np.arange(*values, dtype=np.int32))

    def logical_not(self, x):
        return Sym(np.logical_not(_convert(x).value))

    def print(self, values, sep, end, file):
        """Prints at once (the fake backend runs as it traces), values as numpy shows them."""
        self.counts["print"] += 1
        text = sep.join(str(v.value) if isinstance(v, Sym) else str(v) for v in values)
        (file if file is not None else sys.stdout).write(text + end)

    def assert_(self, pred, message):
        if self.pending:
            self.pending[-1].append((pred, message))
        elif not _convert(pred).value:
            raise FakeRuntimeError(message)


BACKEND = FakeBackend()
Sym.__autograph_backend__ = BACKEND


def sym(x):
    """Python value -> Sym (recursively through tuples/lists)."""
    if isinstance(x, (tuple, list)):
        return type(x)(sym(v) for v in x)
    return _convert(x) if isinstance(x, (bool, int, float, np.ndarray)) else x


def value(x):
    """Sym -> Python/numpy value (recursively)."""
    if isinstance(x, Sym):
        return x.value.item() if x.value.ndim == 0 else x.value.tolist()
    if isinstance(x, (tuple, list)):
        return type(x)(value(v) for v in x)
    return x
