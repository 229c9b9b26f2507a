"""rt.optimizers.schedules, RMSprop, Adagrad, AdamW and the clipping functions against
numpy references of Keras's and TensorFlow's formulas: several steps eagerly, inside
rt.function and under jit_compile=True."""
import math

import importlib.util

import numpy as np
import pytest

import runtime as rt

# (jit_compile needs JAX: the other Pythons' CI venvs install no jax extra)
NEEDS_JAX = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                               reason="jit_compile needs JAX (the jax extra)")

S = rt.optimizers.schedules
MODES = ["eager", "function", pytest.param("jit", marks=NEEDS_JAX)]


# -- schedules ----------------------------------------------------------------------------

def np_exponential(step, lr, decay_steps, rate, staircase=False):
    p = step / decay_steps
    return lr * rate ** (np.floor(p) if staircase else p)


def np_piecewise(step, boundaries, values):
    for b, v in zip(boundaries, values):
        if step <= b:
            return v
    return values[-1]


def np_cosine(step, lr, decay_steps, alpha=0.0, warmup_target=None, warmup_steps=0):
    def decay(s, frm):
        return frm * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * s / decay_steps)) + alpha)
    if warmup_target is None:
        return decay(min(step, decay_steps), lr)
    s = min(step, decay_steps + warmup_steps)
    if s < warmup_steps:
        return lr + (warmup_target - lr) * s / warmup_steps
    return decay(s - warmup_steps, warmup_target)


def np_polynomial(step, lr, decay_steps, end=0.0001, power=1.0, cycle=False):
    if cycle:
        decay_steps = decay_steps * (1.0 if step == 0 else math.ceil(step / decay_steps))
    else:
        step = min(step, decay_steps)
    return (lr - end) * (1 - step / decay_steps) ** power + end


def np_inverse_time(step, lr, decay_steps, rate, staircase=False):
    p = step / decay_steps
    return lr / (1 + rate * (np.floor(p) if staircase else p))


SCHEDULES = [
    (S.ExponentialDecay(0.1, 7, 0.5), lambda t: np_exponential(t, 0.1, 7, 0.5)),
    (S.ExponentialDecay(0.1, 7, 0.5, staircase=True),
     lambda t: np_exponential(t, 0.1, 7, 0.5, True)),
    (S.PiecewiseConstantDecay([5, 12], [1.0, 0.5, 0.1]),
     lambda t: np_piecewise(t, [5, 12], [1.0, 0.5, 0.1])),
    (S.CosineDecay(0.2, 15), lambda t: np_cosine(t, 0.2, 15)),
    (S.CosineDecay(0.2, 15, alpha=0.1), lambda t: np_cosine(t, 0.2, 15, 0.1)),
    (S.CosineDecay(0.0, 10, warmup_target=0.3, warmup_steps=5),
     lambda t: np_cosine(t, 0.0, 10, 0.0, 0.3, 5)),
    (S.CosineDecay(0.1, 10, warmup_target=0.3, warmup_steps=0),
     lambda t: np_cosine(t, 0.1, 10, 0.0, 0.3, 0)),
    (S.PolynomialDecay(0.5, 10, 0.01, power=2.0), lambda t: np_polynomial(t, 0.5, 10, 0.01, 2.0)),
    (S.PolynomialDecay(0.5, 4, 0.01, cycle=True),
     lambda t: np_polynomial(t, 0.5, 4, 0.01, 1.0, True)),
    (S.InverseTimeDecay(0.5, 3, 0.7), lambda t: np_inverse_time(t, 0.5, 3, 0.7)),
    (S.InverseTimeDecay(0.5, 3, 0.7, staircase=True),
     lambda t: np_inverse_time(t, 0.5, 3, 0.7, True)),
]
STEPS = list(range(0, 25))


@pytest.mark.parametrize("k", range(len(SCHEDULES)))
def test_schedule_matches_its_formula_on_ints_tensors_and_variables(k):
    schedule, ref = SCHEDULES[k]
    want = np.array([ref(t) for t in STEPS], np.float32)
    got_int = np.array([float(schedule(t)) for t in STEPS], np.float32)
    got_tensor = np.array([float(schedule(rt.constant(t, rt.int64))) for t in STEPS], np.float32)
    v = rt.Variable(np.int64(0), trainable=False)
    got_var = []
    for t in STEPS:
        v.assign(t)
        got_var.append(float(schedule(v)))
    for got in (got_int, got_tensor, np.array(got_var, np.float32)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    assert schedule(3).dtype is rt.float32


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=NEEDS_JAX)])
@pytest.mark.parametrize("k", range(len(SCHEDULES)))
def test_schedule_inside_rt_function(k, jit):
    schedule, ref = SCHEDULES[k]
    f = rt.function(lambda t: schedule(t), jit_compile=jit)
    for t in (0, 4, 11, 30):
        np.testing.assert_allclose(float(f(rt.constant(t))), ref(t), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("k", range(len(SCHEDULES)))
def test_schedule_config_round_trips(k):
    schedule, _ = SCHEDULES[k]
    again = type(schedule).from_config(schedule.get_config())
    assert again.get_config() == schedule.get_config()
    assert float(again(6)) == float(schedule(6))
    back = S.deserialize(S.serialize(schedule))
    assert type(back) is type(schedule) and back.get_config() == schedule.get_config()


def test_schedule_argument_errors():
    with pytest.raises(ValueError):
        S.PiecewiseConstantDecay([1, 2], [1.0])
    with pytest.raises(ValueError):
        S.ExponentialDecay(0.1, 0, 0.5)
    with pytest.raises(ValueError):
        S.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(NotImplementedError):
        S.LearningRateSchedule()(1)


# -- optimizers ---------------------------------------------------------------------------

def np_rmsprop(lr, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False):
    def step(p, g, st, t):
        rms = rho * st.get("rms", 0.0) + (1 - rho) * g * g
        st["rms"] = rms
        if centered:
            mg = rho * st.get("mg", 0.0) + (1 - rho) * g
            st["mg"] = mg
            denom = rms - mg * mg + epsilon
        else:
            denom = rms + epsilon
        inc = lr(t) * g / np.sqrt(denom)
        if momentum > 0:
            st["mom"] = momentum * st.get("mom", 0.0) + inc
            return p - st["mom"]
        return p - inc
    return step


def np_adagrad(lr, initial=0.1, epsilon=1e-7):
    def step(p, g, st, t):
        st["acc"] = st.get("acc", initial) + g * g
        return p - lr(t) * g / np.sqrt(st["acc"] + epsilon)
    return step


def np_adamw(lr, wd=0.004, b1=0.9, b2=0.999, epsilon=1e-7, amsgrad=False):
    def step(p, g, st, t):
        a = lr(t)
        p = p - p * wd * a
        m = st.get("m", 0.0) + (g - st.get("m", 0.0)) * (1 - b1)
        v = st.get("v", 0.0) + (g * g - st.get("v", 0.0)) * (1 - b2)
        st["m"], st["v"] = m, v
        if amsgrad:
            v = st["vhat"] = np.maximum(st.get("vhat", 0.0), v)
        alpha = a * np.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
        return p - alpha * m / (np.sqrt(v) + epsilon)
    return step


def const(x):
    return lambda t: x


SCHED = S.ExponentialDecay(0.05, 2, 0.5)


def sched_ref(t):
    return np_exponential(t, 0.05, 2, 0.5)


OPTIMIZERS = {
    "rmsprop": (lambda: rt.optimizers.RMSprop(0.01), np_rmsprop(const(0.01)), ["rms"]),
    "rmsprop_mom_centered": (
        lambda: rt.optimizers.RMSprop(0.01, rho=0.8, momentum=0.5, centered=True),
        np_rmsprop(const(0.01), 0.8, 0.5, centered=True), ["rms", "momentum", "mg"]),
    "rmsprop_schedule": (lambda: rt.optimizers.RMSprop(SCHED), np_rmsprop(sched_ref), ["rms"]),
    "adagrad": (lambda: rt.optimizers.Adagrad(0.1), np_adagrad(const(0.1)), ["accumulator"]),
    "adagrad_init": (lambda: rt.optimizers.Adagrad(SCHED, initial_accumulator_value=0.5),
                     np_adagrad(sched_ref, 0.5), ["accumulator"]),
    "adamw": (lambda: rt.optimizers.AdamW(0.02, weight_decay=0.1),
              np_adamw(const(0.02), 0.1), ["m", "v"]),
    "adamw_amsgrad_schedule": (lambda: rt.optimizers.AdamW(SCHED, amsgrad=True),
                               np_adamw(sched_ref, amsgrad=True), ["m", "v", "vhat"]),
}
N_STEPS = 6


def _grads(seed=0):
    r = np.random.default_rng(seed)
    p0 = [r.normal(size=(3, 2)).astype(np.float32), r.normal(size=(2,)).astype(np.float32)]
    gs = [[r.normal(size=p.shape).astype(np.float32) for p in p0] for _ in range(N_STEPS)]
    return p0, gs


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
def test_optimizer_matches_keras_formula(key, mode):
    make, ref, slot_names = OPTIMIZERS[key]
    p0, gs = _grads()
    opt = make()
    vs = [rt.Variable(p) for p in p0]

    def step(g0, g1):
        return opt.apply_gradients(zip([g0, g1], vs))
    if mode != "eager":
        step = rt.function(step, jit_compile=(mode == "jit"))
    want = [p.astype(np.float64) for p in p0]
    states = [{} for _ in p0]
    for t, g in enumerate(gs):
        step(rt.constant(g[0]), rt.constant(g[1]))
        want = [ref(p, gi.astype(np.float64), st, t) for p, gi, st in zip(want, g, states)]
        for v, w in zip(vs, want):
            np.testing.assert_allclose(v.numpy(), w, rtol=2e-5, atol=1e-6)
    assert int(opt.iterations.numpy()) == N_STEPS
    assert opt.get_slot_names() == slot_names
    assert len(opt.variables) == 1 + len(slot_names) * len(vs)
    for v in vs:
        for n in slot_names:
            assert opt.get_slot(v, n).shape == v.shape


def test_slots_are_made_once_and_a_step_traces_once():
    opt = rt.optimizers.Adagrad(0.1)
    v = rt.Variable([1.0, 2.0])
    traces = []

    @rt.function
    def step(g):
        traces.append(1)
        opt.apply_gradients([(g, v)])
    for _ in range(3):
        step(rt.constant([1.0, 1.0]))
    assert len(traces) == 1
    np.testing.assert_allclose(opt.get_slot(v, "accumulator").numpy(), [3.1, 3.1], rtol=1e-6)


def test_adamw_exclusion_and_argument_errors():
    a, b = rt.Variable(1.0, name="kernel"), rt.Variable(1.0, name="bias")
    opt = rt.optimizers.AdamW(0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    opt.apply_gradients([(rt.constant(0.0), a), (rt.constant(0.0), b)])
    assert float(a.numpy()) == pytest.approx(0.95) and float(b.numpy()) == 1.0
    with pytest.raises(ValueError):
        rt.optimizers.RMSprop(momentum=2.0)
    with pytest.raises(ValueError):
        rt.optimizers.Adagrad(initial_accumulator_value=-1.0)
    with pytest.raises(TypeError):
        rt.optimizers.AdamW(weight_decay="big")


def test_minimize_with_an_optimizer_and_schedule():
    v = rt.Variable(3.0)
    opt = rt.optimizers.RMSprop(S.CosineDecay(0.1, 20))
    for _ in range(20):
        opt.minimize(lambda: v * v, [v])
    assert abs(float(v.numpy())) < 3.0


# -- clipping -----------------------------------------------------------------------------

def np_clip_by_norm(t, c, axes=None):
    n = np.sqrt(np.sum(t * t, axis=axes, keepdims=True))
    return t * c / np.maximum(n, c)


def np_clip_by_global_norm(ts, c):
    n = np.sqrt(sum(np.sum(t.astype(np.float64) ** 2) for t in ts if t is not None))
    scale = c * min(1.0 / n, 1.0 / c) if np.isfinite(n) else np.nan
    return [None if t is None else t * scale for t in ts], n


CLIP_CASES = [np.array([3.0, 4.0], np.float32), np.array([[1.0, -2.0], [0.1, 0.2]], np.float32),
              np.zeros((2, 3), np.float32), np.zeros((0, 3), np.float32),
              np.array([1.0, np.nan], np.float32), np.array([np.inf, 1.0], np.float32)]


def _run(fn, mode, *args):
    if mode == "eager":
        return fn(*args)
    return rt.function(fn, jit_compile=(mode == "jit"))(*args)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axes", [None, 0, -1])
@pytest.mark.parametrize("k", range(len(CLIP_CASES)))
def test_clip_by_norm(k, axes, mode):
    t = CLIP_CASES[k]
    with np.errstate(all="ignore"):
        want = np_clip_by_norm(t, 1.5, axes)
    got = _run(lambda x: rt.clip_by_norm(x, 1.5, axes=axes), mode, rt.constant(t))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    assert got.shape == t.shape


@pytest.mark.parametrize("mode", MODES)
def test_clip_by_global_norm(mode):
    r = np.random.default_rng(1)
    for ts, c in [([r.normal(size=(3,)).astype(np.float32), r.normal(size=(2, 2))
                    .astype(np.float32)], 0.5),
                  ([r.normal(size=(3,)).astype(np.float32), np.zeros((0,), np.float32)], 100.0),
                  ([np.array([np.inf], np.float32), np.ones(2, np.float32)], 1.0),
                  ([np.array([np.nan], np.float32), np.ones(2, np.float32)], 1.0)]:
        with np.errstate(all="ignore"):
            want, want_norm = np_clip_by_global_norm(ts, c)

        def fn(a, b):
            out, n = rt.clip_by_global_norm([a, None, b], c)
            assert out[1] is None
            return out[0], out[2], n
        a, b, n = _run(fn, mode, *[rt.constant(t) for t in ts])
        np.testing.assert_allclose(n.numpy(), want_norm, rtol=1e-6)
        np.testing.assert_allclose(a.numpy(), want[0], rtol=1e-6)
        np.testing.assert_allclose(b.numpy(), want[1], rtol=1e-6)


def test_clip_by_global_norm_use_norm_and_gradient():
    x = rt.constant([3.0, 4.0])
    out, n = rt.clip_by_global_norm([x], 1.0, use_norm=rt.constant(10.0))
    np.testing.assert_allclose(out[0].numpy(), [0.3, 0.4], rtol=1e-6)
    assert float(n) == 10.0
    with pytest.raises(TypeError):
        rt.clip_by_global_norm(x, 1.0)
    # the gradient of the clipped norm is finite at zero and matches autodiff of the formula
    z = rt.constant([0.0, 0.0])
    with rt.GradientTape() as tape:
        tape.watch(z)
        y = rt.reduce_sum(rt.clip_by_norm(z, 1.0))
    assert np.all(np.isfinite(tape.gradient(y, z).numpy()))
    v = np.array([3.0, 4.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.clip_by_norm(x, 1.0) * rt.constant([1.0, 2.0]))
    eps = 1e-6
    num = [(np.sum(np_clip_by_norm(v + eps * e, 1.0) * [1, 2])
            - np.sum(np_clip_by_norm(v - eps * e, 1.0) * [1, 2])) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), num, rtol=1e-4)
