"""rt.train checkpoints: round trips into live objects, deferred restoration (optimizer
slots made on the first update, attributes set after the restore), mismatch errors,
CheckpointManager, and files from strangers refused without running anything."""
from __future__ import annotations

import glob
import json
import os
import pickle
import subprocess
import sys
import zipfile

import importlib.util

import numpy as np
import pytest

import runtime as rt

# (jit_compile needs JAX: the other Pythons' CI venvs install no jax extra)
NEEDS_JAX = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                               reason="jit_compile needs JAX (the jax extra)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Net(rt.Module):
    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = rt.Variable(rng.normal(size=(3, 2)).astype(np.float32))
        self.blocks = [rt.Variable(rng.normal(size=(2,)).astype(np.float32)),
                       {"scale": rt.Variable(np.float32(rng.normal()))}]
        self.count = rt.Variable(np.int64(0), trainable=False)

    def __call__(self, x):
        return rt.matmul(x, self.w) * self.blocks[1]["scale"] + self.blocks[0]


X = np.random.default_rng(5).normal(size=(4, 3)).astype(np.float32)


def make(seed=0, optimizer=None):
    net = Net(seed)
    opt = optimizer or rt.optimizers.Adam(0.05)
    step = rt.Variable(np.int64(0), trainable=False)

    def train_step():
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.square(net(rt.constant(X))))
        grads = tape.gradient(loss, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables))
        step.assign_add(1)
        net.count.assign_add(1)
        return loss
    return net, opt, step, train_step


def state(net, opt, step):
    out = {v.name + str(i): v.numpy() for i, v in enumerate(net.variables)}
    out.update({f"opt{i}": v.numpy() for i, v in enumerate(opt.variables)})
    out["step"] = step.numpy()
    return out


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("opt_kind", ["adam", "sgd_momentum", "sgd"])
@pytest.mark.parametrize("staged", [False, True])
def test_restored_training_continues_as_the_uninterrupted_one(tmp_path, opt_kind, staged):
    def optimizer():
        return {"adam": lambda: rt.optimizers.Adam(0.05),
                "sgd_momentum": lambda: rt.optimizers.SGD(0.05, momentum=0.9),
                "sgd": lambda: rt.optimizers.SGD(0.05)}[opt_kind]()
    net, opt, step, train_step = make(0, optimizer())
    run = rt.function(train_step) if staged else train_step
    for _ in range(3):
        run()
    path = rt.train.Checkpoint(model=net, optimizer=opt, step=step).save(str(tmp_path / "ck"))
    assert path == str(tmp_path / "ck-1")
    # a fresh program, different initial values: restore, then the same steps
    net2, opt2, step2, train_step2 = make(1, optimizer())
    status = rt.train.Checkpoint(model=net2, optimizer=opt2, step=step2).restore(path)
    status.assert_existing_objects_matched()
    run2 = rt.function(train_step2) if staged else train_step2
    for _ in range(2):
        run()
        run2()
    status.assert_consumed()     # the slots were made (and given their values) by now
    assert_same(state(net, opt, step), state(net2, opt2, step2))
    assert int(step2.numpy()) == 5 and int(opt2.iterations.numpy()) == 5


def test_deferred_slots_wait_for_the_first_update(tmp_path):
    net, opt, step, train_step = make(0)
    train_step()
    path = rt.train.Checkpoint(model=net, optimizer=opt).write(str(tmp_path / "w"))
    net2, opt2, _, train_step2 = make(1)
    status = rt.train.Checkpoint(model=net2, optimizer=opt2).read(path)
    assert opt2.get_slot_names() == []      # not made yet
    with pytest.raises(AssertionError, match=r"model/w/\.OPTIMIZER_SLOT/optimizer/m"):
        status.assert_consumed()
    opt2.build(net2.trainable_variables)    # made now: each gets its saved value
    np.testing.assert_array_equal(opt2.get_slot(net2.w, "v").numpy(),
                                  opt.get_slot(net.w, "v").numpy())
    status.assert_consumed()


def test_attributes_set_after_restore_get_their_values(tmp_path):
    class Lazy(rt.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        def __call__(self, x):
            if self.w is None:
                self.w = rt.Variable(np.zeros((x.shape[-1], 2), np.float32))
            return rt.matmul(x, self.w)

    saved_w = np.arange(6, dtype=np.float32).reshape(3, 2)
    m = Lazy()
    m.w = rt.Variable(saved_w)
    ckpt = rt.train.Checkpoint(model=m, step=rt.Variable(np.int64(7)))
    path = ckpt.save(str(tmp_path / "lazy"))
    m2 = Lazy()
    ckpt2 = rt.train.Checkpoint(model=m2)
    status = ckpt2.restore(path)
    ckpt2.step = rt.Variable(np.int64(0))       # a Checkpoint attribute made later
    assert int(ckpt2.step.numpy()) == 7
    out = m2(rt.constant(np.ones((1, 3), np.float32)))       # builds w: restored then
    np.testing.assert_array_equal(out.numpy(), np.ones((1, 3), np.float32) @ saved_w)
    assert type(m2) is Lazy                       # nothing left waiting: its own class again
    status.assert_consumed()


def test_save_numbers_and_latest_checkpoint(tmp_path):
    v = rt.Variable([1.0, 2.0])
    ckpt = rt.train.Checkpoint(v=v)
    assert rt.train.latest_checkpoint(str(tmp_path)) is None
    paths = []
    for i in range(3):
        v.assign([float(i), float(i)])
        paths.append(ckpt.save(tmp_path / "c"))
    assert [os.path.basename(p) for p in paths] == ["c-1", "c-2", "c-3"]
    assert rt.train.latest_checkpoint(tmp_path) == paths[-1]
    assert int(ckpt.save_counter.numpy()) == 3
    ckpt.restore(paths[0]).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])
    assert int(ckpt.save_counter.numpy()) == 1
    assert dict(rt.train.list_variables(paths[1]))["v/.ATTRIBUTES/VARIABLE_VALUE"] == [2]
    np.testing.assert_array_equal(
        rt.train.load_variable(paths[1], "v/.ATTRIBUTES/VARIABLE_VALUE"), [1.0, 1.0])
    status = ckpt.restore(None)        # the first run's latest_checkpoint
    status.expect_partial()
    with pytest.raises(AssertionError):
        status.assert_consumed()
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        ckpt.restore(str(tmp_path / "missing"))


@pytest.mark.parametrize("bad, match", [
    (np.zeros(3, np.float32), r"v/\.ATTRIBUTES/VARIABLE_VALUE: the checkpoint holds shape \(3,\)"),
    (np.zeros(2, np.int32), r"holds int32 \(2,\), the Variable 'v:0' is float32"),
])
def test_mismatches_are_listed_and_nothing_is_restored(tmp_path, bad, match):
    rt.train.Checkpoint(v=rt.Variable(bad), u=rt.Variable(5.0)).write(str(tmp_path / "m"))
    v, u = rt.Variable([1.0, 2.0], name="v"), rt.Variable(1.0)
    with pytest.raises(rt.train.CheckpointMismatchError, match=match):
        rt.train.Checkpoint(v=v, u=u).restore(str(tmp_path / "m"))
    assert float(u.numpy()) == 1.0 and v.numpy().tolist() == [1.0, 2.0]


def test_partial_matches_are_reported(tmp_path):
    rt.train.Checkpoint(a=rt.Variable(1.0), b=rt.Variable(2.0)).write(str(tmp_path / "p"))
    a, c = rt.Variable(0.0), rt.Variable(0.0, name="extra")
    status = rt.train.Checkpoint(a=a, c=c).restore(str(tmp_path / "p"))
    assert float(a.numpy()) == 1.0
    with pytest.raises(AssertionError, match=r"c/\.ATTRIBUTES/VARIABLE_VALUE \('extra:0'"):
        status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"b/\.ATTRIBUTES/VARIABLE_VALUE"):
        status.assert_consumed()
    assert status.expect_partial() is status
    status.assert_nontrivial_match()
    with pytest.raises(ValueError, match="trackable"):
        rt.train.Checkpoint(x="not a variable")


def test_manager_keeps_the_newest_and_takes_over_a_directory(tmp_path):
    v = rt.Variable(0)
    ckpt = rt.train.Checkpoint(v=v)
    manager = rt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None
    for i in range(4):
        v.assign(i)
        manager.save()
    names = [os.path.basename(p) for p in manager.checkpoints]
    assert names == ["ckpt-3", "ckpt-4"]
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == [
        "ckpt-3.index", "ckpt-4.index"]
    assert rt.train.latest_checkpoint(str(tmp_path)) == manager.latest_checkpoint
    v2 = rt.Variable(0)
    ckpt2 = rt.train.Checkpoint(v=v2)
    again = rt.train.CheckpointManager(ckpt2, str(tmp_path), max_to_keep=2)
    assert again.checkpoints == manager.checkpoints
    ckpt2.restore(again.latest_checkpoint).assert_consumed()
    assert int(v2.numpy()) == 3
    assert os.path.basename(again.save()) == "ckpt-5"      # save_counter came back too
    with pytest.raises(ValueError, match="max_to_keep"):
        rt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)


def test_write_inside_a_function_is_refused(tmp_path):
    ckpt = rt.train.Checkpoint(v=rt.Variable(1.0))

    @rt.function
    def f():
        ckpt.write(str(tmp_path / "x"))
        return 1
    with pytest.raises(RuntimeError, match="outside rt.function"):
        f()


# -- files from strangers -----------------------------------------------------------------

class _Marker:
    path = ""

    def __reduce__(self):           # unpickling this would create the marker file
        return (open, (self.path, "w"))


def _doctor(prefix, arrays, values=None, table=None):
    """Writes a checkpoint's two files as a stranger might."""
    np.savez(prefix + ".data-00000-of-00001", **arrays)
    doc = {"format": "autograph-rt.checkpoint", "version": 1,
           "values": values if values is not None else {"v/.ATTRIBUTES/VARIABLE_VALUE": "a0"},
           "arrays": table if table is not None else {"a0": {"dtype": "float32", "shape": [2]}}}
    with open(prefix + ".index", "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))


def test_a_pickled_object_array_is_refused_and_never_unpickled(tmp_path):
    marker = tmp_path / "ran"
    _Marker.path = str(marker)
    obj = np.empty(2, dtype=object)
    obj[0], obj[1] = _Marker(), _Marker()
    prefix = str(tmp_path / "evil")
    _doctor(prefix, {"a0": obj})
    v = rt.Variable([1.0, 2.0])
    with pytest.raises(rt.train.FormatError, match="object|declares"):
        rt.train.Checkpoint(v=v).restore(prefix)
    assert not marker.exists() and v.numpy().tolist() == [1.0, 2.0]
    _doctor(prefix, {"a0": obj}, table={"a0": {"dtype": "object", "shape": [2]}})
    with pytest.raises(rt.train.FormatError, match="unknown dtype"):
        rt.train.Checkpoint(v=v).restore(prefix)
    assert not marker.exists()


@pytest.mark.parametrize("case", ["not_json", "other_format", "missing_array", "bad_name",
                                  "wrong_shape", "link", "state_escape", "bomb_shape"])
def test_odd_files_are_refused_with_a_clear_error(tmp_path, case):
    prefix = str(tmp_path / "odd")
    good = {"a0": np.array([1.0, 2.0], np.float32)}
    v = rt.Variable([0.0, 0.0])
    if case == "not_json":
        _doctor(prefix, good)
        with open(prefix + ".index", "w") as f:
            f.write("{'format': ")
    elif case == "other_format":
        _doctor(prefix, good)
        with open(prefix + ".index", "w") as f:
            json.dump({"format": "pickle", "version": 1}, f)
    elif case == "missing_array":
        _doctor(prefix, good, values={"v/.ATTRIBUTES/VARIABLE_VALUE": "a7"})
    elif case == "bad_name":
        _doctor(prefix, good, table={"../a0": {"dtype": "float32", "shape": [2]}})
    elif case == "wrong_shape":
        _doctor(prefix, {"a0": np.zeros(5, np.float32)})
    elif case == "bomb_shape":
        _doctor(prefix, good, table={"a0": {"dtype": "float32", "shape": [1 << 20, 1 << 20]}})
    elif case == "link":
        real = str(tmp_path / "real")
        _doctor(real, good)
        os.symlink(real + ".index", prefix + ".index")
        os.symlink(real + ".data-00000-of-00001", prefix + ".data-00000-of-00001")
    elif case == "state_escape":
        with open(tmp_path / "checkpoint", "w") as f:
            json.dump({"format": "autograph-rt.checkpoint-state", "version": 1,
                       "latest": "../../etc/x", "all": []}, f)
        with pytest.raises(rt.train.FormatError, match="not a checkpoint name"):
            rt.train.latest_checkpoint(str(tmp_path))
        return
    with pytest.raises(rt.train.FormatError):
        rt.train.Checkpoint(v=v).restore(prefix)
    assert v.numpy().tolist() == [0.0, 0.0]


def test_the_files_hold_no_pickle(tmp_path):
    net, opt, step, train_step = make(0)
    train_step()
    path = rt.train.Checkpoint(model=net, optimizer=opt, step=step).save(str(tmp_path / "c"))
    with zipfile.ZipFile(path + ".data-00000-of-00001") as z:
        for name in z.namelist():
            with z.open(name) as f:
                np.lib.format.read_magic(f)
                _, _, dtype = np.lib.format.read_array_header_1_0(f)
                assert not dtype.hasobject
    with np.load(path + ".data-00000-of-00001", allow_pickle=False) as npz:
        assert len(npz.files) == len(json.load(open(path + ".index"))["values"])
    with pytest.raises(Exception):
        pickle.loads(open(path + ".index", "rb").read())


@pytest.mark.slow
def test_the_example_resumes_in_a_new_process(tmp_path):
    """examples/train.py run twice (3 epochs, then 3 more from its checkpoint) prints the
    same steps and losses as one run of 6 epochs."""
    def run(epochs, directory):
        env = dict(os.environ, PYTHONPATH=ROOT)
        out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "train.py"),
                              "--epochs", str(epochs), "--checkpoint-dir", str(directory),
                              "--logdir", str(directory) + "-logs"],
                             cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()

    def curve(lines):
        return [line for line in lines if line.startswith("epoch ")]
    first, second = run(3, tmp_path / "a"), run(3, tmp_path / "a")
    whole = run(6, tmp_path / "b")
    assert any(line.startswith("restored ") and "epoch 3, step 24" in line for line in second)
    assert curve(first) + curve(second) == curve(whole)
    losses = [float(line.rsplit(" ", 1)[1]) for line in curve(whole)]
    assert all(b < a for a, b in zip(losses, losses[1:]))
    # TensorBoard's curves: the loss of every step, the restarted run's going on from the
    # first's (one event file each), the same values as the run that never stopped
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError:
        return

    def logged(directory):
        points = []
        for path in sorted(glob.glob(str(directory) + "-logs/events.*")):
            reader = EventAccumulator(path)
            reader.Reload()
            points += [(e.step, e.value) for e in reader.Scalars("loss")]
        return points
    resumed, straight = logged(tmp_path / "a"), logged(tmp_path / "b")
    assert [step for step, _ in resumed] == list(range(1, 49))
    np.testing.assert_allclose([v for _, v in resumed], [v for _, v in straight], rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: rt.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.1),
    lambda: rt.optimizers.RMSprop(learning_rate=0.01, momentum=0.9, centered=True),
    lambda: rt.optimizers.AdamW(learning_rate=0.01)])
def test_deferred_slots_of_the_newer_optimizers_take_the_checkpoint_values(make, tmp_path):
    """Slots made after restore() (on the first step) start from the checkpoint, not from
    the optimizer's own starting value (Adagrad's initial_accumulator_value)."""
    def step(v, opt):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(v * v * v)
        opt.apply_gradients([(tape.gradient(loss, v), v)])

    v, opt = rt.Variable([1.0, 2.0]), make()
    step(v, opt)
    path = rt.train.Checkpoint(v=v, opt=opt).save(str(tmp_path / "c"))
    step(v, opt)
    v2, opt2 = rt.Variable([0.0, 0.0]), make()
    rt.train.Checkpoint(v=v2, opt=opt2).restore(path)
    step(v2, opt2)
    np.testing.assert_allclose(v2.numpy(), v.numpy(), rtol=1e-6)


class Noisy(rt.Module):
    """A Module drawing its noise from a random Generator (as dropout does)."""

    def __init__(self):
        super().__init__()
        self.w = rt.Variable(np.ones(3, np.float32))
        self.noise = rt.random.Generator.from_seed(7)

    def __call__(self):
        return self.w + self.noise.normal([3])


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=NEEDS_JAX)])
def test_a_random_generator_is_saved_and_restored_with_its_module(tmp_path, jit):
    # A restored program draws the same numbers the uninterrupted one drew after the save,
    # as TensorFlow's Generator is saved with the objects holding it (key `_state_var`).
    model = Noisy()
    step = rt.function(model, jit_compile=jit)
    ckpt = rt.train.Checkpoint(model=model)
    step()
    path = ckpt.save(str(tmp_path / "ckpt"))
    after_save = [step().numpy() for _ in range(3)]
    assert "model/noise/_state_var/.ATTRIBUTES/VARIABLE_VALUE" in dict(
        rt.train.list_variables(path))
    fresh = Noisy()                  # made anew, as after a restart
    rt.train.Checkpoint(model=fresh).restore(path).assert_consumed()
    again = rt.function(fresh, jit_compile=jit)
    for want in after_save:
        np.testing.assert_array_equal(again().numpy(), want)
    ckpt.restore(path)                  # into the live generator, its draws traced already
    np.testing.assert_array_equal(step().numpy(), after_save[0])
    # given to the Checkpoint itself
    gen = rt.random.Generator.from_seed(1)
    gen.normal([2])
    saved = rt.train.Checkpoint(gen=gen).save(str(tmp_path / "gen"))
    want = gen.normal([2]).numpy()
    status = rt.train.Checkpoint(gen=rt.random.Generator.from_seed(99))
    status.restore(saved).assert_consumed()
    np.testing.assert_array_equal(status.gen.normal([2]).numpy(), want)
