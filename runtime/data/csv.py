"""CSV files as datasets: `rt.data.experimental.CsvDataset` (one tuple of scalars per
record) and `rt.data.experimental.make_csv_dataset` (batches of a dict of columns), as
TensorFlow's. Records are parsed on the host when the dataset is iterated (RFC 4180
quoting: a field in double quotes may hold the delimiter, a newline and "" for a quote);
an empty field, or one equal to `na_value`, takes its column's default."""
from __future__ import annotations

import csv
import glob
import io

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape, TensorSpec
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops.core import convert_to_tensor
from .text import HostFileDataset, compression, filename_list, read_bytes

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _column(default, i):
    """(dtype, default value or None for a required column) of record_defaults[i]."""
    if isinstance(default, dtypes.DType) or (isinstance(default, type) and
                                             issubclass(default, np.generic)):
        dtype, value = dtypes.as_dtype(default), None
    else:
        t = default if isinstance(default, Tensor) else convert_to_tensor(default)
        v = np.asarray(t.numpy())
        if v.size > 1:
            raise ValueError(f"CsvDataset: record_defaults[{i}] must hold one value or none, "
                             f"got {default!r}")
        dtype = t.dtype
        value = None if v.size == 0 else v.reshape(-1)[0]
    if dtype not in _CSV_TYPES:
        raise TypeError(f"CsvDataset: record_defaults[{i}] must be of float32, float64, "
                        f"int32, int64 or string, got {dtype.name}")
    return dtype, value


def _parse(field: str, dtype, what: str):
    try:
        if dtype is dtypes.string:
            return field.encode()
        if dtype.is_integer:
            v = int(field)
            info = np.iinfo(dtype.np_dtype)
            if not info.min <= v <= info.max:
                raise ValueError(field)
            return v
        return float(field)
    except ValueError:
        raise InvalidArgumentError(f"{what}: field {field!r} is not a valid "
                                   f"{dtype.name}") from None


def records(filename: str, kind: str, header: bool, delim: str, quotes: bool):
    """The records (lists of field strings) of one CSV file."""
    text = read_bytes(filename, kind).decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim,
                        quoting=csv.QUOTE_MINIMAL if quotes else csv.QUOTE_NONE,
                        strict=quotes)
    # (parsed whole before the first yield, as the text is read whole: a generator left
    # suspended inside the `try` would meet `csv.Error` at interpreter exit, when the
    # module's globals are gone)
    try:
        rows = [row for k, row in enumerate(reader) if row and not (k == 0 and header)]
    except csv.Error as e:
        raise InvalidArgumentError(f"{filename}: {e}") from None
    yield from rows


class CsvDataset(HostFileDataset):
    """The records of CSV files, as `tf.data.experimental.CsvDataset`: each a tuple of
    scalars, one per column of `record_defaults` (a dtype, or an empty tensor, for a
    required column; a value for an optional one, which an empty field or `na_value`
    takes). `select_cols` (or `exclude_cols`) picks the columns read, in file order;
    `header` skips each file's first line.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write('1,"a, b",2.5\\n2,,\\n')
    >>> ds = rt.data.experimental.CsvDataset(path, [rt.int32, "?", [0.0]])
    >>> [(int(a), s.decode(), float(x)) for a, s, x in ds.as_numpy_iterator()]
    [(1, 'a, b', 2.5), (2, '?', 0.0)]
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        files = filename_list(filenames, "CsvDataset")
        kind = compression(compression_type, "CsvDataset")
        columns = [_column(d, i) for i, d in enumerate(record_defaults)]
        if not columns:
            raise ValueError("CsvDataset: record_defaults must not be empty")
        if select_cols is not None and exclude_cols is not None:
            raise InvalidArgumentError("CsvDataset: give select_cols or exclude_cols, not both")
        picks = None
        if select_cols is not None:
            picks = [int(c) for c in select_cols]
            if picks != sorted(set(picks)) or (picks and picks[0] < 0):
                raise InvalidArgumentError(f"CsvDataset: select_cols must be increasing and "
                                           f"not negative, got {select_cols}")
            if len(picks) != len(columns):
                raise ValueError(f"CsvDataset: {len(picks)} select_cols but "
                                 f"{len(columns)} record_defaults")
        excluded = set(int(c) for c in exclude_cols) if exclude_cols is not None else None
        if len(field_delim) != 1:
            raise InvalidArgumentError(f"CsvDataset: field_delim must be one character, got "
                                       f"{field_delim!r}")
        delim, quotes, na = field_delim, bool(use_quote_delim), na_value

        def values():
            for f in files:
                for row in records(f, kind, bool(header), delim, quotes):
                    if picks is not None:
                        if len(row) <= picks[-1]:
                            raise InvalidArgumentError(
                                f"{f}: a record has {len(row)} fields, fewer than select_cols "
                                f"needs ({picks[-1] + 1})")
                        row = [row[c] for c in picks]
                    elif excluded is not None:
                        row = [v for c, v in enumerate(row) if c not in excluded]
                    if len(row) != len(columns):
                        raise InvalidArgumentError(
                            f"{f}: expected {len(columns)} fields but got {len(row)} in the "
                            f"record {delim.join(row)!r}")
                    out = []
                    for c, (field, (dtype, default)) in enumerate(zip(row, columns)):
                        if field == "" or field == na:
                            if default is None:
                                raise InvalidArgumentError(
                                    f"{f}: field {c} is required but missing in the record "
                                    f"{delim.join(row)!r}")
                            out.append(default)
                        else:
                            out.append(_parse(field, dtype, f))
                    yield tuple(out)
        super().__init__(values, None, None, None,
                         tuple(TensorSpec(TensorShape([]), d) for d, _ in columns))

    def __repr__(self):
        return f"<CsvDataset element_spec={self._spec}>"


def _infer(value: str, previous):
    """The narrowest of int32, int64, float32, float64, string holding `value` and the
    column's values before it (TensorFlow's make_csv_dataset inference)."""
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]

    def fits(dtype):
        try:
            if dtype.is_integer:
                v = int(value)
                info = np.iinfo(dtype.np_dtype)
                return info.min <= v <= info.max
            if dtype is dtypes.string:
                return True
            v = float(value)
            return not np.isfinite(v) or abs(v) <= np.finfo(dtype.np_dtype).max
        except ValueError:
            return False
    start = order.index(previous) if previous is not None else 0
    for dtype in order[start:]:
        if fits(dtype):
            return dtype
    return dtypes.string


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False):
    """Batches of CSV records as a dict {column name: a [batch] tensor} (or `(features,
    label)` with `label_name`), as `tf.data.experimental.make_csv_dataset`: the files that
    `file_pattern` (a glob or a list of them) matches, in order, column names from the
    header unless given, column types inferred from the first `num_rows_for_inference`
    records unless `column_defaults` gives them (missing values: 0 or ""), repeated
    `num_epochs` times (None: forever; then the last smaller batch is dropped), shuffled
    with a buffer of `shuffle_buffer_size` records when `shuffle`.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("x,y\\n1,2.5\\n3,4\\n")
    >>> ds = rt.data.experimental.make_csv_dataset(path, 2, num_epochs=1, shuffle=False)
    >>> {k: v.tolist() for k, v in next(ds.as_numpy_iterator()).items()}
    {'x': [1, 3], 'y': [2.5, 4.0]}
    """
    patterns = filename_list(file_pattern, "make_csv_dataset")
    files = []
    for p in patterns:
        files.extend(sorted(glob.glob(p)))
    if not files:
        raise ValueError(f"make_csv_dataset: no files match {file_pattern!r}")
    kind = compression(compression_type, "make_csv_dataset")
    if column_names is None:
        if not header:
            raise ValueError("make_csv_dataset: column_names are needed when the files have "
                             "no header")
        first = next(iter(records(files[0], kind, False, field_delim, use_quote_delim)), None)
        if first is None:
            raise ValueError(f"make_csv_dataset: {files[0]} has no header line")
        column_names = first
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError(f"make_csv_dataset: column names must be unique, got {column_names}")
    picks = list(range(len(column_names)))
    if select_columns is not None:
        picks = sorted(column_names.index(c) if isinstance(c, str) else int(c)
                       for c in select_columns)
    names = [column_names[i] for i in picks]
    if label_name is not None and label_name not in names:
        raise ValueError(f"make_csv_dataset: label_name {label_name!r} is not a column "
                         f"({names})")
    if column_defaults is None:
        types = [None] * len(column_names)
        seen = 0
        for f in files:
            for row in records(f, kind, bool(header), field_delim, use_quote_delim):
                if seen >= num_rows_for_inference:
                    break
                seen += 1
                for i, v in enumerate(row[:len(types)]):
                    if v not in ("", na_value):
                        types[i] = _infer(v, types[i])
        column_defaults = [[0 if (t or dtypes.string) is not dtypes.string else ""]
                           for t in types]
        column_defaults = [convert_to_tensor(d, dtype=t or dtypes.string)
                           for d, t in zip(column_defaults, types)]
        column_defaults = [column_defaults[i] for i in picks]
    ds = CsvDataset(files, column_defaults, compression_type=compression_type,
                    header=header, field_delim=field_delim, use_quote_delim=use_quote_delim,
                    na_value=na_value, select_cols=picks)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)

    def as_dict(*columns):
        features = dict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    return ds.map(as_dict)
