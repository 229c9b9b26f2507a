"""Numerical routines that JAX libraries write with `lax.while_loop` / `lax.cond` /
`lax.fori_loop` by hand, written as the plain Python their authors would like to write:
Python `if`/`elif`/`else`, `while`, `for`, `break`, `continue` and `return` on jnp values,
no lax. Each runs as it is on concrete values (Python numbers, numpy and eager jnp arrays:
the reference) and through `ag.jax.jit` / `ag.jax.convert` under `jax.jit`, `jax.grad`,
`jax.jvp` and `jax.vmap` (test_numerical_programs.py).
"""
import jax
import jax.numpy as jnp

import autograph as ag


# --- root finding -----------------------------------------------------------------------

def bisect_cbrt(c):
    """The real cube root of c by bisection on [-|c|-1, |c|+1] to a relative tolerance."""
    lo = -abs(c) - 1.0
    hi = abs(c) + 1.0
    while hi - lo > 1e-6 * (abs(hi) + abs(lo)):
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def newton_cbrt(a):
    """a ** (1/3) for a > 0 by Newton's method, a Python range with an early exit (it
    unrolls: each `break` on a traced value stages)."""
    x = a * 0.5 + 0.5
    for _ in range(30):
        step = (x * x * x - a) / (3.0 * x * x)
        x = x - step
        if abs(step) < 1e-7 * abs(x):
            break
    return x


def newton_cbrt_while(a):
    """The same Newton iteration as a `while` with a bound on its iterations."""
    x = a * 0.5 + 0.5
    step = x
    while abs(step) > 1e-7 * abs(x):
        ag.experimental.set_loop_options(maximum_iterations=50)
        step = (x * x * x - a) / (3.0 * x * x)
        x = x - step
    return x


def newton_sqrt_or_nan(a, max_steps):
    """sqrt(a) by Newton's method, returned from inside a `while` with a traced test as
    soon as it has converged; NaN if it has not after max_steps steps."""
    x = a + 1.0
    k = 0
    while k < max_steps:
        if abs(x * x - a) < 1e-5 * (a + 1.0):
            return x
        x = 0.5 * (x + a / x)
        k += 1
    return x * float("nan")


def doublings_to_exceed(x, limit):
    """How many doublings take x > 0 above limit; -1 past 20 (a `return` of an int
    inside a `while` with a traced test, nothing returned before the loop)."""
    k = 0
    while x < limit:
        if k >= 20:
            return -1
        x = x * 2.0
        k += 1
    return k


def fixed_point_cos(a):
    """The x with x == a * cos(x) (|a| < 1: a contraction), iterated while it moves, at
    most 50 times."""
    x = a * 0.0
    delta = a * 0.0 + 1.0
    while delta > 1e-6:
        ag.experimental.set_loop_options(maximum_iterations=50)
        new = a * jnp.cos(x)
        delta = abs(new - x)
        x = new
    return x


# --- series and polynomials -------------------------------------------------------------

def exp_series(x):
    """exp(x) by its power series until a term no longer counts (no bound on the loop)."""
    total = 1.0
    term = 1.0
    k = 1
    while abs(term) > 1e-8 * abs(total):
        term = term * x / k
        total = total + term
        k += 1
    return total


def horner(coeffs, x):
    """sum(c * x ** (n-1-i)) for coeffs = [c0, c1, ...], highest power first: a `for` over
    an array (over a Python list it unrolls)."""
    acc = x * 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc


# --- searches ---------------------------------------------------------------------------

def search_right(keys, target):
    """The first index whose key is above target (numpy's searchsorted, side='right')."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if target < keys[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def tree_predict(feature, threshold, left, right, value, x):
    """A decision tree stored in arrays (children -1 at a leaf), walked from the root."""
    node = 0
    depth = 0
    while left[node] >= 0:
        if x[feature[node]] <= threshold[node]:
            node = left[node]
        else:
            node = right[node]
        depth += 1
    return value[node], depth


def first_above(xs, t):
    """The index of the first element above t, -1 if none (a `break` out of a `for`)."""
    found = -1
    for i, x in enumerate(xs):
        if x > t:
            found = i
            break
    return found


# --- sampling ---------------------------------------------------------------------------

def truncated_normal(key, lo):
    """A standard normal draw conditioned on being above lo, by rejection, and the
    number of draws it took."""
    draws = 0
    x = lo - 1.0
    while x < lo:
        key, sub = jax.random.split(key)
        x = jax.random.normal(sub)
        draws += 1
    return x, draws


# --- integers ---------------------------------------------------------------------------

def gcd(a, b):
    """Euclid's algorithm (Python's `%`: the remainder takes b's sign)."""
    while b != 0:
        a, b = b, a % b
    return abs(a)


# --- piecewise and elementwise ----------------------------------------------------------

def soft_threshold_piecewise(x):
    """A piecewise polynomial with four pieces (if/elif/else)."""
    if x < -2.0:
        y = 2.0 * x + 1.0
    elif x < 0.0:
        y = -0.75 * x * x - x - 4.0
    elif x <= 1.5:
        y = x * x * x - 4.0
    else:
        y = 6.75 * x - 12.7
    return y


def running_max(xs):
    """The largest element and how many times the running maximum rose (`for x in xs`)."""
    best = -float("inf")
    records = 0
    for x in xs:
        if x > best:
            best = x
            records += 1
    return best, records


def cummax(xs):
    """The running maximum, written into an array of the input's size."""
    out = jnp.zeros_like(xs)
    best = -float("inf")
    for i, x in enumerate(xs):
        best = jnp.maximum(best, x)
        out = out.at[i].set(best)
    return out


def cummax_builtin(xs):
    """The running maximum with Python's `max` of two scalars."""
    out = jnp.zeros_like(xs)
    best = -float("inf")
    for i, x in enumerate(xs):
        best = max(best, x)
        out = out.at[i].set(best)
    return out


def clip_builtin(x, lo, hi):
    """Python's `min` and `max` of traced scalars."""
    return min(max(x, lo), hi)


def dot_positive_zip(xs, ys):
    """sum(a * b) over the pairs whose a is positive (`for a, b in zip(xs, ys)`)."""
    total = 0.0
    for a, b in zip(xs, ys):
        if a <= 0.0:
            continue
        total = total + a * b
    return total


# --- factorizations ---------------------------------------------------------------------

def cholesky_unrolled(a):
    """The lower Cholesky factor, by columns; n is a Python int, so the loops unroll."""
    n = a.shape[0]
    L = jnp.zeros_like(a)
    for j in range(n):
        s = a[j, j] - jnp.dot(L[j, :j], L[j, :j])
        L = L.at[j, j].set(jnp.sqrt(s))
        for i in range(j + 1, n):
            L = L.at[i, j].set((a[i, j] - jnp.dot(L[i, :j], L[j, :j])) / L[j, j])
    return L


def cholesky_rows(a):
    """The lower Cholesky factor a row at a time: a `for` over the rows of a (staged),
    the columns a Python range with an `if` on the traced row index. L[i] is still zero
    from column j on when L[i, j] is computed, and L[j] is zero right of the diagonal, so
    the full dot product is the sum over k < j."""
    n = a.shape[0]
    L = jnp.zeros_like(a)
    for i, row in enumerate(a):
        for j in range(n):
            s = jnp.dot(L[i], L[j])
            if j < i:
                L = L.at[i, j].set((row[j] - s) / L[j, j])
            elif j == i:
                L = L.at[i, i].set(jnp.sqrt(row[i] - s))
    return L


def lu_unrolled(a):
    """Doolittle LU without pivoting (unit lower L, upper U), unrolled."""
    n = a.shape[0]
    L = jnp.eye(n, dtype=a.dtype)
    U = jnp.zeros_like(a)
    for i in range(n):
        for k in range(i, n):
            U = U.at[i, k].set(a[i, k] - jnp.dot(L[i, :i], U[:i, k]))
        for k in range(i + 1, n):
            L = L.at[k, i].set((a[k, i] - jnp.dot(L[k, :i], U[:i, i])) / U[i, i])
    return L, U


# --- reverse mode through loops with a bound ---------------------------------------------

def sum_squares_until(xs, t):
    """sum(x * x) over the leading elements, stopping once the sum is above t (a `for`
    with a `break` over an array: its bound is the array's length)."""
    total = 0.0
    for x in xs:
        if total > t:
            break
        total = total + x * x
    return total


def damped_halvings(x):
    """x halved (with a small quadratic term) while above 1e-3, at most 5 times under
    staging; a loop that runs as Python ignores the bound."""
    while x > 1e-3:
        ag.experimental.set_loop_options(maximum_iterations=5)
        x = x * 0.5 + 0.01 * x * x
    return x


def damped_halvings_explicit(x, bound=5):
    """damped_halvings with its bound written into the test: the staged loop's meaning."""
    k = 0
    while x > 1e-3 and k < bound:
        x = x * 0.5 + 0.01 * x * x
        k += 1
    return x
