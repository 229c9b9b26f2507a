"""Plain Python programs with data-dependent control flow, written as a JAX user would like
to write them: they run as they are on Python floats and numpy arrays (the reference:
float64, and finite differences of it), and through `ag.jax.convert` under `jax.grad`,
`jax.jvp`, `jax.vmap` and `jax.jit` (test_jax_programs.py).

Only arithmetic, comparisons and `abs` on the values, so the same code runs on Python
numbers, numpy arrays and JAX tracers.
"""
import autograph as ag


# --- scalar -> scalar, differentiable away from their branch boundaries --------------------

def piecewise(x):
    if x < -1.0:
        y = -x * x + 2.0 * x
    elif x < 1.0:
        y = x * x * x
    else:
        y = 3.0 * x - 2.0
    return y * 0.5


def early_returns(x):
    if x > 2.0:
        return x * x
    y = x + 1.0
    if y < 0.0:
        return -y * 3.0
    return y * y * y


def unrolled_if(x):
    """A Python range: the loop unrolls, each `if` on the traced value stages."""
    for k in range(4):
        if x * k > 1.5:
            x = x * 0.5 + k
        else:
            x = x * x + 0.25
    return x


def newton_sqrt(a):
    """A loop whose trip count depends on the data (forward mode differentiates it)."""
    x = a
    i = 0
    while abs(x * x - a) > 1e-6 * a and i < 60:
        x = 0.5 * (x + a / x)
        i += 1
    return x


def bounded_series(x):
    """exp(x) by its series until a term is small, with a bound on the iterations: a
    while loop that reverse mode differentiates (maximum_iterations)."""
    total = 1.0
    term = 1.0
    k = 1
    while abs(term) > 1e-7:
        ag.experimental.set_loop_options(maximum_iterations=60)
        term = term * x / k
        total = total + term
        k += 1
    return total


def break_on_size(x):
    y = x
    for k in range(6):
        y = y * 1.5 - 0.25
        if abs(y) > 4.0:
            break
    return y


SCALAR = [
    (piecewise, [-2.5, -0.3, 0.7, 1.8]),
    (early_returns, [3.0, 0.5, -0.4, -2.5]),
    (unrolled_if, [0.2, 0.6, 1.3]),
    (newton_sqrt, [0.3, 2.0, 9.0]),
    (bounded_series, [-1.2, 0.5, 2.0]),
    (break_on_size, [0.3, 1.7, -2.2]),
]


# --- vector inputs ------------------------------------------------------------------------

def huber_over_rows(w, xs, ys):
    """A for over the rows of an array (a scan) with a data-dependent `if` in its body."""
    total = 0.0
    for i, x in enumerate(xs):
        err = (x * w).sum() - ys[i]
        if abs(err) < 1.0:
            total = total + 0.5 * err * err
        else:
            total = total + abs(err) - 0.5
    return total


def clamp_count(row):
    """A loop with continue and break, counting and summing a row's elements."""
    count = 0
    total = 0.0
    for v in row:
        if v < 0.0:
            continue
        if total > 3.0:
            break
        total = total + v
        count += 1
    return count, total


# --- what numerical code writes with lax by hand today, as plain Python ---------------------

def bisect_sqrt(a):
    """sqrt(a) for a >= 0 by bisection to a tolerance."""
    lo = a * 0.0
    hi = a + 1.0
    while hi - lo > 1e-6 * hi:
        mid = 0.5 * (lo + hi)
        if mid * mid > a:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def sin_series(x):
    """sin(x) by its Taylor series until a term no longer counts."""
    total = 0.0
    term = x
    k = 1
    while abs(term) > 1e-7 * abs(total) + 1e-12:
        total = total + term
        term = -term * x * x / ((2 * k) * (2 * k + 1))
        k += 1
    return total


def search_sorted(keys, target):
    """The first index whose key is not below target (binary search)."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def rejection_disc(key):
    """A point of the unit disc, sampled uniformly by rejection (`while True` + return)."""
    import jax
    while True:
        key, sub = jax.random.split(key)
        p = jax.random.uniform(sub, (2,), minval=-1.0, maxval=1.0)
        if p[0] * p[0] + p[1] * p[1] <= 1.0:
            return p


def halvings(state):
    """A registered dataclass as loop state: `state` has fields x and n."""
    while state.x > 1.0:
        state = type(state)(state.x / 2.0, state.n + 1)
    return state.n
