"""Reading a saved directory's two files as a stranger may have made them: no symbolic
link followed, regular files only, reads bounded by the opened file's size, and
arrays.npz's members checked against the shapes the JSON declares (and a sane
compression ratio) before a byte is decompressed, all within a total budget
(`rt.saved.load(path, max_bytes=...)`; docs/architecture.md, "Reading saved files").
"""
from __future__ import annotations

import errno
import json
import os
import stat
import weakref
import zipfile

import numpy as np

from . import format as fmt
from .format import FormatError, Reader

_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
          | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
_LINK_ERRNOS = {errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", errno.ELOOP)}

DEFAULT_MAX_BYTES = 64 << 30     # all arrays of one load: real models fit, a bomb does not
MAX_RATIO = 100                  # uncompressed : compressed, for a member of over 1 MiB
NPY_HEADER = 65536               # the most a .npy header may add to its array's bytes
CHUNK = 1 << 20                  # bytes decompressed at a time


class Directory:
    """The saved directory, opened once; `open(name, limit)` gives one of its regular
    files (never through a link) and the file's size."""

    def __init__(self, path: str):
        self.path = path
        self.fd = None
        if os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY"):
            try:
                self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
            except OSError as e:
                raise FormatError(f"cannot load {fmt.escape(path)}: {e.strerror or e}") from None

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def open(self, name: str, limit: int):
        """(file object, size) of the regular file `name` of at most `limit` bytes."""
        shown = fmt.escape(os.path.join(self.path, name))
        try:
            if self.fd is not None:
                fd = os.open(name, _FLAGS, dir_fd=self.fd)
            else:  # no O_NOFOLLOW/dir_fd here (Windows): refuse a link seen just before
                full = os.path.join(self.path, name)
                if os.path.islink(full):
                    raise FormatError(f"cannot load {shown}: a symbolic link; a saved "
                                      "directory's files must be regular files in it")
                fd = os.open(full, _FLAGS)
        except OSError as e:
            if e.errno in _LINK_ERRNOS:
                raise FormatError(f"cannot load {shown}: a symbolic link; a saved directory's "
                                  "files must be regular files in it") from None
            raise FormatError(f"cannot load {shown}: {e.strerror or e}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise FormatError(f"cannot load {shown}: not a regular file (a FIFO, device or "
                                  "directory); a saved directory's files must be regular files")
            if st.st_size > limit:
                raise FormatError(f"cannot load {shown}: {st.st_size} bytes, more than the "
                                  f"{limit} allowed")
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            return os.fdopen(fd, "rb"), st.st_size
        except BaseException:
            os.close(fd)
            raise


def read_json(r: Reader, directory: Directory):
    f, size = directory.open(fmt.JSON_NAME, fmt.MAX_JSON_BYTES)
    try:
        with f:
            data = f.read(size + 1)
    except OSError as e:
        raise r.fail("file", e.strerror or str(e)) from None
    if len(data) > size:
        raise r.fail("file", "grew while being read")
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise r.fail("file", "nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        raise r.fail("file", f"not valid JSON (truncated or damaged?): {e}") from None


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


class Arrays:
    """arrays.npz, read member by member after checking each against the JSON's table;
    each array once while it is held (later references share it: eight Const nodes
    naming one member hold one array), all reads within `max_bytes`."""

    def __init__(self, r: Reader, directory: Directory, table: dict, max_bytes: int):
        self.r, self.directory, self.table = r, directory, {}
        self.path = fmt.escape(os.path.join(directory.path, fmt.ARRAYS_NAME))
        self.max_bytes, self.used = max_bytes, 0
        self._zip = self._file = None
        self._size = 0
        # key -> its array while anything holds it (a Const node does; a Variable keeps
        # its own copy, so its source is freed as loading goes on, as before)
        self._read = weakref.WeakValueDictionary()
        for key, entry in table.items():
            where = f"arrays.{fmt.escape(key)}"
            dt = r.dtype(r.get(entry, "dtype", str, where), where + ".dtype")
            if dt.is_string:
                raise r.fail(where + ".dtype", "string arrays are stored in the JSON, not the .npz")
            shape = r.shape(r.get(entry, "shape", list, where), where + ".shape")
            if not shape.is_fully_defined():
                raise r.fail(where + ".shape", "an array needs a fully known shape")
            self.table[key] = (dt.np_dtype, shape.as_tuple())

    def close(self):
        if self._zip is not None:
            self._zip.close()
        if self._file is not None:
            self._file.close()

    def fail(self, key, problem) -> FormatError:
        return FormatError(f"cannot load {self.path}: array {fmt.escape(key)!r}: {problem}")

    def get(self, key, where: str) -> np.ndarray:
        r = self.r
        if not isinstance(key, str) or key not in self.table:
            raise r.fail(where, f"refers to the array {fmt.escape(repr(key))}, which the arrays "
                                "table does not list")
        got = self._read.get(key)
        if got is not None:
            return got
        dtype, shape = self.table[key]
        nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if self.used + nbytes > self.max_bytes:
            raise self.fail(key, f"{nbytes} bytes would bring the arrays read to "
                                 f"{self.used + nbytes}, over the budget of {self.max_bytes} "
                                 "bytes (rt.saved.load(path, max_bytes=...))")
        try:
            if self._zip is None:
                self._open()
            a = self._member(key, dtype, shape, nbytes)
        except FormatError:
            raise
        except (OSError, zipfile.BadZipFile, KeyError, ValueError, EOFError, RuntimeError,
                NotImplementedError) as e:
            raise self.fail(key, f"{type(e).__name__}: {fmt.escape(str(e))}") from None
        self.used += nbytes
        self._read[key] = a
        return a

    def _open(self):
        limit = self.max_bytes + NPY_HEADER * (len(self.table) + 1) + (1 << 20)
        self._file, self._size = self.directory.open(fmt.ARRAYS_NAME, limit)
        # zipfile reads the whole central directory the end record declares: bound it
        # first (each of our members takes well under a KiB of it)
        end = _end_record(self._file)
        cd_limit = 65536 + 1024 * len(self.table)
        if end is not None and end[0] > cd_limit:
            raise FormatError(f"cannot load {self.path}: a zip directory of {end[0]} bytes for "
                              f"{len(self.table)} arrays")
        self._file.seek(0)
        self._zip = zipfile.ZipFile(self._file)

    def _member(self, key, dtype, shape, nbytes):
        info = self._zip.getinfo(key + ".npy")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise self.fail(key, f"compression method {info.compress_type}; expected stored "
                                 "or deflated")
        if info.file_size > nbytes + NPY_HEADER:  # (too few: found reading, as truncated)
            raise self.fail(key, f"{info.file_size} bytes unpacked, more than its declared "
                                 f"shape {shape} needs")
        if info.compress_size > self._size:
            raise self.fail(key, f"{info.compress_size} bytes packed, in a file of {self._size}")
        if info.file_size > (1 << 20) and info.file_size > MAX_RATIO * info.compress_size:
            raise self.fail(key, f"{info.file_size} bytes packed into {info.compress_size}: a "
                                 f"compression ratio over {MAX_RATIO} (a zip bomb?) is refused")
        with self._zip.open(info) as f:
            major, _ = np.lib.format.read_magic(f)
            read_header = {1: np.lib.format.read_array_header_1_0,
                           2: np.lib.format.read_array_header_2_0}.get(major)
            if read_header is None:
                raise ValueError(f"unsupported .npy version {major}")
            got_shape, fortran, got_dtype = read_header(f)
            if got_dtype != dtype or tuple(got_shape) != shape:
                raise self.fail(key, f"holds {fmt.escape(str(got_dtype))} "
                                     f"{fmt.escape(str(tuple(got_shape)))}, the JSON declares "
                                     f"{dtype} {shape}")
            order = "F" if fortran else "C"
            if info.compress_type == zipfile.ZIP_STORED:  # (what save writes) one read, no copy
                data = f.read(nbytes)
                if len(data) != nbytes:
                    raise self.fail(key, "truncated")
                return np.frombuffer(data, dtype=dtype).reshape(shape, order=order)
            out = np.empty(shape, dtype=dtype, order=order)
            view = memoryview(out.reshape(-1, order="A").view(np.uint8))
            pos = 0
            while pos < nbytes:  # decompressed as a stream, never past the array's bytes
                n = f.readinto(view[pos:pos + CHUNK])
                if not n:
                    raise self.fail(key, "truncated")
                pos += n
        return out


def _end_record(f):
    """(central directory size, entries) from the zip's end record, or None when zipfile
    must judge (it then fails with its own message)."""
    try:
        end = zipfile._EndRecData(f)  # the zip module's own reader of the end record
    except (OSError, AttributeError, ValueError):
        return None
    if not end:
        return None
    return end[zipfile._ECD_SIZE], end[zipfile._ECD_ENTRIES_TOTAL]
