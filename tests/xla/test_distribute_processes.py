"""Data parallelism across processes (`rt.distribute.initialize`, runtime/distribute.py): two
local processes of two simulated CPU devices each, joined through `jax.distributed` with
CPU collectives (gloo), train a model with each process feeding its own half of the batch;
both must get the losses and weights that one device gets for the whole batch, and every
output whole.

The two processes run this file as a program (`python test_distribute_processes.py
PROCESS_ID PORT OUT`), started by `test_two_processes_agree_with_one_device` with a free
port; each writes what it got to OUT.<id>.npz. Where this JAX has no CPU collectives the
workers say so and the test is skipped with their reason.
"""
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed: pip install -e '.[jax]'")

import os  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PROCESSES, LOCAL_DEVICES, ROWS, STEPS = 2, 2, 16, 6
NO_COLLECTIVES = 3      # a worker's exit status where this JAX cannot join processes on a CPU
RTOL = 1e-5


def data(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


def train(rt, x, y, start=0, **kw):
    """Losses and weights after STEPS steps of gradient descent on (x, y), from initial
    weights drawn with seed `start`."""
    w = rt.Variable(data(4, 1, seed=4 + start))
    b = rt.Variable(np.full([1], start, np.float32))

    @rt.function(**kw)
    def step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(rt.tanh(x @ w + b) - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * dw)
        b.assign_sub(0.5 * db)
        return loss

    losses = [float(step(rt.constant(x), rt.constant(y)).numpy()) for _ in range(STEPS)]
    return np.array(losses), w.numpy(), b.numpy()


def forward(x, w):
    return rt_module().tanh(x @ w), rt_module().reduce_sum(x, axis=0)


def rt_module():
    import runtime
    return runtime


def worker(process_id: int, port: int, out: str) -> None:
    """One of the processes: joins the others, runs data-parallel, writes what it got."""
    import runtime as rt
    try:
        rt.distribute.initialize(f"127.0.0.1:{port}", num_processes=PROCESSES,
                                 process_id=process_id)
    except RuntimeError as e:
        print(f"NO CPU COLLECTIVES: {e}")
        sys.exit(NO_COLLECTIVES)
    assert rt.distribute.process_count() == PROCESSES
    assert rt.distribute.process_index() == process_id
    assert len(rt.distribute.devices()) == PROCESSES * LOCAL_DEVICES
    mine = slice(process_id * ROWS // PROCESSES, (process_id + 1) * ROWS // PROCESSES)
    x, y = data(ROWS, 4), data(ROWS, 1, seed=3)
    # each process makes its Variables its own way: process 0's are broadcast
    losses, w, b = train(rt, x[mine], y[mine], start=process_id, jit_compile=True,
                         data_parallel=True)
    f = rt.function(forward, jit_compile=True,
                    data_parallel=rt.distribute.DataParallel(batch_args="x"))
    h, s = f(rt.constant(x[mine]), rt.constant(data(4, 3, seed=1)))
    wide = rt.function(lambda n: n * 3 + 1, jit_compile=True, data_parallel=True)(
        rt.constant(np.arange(4, dtype=np.int64) + 2 ** 40 + 4 * process_id)).numpy()
    try:
        f(rt.constant(x[:3]), rt.constant(data(4, 3, seed=1)))
        error = ""
    except ValueError as e:
        error = str(e)
    np.savez(f"{out}.{process_id}.npz", losses=losses, w=w, b=b, h=h.numpy(), s=s.numpy(),
             wide=wide, error=np.array(error))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_two_processes_agree_with_one_device(tmp_path):
    env = {**os.environ, "JAX_PLATFORMS": "cpu",
           "XLA_FLAGS": f"--xla_force_host_platform_device_count={LOCAL_DEVICES}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                       os.environ.get("PYTHONPATH")]))}
    out, port = str(tmp_path / "got"), _free_port()
    procs = [subprocess.Popen([sys.executable, __file__, str(i), str(port), out], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) for i in range(PROCESSES)]
    logs = []
    try:
        for p in procs:
            logs.append(p.communicate(timeout=240)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    codes = [p.returncode for p in procs]
    if NO_COLLECTIVES in codes:
        reason = next(line for log in logs for line in log.splitlines()
                      if line.startswith("NO CPU COLLECTIVES"))
        pytest.skip(reason)
    assert codes == [0] * PROCESSES, "\n----\n".join(log[-4000:] for log in logs)

    import runtime as rt
    x, y = data(ROWS, 4), data(ROWS, 1, seed=3)
    one = train(rt, x, y, jit_compile=True)         # one device, the whole batch
    ref = train(rt, x, y)                           # the numpy backend
    h, s = rt.function(forward)(rt.constant(x), rt.constant(data(4, 3, seed=1)))
    wide = np.arange(4 * PROCESSES, dtype=np.int64) + 2 ** 40
    assert one[0][-1] < one[0][0]   # it trains
    for i in range(PROCESSES):
        got = np.load(f"{out}.{i}.npz")
        for name, a, b in zip(("losses", "w", "b"), (got["losses"], got["w"], got["b"]), one):
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-6, err_msg=name)
        for a, b in zip((got["losses"], got["w"], got["b"]), ref):
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-6)
        # every process gets the outputs whole: the rows of all of them, in process order
        np.testing.assert_allclose(got["h"], h.numpy(), rtol=RTOL, atol=1e-6)
        np.testing.assert_allclose(got["s"], s.numpy(), rtol=RTOL, atol=1e-6)
        np.testing.assert_array_equal(got["wide"], wide * 3 + 1)
        assert "'x' has 3 rows on axis 0" in str(got["error"]), got["error"]
        assert "of 2 processes, this process's rows over its 2" in str(got["error"])


if __name__ == "__main__":
    worker(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
