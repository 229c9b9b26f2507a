"""Data parallelism (`rt.function(jit_compile=True, data_parallel=...)`, runtime/distribute.py):
the batch arguments split on axis 0 over the devices, the rest and the Variables
replicated, and the results those of one device and of the numpy backend.

JAX sees one CPU device unless XLA_FLAGS=--xla_force_host_platform_device_count=8 is set
before it is first imported, so the tests on 8 devices (`test_worker_*`) run in a child
pytest that `test_eight_devices_agree_with_one` starts with that flag; in this process
they are skipped. Float results agree to rounding (a sum over the batch is added up per
device, then across them): rtol 1e-5 for float32.
"""
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.backends.xla import backend as jax_backend  # noqa: E402
from runtime.errors import InvalidArgumentError, InvalidGraphError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WORKER = os.environ.get("RT_DISTRIBUTE_WORKER") == "1"
DEVICES = 8
worker = pytest.mark.skipif(not WORKER, reason="runs on 8 devices, in the child pytest of "
                                               "test_eight_devices_agree_with_one")
RTOL = 1e-5


def one_device():
    return rt.distribute.DataParallel(devices=rt.distribute.devices()[:1])


def data(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


# -- in this process (one device) ---------------------------------------------------------
def test_devices_are_jaxs():
    assert rt.distribute.devices() == jax.devices()


def test_data_parallel_needs_jit_compile():
    with pytest.raises(ValueError, match="jit_compile=True"):
        rt.function(lambda x: x, data_parallel=True)
    with pytest.raises(TypeError, match="data_parallel is True, False or"):
        rt.function(lambda x: x, jit_compile=True, data_parallel="batch")
    with pytest.raises(TypeError, match="parameter names or positions"):
        rt.distribute.DataParallel(batch_args=[1.5])
    with pytest.raises(ValueError, match="distinct JAX devices"):
        rt.distribute.DataParallel(devices=[])
    assert rt.function(lambda x: x + 1, jit_compile=True, data_parallel=False)(
        rt.constant([1.0])).numpy().tolist() == [2.0]


def test_unknown_batch_argument_is_named():
    f = rt.function(lambda x, w: x @ w, jit_compile=True,
                    data_parallel=rt.distribute.DataParallel(batch_args=("z",)))
    with pytest.raises(ValueError, match="no parameter named 'z'; its parameters: x, w"):
        f(rt.constant(data(4, 2)), rt.constant(data(2, 3)))
    g = rt.function(lambda x, w: x @ w, jit_compile=True,
                    data_parallel=rt.distribute.DataParallel(batch_args=(2,)))
    with pytest.raises(ValueError, match="no positional parameter 2"):
        g(rt.constant(data(4, 2)), rt.constant(data(2, 3)))


def _env():
    """The environment with the repository first on the path (and what was there)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def test_on_one_device_as_plain_jit():
    def f(x, w):
        return rt.tanh(x @ w), rt.reduce_sum(x)

    x, w = rt.constant(data(8, 3)), rt.constant(data(3, 2, seed=1))
    a = rt.function(f, jit_compile=True, data_parallel=True)(x, w)
    b = rt.function(f, jit_compile=True)(x, w)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.numpy(), v.numpy())


def test_without_jax_an_import_error_names_the_install_command():
    code = ("import sys; sys.modules['jax'] = None\n"
            "import runtime as rt\n"
            "try:\n    rt.distribute.devices()\n"
            "except ImportError as e:\n    print('ERR', e)\n"
            "try:\n    rt.function(lambda x: x, jit_compile=True, data_parallel=True)\n"
            "except ImportError as e:\n    print('ERR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, env=_env(), timeout=120)
    lines = [line for line in out.stdout.splitlines() if line.startswith("ERR")]
    assert len(lines) == 2, out.stdout + out.stderr
    assert all("pip install -e '.[jax]'" in line for line in lines), lines


def test_import_runtime_does_not_import_jax():
    code = "import sys, runtime; runtime.distribute.DataParallel(); print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, env=_env(), timeout=120)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


@pytest.mark.slow
def test_eight_devices_agree_with_one():
    """Runs this module's `test_worker_*` in a child pytest that sees 8 CPU devices."""
    env = {**_env(), "RT_DISTRIBUTE_WORKER": "1", "JAX_PLATFORMS": "cpu",
           "XLA_FLAGS": (os.environ.get("XLA_FLAGS", "") +
                         f" --xla_force_host_platform_device_count={DEVICES}").strip()}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-k", "worker", __file__], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    took = time.perf_counter() - start
    workers = sum(1 for name in globals() if name.startswith("test_worker_"))
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-3000:]
    assert f"{workers} passed" in out.stdout, out.stdout[-3000:]
    print(f"{workers} tests on {DEVICES} devices passed in {took:.1f}s")


# -- in the child pytest (8 devices) ---------------------------------------------------------
@pytest.fixture
def placed(monkeypatch):
    """The shardings of the arrays each XLA plan call received."""
    seen = []
    call = jax_backend.XlaPlan.__call__

    def spy(self, *arrays):
        seen.append([a.sharding for a in arrays])
        return call(self, *arrays)
    monkeypatch.setattr(jax_backend.XlaPlan, "__call__", spy)
    return seen


def _split(sharding) -> bool:
    return len(sharding.device_set) == DEVICES and not sharding.is_fully_replicated


@worker
def test_worker_sees_eight_devices():
    assert len(rt.distribute.devices()) == DEVICES


@worker
def test_worker_forward_batch_split_weights_replicated(placed):
    def f(x, w, scale):
        h = rt.tanh(x @ w) * scale
        return h, rt.reduce_sum(h), rt.reduce_max(x, axis=1)

    x, w, s = rt.constant(data(32, 5)), rt.constant(data(5, 3, seed=1)), rt.constant(0.5)
    dp = rt.distribute.DataParallel(batch_args=("x",))
    eight = rt.function(f, jit_compile=True, data_parallel=dp)(x, w, s)
    [shardings] = placed
    assert [_split(sh) for sh in shardings] == [True, False, False]
    assert all(len(sh.device_set) == DEVICES for sh in shardings)
    one = rt.function(f, jit_compile=True, data_parallel=one_device())(x, w, s)
    ref = rt.function(f)(x, w, s)
    for a, b, c in zip(eight, one, ref):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=RTOL, atol=1e-6)
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=RTOL, atol=1e-6)


@worker
def test_worker_every_batched_argument_by_default_and_by_position(placed):
    def f(pair, n):
        a, b = pair
        return a * b + rt.cast(rt.reshape(n, [-1, 1]), rt.float32)

    pair = (rt.constant(data(16, 2)), rt.constant(data(16, 2, seed=2)))
    n = rt.constant(np.arange(16, dtype=np.int32))
    want = rt.function(f)(pair, n).numpy()
    for dp in (True, rt.distribute.DataParallel(batch_args=(0,))):
        got = rt.function(f, jit_compile=True, data_parallel=dp)(pair, n).numpy()
        np.testing.assert_allclose(got, want, rtol=RTOL)
    assert [_split(sh) for sh in placed[0]] == [True, True, True]
    assert [_split(sh) for sh in placed[1]] == [True, True, False]


@worker
def test_worker_training_step_matches_one_device(placed):
    x, y = data(64, 4), data(64, 1, seed=3)

    def train(**kw):
        w = rt.Variable(data(4, 1, seed=4))
        b = rt.Variable(np.zeros([1], np.float32))

        @rt.function(**kw)
        def step(x, y):
            with rt.GradientTape() as tape:
                loss = rt.reduce_mean(rt.square(rt.tanh(x @ w + b) - y))
            dw, db = tape.gradient(loss, [w, b])
            w.assign_sub(0.5 * dw)
            b.assign_sub(0.5 * db)
            return loss

        losses = [float(step(rt.constant(x), rt.constant(y)).numpy()) for _ in range(10)]
        return losses, w.numpy(), b.numpy()

    eight = train(jit_compile=True, data_parallel=True)
    assert len(placed) == 10 and all(_split(sh) for sh in placed[0])
    one = train(jit_compile=True, data_parallel=one_device())
    ref = train()
    assert eight[0][-1] < eight[0][0]  # it trains
    for other in (one, ref):
        for a, b in zip(eight, other):
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-6)


@worker
def test_worker_batch_not_divisible_is_a_value_error():
    f = rt.function(lambda x, w: x @ w, jit_compile=True, data_parallel=True)
    with pytest.raises(ValueError, match=r"'w' has 3 rows on axis 0 \(shape \(3, 2\)\), not a "
                                         r"multiple of 8"):
        f(rt.constant(data(8, 3)), rt.constant(data(3, 2)))
    g = rt.function(lambda x, w: x @ w, jit_compile=True,
                    data_parallel=rt.distribute.DataParallel(batch_args="x"))
    with pytest.raises(ValueError, match="'x' has 12 rows"):
        g(rt.constant(data(12, 3)), rt.constant(data(3, 2)))
    np.testing.assert_allclose(g(rt.constant(data(16, 3)), rt.constant(data(3, 2))).numpy(),
                               data(16, 3) @ data(3, 2), rtol=RTOL)


@worker
def test_worker_relaxed_batch_dimension_compiled_per_size(placed):
    @rt.function(jit_compile=True, data_parallel=True,
                 input_signature=[rt.TensorSpec([None, 2], rt.float32)])
    def f(x):
        return rt.reduce_mean(x, axis=0), x * 2.0

    for n in (8, 24, 8):
        x = data(n, 2, seed=n)
        mean, doubled = f(rt.constant(x))
        np.testing.assert_allclose(mean.numpy(), x.mean(axis=0), rtol=RTOL)
        np.testing.assert_array_equal(doubled.numpy(), x * 2)
    assert len(f._concretes) == 1 and all(_split(sh[0]) for sh in placed)
    with pytest.raises(ValueError, match="'x' has 12 rows"):
        f(rt.constant(data(12, 2)))


@worker
def test_worker_64_bit_inputs_keep_their_width():
    f = rt.function(lambda x: x * 3 + 1, jit_compile=True, data_parallel=True)
    x = np.arange(8, dtype=np.int64) + 2 ** 40
    np.testing.assert_array_equal(f(rt.constant(x)).numpy(), x * 3 + 1)


@worker
def test_worker_a_failed_check_raises_as_on_one_device():
    def f(x, i):
        return rt.gather(x, i)

    x, i = rt.constant(data(8, 2)), rt.constant(np.array([0, 1, 2, 3, 4, 5, 6, 9], np.int32))
    errors = []
    for dp in (True, one_device()):
        with pytest.raises(InvalidArgumentError) as e:
            rt.function(f, jit_compile=True, data_parallel=dp)(x, i)
        errors.append(str(e.value))
    assert errors[0] == errors[1]


@worker
def test_worker_prints_and_assertions_are_named_errors():
    def f(x):
        rt.print("sum", rt.reduce_sum(x))
        rt.debugging.Assert(rt.reduce_all(x > -100.0), [x])
        return x + 1.0

    with pytest.raises(InvalidGraphError, match=r"over 8 devices(.|\n)*PrintV2(.|\n)*"
                                                r"test_distribute.py:\d+(.|\n)*Assert"):
        rt.function(f, jit_compile=True, data_parallel=True)(rt.constant(data(8, 2)))
    got = rt.function(f, jit_compile=True, data_parallel=one_device())(rt.constant(data(8, 2)))
    np.testing.assert_allclose(got.numpy(), data(8, 2) + 1.0)


@worker
def test_worker_a_method_runs_data_parallel(placed):
    class Model:
        def __init__(self):
            self.w = rt.Variable(data(3, 2, seed=5))

        @rt.function(jit_compile=True, data_parallel=True)
        def __call__(self, x):
            return x @ self.w

    x = data(16, 3)
    np.testing.assert_allclose(Model()(rt.constant(x)).numpy(), x @ data(3, 2, seed=5),
                               rtol=RTOL)
    assert _split(placed[0][0])


@worker
def test_worker_random_draws_are_one_devices():
    def f(x, n):
        noise = rt.random.uniform([8, 2], seed=1)
        acc = rt.zeros([2])
        for _ in rt.range(n):
            acc += rt.random.normal([2], seed=2)  # drawn on the host, in the loop
        return x + noise + acc

    results = []
    for dp in (True, one_device()):
        rt.random.set_seed(0)
        g = rt.function(f, jit_compile=True, data_parallel=dp)
        x = rt.constant(data(8, 2))
        results.append([g(x, rt.constant(3)).numpy() for _ in range(2)])
    np.testing.assert_allclose(results[0], results[1], rtol=RTOL)
    assert not np.allclose(results[0][0], results[0][1])  # drawn anew at each call
