"""rt.saved: functions saved here run in a fresh process that cannot import this module,
with identical results; damaged or hostile files give one clear error."""
import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as rt
from examples import programs
from rt_helpers import saved_doc as _doc, saved_node as _node
from rt_helpers import saved_nodes as _nodes, write_saved_doc as _write
from runtime import saved

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# -- the functions saved ------------------------------------------------------------------

def _everything_model():
    v = rt.Variable(np.array([1.0, 2.0], np.float32), name="v")
    counter = rt.Variable(0, name="counter")

    @rt.function
    def everything(x, n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        i = 0
        s = rt.zeros([2])
        while i < n:
            if x[0] > 0:
                s = s + rt.reduce_sum(x) * v
                rt.print("step", i, s)
            else:
                s = s - 1.0
            ta = ta.write(i, rt.reduce_sum(s))
            i += 1
        v.assign_add(rt.ones([2]))
        counter.assign_add(1)
        return {"s": s, "ta": ta.stack(), "r": rt.random.uniform([2], seed=3),
                "count": counter.read_value()}

    calls = [(np.array([1.0, 2.0], np.float32), np.int32(3)),
             (np.array([-1.0, 2.0], np.float32), np.int32(2)),
             (np.array([1.0, 1.0], np.float32), np.int32(0))]
    everything(*[rt.constant(a) for a in calls[0]])
    return everything, calls


def _relu_model():
    @rt.function
    def relu(x):
        if rt.reduce_sum(x) > 0:
            return x
        return rt.zeros_like(x)

    calls = [(np.array([1.0, -2.0, 5.0], np.float32),), (np.array([-3.0], np.float32),)]
    relu.get_concrete_function(rt.TensorSpec([None], rt.float32))
    return relu, calls


def _fizzbuzz_model():
    fizzbuzz = rt.function(programs.fizzbuzz)
    fizzbuzz(rt.constant(1))
    return fizzbuzz, [(np.int32(15),), (np.int32(4),)]


def _collatz_model():
    @rt.function(input_signature=[rt.TensorSpec([], rt.int32)])
    def collatz(n):
        steps = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps, n

    return collatz, [(np.int32(27),), (np.int32(1),), (np.int32(6),)]


def _polymorphic_model():
    @rt.function
    def scale(x, factor, mode="mul"):
        y = x * factor if mode == "mul" else x + factor
        return [y, rt.shape(y)]

    scale(rt.constant([1.0, 2.0]), 3.0)
    scale(rt.constant([[1, 2]]), 2, mode="add")
    return scale, [(np.array([4.0, 5.0], np.float32), 3.0),
                   (np.array([[7, 8]], np.int32), 2, "add")]


def _strings_and_slices_model():
    @rt.function
    def words(x, i):
        w = rt.strings.join([rt.strings.as_string(x[i]), "!"], separator=" ")
        parts = rt.unstack(rt.reshape(x, [2, -1]))
        cat = rt.concat([parts[1], parts[0][::-1], x[None, 1:3, ...][0]], 0)
        big = rt.argmax(rt.stack([x, -x]), axis=0, output_type=rt.int32)
        rt.debugging.assert_greater(rt.size(x), 0)
        return w, cat, big, rt.cast(rt.transpose(rt.expand_dims(x, 0)), rt.float64)

    calls = [(np.array([1, 5, 3, 9], np.int32), np.int32(2))]
    words(*[rt.constant(a) for a in calls[0]])
    return words, calls


def _training_step_model():
    w = rt.Variable(np.array([[0.5], [-0.25]], np.float32), name="w")

    @rt.function(input_signature=[rt.TensorSpec([None, 2], rt.float32),
                                  rt.TensorSpec([None, 1], rt.float32)])
    def train_step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(rt.tanh(x @ w) - y))
        w.assign_sub(0.5 * tape.gradient(loss, w))
        return loss

    x = np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 1.0]], np.float32)
    y = np.array([[0.5], [-0.5], [0.25]], np.float32)
    return train_step, [(x, y)] * 3  # three steps: the loss falls, from the saved weights


MODELS = {"everything": _everything_model, "relu": _relu_model, "fizzbuzz": _fizzbuzz_model,
          "collatz": _collatz_model, "polymorphic": _polymorphic_model,
          "strings_and_slices": _strings_and_slices_model, "training": _training_step_model}


def _flat_arrays(result):
    return [np.asarray(t.numpy() if hasattr(t, "numpy") else t)
            for t in rt.nest.flatten(result)]


def _run_all(fn, calls):
    out, text = [], io.StringIO()
    with contextlib.redirect_stdout(text):
        for call in calls:
            args = [rt.constant(a) if isinstance(a, np.ndarray | np.generic) else a for a in call]
            out.append(_flat_arrays(fn(*args)))
    return out, text.getvalue()


_CHILD = textwrap.dedent("""
    import contextlib, importlib, io, json, pickle, sys
    import numpy as np
    import runtime as rt
    try:
        importlib.import_module("test_rt_saved")
    except ImportError:
        pass
    else:
        raise SystemExit("the defining module must not be importable here")
    report = {}
    for name, path, calls in json.load(open(sys.argv[1])):
        loaded = rt.saved.load(path)
        fn = getattr(loaded, name)
        results, text = [], io.StringIO()
        with contextlib.redirect_stdout(text):
            for call in calls:
                args = [rt.constant(np.array(a["v"], dtype=a["dtype"])) if isinstance(a, dict)
                        else a for a in call]
                out = fn(*args)
                results.append([np.asarray(t.numpy() if hasattr(t, "numpy") else t).tolist()
                                for t in rt.nest.flatten(out)])
        report[name] = {"results": results, "stdout": text.getvalue(),
                        "variables": [np.asarray(v.numpy()).tolist() for v in loaded.variables]}
    print(json.dumps(report, default=lambda b: b.decode("utf-8", "replace")))
""")


def _encode_call(call):
    return [{"v": a.tolist(), "dtype": a.dtype.name} if isinstance(a, np.ndarray | np.generic)
            else a for a in call]


def test_round_trip_in_a_fresh_process(tmp_path):
    jobs, expected = [], {}
    for name, make in MODELS.items():
        fn, calls = make()
        path = str(tmp_path / name)
        saved.save(fn, path)
        variables = [np.asarray(v.numpy()).tolist() for cf in fn._concretes
                     for v in cf.graph.variables]
        results, stdout = _run_all(fn, calls)  # from the state that was saved
        expected[fn.__name__] = (results, stdout, variables)
        jobs.append((fn.__name__, path, [_encode_call(c) for c in calls]))
    (tmp_path / "jobs.json").write_text(json.dumps(jobs))
    child = tmp_path / "child.py"
    child.write_text(_CHILD)
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, str(child), str(tmp_path / "jobs.json")],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert sorted(report) == sorted(expected)
    for name, (results, stdout, _) in expected.items():
        got = report[name]
        assert got["stdout"] == stdout, name
        assert len(got["results"]) == len(results)
        for got_call, want_call in zip(got["results"], results):
            assert len(got_call) == len(want_call), name
            for g, w in zip(got_call, want_call):
                if w.dtype == object:  # strings (bytes here, text in the JSON) or None
                    want = [x.decode() if isinstance(x, bytes) else x for x in w.reshape(-1)]
                    assert want == list(np.reshape(np.asarray(g, dtype=object), -1)), name
                else:
                    np.testing.assert_array_equal(np.asarray(g, dtype=w.dtype), w, err_msg=name)
    assert report["everything"]["stdout"].startswith("step 0 [6 9]\n")  # v was [2, 3] when saved


def test_loaded_function_restores_and_shares_variables(tmp_path):
    v = rt.Variable(10.0, name="total")

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def add(x):
        v.assign_add(x)
        return v.read_value()

    @rt.function(input_signature=[])
    def read():
        return v.read_value()

    add(rt.constant(1.0))
    saved.save({"add": add, "read": read}, str(tmp_path / "m"), signatures={"adder": add})
    loaded = saved.load(str(tmp_path / "m"))
    assert [x.numpy() for x in loaded.variables] == [11.0]
    assert loaded.add(rt.constant(2.0)).numpy() == 13.0
    assert loaded.signatures["adder"](rt.constant(1.0)).numpy() == 14.0
    assert loaded.read().numpy() == 14.0           # one restored Variable, shared
    assert v.numpy() == 11.0                       # the original is untouched
    assert loaded.variables[0].name == "total:0"


def test_polymorphic_dispatch_and_mismatch(tmp_path):
    fn, _ = _polymorphic_model()
    saved.save(fn, str(tmp_path / "p"))
    loaded = saved.load(str(tmp_path / "p"))
    y, shape = loaded.scale(rt.constant([1.0, 2.0]), 3.0)
    np.testing.assert_array_equal(y.numpy(), [3.0, 6.0])
    with pytest.raises(TypeError, match="no saved concrete function takes these arguments"):
        loaded.scale(rt.constant([1.0, 2.0]), 4.0)  # traced for factor=3.0 only
    assert "scale(x, factor=3.0, mode='mul')" in loaded.scale.pretty_printed_concrete_signatures()


def test_py_function_cannot_be_saved(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x):
        return rt.py_function(lambda a: a * 2, [x], rt.float32)

    with pytest.raises(saved.SaveError, match="py_function calls Python code"):
        saved.save(f, str(tmp_path / "f"))


def test_python_object_argument_cannot_be_saved(tmp_path):
    class Config:
        scale = 2.0

    @rt.function
    def f(x, config):
        return x * config.scale

    config = Config()
    f(rt.constant(1.0), config)
    with pytest.raises(saved.SaveError, match="argument 'config' was traced with the Python object"):
        saved.save(f, str(tmp_path / "f"))


def test_untraced_function_needs_a_trace(tmp_path):
    @rt.function
    def f(x):
        return x

    with pytest.raises(saved.SaveError, match="has not been traced yet"):
        saved.save(f, str(tmp_path / "f"))


# -- damaged and hostile files ---------------------------------------------------------------

@pytest.fixture
def small(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def f(x):
        y = x * 2.0 + rt.constant([1.0, 2.0, 3.0])[0]       # small: inline in the JSON
        y += rt.reduce_min(rt.constant(np.arange(100, dtype=np.float32)))  # "a0" in the .npz
        if rt.reduce_sum(y) > 0:
            y = y + 1.0
        return y

    path = str(tmp_path / "small")
    saved.save(f, path)
    return path


def test_small_loads_and_runs(small):
    np.testing.assert_array_equal(saved.load(small).f(rt.constant([1.0, 2.0])).numpy(), [4.0, 6.0])


def test_small_numbers_out_of_range(small):
    doc = _doc(small)
    const = _node(doc, "Const")
    const["attrs"]["value"] = {"kind": "numbers", "dtype": "uint8", "shape": [], "items": [300]}
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="must be an integer in range"):
        saved.load(small)


def test_truncated_json(small):
    p = os.path.join(small, "saved.json")
    with open(p, "rb") as f:
        data = f.read()
    with open(p, "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(rt.errors.InvalidGraphError, match="not valid JSON"):
        saved.load(small)


def test_truncated_arrays(small):
    p = os.path.join(small, "arrays.npz")
    with open(p, "rb") as f:
        data = f.read()
    with open(p, "wb") as f:
        f.write(data[:-40])
    with pytest.raises(rt.errors.InvalidGraphError, match="arrays.npz"):
        saved.load(small)


def test_missing_directory(tmp_path):
    with pytest.raises(rt.errors.InvalidGraphError, match="No such file"):
        saved.load(str(tmp_path / "nothing"))


def test_wrong_version(small):
    doc = _doc(small)
    doc["version"] = 99
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="format version 99, written by a newer"):
        saved.load(small)


def test_not_a_saved_file(small):
    _write(small, {"format": "something else", "version": 1})
    with pytest.raises(rt.errors.InvalidGraphError, match="not a saved function"):
        saved.load(small)


def test_unknown_op(small):
    doc = _doc(small)
    _node(doc, "Mul")["op"] = "LaunchMissiles"
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="unknown op 'LaunchMissiles'"):
        saved.load(small)


def test_shape_that_does_not_match(small):
    doc = _doc(small)
    _node(doc, "Mul")["outputs"][0][0] = [7, 7]
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match=r"declared float32 \(7, 7\), but Mul gives"):
        saved.load(small)


def test_dtype_that_does_not_match(small):
    doc = _doc(small)
    _node(doc, "Mul")["outputs"][0][1] = "int32"
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="declared int32"):
        saved.load(small)


def test_inputs_of_mismatched_dtypes(small):
    doc = _doc(small)
    placeholder = next(n for n in _nodes(doc) if n["op"] == "Placeholder")
    placeholder["attrs"]["dtype"]["value"] = "int32"
    placeholder["outputs"][0][1] = "int32"
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="Mul does not accept these inputs"):
        saved.load(small)


def test_reference_to_a_missing_node(small):
    doc = _doc(small)
    mul = _node(doc, "Mul")
    mul["inputs"][0] = [len(_nodes(doc)) + 5, 0]
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match=r"inputs\[0\]\[0\]: refers to node"):
        saved.load(small)


def test_reference_to_a_later_node_is_refused(small):
    doc = _doc(small)
    nodes = _nodes(doc)
    i = next(k for k, n in enumerate(nodes) if n["op"] == "Mul")
    nodes[i]["inputs"][0] = [i, 0]  # itself: a cycle
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="refers to node"):
        saved.load(small)


def test_huge_declared_sizes(small):
    doc = _doc(small)
    doc["arrays"]["a0"]["shape"] = [10 ** 6, 10 ** 6]
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="more than 268435456 elements"):
        saved.load(small)
    doc = _doc(small)
    doc["arrays"]["a0"]["shape"] = [10 ** 400]
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError):
        saved.load(small)


def test_huge_fill_is_refused(tmp_path):
    @rt.function(input_signature=[])
    def f():
        return rt.zeros([3, 4])

    path = str(tmp_path / "fill")
    saved.save(f, path)
    doc = _doc(path)
    fill = _node(doc, "Fill")
    fill["attrs"]["shape"]["items"] = [{"kind": "int", "value": 1 << 20}] * 3
    fill["outputs"][0][0] = [1 << 20] * 3
    _write(path, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="more than 268435456 elements"):
        saved.load(path)


def test_array_whose_header_lies(small):
    doc = _doc(small)
    doc["arrays"]["a0"]["dtype"] = "int64"
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="the JSON declares int64"):
        saved.load(small)


def test_pickled_arrays_are_never_read(small):
    np.savez(os.path.join(small, "arrays.npz"), a0=np.array([object()], dtype=object))
    with pytest.raises(rt.errors.InvalidGraphError, match="holds object"):
        saved.load(small)


def test_unknown_attribute_kind(small):
    doc = _doc(small)
    const = _node(doc, "Const")
    const["attrs"]["value"] = {"kind": "pickle", "data": "gASVAAAA"}
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="unknown or misplaced kind 'pickle'"):
        saved.load(small)


def test_wrong_attributes(small):
    doc = _doc(small)
    _node(doc, "Mul")["attrs"]["extra"] = {"kind": "int", "value": 1}
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match=r"Mul takes the attributes \[\]"):
        saved.load(small)


def test_cond_with_mismatched_branches(small):
    doc = _doc(small)
    cond = next(n for n in _nodes(doc) if n["op"] in ("If", "StatelessIf"))
    cond["attrs"]["then_body"]["outputs"] = []
    _write(small, doc)
    with pytest.raises(rt.errors.InvalidGraphError, match="then_body.outputs: 0 outputs"):
        saved.load(small)


# -- fuzzing: mutated files give InvalidGraphError or load, never anything else --------------

def _mutations(doc):
    """Every (container, key) in the JSON tree, for mutation."""
    out = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                out.append((x, k))
                walk(v)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                out.append((x, i))
                walk(v)
    walk(doc)
    return out


_REPLACEMENTS = [None, 0, -1, 1, 2 ** 40, 10 ** 30, 1.5, "", "x", "float32", "int32", "Placeholder",
                 "If", [], [0], [0, 0], [None], {}, {"kind": "int", "value": 3},
                 {"kind": "tuple", "items": []}, {"kind": "body"}, True,
                 {"kind": "numbers", "dtype": "int32", "shape": [1], "items": [1]}]


@pytest.mark.slow
def test_fuzz_mutated_saved_files(tmp_path):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    fn, _ = _everything_model()
    path = str(tmp_path / "base")
    saved.save(fn, path)
    with open(os.path.join(path, "saved.json"), "rb") as f:
        base_json = f.read()
    with open(os.path.join(path, "arrays.npz"), "rb") as f:
        base_npz = f.read()
    n_sites = len(_mutations(json.loads(base_json)))
    work = tmp_path / "work"
    work.mkdir()
    outcomes = {"loaded": 0, "refused": 0}

    @hypothesis.settings(max_examples=200, deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(st.sampled_from(["edit", "truncate json", "damage npz"]),
                      st.lists(st.tuples(st.integers(0, n_sites - 1),
                                         st.sampled_from(_REPLACEMENTS)), min_size=1, max_size=3),
                      st.integers(0, 1 << 30), st.integers(0, 255))
    def check(mode, edits, position, byte):
        data, npz = base_json, base_npz
        if mode == "edit":
            doc = json.loads(base_json)
            for site, value in edits:
                sites = _mutations(doc)
                container, key = sites[site % len(sites)]
                container[key] = copy.deepcopy(value)  # never one object at two sites
            data = json.dumps(doc).encode()
        elif mode == "truncate json":
            data = base_json[:position % len(base_json)]
        else:
            i = position % len(base_npz)
            npz = base_npz[:i] + bytes([byte]) + base_npz[i + 1:] if byte else base_npz[:i]
        (work / "saved.json").write_bytes(data)
        (work / "arrays.npz").write_bytes(npz)
        try:
            saved.load(str(work))
            outcomes["loaded"] += 1
        except rt.errors.InvalidGraphError:
            outcomes["refused"] += 1

    check()
    assert outcomes["refused"] > outcomes["loaded"] > 0  # most damage is caught; some is harmless


def test_saving_an_object_with_function_methods(tmp_path):
    class Model:
        def __init__(self):
            self.w = rt.Variable([[1.0], [2.0]], name="w")

        @rt.function(input_signature=[rt.TensorSpec([None, 2], rt.float32)])
        def predict(self, x):
            return x @ self.w

        @rt.function
        def train(self, x, lr):
            self.w.assign_sub(lr * rt.transpose(x)[:, :1])
            return self.w.read_value()

    m = Model()
    m.predict(rt.constant([[1.0, 1.0]]))
    m.train(rt.constant([[1.0, 1.0]]), 0.5)
    saved.save(m, str(tmp_path / "model"))
    loaded = saved.load(str(tmp_path / "model"))
    assert loaded.signatures == {}  # two functions: none is the default
    assert loaded.predict(rt.constant([[1.0, 1.0]])).numpy().tolist() == [[2.0]]
    loaded.train(rt.constant([[1.0, 1.0]]), 0.5)
    assert loaded.predict(rt.constant([[1.0, 1.0]])).numpy().tolist() == [[1.0]]
    with pytest.raises(TypeError, match="constructed with float value 0.5 in lr"):
        loaded.train(rt.constant([[1.0, 1.0]]), 0.25)


def test_nested_arguments_var_args_and_keywords(tmp_path):
    import collections
    Pair = collections.namedtuple("Pair", "a b")

    @rt.function
    def f(d, p, *rest, scale=2, **kw):
        return {"s": d["x"] * scale + p.a, "t": (p.b, rest[0]), "k": kw["z"]}

    args = ({"x": rt.constant([1.0, 2.0])}, Pair(rt.constant(1.0), rt.constant(3)), rt.constant(5))
    want = f(*args, scale=3, z=rt.constant(4.0))
    saved.save(f, str(tmp_path / "f"))
    loaded = saved.load(str(tmp_path / "f"))
    got = loaded.f(*args, scale=3, z=rt.constant(4.0))
    assert sorted(got) == ["k", "s", "t"] and isinstance(got["t"], tuple)
    for a, b in zip(rt.nest.flatten(got), rt.nest.flatten(want)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(TypeError, match="constructed with int value 3 in scale"):
        loaded.f(*args, scale=4, z=rt.constant(4.0))


def test_saved_files_honour_the_umask(tmp_path):
    import stat
    def double(x):
        return x * 2.0

    f = rt.function(double, input_signature=[rt.TensorSpec([], rt.float32)])
    old = os.umask(0o022)
    try:
        rt.saved.save(f, str(tmp_path / "a"))
        os.umask(0o077)
        rt.saved.save(f, str(tmp_path / "b"))
    finally:
        os.umask(old)
    for name in os.listdir(tmp_path / "a"):
        assert stat.S_IMODE(os.stat(tmp_path / "a" / name).st_mode) == 0o644, name
    for name in os.listdir(tmp_path / "b"):
        assert stat.S_IMODE(os.stat(tmp_path / "b" / name).st_mode) == 0o600, name
