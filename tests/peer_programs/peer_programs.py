"""A red-team corpus: control-flow programs from a peer project's tests, each run three
ways and compared.

The programs come from PaddlePaddle's dygraph-to-static tests (its AutoGraph-like
converter), ported into the programs_*.py files beside this one with their bodies as
written (Paddle's API through paddle_shim); the ids name the group of files and the
function.
Each program, on each of its cases, runs

- eagerly, as plain Python on eager tensors (the reference),
- staged by `rt.function` on the numpy backend ("numpy"),
- staged by `rt.function(jit_compile=True)` ("jit"),

on the numpy backend with a fresh `rt.function` per case, so that Python side effects
(print) happen at its trace as they do eagerly; under jit_compile with one per program, as a
compilation is dear, its printed text compared on the first case alone. A way agrees when it gives the eager values (dtype,
shape, values, NaN where eager has NaN, and the printed text), or raises where eager
raises.

`python tests/peer_programs/peer_programs.py` prints the table of outcomes.
"""
import contextlib
import io
import os
import sys

import numpy as np

import runtime as rt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import programs_for  # noqa: E402
import programs_ifelse  # noqa: E402
import programs_logical  # noqa: E402
import programs_loop  # noqa: E402
import programs_shape  # noqa: E402

GROUPS = [("ifelse", programs_ifelse.PROGRAMS), ("ifelse", programs_logical.PROGRAMS),
          ("loop", programs_loop.PROGRAMS), ("loop", programs_for.PROGRAMS),
          ("return_list", programs_shape.MISC_PROGRAMS), ("shape", programs_shape.PROGRAMS)]
try:
    import jax  # noqa: F401
    WAYS = ("numpy", "jit")
except ImportError:  # the jax extra is optional: jit_compile is not checked without it
    WAYS = ("numpy",)

AGREE, MISMATCH, CRASH = "agree", "mismatch", "crash"


class Program:
    """One ported function and the argument tuples it runs on (numpy arrays become
    tensors, anything else is passed as it is)."""

    def __init__(self, group, fn, cases):
        self.fn, self.cases = fn, cases
        name = getattr(fn, "__qualname__", fn.__name__)
        if hasattr(fn, "__self__"):  # a bound method: the instance's settings name it
            name += "[" + ",".join(f"{v}" for v in vars(fn.__self__).values()) + "]"
        self.id = f"{group}.{name}"

    def __repr__(self):
        return self.id


def _collect():
    out = []
    for group, programs in GROUPS:
        out += [Program(group, fn, cases) for fn, cases in programs]
    ids = [p.id for p in out]
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)
    return out


PROGRAMS = _collect()
BY_ID = {p.id: p for p in PROGRAMS}


class Outcome:
    def __init__(self, values=None, printed="", error=None):
        self.values, self.printed, self.error = values, printed, error

    def __repr__(self):
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {first_line(self.error)}"
        return f"{self.values!r} printed {self.printed!r}"


def first_line(error) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else ""


def _leaf(v):
    if v is None:
        return np.asarray(None, dtype=object)
    if hasattr(v, "numpy"):
        return np.asarray(v.numpy())
    return np.asarray(rt.constant(v).numpy())


def _flat(result) -> list:
    if result is None:
        return [_leaf(None)]
    return [_leaf(v) for v in rt.nest.flatten(result, expand_composites=True)]


def _args(case) -> list:
    return [rt.constant(a) if isinstance(a, np.ndarray) else a for a in case]


def _run(call, case) -> Outcome:
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            result = call(*_args(case))
        values = _flat(result)
    except Exception as e:  # the comparison decides whether raising was right
        return Outcome(printed=text.getvalue(), error=e)
    return Outcome(values, text.getvalue())




def difference(got: Outcome, want: Outcome):
    """None where `got` agrees with `want`, else (kind, description)."""
    if want.error is not None:
        if got.error is None:
            return MISMATCH, f"eager raised {want!r}, staged gave {got!r}"
        return None
    if got.error is not None:
        return CRASH, f"{type(got.error).__name__}: {first_line(got.error)}"
    if len(got.values) != len(want.values):
        return MISMATCH, f"{len(got.values)} results, eager {len(want.values)}"
    for i, (a, e) in enumerate(zip(got.values, want.values)):
        if a.dtype != e.dtype:
            return MISMATCH, f"result {i}: dtype {a.dtype}, eager {e.dtype}"
        if a.shape != e.shape:
            return MISMATCH, f"result {i}: shape {a.shape}, eager {e.shape}"
        if a.dtype.kind in "fc":
            same = np.allclose(a, e, rtol=1e-5, atol=1e-5, equal_nan=True)
        else:
            same = np.array_equal(a, e)
        if not same:
            return MISMATCH, f"result {i}: {a.tolist()!r}, eager {e.tolist()!r}"
    if got.printed != want.printed:
        return MISMATCH, f"printed {got.printed!r}, eager {want.printed!r}"
    return None


def check(program: Program, way: str):
    """The first disagreement of `way` with eager over the program's cases, as (kind,
    description, case index), or None when every case agrees."""
    staged = rt.function(program.fn, jit_compile=True) if way == "jit" else None
    for index, case in enumerate(program.cases):
        want = _run(program.fn, case)
        got = _run(rt.function(program.fn) if staged is None else staged, case)
        if staged is not None and index:
            got.printed = want.printed
        found = difference(got, want)
        if found is not None:
            return (*found, index)
    return None


def table():
    rows = {}
    for program in PROGRAMS:
        for way in WAYS:
            rows[program.id, way] = check(program, way)
    return rows


if __name__ == "__main__":
    import collections
    import time
    start = time.perf_counter()
    rows = table()
    counts = collections.Counter()
    for (pid, way), found in rows.items():
        kind = AGREE if found is None else found[0]
        counts[way, kind] += 1
        if found is not None:
            print(f"{kind:8} {way:5} {pid}: case {found[2]}: {found[1][:160]}")
    print(dict(counts), f"{time.perf_counter() - start:.1f} s")
