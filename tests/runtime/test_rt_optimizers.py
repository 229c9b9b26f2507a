"""rt.optimizers (SGD, momentum, Nesterov, Adam) against numpy references of Keras's
update formulas: a few training steps of a 2-layer Module eagerly and in rt.function
(tests/xla/test_xla_optimizers.py runs the same under jit_compile=True)."""
import logging

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

STEPS = 5


# -- the model, in rt and in numpy ---------------------------------------------------------

class Dense(rt.Module):
    def __init__(self, w, b, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = rt.Variable(w, name="w")
            self.b = rt.Variable(b, name="b")

    def __call__(self, x):
        return rt.matmul(x, self.w) + self.b


class MLP(rt.Module):
    def __init__(self, params):
        super().__init__()
        w1, b1, w2, b2 = params
        self.layers = [Dense(w1, b1), Dense(w2, b2)]

    def __call__(self, x):
        return self.layers[1](rt.tanh(self.layers[0](x)))


def initial(seed=0, dtype=np.float32):
    r = np.random.default_rng(seed)
    params = [r.normal(size=(3, 4)) * 0.5, r.normal(size=(4,)) * 0.1,
              r.normal(size=(4, 2)) * 0.5, r.normal(size=(2,)) * 0.1]
    x = r.normal(size=(8, 3))
    y = r.normal(size=(8, 2))
    return [p.astype(dtype) for p in params], x.astype(dtype), y.astype(dtype)


def np_loss_and_grads(params, x, y):
    """Loss mean((tanh(x w1 + b1) w2 + b2 - y)^2) and its gradients, by hand."""
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    d = 2.0 * (out - y) / out.size
    gw2, gb2 = h.T @ d, d.sum(0)
    dh = (d @ w2.T) * (1.0 - h * h)
    gw1, gb1 = x.T @ dh, dh.sum(0)
    return float(np.mean((out - y) ** 2)), [gw1, gb1, gw2, gb2]


def np_sgd(lr, momentum=0.0, nesterov=False):
    def step(params, grads, state, t):
        out = []
        for i, (p, g) in enumerate(zip(params, grads)):
            if momentum == 0:
                out.append(p - lr * g)
                continue
            a = state.get(i, np.zeros_like(p))
            a = a * momentum - lr * g
            state[i] = a
            out.append(p + (a * momentum - lr * g if nesterov else a))
        return out
    return step


def np_adam(lr, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False):
    def step(params, grads, state, t):  # t: the step, from 1
        lr_t = lr * np.sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)
        out = []
        for i, (p, g) in enumerate(zip(params, grads)):
            m, v, vhat = state.get(i, (np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)))
            m = m + (g - m) * (1 - beta_1)
            v = v + (g * g - v) * (1 - beta_2)
            vhat = np.maximum(vhat, v)
            state[i] = (m, v, vhat)
            out.append(p - (m * lr_t) / (np.sqrt(vhat if amsgrad else v) + epsilon))
        return out
    return step


def np_train(update, steps=STEPS, seed=0):
    params, x, y = initial(seed)
    params = [p.astype(np.float64) for p in params]
    x, y = x.astype(np.float64), y.astype(np.float64)
    state, losses = {}, []
    for t in range(1, steps + 1):
        loss, grads = np_loss_and_grads(params, x, y)
        losses.append(loss)
        params = update(params, grads, state, t)
    return losses, params


def rt_train(make_opt, mode, steps=STEPS, seed=0):
    """mode: "eager", "function" (numpy backend) or "xla" (jit_compile=True)."""
    params, x, y = initial(seed)
    model = MLP(params)
    opt = make_opt()

    def train_step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(model(x) - y))
        variables = model.trainable_variables
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        return loss

    step = train_step
    if mode != "eager":
        step = rt.function(train_step, jit_compile=True if mode == "xla" else None)
    xt, yt = rt.constant(x), rt.constant(y)
    losses = [float(step(xt, yt)) for _ in range(steps)]
    traces = None if mode == "eager" else step.experimental_get_tracing_count()
    final = [model.layers[0].w.numpy(), model.layers[0].b.numpy(),
             model.layers[1].w.numpy(), model.layers[1].b.numpy()]
    return losses, final, traces, opt


OPTIMIZERS = {
    "sgd": (lambda: rt.optimizers.SGD(0.1), np_sgd(0.1)),
    "momentum": (lambda: rt.optimizers.SGD(0.1, momentum=0.9), np_sgd(0.1, 0.9)),
    "nesterov": (lambda: rt.optimizers.SGD(0.05, momentum=0.8, nesterov=True),
                 np_sgd(0.05, 0.8, True)),
    "adam": (lambda: rt.optimizers.Adam(0.01), np_adam(0.01)),
    "adam_betas": (lambda: rt.optimizers.Adam(0.05, beta_1=0.5, beta_2=0.9, epsilon=1e-3),
                   np_adam(0.05, 0.5, 0.9, 1e-3)),
    "amsgrad": (lambda: rt.optimizers.Adam(0.02, amsgrad=True), np_adam(0.02, amsgrad=True)),
}


def check_against_numpy(name, mode):
    make, ref = OPTIMIZERS[name]
    losses, final, traces, opt = rt_train(make, mode)
    want_losses, want = np_train(ref)
    np.testing.assert_allclose(losses, want_losses, rtol=2e-5, atol=1e-6)
    for got, exp in zip(final, want):
        np.testing.assert_allclose(got, exp, rtol=2e-5, atol=2e-6)
    assert int(opt.iterations.numpy()) == STEPS
    if mode != "eager":
        assert traces == 1  # slots made in the first trace, reused: no retrace in 5 steps
    return losses


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("mode", ["eager", "function"])
def test_training_matches_numpy_reference(name, mode):
    losses = check_against_numpy(name, mode)
    assert losses[-1] < losses[0]


def test_eager_and_staged_agree_exactly():
    for name in ("momentum", "adam"):
        a = rt_train(OPTIMIZERS[name][0], "eager")
        b = rt_train(OPTIMIZERS[name][0], "function")
        np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
        for x, y in zip(a[1], b[1]):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)


# -- slots, iterations, learning rates -----------------------------------------------------

def test_slots_made_once_and_named():
    v = rt.Variable([1.0, 2.0], name="v")
    opt = rt.optimizers.Adam(0.1)
    for _ in range(3):
        opt.apply_gradients([(rt.constant([0.5, -0.5]), v)])
    m, s = opt.get_slot(v, "m"), opt.get_slot(v, "v")
    assert opt.get_slot_names() == ["m", "v"]
    assert not m.trainable and m.shape == v.shape and m.dtype == v.dtype
    assert opt.variables == [opt.iterations, m, s]
    assert int(opt.iterations.numpy()) == 3
    with pytest.raises(KeyError):
        opt.get_slot(v, "momentum")
    plain = rt.optimizers.SGD(0.1)
    plain.apply_gradients([(rt.constant([1.0, 1.0]), v)])
    assert plain.get_slot_names() == [] and plain.variables == [plain.iterations]


def test_slots_created_in_first_trace_then_reused():
    v = rt.Variable(np.ones(3, np.float32))
    opt = rt.optimizers.SGD(0.1, momentum=0.5)

    @rt.function
    def step(g):
        opt.apply_gradients([(g, v)])
        return opt.get_slot(v, "momentum").read_value()

    for _ in range(5):
        step(rt.constant([1.0, 2.0, 3.0]))
    assert step.experimental_get_tracing_count() == 1
    assert len(opt.variables) == 2
    a = np.zeros(3)
    w = np.ones(3)
    for _ in range(5):
        a = a * 0.5 - 0.1 * np.array([1.0, 2.0, 3.0])
        w = w + a
    np.testing.assert_allclose(v.numpy(), w, rtol=1e-6)
    np.testing.assert_allclose(opt.get_slot(v, "momentum").numpy(), a, rtol=1e-6)


def test_optimizer_created_inside_function_is_refused():
    v = rt.Variable(1.0)

    @rt.function
    def step():
        rt.optimizers.SGD(0.1).apply_gradients([(rt.constant(1.0), v)])

    with pytest.raises(ValueError, match="singleton"):
        step()


def test_build_makes_slots_before_the_first_step():
    v = rt.Variable([1.0])
    opt = rt.optimizers.Adam()
    opt.build([v])
    assert opt.get_slot_names() == ["m", "v"]
    assert opt.learning_rate.numpy() == np.float32(0.001)
    assert (opt.beta_1, opt.beta_2, opt.epsilon) == (0.9, 0.999, 1e-7)


def test_learning_rate_schedule_of_the_step():
    v = rt.Variable(0.0)
    opt = rt.optimizers.SGD(lambda step: 0.1 / (1.0 + step))

    @rt.function
    def step():
        opt.apply_gradients([(rt.constant(1.0), v)])

    for _ in range(4):
        step()
    want = -sum(np.float32(0.1) / (1.0 + t) for t in range(4))
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)
    assert step.experimental_get_tracing_count() == 1


def test_learning_rate_callable_without_arguments_and_setter():
    v = rt.Variable(0.0)
    opt = rt.optimizers.SGD(lambda: 0.5)
    opt.apply_gradients([(rt.constant(1.0), v)])
    assert v.numpy() == -0.5
    with pytest.raises(TypeError):
        opt.learning_rate = 0.1

    w = rt.Variable(0.0)
    opt = rt.optimizers.SGD(0.5)

    @rt.function
    def step():
        opt.apply_gradients([(rt.constant(1.0), w)])

    step()
    opt.learning_rate = 0.25  # a traced step sees the new rate (it reads a Variable)
    step()
    assert w.numpy() == -0.75


def test_none_gradients_skipped_with_warning_all_none_refused(caplog):
    a, b = rt.Variable(1.0, name="a"), rt.Variable(1.0, name="b")
    opt = rt.optimizers.SGD(0.5)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        opt.apply_gradients([(None, a), (rt.constant(1.0), b)])
    assert "b:0" not in caplog.text and "a:0" in caplog.text
    assert a.numpy() == 1.0 and b.numpy() == 0.5
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, a), (None, b)])


def test_unconnected_variable_gets_none_gradient_and_is_left_alone(caplog):
    used, unused = rt.Variable(2.0), rt.Variable(3.0)
    opt = rt.optimizers.Adam(0.1)
    with rt.GradientTape() as tape:
        loss = used * used
    grads = tape.gradient(loss, [used, unused])
    with caplog.at_level(logging.WARNING, logger="runtime"):
        opt.apply_gradients(zip(grads, [used, unused]))
    assert unused.numpy() == 3.0 and used.numpy() != 2.0


def test_minimize():
    w = rt.Variable([3.0, -2.0])
    opt = rt.optimizers.SGD(0.25)
    opt.minimize(lambda: rt.reduce_sum(w * w), [w])
    np.testing.assert_allclose(w.numpy(), [1.5, -1.0])
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(w * w)
    opt.minimize(loss, [w], tape=tape)
    np.testing.assert_allclose(w.numpy(), [0.75, -0.5])
    with pytest.raises(ValueError, match="tape"):
        opt.minimize(rt.constant(1.0), [w])


def test_bad_input():
    v = rt.Variable([1.0, 2.0])
    opt = rt.optimizers.SGD(0.1)
    with pytest.raises(InvalidArgumentError, match="shape"):
        opt.apply_gradients([(rt.constant([1.0, 2.0, 3.0]), v)])
    with pytest.raises(TypeError, match="float64"):
        opt.apply_gradients([(rt.constant([1.0, 2.0], dtype=rt.float64), v)])
    with pytest.raises(TypeError, match="rt.Variable"):
        opt.apply_gradients([(rt.constant(1.0), rt.constant(1.0))])
    with pytest.raises(TypeError, match="pairs"):
        opt.apply_gradients([rt.constant(1.0)])
    with pytest.raises(ValueError, match="momentum"):
        rt.optimizers.SGD(momentum=1.5)
    with pytest.raises(TypeError, match="learning_rate"):
        rt.optimizers.Adam(learning_rate="fast")


def test_float64_variables_update_in_float64():
    v = rt.Variable(np.array([1.0, 2.0]))  # float64
    opt = rt.optimizers.Adam(0.1)
    opt.apply_gradients([(rt.constant([0.3, -0.7], dtype=rt.float64), v)])
    assert v.dtype == rt.float64 and opt.get_slot(v, "m").dtype == rt.float64
    want = np.array([1.0, 2.0]) - 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9) * (
        np.array([0.03, -0.07]) / (np.sqrt(0.001 * np.array([0.09, 0.49])) + 1e-7))
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)


def test_assign_sub_and_add_on_module_variables_in_and_out_of_function():
    params, _, _ = initial()
    d = Dense(params[0], params[1])
    d.w.assign_sub(np.ones((3, 4), np.float32))
    d.b.assign_add(np.ones(4, np.float32))

    @rt.function
    def both():
        d.w.assign_add(np.ones((3, 4), np.float32) * 2)
        d.b.assign_sub(np.ones(4, np.float32) * 2)

    both()
    np.testing.assert_allclose(d.w.numpy(), params[0] + 1, rtol=1e-6)
    np.testing.assert_allclose(d.b.numpy(), params[1] - 1, rtol=1e-6)
