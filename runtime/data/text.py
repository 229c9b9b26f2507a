"""`rt.data.TextLineDataset`: the lines of text files, as `tf.data.TextLineDataset`.

The files are read when the dataset is iterated (each iteration reads them anew), on the
host through `from_generator`'s host calls: eagerly and inside an `rt.function` on the
numpy backend (not under `jit_compile`). The helpers here (file names, opening a plain or
compressed file) are shared with the CSV reader (csv.py)."""
from __future__ import annotations

import gzip
import io
import zlib

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape, TensorSpec
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from .sources import Generator


def filename_list(filenames, what: str) -> list:
    """`filenames` (a string, a list of them, or an eager string tensor) as a list of str."""
    if isinstance(filenames, Tensor):
        filenames = filenames.numpy()
    if isinstance(filenames, np.ndarray):
        filenames = filenames.reshape(-1).tolist()
    if isinstance(filenames, (str, bytes)) or hasattr(filenames, "__fspath__"):
        filenames = [filenames]
    out = []
    for f in filenames:
        if isinstance(f, bytes):
            f = f.decode()
        if hasattr(f, "__fspath__"):
            f = f.__fspath__()
        if not isinstance(f, str):
            raise TypeError(f"{what}: filenames must be strings, got {f!r}")
        out.append(f)
    return out


def compression(compression_type, what: str) -> str:
    """The compression type, "" (none), "GZIP" or "ZLIB"."""
    if isinstance(compression_type, Tensor):
        compression_type = compression_type.numpy()
    if isinstance(compression_type, bytes):
        compression_type = compression_type.decode()
    c = (compression_type or "").upper()
    if c not in ("", "GZIP", "ZLIB"):
        raise ValueError(f"{what}: compression_type must be None, '', 'GZIP' or 'ZLIB', got "
                         f"{compression_type!r}")
    return c


def read_bytes(filename: str, kind: str) -> bytes:
    """The bytes of a file, decompressed as `kind` says."""
    try:
        if kind == "GZIP":
            with gzip.open(filename, "rb") as f:
                return f.read()
        with open(filename, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise InvalidArgumentError(f"{filename}; No such file or directory") from None
    except (OSError, EOFError) as e:
        raise InvalidArgumentError(f"{filename}: {e}") from None
    if kind == "ZLIB":
        try:
            return zlib.decompress(data)
        except zlib.error as e:
            raise InvalidArgumentError(f"{filename}: {e}") from None
    return data


def lines_of(data: bytes):
    """The lines of `data` without their line ends ("\\n", or "\\r\\n"), as TensorFlow's
    line reader gives them (no empty last line after a final newline)."""
    for line in io.BytesIO(data):
        if line.endswith(b"\n"):
            line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
        yield line


class HostFileDataset(Generator):
    """A dataset of records read from files on the host (host calls, as from_generator)."""

    def _init(self, epoch):
        state = super()._init(epoch)
        state[0].set_shape(TensorShape([]))     # (a scalar handle, kept so in loops)
        return state


class TextLineDataset(HostFileDataset):
    """The lines of one or more text files, as `tf.data.TextLineDataset`: string scalars
    without their line ends, file after file. `compression_type` is None or "" (plain),
    "GZIP" or "ZLIB". Its cardinality is unknown (-2) until read, as TensorFlow's.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("first\\nsecond\\n")
    >>> list(rt.data.TextLineDataset(path).as_numpy_iterator())
    [b'first', b'second']
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        files = filename_list(filenames, "TextLineDataset")
        kind = compression(compression_type, "TextLineDataset")

        def lines():
            for f in files:
                yield from lines_of(read_bytes(f, kind))
        super().__init__(lines, None, None, None, TensorSpec(TensorShape([]), dtypes.string))

    def __repr__(self):
        return f"<TextLineDataset element_spec={self._spec}>"
