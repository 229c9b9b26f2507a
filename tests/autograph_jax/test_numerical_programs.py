"""Numerical routines JAX libraries write with lax by hand, as plain Python
(numerical_programs.py), every way under JAX: the plain program on concrete values
(Python floats, numpy arrays, eager jnp arrays) against `ag.jax.jit` on jnp arrays;
jax.grad and jax.jvp of `ag.jax.convert(f)` against central differences of the plain
program in float64; jax.vmap against a Python loop over the batch. Empty, one-element and
NaN inputs where they mean something."""
import sys
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import autograph as ag  # noqa: E402
from autograph.errors import StagingValueError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numerical_programs as P  # noqa: E402

RTOL, ATOL = 1e-5, 1e-5


def f32(x):
    return jnp.asarray(x, jnp.float32)


def assert_close(got, expected, rtol=RTOL, atol=ATOL, context=""):
    if isinstance(expected, list):           # one value per batch element: one array
        expected = np.stack([np.asarray(e, np.float64) for e in expected])
    got_leaves = jax.tree_util.tree_leaves(got)
    expected_leaves = jax.tree_util.tree_leaves(expected)
    assert len(got_leaves) == len(expected_leaves), (context, got, expected)
    for g, e in zip(got_leaves, expected_leaves):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(e, np.float64),
                                   rtol=rtol, atol=atol, err_msg=str(context))


def central_difference(fn, x, h=1e-5):
    """d fn / dx of the plain program, in float64 (jnp too: x64 while it runs)."""
    with jax.enable_x64(True):
        return float((fn(x + h) - fn(x - h)) / (2 * h))


def check_grad_and_jvp(fn, points, rtol=2e-3, atol=2e-3, reverse=True, reference=None):
    """reference: the same program on float64 values, where fn holds float32 arrays."""
    reference = reference or fn
    converted = ag.jax.convert(fn)
    jvp = jax.jit(lambda x: jax.jvp(converted, (x,), (jnp.float32(1.0),)))
    grad = jax.jit(jax.grad(converted))
    for x in points:
        expected = central_difference(reference, x)
        value, tangent = jvp(f32(x))
        assert_close(value, reference(x), context=(fn.__name__, x))
        np.testing.assert_allclose(tangent, expected, rtol=rtol, atol=atol, err_msg=str(x))
        if reverse:
            np.testing.assert_allclose(grad(f32(x)), expected, rtol=rtol, atol=atol, err_msg=str(x))


# --- scalar programs: jit against plain Python, vmap against a loop ----------------------

SCALAR = [
    (P.bisect_cbrt, [27.0, -8.0, 0.0, 1e-3, 2.5, float("nan")]),
    (P.newton_cbrt, [27.0, 0.5, 1.0, 8e3]),
    (P.newton_cbrt_while, [27.0, 0.5, 1.0, 8e3]),
    (P.fixed_point_cos, [0.0, 0.5, -0.9, 0.95]),
    (P.exp_series, [0.0, 1.5, -3.0, 7.0]),
    (P.soft_threshold_piecewise, [-3.0, -2.0, -0.5, 0.0, 1.0, 1.5, 4.0, float("nan")]),
]


@pytest.mark.parametrize("fn, points", [pytest.param(f, p, id=f.__name__) for f, p in SCALAR])
def test_scalar_program_jit_and_vmap(fn, points):
    jitted = ag.jax.jit(fn)
    expected = [fn(x) for x in points]
    for x, e in zip(points, expected):
        assert_close(jitted(f32(x)), e, context=(fn.__name__, x))
    batched = jax.jit(jax.vmap(ag.jax.convert(fn)))(f32(points))
    assert_close(batched, expected, context=fn.__name__)


def test_bisection_finds_the_cube_root():
    points = np.array([27.0, -8.0, 0.0, 1e-3, 2.5])
    got = ag.jax.jit(P.bisect_cbrt)(f32(points[1]))
    np.testing.assert_allclose(got, np.cbrt(points[1]), rtol=1e-5)
    np.testing.assert_allclose(jax.vmap(ag.jax.convert(P.bisect_cbrt))(f32(points)),
                               np.cbrt(points), rtol=1e-5, atol=1e-6)


# --- gradients ---------------------------------------------------------------------------

def test_newton_unrolled_with_break_grad_and_jvp():
    check_grad_and_jvp(P.newton_cbrt, [27.0, 0.5, 3.0])


def test_piecewise_grad_and_jvp_away_from_boundaries():
    check_grad_and_jvp(P.soft_threshold_piecewise, [-3.0, -1.0, -0.5, 0.7, 1.2, 4.0])


def test_piecewise_grad_of_nan_takes_the_else_branch_as_python():
    """Every comparison with NaN is false: Python takes the `else`, so does the staged if."""
    def else_piece(x):
        return 6.75 * x - 12.7
    assert P.soft_threshold_piecewise(3.0) == else_piece(3.0)
    np.testing.assert_array_equal(jax.grad(ag.jax.convert(P.soft_threshold_piecewise))(f32(np.nan)),
                                  jax.grad(else_piece)(f32(np.nan)))


@pytest.mark.parametrize("fn, points", [
    pytest.param(P.newton_cbrt_while, [27.0, 0.5, 3.0], id="newton_cbrt_while"),
    pytest.param(P.fixed_point_cos, [0.5, -0.7, 0.9], id="fixed_point_cos"),
    pytest.param(P.exp_series, [1.5, -2.0, 0.3], id="exp_series"),
])
def test_forward_mode_through_while(fn, points):
    check_grad_and_jvp(fn, points, reverse=False)


@pytest.mark.parametrize("fn, points", [
    pytest.param(P.newton_cbrt_while, [27.0, 0.5, 3.0], id="newton_cbrt_while"),
    pytest.param(P.fixed_point_cos, [0.5, -0.7, 0.9], id="fixed_point_cos"),
])
def test_reverse_mode_through_bounded_while(fn, points):
    """maximum_iterations bounds the loop: reverse mode can run it as a masked scan."""
    check_grad_and_jvp(fn, points)


def test_reverse_mode_through_unbounded_while_says_set_maximum_iterations():
    with pytest.raises(StagingValueError, match="maximum_iterations"):
        jax.jit(jax.grad(ag.jax.convert(P.exp_series)))(f32(1.5))


def test_reverse_mode_outside_jit_runs_the_loop_as_python():
    """Without jit the loop test is concrete (a JVP tracer of a value): it runs as Python."""
    grad = jax.grad(ag.jax.convert(P.exp_series))
    for x in (1.5, -2.0, 0.3):
        np.testing.assert_allclose(grad(f32(x)), central_difference(P.exp_series, x),
                                   rtol=2e-3, atol=2e-3)


# --- a return inside a loop with a traced test ------------------------------------------

def test_return_of_a_float_inside_while():
    fn = P.newton_sqrt_or_nan
    cases = [(2.0, 20), (2.0, 2), (9.0, 0), (0.25, 5), (100.0, 30)]
    jitted = ag.jax.jit(fn)
    for a, n in cases:
        assert_close(jitted(f32(a), jnp.int32(n)), fn(a, n), context=(a, n))
    a, n = (np.array(c) for c in zip(*cases))
    batched = jax.vmap(ag.jax.convert(fn))(f32(a), jnp.asarray(n, jnp.int32))
    assert_close(batched, [fn(x, k) for x, k in cases])


def test_return_of_an_int_inside_while():
    fn = P.doublings_to_exceed
    cases = [(0.3, 100.0), (5.0, 1.0), (1e-9, 1e9), (1.0, 1.0)]
    jitted = ag.jax.jit(fn)
    for x, limit in cases:
        assert int(jitted(f32(x), f32(limit))) == fn(x, limit)


# --- polynomials over coefficient arrays -------------------------------------------------

COEFFS = [np.array([1.0, -2.0, 3.0, 0.5]), np.array([2.5]), np.array([0.1, 0, 0, 0, 0, -1.0])]
XS = [-1.5, 0.0, 0.7, 2.0]


@pytest.mark.parametrize("coeffs", COEFFS, ids=["cubic", "constant", "quintic"])
def test_horner_jit_and_vmap(coeffs):
    jitted = ag.jax.jit(P.horner)
    for x in XS:
        assert_close(jitted(f32(coeffs), f32(x)), P.horner(coeffs, x), context=x)
        np.testing.assert_allclose(P.horner(coeffs, x), np.polyval(coeffs, x))
    batched = jax.vmap(ag.jax.convert(P.horner), in_axes=(None, 0))(f32(coeffs), f32(XS))
    assert_close(batched, [P.horner(coeffs, x) for x in XS])
    over_coeffs = jax.vmap(ag.jax.convert(P.horner), in_axes=(0, None))(
        f32(np.stack([coeffs, 2 * coeffs])), f32(0.7))
    assert_close(over_coeffs, [P.horner(coeffs, 0.7), P.horner(2 * coeffs, 0.7)])


def test_horner_of_no_coefficients():
    assert_close(ag.jax.jit(P.horner)(f32(np.zeros(0)), f32(1.5)), P.horner(np.zeros(0), 1.5))


def test_horner_jvp_and_grad_over_a_python_list():
    coeffs = [1.0, -2.0, 3.0, 0.5]
    check_grad_and_jvp(lambda x: P.horner(coeffs, x), XS)


def test_horner_jvp_over_an_array():
    coeffs = COEFFS[0]
    check_grad_and_jvp(lambda x: P.horner(f32(coeffs), x), XS, reverse=False,
                       reference=lambda x: P.horner(coeffs, x))


def test_horner_grad_over_an_array():
    grad = jax.jit(jax.grad(ag.jax.convert(P.horner), argnums=(0, 1)))
    coeffs = COEFFS[0]
    d_coeffs, d_x = grad(f32(coeffs), f32(0.7))
    np.testing.assert_allclose(d_x, np.polyval(np.polyder(coeffs), 0.7), rtol=1e-5)
    np.testing.assert_allclose(d_coeffs, 0.7 ** np.arange(3, -1, -1), rtol=1e-5)


# --- searches ----------------------------------------------------------------------------

@pytest.mark.parametrize("keys", [np.array([0.0, 1.0, 1.0, 2.0, 5.0]), np.array([3.0]),
                                  np.zeros(0), np.arange(0.0, 64.0, 0.5)],
                         ids=["ties", "one", "empty", "long"])
def test_search_right_jit_and_vmap(keys):
    targets = [-1.0, 0.0, 1.0, 1.5, 3.0, 5.0, 9.0, 100.0]
    expected = [P.search_right(keys, t) for t in targets]
    assert expected == np.searchsorted(keys, targets, side="right").tolist()
    jitted = ag.jax.jit(P.search_right)
    assert [int(jitted(f32(keys), f32(t))) for t in targets] == expected
    batched = jax.vmap(ag.jax.convert(P.search_right), in_axes=(None, 0))(f32(keys), f32(targets))
    assert batched.tolist() == expected


# A depth-3 tree on two features: node -> (feature, threshold, left, right, value).
TREE = [(0, 0.5, 1, 2, 0.0), (1, 0.2, 3, 4, 0.0), (1, 0.7, 5, 6, 0.0),
        (0, 0.1, 7, 8, 0.0), (-1, 0.0, -1, -1, 40.0), (-1, 0.0, -1, -1, 50.0),
        (-1, 0.0, -1, -1, 60.0), (-1, 0.0, -1, -1, 70.0), (-1, 0.0, -1, -1, 80.0)]


def tree_arrays(as_array):
    feature, threshold, left, right, value = (list(c) for c in zip(*TREE))
    feature = [max(f, 0) for f in feature]
    return (as_array(feature, np.int32), as_array(threshold, np.float32),
            as_array(left, np.int32), as_array(right, np.int32), as_array(value, np.float32))


def test_tree_predict_jit_and_vmap():
    rng = np.random.default_rng(0)
    points = rng.uniform(0.0, 1.0, size=(16, 2))
    points[0] = [0.05, 0.1]                  # the deepest leaf
    plain = tree_arrays(lambda v, dt: np.asarray(v, dt))
    staged = tree_arrays(lambda v, dt: jnp.asarray(v, dt))
    expected = [P.tree_predict(*plain, x) for x in points]
    assert {int(d) for _, d in expected} == {2, 3}
    jitted = ag.jax.jit(P.tree_predict)
    for x, (value, depth) in zip(points, expected):
        got_value, got_depth = jitted(*staged, f32(x))
        assert float(got_value) == value and int(got_depth) == depth, x
    values, depths = jax.vmap(ag.jax.convert(P.tree_predict), in_axes=(None,) * 5 + (0,))(
        *staged, f32(points))
    assert values.tolist() == [float(v) for v, _ in expected]
    assert depths.tolist() == [int(d) for _, d in expected]


ROWS = [np.array([0.5, 0.1, 2.0, 3.0]), np.array([2.0]), np.array([0.1]),
        np.array([np.nan, 0.2, 4.0]), np.array([-1.0, -2.0, -3.0, -0.5])]


@pytest.mark.parametrize("xs", ROWS, ids=["found", "one-above", "one-below", "nan", "none"])
def test_first_above_jit(xs):
    assert int(ag.jax.jit(P.first_above)(f32(xs), f32(1.0))) == P.first_above(xs, 1.0)


def test_first_above_vmap_over_rows():
    rows = np.random.default_rng(1).uniform(-1.0, 2.0, size=(8, 7))
    rows[3] = -1.0
    rows[5, 2] = np.nan
    got = jax.vmap(ag.jax.convert(P.first_above), in_axes=(0, None))(f32(rows), f32(1.5))
    assert got.tolist() == [P.first_above(r, 1.5) for r in rows]


def test_first_above_empty():
    expected = P.first_above(np.zeros(0), 1.0)
    assert int(ag.jax.jit(P.first_above)(f32(np.zeros(0)), f32(1.0))) == expected


# --- sampling ----------------------------------------------------------------------------

@pytest.mark.slow
def test_truncated_normal_draws_what_python_draws():
    keys = jax.random.split(jax.random.key(3), 6)
    for lo in (-1.0, 1.0, 2.0):
        expected = [P.truncated_normal(k, lo) for k in keys]             # eager: Python loops
        assert all(float(x) >= lo for x, _ in expected)
        jitted = ag.jax.jit(P.truncated_normal)
        for k, (x, draws) in zip(keys, expected):
            got_x, got_draws = jitted(k, f32(lo))
            assert float(got_x) == float(x) and int(got_draws) == draws
        xs, draws = jax.jit(jax.vmap(ag.jax.convert(P.truncated_normal), in_axes=(0, None)))(
            keys, f32(lo))
        assert xs.tolist() == [float(x) for x, _ in expected]
        assert draws.tolist() == [d for _, d in expected]


# --- integers ----------------------------------------------------------------------------

GCD_CASES = [(12, 18), (18, 12), (0, 0), (0, 7), (7, 0), (-12, 18), (12, -18), (1, 1),
             (2 ** 20, 6 ** 7), (987, 610)]


def test_gcd_jit_and_vmap():
    import math
    for a, b in GCD_CASES:
        assert P.gcd(a, b) == math.gcd(a, b)
    jitted = ag.jax.jit(P.gcd)
    assert [int(jitted(jnp.int32(a), jnp.int32(b))) for a, b in GCD_CASES] == \
        [P.gcd(a, b) for a, b in GCD_CASES]
    a, b = (jnp.asarray(c, jnp.int32) for c in zip(*GCD_CASES))
    assert jax.jit(jax.vmap(ag.jax.convert(P.gcd)))(a, b).tolist() == \
        [P.gcd(a, b) for a, b in GCD_CASES]


# --- running maxima and builtins ---------------------------------------------------------

@pytest.mark.parametrize("xs", ROWS, ids=["mixed", "one-a", "one-b", "nan", "negative"])
def test_running_max_and_cummax_jit(xs):
    best, records = ag.jax.jit(P.running_max)(f32(xs))
    expected_best, expected_records = P.running_max(xs)
    assert_close(best, expected_best)
    assert int(records) == expected_records
    assert_close(ag.jax.jit(P.cummax)(f32(xs)), P.cummax(f32(xs)))


def test_running_max_and_cummax_vmap():
    rows = np.random.default_rng(2).normal(size=(5, 9))
    rows[1, 4] = np.nan
    best, records = jax.vmap(ag.jax.convert(P.running_max))(f32(rows))
    expected = [P.running_max(r) for r in rows]
    assert_close(best, [b for b, _ in expected])
    assert records.tolist() == [r for _, r in expected]
    assert_close(jax.vmap(ag.jax.convert(P.cummax))(f32(rows)), [P.cummax(f32(r)) for r in rows])
    np.testing.assert_allclose(P.cummax(f32(rows[0])), np.maximum.accumulate(rows[0]), rtol=1e-6)


def test_cummax_jvp():
    xs = np.array([0.3, -1.0, 2.0, 1.0, 5.0])
    converted = ag.jax.convert(P.cummax)
    for k in range(len(xs)):
        step = np.eye(len(xs))[k]
        _, tangent = jax.jvp(converted, (f32(xs),), (f32(step),))
        expected = (np.maximum.accumulate(xs + 1e-4 * step)
                    - np.maximum.accumulate(xs - 1e-4 * step)) / 2e-4
        np.testing.assert_allclose(tangent, expected, atol=1e-3)


def test_running_max_empty():
    best, records = ag.jax.jit(P.running_max)(f32(np.zeros(0)))
    assert (float(best), int(records)) == P.running_max(np.zeros(0))


def test_cummax_empty():
    assert_close(ag.jax.jit(P.cummax)(f32(np.zeros(0))), P.cummax(f32(np.zeros(0))))


def test_cummax_with_builtin_max_keeps_pythons_nan_rule():
    """max(best, nan) is best (nan > best is false) where jnp.maximum gives nan."""
    rows = [np.array([0.3, -1.0, 2.0, 1.0, 5.0]), np.array([0.3, np.nan, 2.0, np.nan]),
            np.array([np.nan, 1.0, 0.5, 4.0, 3.0])]
    jitted = ag.jax.jit(P.cummax_builtin)
    for xs in rows:
        expected = [float(v) for v in P.cummax_builtin(np.asarray(xs, np.float32))]
        assert_close(jitted(f32(xs)), expected, context=xs)
    batch = np.stack([np.resize(r, 5) for r in rows])
    assert_close(jax.vmap(ag.jax.convert(P.cummax_builtin))(f32(batch)),
                 [P.cummax_builtin(np.asarray(r, np.float32)) for r in batch])
    np.testing.assert_allclose(jitted(f32(rows[0])), np.maximum.accumulate(rows[0]), rtol=1e-6)


def test_clip_with_builtin_min_max():
    points = [-2.0, 0.0, 0.2, 1.0, 3.0, float("nan")]
    bounds = [(0.0, 1.0), (float("nan"), 1.0), (0.0, float("nan"))]
    jitted = ag.jax.jit(P.clip_builtin)
    for lo, hi in bounds:
        expected = [P.clip_builtin(x, lo, hi) for x in points]
        for x, e in zip(points, expected):
            assert_close(jitted(f32(x), f32(lo), f32(hi)), e, context=(x, lo, hi))
        batched = jax.vmap(ag.jax.convert(P.clip_builtin), in_axes=(0, None, None))(
            f32(points), f32(lo), f32(hi))
        assert_close(batched, expected, context=(lo, hi))


def test_clip_with_builtin_min_max_on_python_values():
    converted = ag.jax.convert(P.clip_builtin)
    for x in (-2.0, 0.2, 3.0):
        assert converted(x, 0.0, 1.0) == P.clip_builtin(x, 0.0, 1.0)


# --- zip over two arrays -----------------------------------------------------------------

PAIRS = [(np.array([0.5, -1.0, 2.0, 0.0, 3.0]), np.array([1.0, 4.0, -2.0, 7.0, 0.5])),
         (np.array([2.0]), np.array([3.0])), (np.zeros(0), np.zeros(0)),
         (np.array([np.nan, 1.0]), np.array([1.0, 2.0]))]


@pytest.mark.parametrize("xs, ys", PAIRS, ids=["five", "one", "empty", "nan"])
def test_zip_jit(xs, ys):
    assert_close(ag.jax.jit(P.dot_positive_zip)(f32(xs), f32(ys)), P.dot_positive_zip(xs, ys))


def test_zip_vmap_and_grad():
    rng = np.random.default_rng(4)
    xs, ys = rng.normal(size=(6, 8)), rng.normal(size=(6, 8))
    converted = ag.jax.convert(P.dot_positive_zip)
    got = jax.vmap(converted)(f32(xs), f32(ys))
    assert_close(got, [P.dot_positive_zip(x, y) for x, y in zip(xs, ys)])
    grad = jax.jit(jax.grad(converted, argnums=(0, 1)))
    d_x, d_y = grad(f32(xs[0]), f32(ys[0]))
    np.testing.assert_allclose(d_x, np.where(xs[0] > 0, ys[0], 0.0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d_y, np.where(xs[0] > 0, xs[0], 0.0), rtol=1e-5, atol=1e-6)


def test_zip_over_arrays_stages_one_loop():
    """One staged loop, not a copy of the body per row: the program does not grow with n."""
    def jaxpr(n):
        xs = f32(np.arange(float(n)))
        return str(jax.make_jaxpr(ag.jax.convert(P.dot_positive_zip))(xs, xs))
    assert "while" in jaxpr(32)
    assert len(jaxpr(32).splitlines()) == len(jaxpr(8).splitlines())


# --- factorizations ----------------------------------------------------------------------

def spd(n, seed):
    m = np.random.default_rng(seed).normal(size=(n, n))
    return m @ m.T + n * np.eye(n)


CHOLESKY = [pytest.param(P.cholesky_unrolled, id="unrolled"),
            pytest.param(P.cholesky_rows, id="rows")]


@pytest.mark.parametrize("fn", CHOLESKY)
@pytest.mark.parametrize("n", [1, 2, pytest.param(5, marks=pytest.mark.slow)])
def test_cholesky_jit_and_vmap(fn, n):
    a = spd(n, n)
    expected = np.linalg.cholesky(a)
    np.testing.assert_allclose(fn(jnp.asarray(a, jnp.float32)), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ag.jax.jit(fn)(f32(a)), expected, rtol=1e-4, atol=1e-5)
    batch = np.stack([spd(n, s) for s in range(4)])
    np.testing.assert_allclose(jax.vmap(ag.jax.convert(fn))(f32(batch)),
                               np.linalg.cholesky(batch), rtol=1e-4, atol=1e-5)


def test_cholesky_rows_of_nan_is_nan():
    a = spd(3, 0)
    a[1, 1] = np.nan
    got = np.asarray(ag.jax.jit(P.cholesky_rows)(f32(a)))
    plain = np.asarray(P.cholesky_rows(f32(a)))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(plain))
    np.testing.assert_allclose(got[0], plain[0], rtol=1e-6)


def logdet_via(fn, a):
    return 2.0 * jnp.sum(jnp.log(jnp.diagonal(fn(a))))


def logdet_direction(fn, a, direction):
    """d/dt logdet(fn(a + t d)) at 0 by central differences in float64."""
    with jax.enable_x64(True):
        h = 1e-5
        return float((logdet_via(fn, jnp.asarray(a + h * direction))
                      - logdet_via(fn, jnp.asarray(a - h * direction))) / (2 * h))


def symmetric_direction(n, seed):
    d = np.random.default_rng(seed).normal(size=(n, n))
    return d + d.T


def test_cholesky_unrolled_grad_and_jvp_of_logdet():
    n = 4
    a = spd(n, 7)
    d = symmetric_direction(n, 8)
    expected = logdet_direction(P.cholesky_unrolled, a, d)
    np.testing.assert_allclose(expected, np.trace(np.linalg.solve(a, d)), rtol=1e-5)
    f = ag.jax.convert(lambda m: logdet_via(P.cholesky_unrolled, m))
    _, tangent = jax.jvp(f, (f32(a),), (f32(d),))
    np.testing.assert_allclose(tangent, expected, rtol=2e-3, atol=2e-3)
    g = jax.jit(jax.grad(f))(f32(a))
    np.testing.assert_allclose(np.sum(np.asarray(g) * d), expected, rtol=2e-3, atol=2e-3)


def test_cholesky_rows_jvp_of_logdet():
    n = 4
    a, d = spd(n, 7), symmetric_direction(n, 8)
    f = ag.jax.convert(lambda m: logdet_via(P.cholesky_rows, m))
    _, tangent = jax.jit(lambda m, t: jax.jvp(f, (m,), (t,)))(f32(a), f32(d))
    np.testing.assert_allclose(tangent, logdet_direction(P.cholesky_rows, a, d),
                               rtol=2e-3, atol=2e-3)


def test_cholesky_rows_grad_of_logdet():
    n = 4
    a, d = spd(n, 7), symmetric_direction(n, 8)
    f = ag.jax.convert(lambda m: logdet_via(P.cholesky_rows, m))
    g = jax.jit(jax.grad(f))(f32(a))
    np.testing.assert_allclose(np.sum(np.asarray(g) * d),
                               logdet_direction(P.cholesky_rows, a, d), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("n", [1, 3, pytest.param(5, marks=pytest.mark.slow)])
def test_lu_jit_vmap_and_grad(n):
    a = spd(n, n) + np.triu(np.ones((n, n)))         # not symmetric; no pivoting needed
    L, U = ag.jax.jit(P.lu_unrolled)(f32(a))
    plain_L, plain_U = P.lu_unrolled(f32(a))
    assert_close((L, U), (plain_L, plain_U), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(L) @ np.asarray(U), a, rtol=1e-4, atol=1e-4)
    batch = np.stack([a, a.T, 2 * a])
    bL, bU = jax.vmap(ag.jax.convert(P.lu_unrolled))(f32(batch))
    for k in range(3):
        assert_close((bL[k], bU[k]), P.lu_unrolled(f32(batch[k])), rtol=1e-5)
    # d/da log|det a| = inv(a).T
    logabsdet = ag.jax.convert(
        lambda m: jnp.sum(jnp.log(jnp.abs(jnp.diagonal(P.lu_unrolled(m)[1])))))
    np.testing.assert_allclose(jax.grad(logabsdet)(f32(a)), np.linalg.inv(a).T,
                               rtol=1e-3, atol=1e-4)


# --- reverse mode through bounded loops --------------------------------------------------

def test_for_with_break_over_an_array_grad_and_jvp():
    xs = np.array([0.5, 1.2, 0.8, 2.0, 0.3])
    converted = ag.jax.convert(P.sum_squares_until)
    grad = jax.jit(jax.grad(converted))(f32(xs), f32(1.5))
    for k, step in enumerate(np.eye(len(xs))):
        expected = central_difference(lambda t: P.sum_squares_until(xs + t * step, 1.5), 0.0)
        np.testing.assert_allclose(grad[k], expected, rtol=2e-3, atol=2e-3)
        _, tangent = jax.jit(lambda v, d: jax.jvp(lambda u: converted(u, f32(1.5)), (v,), (d,)))(
            f32(xs), f32(step))
        np.testing.assert_allclose(tangent, expected, rtol=2e-3, atol=2e-3)
    rows = np.random.default_rng(5).uniform(0.0, 1.5, size=(6, 5))
    assert_close(jax.vmap(converted, in_axes=(0, None))(f32(rows), f32(1.5)),
                 [P.sum_squares_until(r, 1.5) for r in rows])


@pytest.mark.parametrize("x", [0.5, 0.006, 3.0])
def test_maximum_iterations_stops_the_staged_loop(x):
    """Staged, the loop stops after maximum_iterations: the plain program with the bound
    written out (values, grad, jvp and vmap, all under jit)."""
    converted = ag.jax.convert(P.damped_halvings)
    reference = P.damped_halvings_explicit
    assert_close(jax.jit(converted)(f32(x)), reference(x))
    expected = central_difference(reference, x, h=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(converted))(f32(x)), expected, rtol=2e-3, atol=1e-5)
    _, tangent = jax.jit(lambda v: jax.jvp(converted, (v,), (f32(1.0),)))(f32(x))
    np.testing.assert_allclose(tangent, expected, rtol=2e-3, atol=1e-5)
    points = [0.5, 0.006, 3.0, 1e-4]
    assert_close(jax.jit(jax.vmap(converted))(f32(points)), [reference(p) for p in points])


def test_zip_of_unequal_lengths_stops_at_the_shortest():
    long, short = np.arange(1.0, 6.0), np.array([1.0, -1.0, 2.0])
    jitted = ag.jax.jit(P.dot_positive_zip)
    assert_close(jitted(f32(long), f32(short)), P.dot_positive_zip(long, short))
    assert_close(jitted(f32(short), f32(long)), P.dot_positive_zip(short, long))
