"""Programs every way under JAX: the converter's corpus and random control-flow programs
as plain Python on Python values against `ag.jax.jit` on JAX arrays; gradients (jax.grad
and jax.jvp) of programs with data-dependent `if`/`while`/`for` against finite
differences of the plain program in float64; `jax.vmap` against a Python loop over the
batch. The benchmark's workloads (tools/bench/bench_jax_autograph.py) give the same
results as their hand-written lax versions."""
import copy
import sys
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "autograph"))     # the converter's corpus and generator
sys.path.insert(0, str(HERE.parents[1] / "tools" / "bench"))
import corpus  # noqa: E402
import bench_jax_autograph as bench  # noqa: E402
import jax_programs as programs  # noqa: E402
import random_programs  # noqa: E402


def as_jax(args):
    return jax.tree_util.tree_map(jnp.asarray, args)


def assert_same(got, expected, context):
    got_leaves = jax.tree_util.tree_leaves(got)
    expected_leaves = jax.tree_util.tree_leaves(expected)
    assert len(got_leaves) == len(expected_leaves), (context, got, expected)
    for g, e in zip(got_leaves, expected_leaves):
        assert np.array_equal(np.asarray(g), np.asarray(e)), (context, got, expected)


# --- the corpus: every function the runtime stages, on JAX arrays under jit -----------------

# Functions of the corpus that stage on the runtime but not yet under ag.jax (with why):
# while_return: a `return` inside a `while` whose test is traced; the return value is
# undefined before the loop ("'retval_' is Undefined before the loop but int32 after").
NOT_STAGED_UNDER_JAX = {"while_return"}

CORPUS = [pytest.param(fn, arg_sets, id=fn.__name__) for fn, arg_sets, staged in corpus.PY
          if staged and fn.__name__ not in NOT_STAGED_UNDER_JAX]


@pytest.mark.parametrize("fn, arg_sets", CORPUS)
def test_corpus_under_jit_matches_python(fn, arg_sets):
    jitted = ag.jax.jit(fn)
    for args in arg_sets:
        expected = fn(*copy.deepcopy(args))
        assert_same(jitted(*as_jax(args)), expected, (fn.__name__, args))


# --- random programs: nested if/while/for, break/continue/return, and/or/not ---------------

INPUTS = [(0, 0), (5, 3), (13, 6), (40, 2)]


def _python(fn, x, n):
    try:
        return fn(x, n)
    except UnboundLocalError:       # a name assigned on some paths only: not compared
        return None


def _check_random(seed, composite):
    """Where Python raises UnboundLocalError (`d` is assigned on some paths only) ag.jax
    raises too, naming `d`: while tracing where no path assigns it, else the staged
    program's run-time check."""
    source, fn = random_programs.make(seed, composite=composite)
    jitted = ag.jax.jit(fn)
    for x, n in INPUTS:
        expected = _python(fn, x, n)
        if expected is None:
            with pytest.raises(Exception, match="'d'"):
                jitted(jnp.int32(x), jnp.int32(n)).block_until_ready()
        else:
            got = jitted(jnp.int32(x), jnp.int32(n))
            assert int(got) == expected, (source, x, n)


@pytest.mark.parametrize("seed", range(0, 200, 8))
def test_random_program_under_jit(seed):
    _check_random(seed, composite=False)


@pytest.mark.parametrize("seed", range(3, 200, 16))
def test_random_composite_program_under_jit(seed):
    """Attributes, dict and list items and a global written in staged constructs."""
    _check_random(seed, composite=True)


# Seeds whose program returns from inside a loop with a traced test in a way ag.jax does
# not stage yet (as the corpus's while_return: "'retval_' is Undefined before the loop").
RETURN_IN_LOOP_SEEDS = {69, 130, 174}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [s for s in range(200) if s % 8 and s not in RETURN_IN_LOOP_SEEDS])
def test_random_program_under_jit_sweep(seed):
    _check_random(seed, composite=False)
    _check_random(seed, composite=True)


# Programs that read a name assigned on some paths only (`d`) are left out: under vmap
# both sides of a staged `if` run for every element, and the run-time check that `d` was
# assigned fires for elements whose path never reads it (an early return before it).
VMAP_SEEDS = [s for s in range(1, 400, 7) if "d = " not in random_programs.make(s)[0]][:12]


@pytest.mark.parametrize("seed", VMAP_SEEDS)
def test_random_program_under_vmap(seed):
    """One vmap of the program over the inputs Python runs without an UnboundLocalError:
    every element takes its own path."""
    source, fn = random_programs.make(seed)
    inputs = [(x, n) for x, n in INPUTS + [(2, 5), (31, 4), (7, 1)] if _python(fn, x, n) is not None]
    xs, ns = (jnp.array(column, jnp.int32) for column in zip(*inputs))
    got = jax.jit(jax.vmap(ag.jax.convert(fn)))(xs, ns)
    assert got.tolist() == [_python(fn, x, n) for x, n in inputs], source


# --- gradients against finite differences of the plain program (float64) -------------------

def central_difference(fn, x, h=1e-5):
    return (fn(x + h) - fn(x - h)) / (2 * h)


SCALAR = [pytest.param(fn, points, id=fn.__name__) for fn, points in programs.SCALAR]


@pytest.mark.parametrize("fn, points", SCALAR)
def test_plain_python_values_unchanged(fn, points):
    converted = ag.jax.convert(fn)
    for x in points:
        assert converted(x) == fn(x)


@pytest.mark.parametrize("fn, points", SCALAR)
def test_forward_mode_matches_finite_differences(fn, points):
    converted = ag.jax.convert(fn)
    jvp = jax.jit(lambda x, t: jax.jvp(converted, (x,), (t,)))    # traced: nothing runs as Python
    for x in points:
        value, tangent = jvp(jnp.float32(x), jnp.float32(1.0))
        np.testing.assert_allclose(value, fn(x), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(tangent, central_difference(fn, x), rtol=2e-3, atol=2e-3)


# newton_sqrt's loop has no bound (reverse mode refuses it, saying to give one);
# bounded_series's has one (maximum_iterations): it lowers to masked scans.
REVERSE = [p for p in SCALAR if p.values[0] is not programs.newton_sqrt]


@pytest.mark.parametrize("fn, points", REVERSE)
def test_reverse_mode_matches_finite_differences(fn, points):
    converted = ag.jax.convert(fn)
    ways = {"jit(grad(convert))": jax.jit(jax.grad(converted)),
            "grad(convert)": jax.grad(converted),
            "grad(ag.jax.jit)": jax.grad(ag.jax.jit(fn))}
    for way, grad in ways.items():
        for x in points:
            np.testing.assert_allclose(grad(jnp.float32(x)), central_difference(fn, x),
                                       rtol=2e-3, atol=2e-3, err_msg=f"{way} at {x}")


def test_reverse_mode_through_an_unbounded_loop_says_to_bound_it():
    line = programs.newton_sqrt.__code__.co_firstlineno + 4          # its `while`
    with pytest.raises(ValueError, match="maximum_iterations") as info:
        jax.jit(jax.grad(ag.jax.convert(programs.newton_sqrt)))(jnp.float32(2.0))
    assert f"jax_programs.py:{line}:" in str(info.value)


def test_both_modes_through_for_over_rows_with_if():
    """jvp along each axis of w through a loop over an array's rows with an `if` in it,
    and jax.grad (the loop's trip count is the number of rows: a bound)."""
    rng = np.random.default_rng(0)
    xs, w = rng.normal(size=(12, 3)), rng.normal(size=3)
    ys = xs @ w + rng.normal(scale=1.5, size=12)      # some errors above 1, some below
    w0 = np.zeros(3)
    converted = ag.jax.convert(programs.huber_over_rows)
    jvp = jax.jit(lambda t: jax.jvp(lambda v: converted(v, jnp.asarray(xs, jnp.float32),
                                                        jnp.asarray(ys, jnp.float32)),
                                    (jnp.asarray(w0, jnp.float32),), (t,)))
    for k in range(3):
        step = np.eye(3)[k]
        value, tangent = jvp(jnp.asarray(step, jnp.float32))
        np.testing.assert_allclose(value, programs.huber_over_rows(w0, xs, ys), rtol=1e-5)
        expected = central_difference(lambda t: programs.huber_over_rows(w0 + t * step, xs, ys), 0.0)
        np.testing.assert_allclose(tangent, expected, rtol=2e-3, atol=2e-3)
        gradient = jax.jit(jax.grad(converted))(jnp.asarray(w0, jnp.float32),
                                                jnp.asarray(xs, jnp.float32),
                                                jnp.asarray(ys, jnp.float32))
        np.testing.assert_allclose(gradient[k], expected, rtol=2e-3, atol=2e-3)


# --- vmap against a Python loop over the batch ----------------------------------------------

def test_vmap_scalar_programs():
    xs = np.array([-2.5, -0.3, 0.7, 1.8, 3.0], np.float32)
    for fn in (programs.piecewise, programs.early_returns, programs.unrolled_if,
               programs.break_on_size, programs.bounded_series):
        got = jax.vmap(ag.jax.convert(fn))(jnp.asarray(xs))
        np.testing.assert_allclose(got, [fn(float(x)) for x in xs], rtol=1e-5, atol=1e-5,
                                   err_msg=fn.__name__)


def test_vmap_while_with_per_element_trip_counts():
    xs = np.array([1, 6, 7, 27, 97], np.int32)
    got = jax.jit(jax.vmap(ag.jax.convert(bench.collatz)))(jnp.asarray(xs))
    assert got.tolist() == [bench.collatz(int(x)) for x in xs]


def test_vmap_early_return_and_break_over_rows():
    rng = np.random.default_rng(1)
    rows = rng.uniform(-1.0, 2.0, size=(6, 9)).astype(np.float32)
    rows[2] = -1.0                                   # no element above: the fall-through return
    got = jax.vmap(ag.jax.convert(bench.first_above), in_axes=(0, None))(
        jnp.asarray(rows), jnp.float32(1.5))
    assert got.tolist() == [bench.first_above(list(row), 1.5) for row in rows]
    counts, totals = jax.vmap(ag.jax.convert(programs.clamp_count))(jnp.asarray(rows))
    for k, row in enumerate(rows):
        count, total = programs.clamp_count([float(v) for v in row])
        assert int(counts[k]) == count
        np.testing.assert_allclose(totals[k], total, rtol=1e-5)


# --- what numerical code writes with lax by hand: bisection, series, search, sampling ---------

def test_bisection_jit_and_vmap():
    f = ag.jax.convert(programs.bisect_sqrt)
    points = [0.25, 2.0, 9.0, 30.0]
    for a in points:
        np.testing.assert_allclose(ag.jax.jit(programs.bisect_sqrt)(jnp.float32(a)),
                                   programs.bisect_sqrt(a), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(jnp.array(points, jnp.float32)),
                               np.sqrt(points), rtol=1e-5)


def test_series_to_a_tolerance_jit_vmap_and_forward_mode():
    f = ag.jax.convert(programs.sin_series)
    xs = [-2.0, 0.3, 1.2, 3.0]
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(jnp.array(xs, jnp.float32)),
                               [programs.sin_series(x) for x in xs], rtol=1e-5, atol=1e-6)
    jvp = jax.jit(lambda x: jax.jvp(f, (x,), (jnp.float32(1.0),)))
    for x in xs:
        np.testing.assert_allclose(jvp(jnp.float32(x))[1], np.cos(x), rtol=1e-4, atol=1e-5)


def test_binary_search_jit_and_vmap():
    keys = np.arange(0.0, 100.0, 3.0)
    targets = [-1.0, 0.0, 50.0, 99.0, 200.0]
    expected = [programs.search_sorted(keys, t) for t in targets]
    assert expected == np.searchsorted(keys, targets).tolist()
    jitted = ag.jax.jit(programs.search_sorted)
    assert [int(jitted(jnp.asarray(keys, jnp.float32), jnp.float32(t))) for t in targets] == expected
    batched = jax.vmap(ag.jax.convert(programs.search_sorted), in_axes=(None, 0))
    assert batched(jnp.asarray(keys, jnp.float32), jnp.array(targets, jnp.float32)).tolist() == expected


def test_rejection_sampler_draws_what_python_draws():
    keys = jax.random.split(jax.random.key(0), 4)
    expected = np.stack([programs.rejection_disc(k) for k in keys])     # eager: Python loops
    assert (np.sum(expected ** 2, axis=1) <= 1.0).all()
    np.testing.assert_array_equal(ag.jax.jit(programs.rejection_disc)(keys[0]), expected[0])
    np.testing.assert_array_equal(jax.jit(jax.vmap(ag.jax.convert(programs.rejection_disc)))(keys),
                                  expected)


def test_registered_dataclass_as_loop_state():
    import dataclasses

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class State:
        x: jax.Array
        n: jax.Array

    for x in (0.5, 100.0):
        expected = programs.halvings(State(x, 0))
        got = ag.jax.jit(programs.halvings)(State(jnp.float32(x), jnp.int32(0)))
        assert int(got) == expected


# --- the benchmark's workloads agree with their lax versions ---------------------------------

def test_bench_prints_a_row_with_both_columns(capsys):
    assert bench.main(["--quick", "--only", "collatz"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("workload"))
    for column in ("hand us", "ours us", "first hand ms", "HLO ours"):
        assert column in header
    row = next(line for line in out.splitlines() if line.startswith("collatz"))
    cells = [c.strip() for c in row.split("|")]
    assert cells[3].endswith("x") and cells[6].endswith("x") and "—" not in row, row


@pytest.mark.slow
def test_bench_workloads_agree_with_lax_by_hand():
    for name, plain, hand, wrap, args in bench.workloads():
        expected = bench.compile_hand(hand, wrap)(*args)
        got = bench.compile_ours(plain, wrap)(*args)
        assert bench.agree(got, expected), name


# --- the guide's section for JAX users runs -------------------------------------------------

def test_guide_section_for_jax_users_runs(tmp_path):
    """Its `py` blocks in order as one program (each asserts its results); written to a
    file so that autograph can read the functions' source."""
    import re
    text = (HERE.parents[1] / "docs" / "guide.md").read_text()
    section = text[text.index("## 13. For JAX users"):]
    blocks = re.findall(r"```py\n(.*?)```", section, re.S)
    assert len(blocks) >= 3
    script = tmp_path / "guide_jax.py"
    script.write_text("\n".join(blocks))
    namespace = {"__name__": "guide_jax"}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    assert namespace["collatz"](jnp.int32(6)) == 8
