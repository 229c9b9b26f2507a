"""The checkpoint files: writing them, and reading them as a stranger may have made them.

A checkpoint at the prefix `P` (what `Checkpoint.save` returns, e.g. "ckpts/ckpt-3") is
two files beside each other (docs/checkpoints.md describes them):

    P.index                      JSON: {"format", "version", "values": {key: array name},
                                        "arrays": {array name: {"dtype", "shape"}}}
    P.data-00000-of-00001        a numpy .npz (zip of .npy members), never pickled

and a directory's `checkpoint` file (JSON) names its latest checkpoint and those kept.
Reading runs no code: the JSON is parsed with limits, the arrays are read with
`rt.saved`'s reader (regular files only, no symbolic link followed, each .npy header
checked against the dtype and shape the index declares before a byte is unpacked, no
object arrays, a byte budget), and every field is checked.
"""
from __future__ import annotations

import json
import os
import re
import tempfile

import numpy as np

from ..saved import files as saved_files
from ..saved import format as fmt
from ..saved.format import FormatError, Reader

FORMAT = "autograph-rt.checkpoint"
STATE_FORMAT = "autograph-rt.checkpoint-state"
VERSION = 1
INDEX_SUFFIX = ".index"
DATA_SUFFIX = ".data-00000-of-00001"
STATE_NAME = "checkpoint"
MAX_STATE_BYTES = 1 << 20
MAX_VALUES = 1 << 20
_ARRAY_NAME = re.compile(r"a[0-9]{1,9}\Z")

__all__ = ["FORMAT", "VERSION", "FormatError", "write", "read", "read_state", "write_state"]


class NotFoundError(FileNotFoundError):
    """No checkpoint at the path given (TensorFlow's `NotFoundError`)."""


def write(prefix: str, values: dict) -> None:
    """Writes `values` ({key: numpy array}) as the checkpoint `prefix`: the data file
    first, then the index, each atomically (a reader never sees half a checkpoint)."""
    arrays, table, names = {}, {}, {}
    for i, (key, value) in enumerate(values.items()):
        name = f"a{i}"
        value = np.array(value, order="C")
        if value.dtype.kind not in "biuf" or value.dtype.itemsize > 8:
            raise TypeError(f"cannot checkpoint {key!r}: a {value.dtype} value (checkpoints "
                            "hold numeric and bool Variables)")
        arrays[name] = value
        table[name] = {"dtype": _dtype_name(value.dtype), "shape": list(value.shape)}
        names[key] = name
    doc = {"format": FORMAT, "version": VERSION,
           "about": "an rt.train.Checkpoint: values by object path; arrays in the data file "
                    "(.npz, never pickled); docs/checkpoints.md",
           "values": names, "arrays": table}
    directory = os.path.dirname(prefix) or "."
    os.makedirs(directory, exist_ok=True)
    _write_atomic(prefix + DATA_SUFFIX, lambda f: np.savez(f, **arrays))
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    _write_atomic(prefix + INDEX_SUFFIX, lambda f: f.write(text.encode("utf-8")))


def _dtype_name(dtype: np.dtype) -> str:
    return "bool" if dtype == np.bool_ else dtype.name


def read(prefix: str, max_bytes: int = saved_files.DEFAULT_MAX_BYTES) -> dict:
    """{key: numpy array} of the checkpoint `prefix`, checked field by field.

    Raises:
      NotFoundError: no `prefix.index` file.
      FormatError: a file that is not a checkpoint of this format, or is damaged.
    """
    if not os.path.lexists(prefix + INDEX_SUFFIX):
        raise NotFoundError(f"no checkpoint at {fmt.escape(prefix)!r}: {fmt.escape(prefix)}"
                            f"{INDEX_SUFFIX} does not exist (give the path Checkpoint.save "
                            "returned, or rt.train.latest_checkpoint(directory))")
    files = _Files(prefix)
    r = Reader(fmt.escape(prefix + INDEX_SUFFIX))
    try:
        doc = saved_files.read_json(r, files)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise r.fail("format", f"not an rt.train checkpoint (expected format {FORMAT!r})")
        version = r.get(doc, "version", int, "")
        if version != VERSION:
            raise r.fail("version", f"version {version}; this runtime reads version {VERSION}")
        names = r.get(doc, "values", dict, "")
        table = r.get(doc, "arrays", dict, "")
        if len(names) > MAX_VALUES or len(table) > MAX_VALUES:
            raise r.fail("values", f"more than {MAX_VALUES} values")
        for name in table:
            if not _ARRAY_NAME.match(name):
                raise r.fail("arrays", f"an array name must be 'a' and digits, got {name!r}")
        arrays = saved_files.Arrays(r, files, table, max_bytes)
        arrays.path = fmt.escape(prefix + DATA_SUFFIX)
        try:
            out = {}
            for key, name in names.items():
                where = f"values.{key}"
                r.check(name, str, where)
                out[key] = arrays.get(name, where)
            return out
        finally:
            arrays.close()
    finally:
        files.close()


class _Files:
    """The checkpoint's two files under the names rt.saved's readers ask for."""

    def __init__(self, prefix: str):
        self.path = os.path.dirname(prefix) or "."
        self.base = os.path.basename(prefix)
        self.directory = saved_files.Directory(self.path)

    def open(self, name: str, limit: int):
        suffix = INDEX_SUFFIX if name == fmt.JSON_NAME else DATA_SUFFIX
        return self.directory.open(self.base + suffix, limit)

    def close(self):
        self.directory.close()


# -- the directory's state file ------------------------------------------------------------

def write_state(directory: str, latest: str, kept: list) -> None:
    """Writes `directory/checkpoint`: the latest checkpoint and those kept, by their names
    in the directory."""
    doc = {"format": STATE_FORMAT, "version": VERSION,
           "latest": os.path.basename(latest), "all": [os.path.basename(p) for p in kept]}
    os.makedirs(directory, exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    _write_atomic(os.path.join(directory, STATE_NAME), lambda f: f.write(text.encode("utf-8")))


def read_state(directory: str):
    """(latest prefix, [kept prefixes]) from `directory/checkpoint`, or None where there is
    no such file. Names are plain file names in the directory (no separator, no "..")."""
    if not os.path.lexists(os.path.join(directory, STATE_NAME)):
        return None
    d = saved_files.Directory(directory)
    r = Reader(fmt.escape(os.path.join(directory, STATE_NAME)))
    try:
        f, size = d.open(STATE_NAME, MAX_STATE_BYTES)
        with f:
            data = f.read(size + 1)
    finally:
        d.close()
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise r.fail("file", f"not valid JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != STATE_FORMAT:
        raise r.fail("format", f"not an rt.train checkpoint state (format {STATE_FORMAT!r})")
    latest = _plain_name(r, r.get(doc, "latest", str, ""), "latest")
    kept = [_plain_name(r, r.check(n, str, "all"), "all") for n in r.get(doc, "all", list, "")]
    return os.path.join(directory, latest), [os.path.join(directory, n) for n in kept]


def _plain_name(r: Reader, name: str, where: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise r.fail(where, f"{name!r} is not a checkpoint name in the directory")
    return name


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def remove(prefix: str) -> None:
    """Deletes the checkpoint `prefix`'s files (those that exist)."""
    for suffix in (INDEX_SUFFIX, DATA_SUFFIX):
        try:
            os.unlink(prefix + suffix)
        except FileNotFoundError:
            pass


def _write_atomic(target: str, write) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=".writing-")
    try:
        if hasattr(os, "fchmod"):
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
