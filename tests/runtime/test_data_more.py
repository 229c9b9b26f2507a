"""rt.data's padded_batch, unbatch, shard, flat_map, interleave, TextLineDataset and the
CSV readers, against plain-Python reimplementations of tf.data's documented semantics:
eagerly, and iterated by a `for` inside rt.function; empty and unknown-length inputs."""
from __future__ import annotations

import csv
import gzip
import io

import numpy as np
import pytest

import runtime as rt


def eager(ds):
    return [_py(x) for x in ds.as_numpy_iterator()]


def _py(x):
    if isinstance(x, tuple):
        return tuple(_py(v) for v in x)
    if isinstance(x, dict):
        return {k: _py(v) for k, v in x.items()}
    return np.asarray(x).tolist()


def staged_list(ds):
    """The elements as a `for` inside rt.function sees them (collected in a TensorArray
    of their sum and count, comparable with the eager elements)."""
    @rt.function
    def run(d):
        total = rt.constant(0, rt.int64)
        count = rt.constant(0, rt.int64)
        for x in d:
            total += rt.cast(rt.reduce_sum(x), rt.int64)
            count += 1
        return total, count
    total, count = run(ds)
    return int(total), int(count)


def summary(elements):
    return int(sum(np.sum(np.asarray(e)) for e in elements)), len(elements)


# -- plain-Python reference semantics ------------------------------------------------------

def ref_padded_batch(elements, b, padded=None, value=0, drop=False):
    out = []
    for k in range(0, len(elements), b):
        group = elements[k:k + b]
        if drop and len(group) < b:
            break
        rank = np.ndim(group[0])
        dims = [max(np.shape(e)[j] for e in group) if padded is None or padded[j] in (None, -1)
                else padded[j] for j in range(rank)]
        arr = np.full([len(group)] + dims, value, dtype=np.asarray(group[0]).dtype)
        for i, e in enumerate(group):
            arr[(i,) + tuple(slice(0, s) for s in np.shape(e))] = e
        out.append(arr.tolist())
    return out


def ref_interleave(inputs, make, cycle, block):
    """tf.data's deterministic interleave, step by step."""
    inputs = list(inputs)
    slots = [None] * cycle
    out, ci, bi, nopen, pos = [], 0, 0, 0, 0
    while pos < len(inputs) or nopen:
        if slots[ci] is not None:
            try:
                out.append(next(slots[ci]))
                bi += 1
                if bi == block:
                    ci, bi = (ci + 1) % cycle, 0
            except StopIteration:
                slots[ci] = None
                nopen -= 1
                ci, bi = (ci + 1) % cycle, 0
        elif pos < len(inputs):
            slots[ci] = iter(make(inputs[pos]))
            pos += 1
            nopen += 1
        else:
            ci, bi = (ci + 1) % cycle, 0
    return out


# -- padded_batch ---------------------------------------------------------------------------

def ragged(n):
    """range(1, n) mapped to fill([x], x), as tf.data's padded_batch example."""
    return rt.data.Dataset.range(1, n, dtype=rt.int32).map(lambda x: rt.fill([x], x))


@pytest.mark.parametrize("n,b,drop", [(5, 2, False), (5, 2, True), (4, 3, False), (1, 2, False),
                                      (1, 2, True), (7, 3, True)])
def test_padded_batch_matches_reference(n, b, drop):
    elements = [[x] * x for x in range(1, n)]
    want = ref_padded_batch(elements, b, drop=drop)
    ds = ragged(n).padded_batch(b, drop_remainder=drop)
    assert eager(ds) == want
    assert staged_list(ds) == summary(want)
    assert int(ds.cardinality()) == (len(elements) // b if drop else -(-len(elements) // b))
    assert ds.element_spec.shape.as_list() == [b if drop else None, None]


def test_padded_batch_shapes_and_values():
    elements = [[x] * x for x in range(1, 5)]
    ds = ragged(5).padded_batch(2, padded_shapes=[5], padding_values=-1)
    assert eager(ds) == ref_padded_batch(elements, 2, padded=[5], value=-1)
    assert ds.element_spec.shape.as_list() == [None, 5]


def test_padded_batch_nest_of_components():
    ds = ragged(4).map(lambda x: (x, rt.cast(x, rt.float32) * 0.5, {"s": rt.constant("a")}))
    got = eager(ds.padded_batch(2, padding_values=(-1, 9.0, {"s": "z"})))
    lens = [[1], [2], [3]]
    assert got[0][0] == ref_padded_batch([[1], [2, 2]], 2, value=-1)[0]
    assert got[0][1] == [[0.5, 9.0], [1.0, 1.0]]
    assert got[1][2]["s"] == [b"a"] and len(got) == 2 and len(lens) == 3


def test_padded_batch_too_small_padded_shape_fails():
    with pytest.raises(Exception):
        eager(ragged(5).padded_batch(2, padded_shapes=[2]))


def test_padded_batch_empty_and_unknown_length():
    assert eager(ragged(1).padded_batch(3)) == []
    assert int(ragged(1).padded_batch(3).cardinality()) == 0
    kept = rt.data.Dataset.range(1, 8, dtype=rt.int32).filter(lambda x: x % 2 == 1).map(
        lambda x: rt.fill([x], x))
    want = ref_padded_batch([[x] * x for x in range(1, 8) if x % 2], 2)
    assert eager(kept.padded_batch(2)) == want
    assert int(kept.padded_batch(2).cardinality()) == rt.data.UNKNOWN_CARDINALITY


# -- unbatch ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n,b,drop", [(7, 3, False), (7, 3, True), (0, 2, False), (6, 2, True)])
def test_unbatch_inverts_batch(n, b, drop):
    ds = rt.data.Dataset.range(n).batch(b, drop_remainder=drop).unbatch()
    want = list(range(n // b * b if drop else n))
    assert eager(ds) == want
    assert staged_list(ds) == summary(want)
    # tf.data: known only when every batch has a static size
    assert int(ds.cardinality()) == (len(want) if drop else rt.data.UNKNOWN_CARDINALITY)
    assert ds.element_spec == rt.TensorSpec([], rt.int64)


def test_unbatch_tuple_and_filtered():
    xs = np.arange(12).reshape(6, 2)
    ds = rt.data.Dataset.from_tensor_slices((xs, xs * 10)).filter(
        lambda a, b: a[0] % 4 == 0).batch(2).unbatch()
    want = [(r.tolist(), (r * 10).tolist()) for r in xs if r[0] % 4 == 0]
    assert eager(ds) == want
    assert eager(rt.data.Dataset.from_tensors(np.arange(6).reshape(3, 2)).unbatch()) == \
        np.arange(6).reshape(3, 2).tolist()


# -- shard -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,k,i", [(10, 3, 0), (10, 3, 1), (10, 3, 2), (2, 5, 4), (0, 2, 1)])
def test_shard_matches_slicing(n, k, i):
    want = list(range(n))[i::k]
    ds = rt.data.Dataset.range(n).shard(k, i)
    assert eager(ds) == want
    assert int(ds.cardinality()) == len(want)
    assert staged_list(ds) == summary(want)
    unknown = rt.data.Dataset.range(n).filter(lambda x: x % 3 != 1).shard(k, i)
    want_u = [x for x in range(n) if x % 3 != 1][i::k]
    assert eager(unknown) == want_u
    assert staged_list(unknown) == summary(want_u)
    assert int(unknown.cardinality()) == rt.data.UNKNOWN_CARDINALITY


def test_shard_arguments():
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.data.Dataset.range(3).shard(2, 2)
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.data.Dataset.range(3).shard(0, 0)
    assert int(rt.data.Dataset.range(3).repeat().shard(2, 1).cardinality()) == -1


# -- flat_map and interleave ----------------------------------------------------------------------

def test_flat_map_docstring_example():
    ds = rt.data.Dataset.from_tensor_slices([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    got = eager(ds.flat_map(rt.data.Dataset.from_tensor_slices))
    assert got == [v for row in [[1, 2, 3], [4, 5, 6], [7, 8, 9]] for v in row]


@pytest.mark.parametrize("n", [0, 1, 5])
def test_flat_map_ranges_of_unknown_length(n):
    ds = rt.data.Dataset.range(n).filter(lambda x: x % 2 == 0).flat_map(
        lambda x: rt.data.Dataset.range(x))
    want = [v for x in range(n) if x % 2 == 0 for v in range(x)]
    assert eager(ds) == want
    assert staged_list(ds) == summary(want)
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY


@pytest.mark.parametrize("cycle,block", [(2, 4), (1, 2)] + [
    pytest.param(c, b, marks=pytest.mark.slow) for c, b in ((3, 1), (4, 3), (7, 1))])
def test_interleave_matches_tf_order(cycle, block):
    def make(x):
        return rt.data.Dataset.from_tensors(x).repeat(6)
    ds = rt.data.Dataset.range(1, 6).interleave(make, cycle_length=cycle, block_length=block)
    want = ref_interleave(range(1, 6), lambda x: [x] * 6, cycle, block)
    assert eager(ds) == want
    assert staged_list(ds) == summary(want)


def test_interleave_uneven_and_empty_children():
    ds = rt.data.Dataset.range(6).interleave(lambda x: rt.data.Dataset.range(x % 3),
                                             cycle_length=2, block_length=2)
    want = ref_interleave(range(6), lambda x: range(x % 3), 2, 2)
    assert eager(ds) == want
    assert eager(rt.data.Dataset.range(0).interleave(lambda x: rt.data.Dataset.range(x),
                                                     cycle_length=3)) == []


def test_interleave_tuple_elements_are_spread():
    ds = rt.data.Dataset.from_tensor_slices(([1, 2], [10, 20])).interleave(
        lambda a, b: rt.data.Dataset.from_tensor_slices(rt.stack([a, b])), cycle_length=2)
    assert eager(ds) == [1, 2, 10, 20]


def test_flat_map_must_return_a_dataset():
    with pytest.raises(TypeError, match="Dataset"):
        rt.data.Dataset.range(3).flat_map(lambda x: x)


# -- TextLineDataset ---------------------------------------------------------------------------

def ref_lines(text: bytes):
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]


@pytest.mark.parametrize("text", [b"a\nbb\n", b"", b"one", b"x\r\ny\n\nlast", b"\n\n"])
def test_text_lines_plain_and_gzip(tmp_path, text):
    plain = tmp_path / "a.txt"
    plain.write_bytes(text)
    packed = tmp_path / "a.txt.gz"
    with gzip.open(packed, "wb") as f:
        f.write(text)
    want = ref_lines(text)
    assert eager(rt.data.TextLineDataset(str(plain))) == want
    assert eager(rt.data.TextLineDataset(str(packed), compression_type="GZIP")) == want
    ds = rt.data.TextLineDataset([str(plain), str(plain)])
    assert eager(ds) == want + want
    assert ds.element_spec == rt.TensorSpec([], rt.string)
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY


def test_text_lines_inside_function(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("a\nbbb\ncc\n")

    @rt.function
    def count(ds):
        n = rt.constant(0)
        for line in ds:
            if line == "bbb":
                n += 10
            n += 1
        return n
    assert int(count(rt.data.TextLineDataset(str(path)))) == 13
    assert eager(rt.data.TextLineDataset(str(path)).batch(2)) == [[b"a", b"bbb"], [b"cc"]]


def test_text_missing_file_fails(tmp_path):
    with pytest.raises(rt.errors.InvalidArgumentError):
        eager(rt.data.TextLineDataset(str(tmp_path / "none.txt")))


# -- CSV -----------------------------------------------------------------------------------------

CSV_TEXT = 'id,name,score\n1,"Smith, J",2.5\n2,,\n3,"say ""hi""",NA\n4,plain,-1e3\n'


def ref_csv(text, defaults, header, na):
    rows = list(csv.reader(io.StringIO(text)))[1 if header else 0:]
    out = []
    for row in rows:
        out.append(tuple(d if (v == "" or v == na) else type(d)(v) if not isinstance(d, bytes)
                         else v.encode() for v, d in zip(row, defaults)))
    return out


@pytest.mark.parametrize("compressed", [False, True])
def test_csv_dataset_quotes_missing_values_header(tmp_path, compressed):
    path = tmp_path / ("a.csv.gz" if compressed else "a.csv")
    data = CSV_TEXT.encode()
    path.write_bytes(gzip.compress(data) if compressed else data)
    ds = rt.data.experimental.CsvDataset(str(path), [rt.int64, [b"?"], [0.0]], header=True,
                                         na_value="NA",
                                         compression_type="GZIP" if compressed else None)
    want = ref_csv(CSV_TEXT, [0, b"?", 0.0], True, "NA")
    assert [tuple(r) for r in eager(ds)] == [tuple(r) for r in want]
    assert [s.dtype for s in ds.element_spec] == [rt.int64, rt.string, rt.float32]
    sel = rt.data.experimental.CsvDataset(str(path), [[0], [0.0]], header=True,
                                          select_cols=[0, 2], na_value="NA",
                                          compression_type="GZIP" if compressed else None)
    assert eager(sel) == [(r[0], r[2]) for r in want]


def test_csv_required_field_and_field_count(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("1,2\n3,\n")
    with pytest.raises(rt.errors.InvalidArgumentError):
        eager(rt.data.experimental.CsvDataset(str(path), [rt.int32, rt.int32]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        eager(rt.data.experimental.CsvDataset(str(path), [rt.int32, [0], [0]]))
    assert eager(rt.data.experimental.CsvDataset(str(path), [rt.int32, [7]], field_delim=",")) \
        == [(1, 2), (3, 7)]


def test_csv_inside_function(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("1,2.5\n2,3.5\n")

    @rt.function
    def total(ds):
        s = rt.constant(0.0)
        for a, b in ds:
            s += rt.cast(a, rt.float32) * b
        return s
    assert float(total(rt.data.experimental.CsvDataset(str(path), [[0], [0.0]]))) == 9.5


def test_make_csv_dataset(tmp_path):
    (tmp_path / "a.csv").write_text("x,y,s\n1,2.5,a\n3,,b\n5,6,\n")
    (tmp_path / "b.csv").write_text("x,y,s\n7,8,c\n")
    ds = rt.data.experimental.make_csv_dataset(str(tmp_path / "*.csv"), 3, num_epochs=1,
                                               shuffle=False, label_name="x")
    got = eager(ds)
    assert got == [({"y": [2.5, 0.0, 6.0], "s": [b"a", b"b", b""]}, [1, 3, 5]),
                   ({"y": [8.0], "s": [b"c"]}, [7])]
    features, label = ds.element_spec
    assert label.dtype == rt.int32 and features["y"].dtype == rt.float32
    assert features["s"].dtype == rt.string and list(features) == ["y", "s"]
    forever = rt.data.experimental.make_csv_dataset(str(tmp_path / "a.csv"), 2, shuffle=False)
    assert forever.element_spec["x"].shape.as_list() == [2]
    assert [b["x"] for b in eager(forever.take(3))] == [[1, 3], [5, 1], [3, 5]]
    shuffled = rt.data.experimental.make_csv_dataset(str(tmp_path / "*.csv"), 4, num_epochs=1,
                                                     shuffle_seed=3)
    assert sorted(eager(shuffled)[0]["x"]) == [1, 3, 5, 7]
