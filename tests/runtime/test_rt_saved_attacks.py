"""rt.saved.load on directories a stranger made: each hostile directory is built
here and loaded in a fresh process under a time limit and a memory cap; loading must end
fast in one InvalidGraphError naming the file and field, and the run-time guards must stop
what a loaded graph would otherwise run or allocate without end."""
import json
import os
import struct
import subprocess
import sys
import textwrap
import zlib

import numpy as np
import pytest

import runtime as rt
from rt_helpers import saved_doc as _doc, saved_node as _node
from rt_helpers import saved_nodes as _nodes, write_saved_doc as _write
from runtime import saved
from runtime.saved import schema
from runtime.saved.load import _attr_names

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEMORY_CAP = 1 << 30   # address space of the loading process (RLIMIT_AS)
TIME_LIMIT = 60        # seconds; what once hung or ran for minutes ends in well under one


def _load_in_subprocess(path, **kwargs):
    """Loads `path` in a fresh process capped at MEMORY_CAP bytes of address space and
    TIME_LIMIT seconds: ("ok" or the error's type, its message, seconds, peak bytes)."""
    code = textwrap.dedent(f"""
        import json, resource, sys, time, tracemalloc
        sys.path.insert(0, {REPO!r})
        import runtime as rt
        resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))
        tracemalloc.start()
        t = time.perf_counter()
        try:
            rt.saved.load({str(path)!r}, **{kwargs!r})
            out = ["ok", ""]
        except Exception as e:
            out = [type(e).__name__, str(e)]
        out += [time.perf_counter() - t, tracemalloc.get_traced_memory()[1]]
        print(json.dumps(out))
    """)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=TIME_LIMIT, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo") or sys.platform == "win32",
                                reason="needs POSIX links, FIFOs and resource limits")


@pytest.fixture
def small(tmp_path):
    """A saved function with an array in arrays.npz ("a0") and an inline constant."""
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def f(x):
        y = x * 2.0 + rt.constant([1.0, 2.0, 3.0])[0]
        return y + rt.reduce_min(rt.constant(np.arange(100, dtype=np.float32)))

    path = str(tmp_path / "small")
    saved.save(f, path)
    return path


def _refused(path, match, **kwargs):
    with pytest.raises(rt.errors.InvalidGraphError, match=match) as e:
        saved.load(path, **kwargs)
    assert str(path) in str(e.value)
    return str(e.value)


# -- the files themselves -----------------------------------------------------------------

@posix_only
@pytest.mark.parametrize("name", ["saved.json", "arrays.npz"])
def test_a_link_to_dev_zero_is_refused(small, name):
    os.replace(os.path.join(small, name), os.path.join(small, name + ".moved"))
    os.symlink("/dev/zero", os.path.join(small, name))
    kind, message, seconds, peak = _load_in_subprocess(small)
    assert kind == "FormatError" and "symbolic link" in message and name in message
    assert seconds < 5 and peak < 64 << 20


@posix_only
@pytest.mark.parametrize("name", ["saved.json", "arrays.npz"])
def test_a_fifo_is_refused_without_waiting(small, name):
    os.unlink(os.path.join(small, name))
    os.mkfifo(os.path.join(small, name))  # nobody ever writes to it
    kind, message, seconds, _ = _load_in_subprocess(small)
    assert kind == "FormatError" and "not a regular file" in message and name in message
    assert seconds < 5


@posix_only
def test_a_link_to_an_npz_elsewhere_is_refused(small, tmp_path):
    other = str(tmp_path / "other")
    os.makedirs(other)
    np.savez(os.path.join(other, "secret.npz"), a0=np.full(100, 7.0, np.float32))
    os.unlink(os.path.join(small, "arrays.npz"))
    os.symlink(os.path.join(other, "secret.npz"), os.path.join(small, "arrays.npz"))
    _refused(small, "arrays.npz: a symbolic link")
    kind, message, _, _ = _load_in_subprocess(small)
    assert kind == "FormatError" and "symbolic link" in message


@posix_only
def test_a_linked_directory_entry_is_refused(small):
    os.unlink(os.path.join(small, "saved.json"))
    os.mkdir(os.path.join(small, "saved.json"))
    _refused(small, "saved.json: not a regular file")


# -- arrays: budget, each read once, compression --------------------------------------------

N_BOMB = 1 << 27           # float32: 512 MiB unpacked
N_REFS = 8


def _deflated_zeros(header: bytes, n_zeros: int) -> bytes:
    """A raw deflate stream of `header` and `n_zeros` zero bytes, made in milliseconds:
    after a full flush the compressor forgets its window, so each identical chunk of zeros
    compresses to identical bytes, repeated."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    chunk = 1 << 20
    piece = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    assert n_zeros % chunk == 0
    return head + piece * (n_zeros // chunk) + c.flush(zlib.Z_FINISH)


def _zip_one_member(path, name: str, data: bytes, crc: int, size: int):
    """A zip file with one deflated member, written by hand (zipfile would deflate it)."""
    n = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), size,
                        len(n), 0) + n
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data),
                          size, len(n), 0, 0, 0, 0, 0, 0) + n
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(data), 0)
    with open(path, "wb") as f:
        f.write(local + data + central + end)


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory):
    """A 0.5 MB directory: one deflated member of 512 MiB referenced by 8 Const nodes."""
    path = str(tmp_path_factory.mktemp("bomb") / "bomb")
    consts = [rt.constant(np.full(100, k, np.float32)) for k in range(N_REFS)]

    @rt.function(input_signature=[rt.TensorSpec([100], rt.float32)])
    def f(x):
        for c in consts:
            x = x + c
        return x

    saved.save(f, path)
    text = json.dumps(_doc(path)).replace("[100]", f"[{N_BOMB}]")
    doc = json.loads(text)
    for n in _nodes(doc):
        if n["op"] == "Const" and n["attrs"]["value"]["kind"] == "array":
            n["attrs"]["value"]["key"] = "a0"
    _write(path, doc)
    header = b"\x93NUMPY\x01\x00" + b"v\x00"
    text = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % N_BOMB
    text += " " * (118 - len(text) - 1) + "\n"
    header += text.encode()
    assert len(header) == 128
    crc = zlib.crc32(header)
    zeros = bytes(1 << 24)
    for _ in range(N_BOMB * 4 // len(zeros)):
        crc = zlib.crc32(zeros, crc)
    data = _deflated_zeros(header, N_BOMB * 4)
    _zip_one_member(os.path.join(path, "arrays.npz"), "a0.npy", data, crc, len(header) + N_BOMB * 4)
    return path


@posix_only
def test_a_zip_bomb_is_refused_fast_and_small(zip_bomb):
    size = sum(os.path.getsize(os.path.join(zip_bomb, n)) for n in os.listdir(zip_bomb))
    assert size < 1 << 20
    kind, message, seconds, peak = _load_in_subprocess(zip_bomb)
    assert kind == "FormatError" and "compression ratio" in message and "'a0'" in message
    assert seconds < 2, seconds
    assert peak < 16 << 20, peak
    print(f"zip bomb ({size} bytes on disk, 512 MiB unpacked, {N_REFS} references): refused "
          f"in {seconds * 1e3:.1f} ms, peak traced memory {peak / 1e6:.2f} MB")


def _shared_array_dir(tmp_path, n):
    """Eight Const nodes that all name one stored (not compressed) array of n floats."""
    consts = [rt.constant(np.full(n, k, np.float32)) for k in range(N_REFS)]

    @rt.function(input_signature=[rt.TensorSpec([n], rt.float32)])
    def f(x):
        for c in consts:
            x = x + c
        return x

    path = str(tmp_path / "shared")
    saved.save(f, path)
    doc = _doc(path)
    for node in _nodes(doc):
        if node["op"] == "Const" and node["attrs"]["value"]["kind"] == "array":
            node["attrs"]["value"]["key"] = "a0"
    doc["arrays"] = {"a0": doc["arrays"]["a0"]}
    _write(path, doc)
    np.savez(os.path.join(path, "arrays.npz"), a0=np.zeros(n, np.float32))
    return path


@posix_only
def test_each_array_is_read_once_however_many_nodes_use_it(tmp_path):
    n = 4 << 20  # 16 MiB
    path = _shared_array_dir(tmp_path, n)
    kind, _, _, peak = _load_in_subprocess(path)
    assert kind == "ok"
    assert peak < 3 * 4 * n, peak  # once, with the read's transient copy (8: 128 MiB)
    loaded = saved.load(path)
    graph = loaded.signatures["serving_default"].graph
    values = [op.attrs["value"] for op in graph.operations if op.opdef.constant
              and op.attrs["value"].size == n]
    assert len(values) == N_REFS and all(v is values[0] for v in values)
    x = np.ones(n, np.float32)
    np.testing.assert_array_equal(loaded.signatures["serving_default"](x).numpy(), x)


def test_a_deflated_npz_of_ordinary_arrays_loads(small):
    x = np.array([1.0, -2.0], np.float32)
    before = saved.load(small).f(x).numpy()
    with np.load(os.path.join(small, "arrays.npz")) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez_compressed(os.path.join(small, "arrays.npz"), **arrays)
    np.testing.assert_array_equal(saved.load(small).f(x).numpy(), before)


def test_the_budget_of_array_bytes_is_the_callers(tmp_path):
    path = _shared_array_dir(tmp_path, 1 << 16)
    saved.load(path, max_bytes=1 << 18)  # one array of 256 KiB, read once: fits
    _refused(path, r"array 'a0'.*over the budget of 1000 bytes.*max_bytes", max_bytes=1000)
    with pytest.raises(TypeError, match="max_bytes"):
        saved.load(path, max_bytes=-1)


def test_memory_error_while_loading_is_an_invalid_graph_error(small, monkeypatch):
    from runtime.saved import files

    class Exhausted:
        @staticmethod
        def loads(*a, **k):
            raise MemoryError

    monkeypatch.setattr(files, "json", Exhausted)
    _refused(small, "out of memory while loading")


def test_inline_numbers_hold_at_most_64(small):
    doc = _doc(small)
    node = next(n for n in _nodes(doc) if n["attrs"].get("value", {}).get("kind") == "numbers")
    node["attrs"]["value"] = {"kind": "numbers", "dtype": "float32", "shape": [1000],
                              "items": ["0x0p+0"] * 1000}
    _write(small, doc)
    _refused(small, r"attrs\.value\.items: 1000 numbers inline; at most 64")


# -- ops and attributes ---------------------------------------------------------------------

def test_py_function_is_never_loadable(small):
    doc = _doc(small)
    node = _node(doc, "Mul")
    node.update(op="EagerPyFunc", attrs={"func": {"kind": "none"},
                                         "tout": {"kind": "tuple", "items": []},
                                         "single": {"kind": "bool", "value": True}})
    _write(small, doc)
    _refused(small, r"\('mul'\)\.op: the op 'EagerPyFunc' cannot be loaded \(it calls Python\)")


def test_the_loadable_ops_are_an_explicit_list_with_typed_attributes():
    table = schema.registry()
    assert table["EagerPyFunc"] not in schema.ATTRS
    for opdef, types in schema.ATTRS.items():
        assert table[opdef.name] is opdef
        assert set(types) == _attr_names(opdef), opdef.name
    # everything registered is listed, but for py_function
    assert {n for n, od in table.items() if od not in schema.ATTRS} == {"EagerPyFunc"}


@pytest.mark.parametrize("axis, shown", [
    ({"kind": "str", "value": "__import__('os')"}, "a string"),
    ({"kind": "bytes", "value": "AAAA"}, "bytes"),
    ({"kind": "numbers", "dtype": "int32", "shape": [1], "items": [0]},
     r"an array of int32, shape \(1,\)"),
    ({"kind": "float", "value": "0x1p+0"}, "a number"),
    ({"kind": "tuple", "items": [{"kind": "str", "value": "0"}]}, "a tuple of 1"),
])
def test_attributes_are_checked_against_their_types(small, axis, shown):
    doc = _doc(small)
    _node(doc, "Min")["attrs"]["axis"] = axis
    _write(small, doc)
    _refused(small, rf"attrs\.axis: Min\.axis must be null, an integer or a tuple of integers, "
                    rf"the file gives {shown}")


def test_text_only_where_the_op_takes_text(small):
    doc = _doc(small)
    _node(doc, "Min")["attrs"]["keepdims"] = {"kind": "str", "value": "True"}
    _write(small, doc)
    _refused(small, r"Min\.keepdims must be true/false, the file gives a string")


def test_no_attribute_value_is_written_into_generated_source():
    @rt.function
    def f(x):
        return rt.reduce_sum(x[1:3, ::2], axis=1) + rt.reduce_max(x, axis=(0, 1))

    x = np.arange(20.0).reshape(4, 5)
    np.testing.assert_allclose(f(x).numpy(), x[1:3, ::2].sum(axis=1) + x.max())
    source = f.get_concrete_function(rt.TensorSpec([4, 5], rt.float64))._compiled().source
    assert "sum(axis=c" in source and "max(axis=c" in source
    assert "1:3" not in source and "(0, 1)" not in source


# -- messages -------------------------------------------------------------------------------

def _printable(message):
    return all(c.isprintable() for c in message)


def test_control_characters_in_names_are_refused_and_escaped(small):
    doc = _doc(small)
    _node(doc, "Mul")["name"] = "x\x1b[2J\x1b[31mowned\n  File \"/etc/passwd\", line 1"
    _write(small, doc)
    message = _refused(small, "holds characters that are not printable")
    assert _printable(message) and "\\x1b[2J" in message and "\\n" in message


def test_control_characters_in_other_fields_never_reach_a_message_raw(small):
    doc = _doc(small)
    _node(doc, "Min")["op"] = "No\x1b]0;title\x07Such\nOp"
    _write(small, doc)
    message = _refused(small, "unknown op")
    assert _printable(message) and "\\x1b]0;title\\x07" in message


def test_locations_are_escaped_in_run_time_errors(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None], rt.int32)])
    def f(i):
        return rt.gather(rt.constant([1, 2, 3]), i)

    path = str(tmp_path / "loc")
    saved.save(f, path)
    doc = _doc(path)
    _node(doc, "GatherV2")["location"] = ["evil\x1b[31m.py", 1, "f\n  File \"x\""]
    _write(path, doc)
    loaded = saved.load(path)
    with pytest.raises(rt.errors.InvalidArgumentError) as e:
        loaded.f(np.array([7], np.int32))
    assert _printable(str(e.value).replace("\n", "")), str(e.value)
    assert "evil\\x1b[31m.py" in str(e.value) and 'f\\n  File "x"' in str(e.value)


def test_an_assertion_message_from_a_file_is_escaped(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def f(x):
        rt.debugging.assert_greater(x, 0.0, message="positive")
        return x

    path = str(tmp_path / "assert")
    saved.save(f, path)
    doc = _doc(path)
    _node(doc, "Assert")["attrs"]["message"] = {"kind": "str", "value": "\x1b[2Jfake\n  line"}
    _write(path, doc)
    loaded = saved.load(path)
    assert float(loaded.f(np.float32(1.0))) == 1.0
    with pytest.raises(rt.errors.InvalidArgumentError) as e:
        loaded.f(np.float32(-1.0))
    assert "\\x1b[2Jfake\\n  line" in str(e.value) and "\x1b" not in str(e.value)


# -- run-time guards ------------------------------------------------------------------------

def _saved(tmp_path, fn, *specs):
    f = rt.function(fn, input_signature=list(specs))
    path = str(tmp_path / fn.__name__)
    saved.save(f, path)
    return path


def forever(i):
    while i >= 0:  # (an int64 counting up: a stranger's while(True))
        i = i + 1
    return i


def test_a_loop_without_end_stops_at_the_iteration_limit(tmp_path):
    path = _saved(tmp_path, forever, rt.TensorSpec([], rt.int64))
    loaded = saved.load(path, max_loop_iterations=1000)
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=r"ran 1000 iterations.*max_loop_iterations") as e:
        loaded.forever(np.int64(0))
    assert "(While" in str(e.value) or "(StatelessWhile" in str(e.value)
    assert int(loaded.forever(np.int64(-1))) == -1  # within the limit: as before


def test_a_loop_without_end_stops_at_the_deadline(tmp_path):
    import time
    path = _saved(tmp_path, forever, rt.TensorSpec([], rt.int64))
    loaded = saved.load(path, deadline_seconds=0.2)
    t = time.perf_counter()
    with pytest.raises(rt.errors.InvalidArgumentError, match="deadline of 0.2 s"):
        loaded.forever(np.int64(0))
    assert time.perf_counter() - t < 5


def test_guarded_functions_run_only_on_their_own(tmp_path):
    path = _saved(tmp_path, forever, rt.TensorSpec([], rt.int64))
    loaded = saved.load(path, max_loop_iterations=10)

    @rt.function
    def outer(i):
        return loaded.forever(i)

    with pytest.raises(rt.errors.InvalidArgumentError, match="runs only when called on its own"):
        outer(np.int64(-1))


def fill_n(n):
    return rt.fill(rt.stack([n, n]), 1.0)


def arange_n(n):
    return rt.range(n)


def tile_n(n):
    return rt.tile(rt.ones([2, 2]), rt.stack([n, n]))


def broadcast_n(n):  # a computed shape: a Fill of the dims, then BroadcastLike
    return rt.broadcast_to(rt.ones([1, 1]), rt.stack([n, n]))


def pad_n(n):
    return rt.pad(rt.ones([1, 1]), rt.reshape(rt.stack([n, n, n, n]), [2, 2]))


@pytest.mark.parametrize("fn, what, n", [(fill_n, "Fill", 1 << 15), (arange_n, "Range", 1 << 21),
                                         (tile_n, "Tile", 1 << 15), (pad_n, "PadV2", 1 << 15),
                                         (broadcast_n, "Fill", 1 << 15)])
def test_computed_sizes_over_the_element_limit_are_refused(tmp_path, fn, what, n):
    path = _saved(tmp_path, fn, rt.TensorSpec([], rt.int32))
    loaded = saved.load(path, max_elements=1 << 20)
    f = getattr(loaded, fn.__name__)
    assert f(np.int32(3)).numpy().size <= 64  # small sizes: as before
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=rf"{what}.* elements, more than the 1048576.*max_elements"):
        f(np.int32(n))
    # without guards, a loaded function is a plain ConcreteFunction, as before
    assert not isinstance(saved.load(path).signatures["serving_default"], saved.GuardedFunction)


def test_one_hot_over_the_element_limit_is_refused(tmp_path):
    def one_hot(i):
        return rt.one_hot(i, 1 << 12)

    path = _saved(tmp_path, one_hot, rt.TensorSpec([None], rt.int32))
    loaded = saved.load(path, max_elements=1 << 20)
    assert loaded.one_hot(np.arange(3, dtype=np.int32)).shape == (3, 1 << 12)
    with pytest.raises(rt.errors.InvalidArgumentError, match="OneHot.*more than the 1048576"):
        loaded.one_hot(np.zeros(1 << 10, np.int32))


def test_a_range_with_a_nan_or_infinite_delta_is_refused(tmp_path, small):
    def ranged(d):
        return rt.range(0.0, 10.0, d)

    path = _saved(tmp_path, ranged, rt.TensorSpec([], rt.float32))
    loaded = saved.load(path)
    np.testing.assert_allclose(loaded.ranged(np.float32(2.5)).numpy(), [0, 2.5, 5, 7.5])
    for d in (np.nan, np.inf):
        with pytest.raises(rt.errors.InvalidArgumentError, match="finite"):
            loaded.ranged(np.float32(d))
    # a Range of constants with a NaN delta: refused while loading
    doc = _doc(path)
    consts = [n for n in _nodes(doc) if n["op"] == "Const"]
    for n in _nodes(doc):
        if n["op"] == "Range":
            delta = n["inputs"][2][0]
            _nodes(doc)[delta] = {**consts[0], "name": "nan_delta", "attrs": {
                "value": {"kind": "numbers", "dtype": "float32", "shape": [], "items": ["nan"]},
                "dtype": {"kind": "dtype", "value": "float32"}}, "inputs": []}
    _write(path, doc)
    _refused(path, "a Range of .*nan: each must be finite")
