"""`rt.function(jit_compile=True)` called as users call it, side by side with JAX by hand.

    python tools/bench/bench_jit.py [--quick] [name]

For each program: the function in plain Python, wrapped in `rt.function(jit_compile=True)`
and called on numpy arrays (its result an rt.Tensor holding numpy arrays); the same
computation written by hand with `lax` and `jax.jit`, called on the same arrays, its
results turned into numpy arrays; and the same `rt.function` on the numpy backend. Each
call's overhead is included (finding the trace, the arguments in, the results out): the
XLA executables are alike, so `ours/hand` is what `rt.function` adds (the goal: <= 1.1).
The MLP train step updates Variables and returns the loss, against `jax.jit` of
`jax.value_and_grad` with the parameters as a pytree in and out; its losses and parameters
after a few steps are checked against the numpy backend's. Times are medians of rounds
that alternate ours, by hand and numpy; a ratio is the median of the per-round ratios
(steadier on a loaded machine). Compile is the first call (trace, lowering and XLA's
compilation; the numpy backend's trace). Large rows show the memory-bandwidth floor
beside them: a numpy copy of the input (the same bytes read and written).
"""
from __future__ import annotations

import functools
import statistics
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

import runtime as rt  # noqa: E402
from examples.programs import fizzbuzz_counts, tanh_loop  # noqa: E402


# -- the programs, in plain Python over tensors -----------------------------------------

def collatz(x):
    steps = 0
    while x != 1:
        x = rt.where(x % 2 == 0, x // 2, 3 * x + 1)
        steps += 1
    return steps


def count_up(n):
    i = 0
    while i < n:
        i += 1
    return i


def affine(x):
    return x * 2 + 1


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def make_train_step(variables, jit_compile):
    """One step of training a 64-64-8 MLP (tanh hidden layer, softmax cross-entropy) by
    gradient descent on `variables` (w1, b1, w2, b2): forward, GradientTape, gradients
    and assign_sub, all in one rt.function."""
    w1, b1, w2, b2 = variables

    def train_step(x, labels):
        with rt.GradientTape() as tape:
            h = rt.tanh(rt.matmul(x, w1) + b1)
            logits = rt.matmul(h, w2) + b2
            z = logits - rt.stop_gradient(rt.reduce_max(logits, axis=1, keepdims=True))
            log_p = z - rt.log(rt.reduce_sum(rt.exp(z), axis=1, keepdims=True))
            loss = -rt.reduce_mean(rt.reduce_sum(labels * log_p, axis=1))
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(LEARNING_RATE * g)
        return loss
    return rt.function(train_step, jit_compile=jit_compile)


LEARNING_RATE = 0.1


def dynamic_rnn(input_data, initial_state):
    input_data = rt.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = rt.TensorArray(rt.float32, size=max_seq_len)
    state = initial_state
    for i in rt.range(max_seq_len):
        state = rt.tanh(input_data[i] + state)
        states = states.write(i, state)
    return rt.transpose(states.stack(), [1, 0, 2])


# -- the same, by hand in JAX ------------------------------------------------------------

@jax.jit
def fizzbuzz_count_jax(n):
    def body(i, c):
        fizz, buzz, fb, other = c
        m15, m3, m5 = i % 15 == 0, i % 3 == 0, i % 5 == 0
        return (fizz + (~m15 & m3), buzz + (~m15 & ~m3 & m5), fb + m15,
                other + (~m15 & ~m3 & ~m5))
    zero = jnp.int32(0)
    return lax.fori_loop(1, n + 1, body, (zero, zero, zero, zero))


@jax.jit
def tanh_loop_jax(x):
    return lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x)


@jax.jit
def collatz_jax(x):
    def body(c):
        x, n = c
        return jnp.where(x % 2 == 0, x // 2, 3 * x + 1), n + 1
    return lax.while_loop(lambda c: c[0] != 1, body, (x, jnp.int32(0)))[1]


@jax.jit
def count_up_jax(n):
    return lax.while_loop(lambda i: i < n, lambda i: i + 1, jnp.int32(0))


@jax.jit
def affine_jax(x):
    return x * 2 + 1


@jax.jit
def power_jax(x):
    return lax.fori_loop(0, 100, lambda i, r: x @ r, jnp.eye(10, dtype=jnp.int32))


@jax.jit
def dynamic_rnn_jax(data, state):
    def step(state, inp):
        state = jnp.tanh(inp + state)
        return state, state
    _, states = lax.scan(step, state, jnp.transpose(data, (1, 0, 2)))
    return jnp.transpose(states, (1, 0, 2))


def mlp_loss_jax(params, x, labels):
    # float32 products in float32, as ours (and numpy) compute them: a GPU would
    # otherwise use TF32 and the losses would not agree
    w1, b1, w2, b2 = params
    dot = functools.partial(jnp.matmul, precision=lax.Precision.HIGHEST)
    h = jnp.tanh(dot(x, w1) + b1)
    log_p = jax.nn.log_softmax(dot(h, w2) + b2, axis=1)
    return -jnp.mean(jnp.sum(labels * log_p, axis=1))


@jax.jit
def train_step_jax(params, x, labels):
    loss, grads = jax.value_and_grad(mlp_loss_jax)(params, x, labels)
    return [p - LEARNING_RATE * g for p, g in zip(params, grads)], loss


# -- timing --------------------------------------------------------------------------------

def per_call(fns, budget=0.3, repeat=21) -> list:
    """Per-round seconds per call of each of `fns`, timed side by side: their rounds
    alternate, so the load of a shared machine, which drifts between rounds, weighs on
    each alike (a ratio is the median of the per-round ratios, as in tools/bench/run.py)."""
    numbers = []
    for fn in fns:
        number = 1
        while True:
            t = timeit.timeit(fn, number=number)
            if t > budget / repeat / len(fns) or number >= 1 << 16:
                break
            number *= 4
        numbers.append(number)
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, number, ts in zip(fns, numbers, times):
            ts.append(timeit.timeit(fn, number=number) / number)
    return times


def ratio(a, b) -> float:
    return statistics.median(x / y for x, y in zip(a, b))


def timed_first(fn):
    t0 = timeit.default_timer()
    out = fn()
    return timeit.default_timer() - t0, out


def to_numpy(out):
    if isinstance(out, (tuple, list)):
        return tuple(np.asarray(o) for o in out)
    return (np.asarray(out),)


def report(name, ours, hand, numpy, c_ours, c_hand, c_np, floor=None):
    """One row: per-round times of ours, by hand and numpy; compile times; the memory
    floor (a numpy copy of the input) where given."""
    t_ours, t_hand, t_np = (statistics.median(t) for t in (ours, hand, numpy))
    r = ratio(ours, hand)
    print(f"{name:<34}{t_ours * 1e6:10.1f}{t_hand * 1e6:10.1f}{t_np * 1e6:10.1f}"
          f"{r:10.2f}x{ratio(numpy, ours):9.1f}x"
          f"{c_ours * 1e3:10.1f}{c_hand * 1e3:9.1f}{c_np * 1e3:8.1f}"
          + (f"   floor {statistics.median(floor) * 1e6:.1f} us (numpy copy)" if floor else ""))
    return r


def row(name, fn, args, hand, budget, repeat, extra=()):
    """`rt.function(fn, jit_compile=True)(*args, *extra)` against `hand(*args)` and the
    numpy backend's `rt.function(fn)(*args, *extra)` (`extra`: Python arguments)."""
    ours_fn, numpy_fn = rt.function(fn, jit_compile=True), rt.function(fn)
    t_ours_compile, ours = timed_first(lambda: ours_fn(*args, *extra))
    t_hand_compile, by_hand = timed_first(lambda: to_numpy(hand(*args)))
    t_np_compile, expected = timed_first(lambda: numpy_fn(*args, *extra))
    for a, b, c in zip(to_numpy(ours), by_hand, to_numpy(expected)):
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, c, rtol=1e-5, atol=1e-6)
    fns = [lambda: ours_fn(*args, *extra), lambda: to_numpy(hand(*args)),
           lambda: numpy_fn(*args, *extra)]
    large = sum(np.size(a) for a in args) >= 1 << 20
    if large:   # the floor: the same bytes read and written by a numpy copy
        out = np.empty_like(args[0])
        fns.append(lambda: np.copyto(out, args[0]))
    times = per_call(fns, budget, repeat)
    return report(name, *times[:3], t_ours_compile, t_hand_compile, t_np_compile,
                  times[3] if large else None)


def mlp_params(seed=1):
    rng = np.random.default_rng(seed)
    return [rng.normal(scale=0.3, size=s).astype(np.float32)
            for s in [(64, 64), (64,), (64, 8), (8,)]]


def train_row(name, budget, repeat, steps=5):
    """The MLP train step: the rt.function called as users call it (numpy arrays in, the
    loss out, the Variables updated), against `jax.jit` of `value_and_grad` with the
    parameters as a pytree in and out, the loss turned into a numpy array. After `steps`
    steps from the same parameters, the losses and parameters of the three agree."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 64)).astype(np.float32)
    labels = np.eye(8, dtype=np.float32)[rng.integers(0, 8, size=32)]
    ours_vars = [rt.Variable(p) for p in mlp_params()]
    np_vars = [rt.Variable(p) for p in mlp_params()]
    ours, numpy_step = make_train_step(ours_vars, True), make_train_step(np_vars, False)
    params = [jnp.asarray(p) for p in mlp_params()]

    def hand():
        nonlocal params
        params, loss = train_step_jax(params, x, labels)
        return np.asarray(loss)

    c_ours, loss = timed_first(lambda: ours(x, labels).numpy())
    c_hand, loss_hand = timed_first(hand)
    c_np, loss_np = timed_first(lambda: numpy_step(x, labels).numpy())
    losses = [(loss, loss_hand, loss_np)]
    for _ in range(steps - 1):
        losses.append((ours(x, labels).numpy(), hand(), numpy_step(x, labels).numpy()))
    np.testing.assert_allclose(np.array(losses)[:, 0], np.array(losses)[:, 2], rtol=1e-5)
    np.testing.assert_allclose(np.array(losses)[:, 1], np.array(losses)[:, 2], rtol=1e-5)
    for v, p, w in zip(ours_vars, params, np_vars):
        np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(p), w.numpy(), rtol=1e-5, atol=1e-6)
    t_ours, t_hand, t_np = per_call([lambda: ours(x, labels), hand,
                                     lambda: numpy_step(x, labels)], budget, repeat)
    return report(name, t_ours, t_hand, t_np, c_ours, c_hand, c_np)


def rows(rng):
    """(name, program, numpy arguments, by hand, Python arguments of ours) per row."""
    x10 = (rng.integers(-1, 2, size=(10, 10))).astype(np.int32)
    data = rng.normal(size=(8, 50, 16)).astype(np.float32)
    state = np.zeros((8, 16), np.float32)
    scalar = functools.partial(np.array, dtype=np.int32)    # (0-d arrays: tensors)
    return [
        ("fizzbuzz count n=1000", fizzbuzz_counts, [scalar(1000)], fizzbuzz_count_jax, ()),
        ("tanh loop, 10 floats", tanh_loop, [np.ones(10, np.float32)], tanh_loop_jax, ()),
        ("collatz steps of 77031", collatz, [scalar(77031)], collatz_jax, ()),
        ("staged while, 10 iterations", count_up, [scalar(10)], count_up_jax, ()),
        ("x*2+1, 10 float32", affine, [rng.normal(size=10).astype(np.float32)], affine_jax, ()),
        ("x*2+1, 10^7 float32", affine, [rng.normal(size=10 ** 7).astype(np.float32)],
         affine_jax, ()),
        ("power(x, 100) 10x10 int32", power, [x10], power_jax, (100,)),
        ("dynamic_rnn 8x50x16", dynamic_rnn, [data, state], dynamic_rnn_jax, ()),
    ]


def main(argv=None):
    argv = argv if argv is not None else sys.argv[1:]
    quick = "--quick" in argv
    only = next((a for a in argv if not a.startswith("--")), None)
    budget, repeat = (0.05, 5) if quick else (0.7, 21)
    print(f"{'per call, us':<34}{'ours':>10}{'by hand':>10}{'numpy':>10}{'ours/hand':>11}"
          f"{'np/ours':>10}{'compile ms: ours':>17}{'hand':>6}{'numpy':>8}")
    ratios = [row(name, fn, args, hand, budget, repeat, extra)
              for name, fn, args, hand, extra in rows(np.random.default_rng(0))
              if not only or only in name]
    train = "MLP train step 64-64-8, batch 32"
    if not only or only in train:
        ratios.append(train_row(train, budget, repeat))
    print(f"worst ours/hand: {max(ratios):.2f}x")
    return ratios


if __name__ == "__main__":
    main()
