"""`rt.summary`: TensorBoard summaries, as TensorFlow's `tf.summary`.

    writer = rt.summary.create_file_writer("logs/train")
    with writer.as_default(step=0):
        rt.summary.scalar("loss", loss)              # eagerly, or inside rt.function

The files are TensorBoard event files written by tensorboardX (`pip install
'autograph-rt[tensorboard]'`, or `pip install tensorboardX`), imported when the first
writer is made. TensorBoard opens them; its reader
(`tensorboard.backend.event_processing.event_accumulator.EventAccumulator`) finds a
scalar under `Scalars(tag)`, a histogram under `Histograms(tag)` (bucketed as
`tf.summary.histogram` buckets: `histogram_buckets` in runtime/ops/summary_ops.py) and
text under `Tensors(tag)`.

A summary call with no default writer, or while `record_if` is False, writes nothing
and returns False. Inside `rt.function` each call is an op with a side effect that runs,
in program order, every time the graph runs (not once at trace), through the default
writer of the moment it was traced, at the step's value when the graph runs (a Variable
step is read then; a Python number is fixed at trace, as TensorFlow's). With
`jit_compile=True` the write is a host callback. A function holding summaries cannot be
saved (it holds a live writer) or exported to ONNX.

The default writer, step and recording condition are per thread, as TensorFlow's.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
import weakref
from typing import Optional as _Optional

import numpy as np

from .core import dtypes
from .core.graph import current_graph as _current_graph
from .core.graph import current_name_scope as _current_name_scope
from .core.tensor import Tensor
from .errors import InvalidArgumentError
from .ops import math_ops
from .ops.core import constant, convert_to_tensor
from .ops.introspection_ops import get_static_value
from .ops.state_ops import Variable
from .ops.summary_ops import DEFAULT_BUCKET_COUNT
from .ops.summary_ops import histogram_buckets as _histogram_buckets
from .ops.summary_ops import write_summary as _write_summary

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "scalar",
           "histogram", "text", "record_if", "should_record_summaries", "flush",
           "experimental"]


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.recording = True


_state = _State()
_FILE_NUMBERS = itertools.count()


class SummaryWriter:
    """Writes TensorBoard event files into a directory (`rt.summary.create_file_writer`).

    `as_default()` makes it the writer `rt.summary.scalar` and the others write through;
    `flush()` writes what is queued to disk; `close()` flushes and closes the file.

    >>> import tempfile
    >>> writer = rt.summary.create_file_writer(tempfile.mkdtemp())  # doctest: +SKIP
    >>> with writer.as_default(step=1):                              # doctest: +SKIP
    ...     written = rt.summary.scalar("loss", 0.5)
    >>> bool(written)                                                # doctest: +SKIP
    True
    >>> writer.close()                                               # doctest: +SKIP
    """

    def __init__(self, logdir: str, max_queue: int = 10, flush_millis: int = 120000,
                 filename_suffix: str = ".v2"):
        try:
            from tensorboardX.event_file_writer import EventsWriter
            from tensorboardX.record_writer import directory_check
        except ImportError:
            raise ImportError("rt.summary writes TensorBoard files with tensorboardX: pip "
                              "install 'autograph-rt[tensorboard]' (or pip install "
                              "tensorboardX)") from None
        self.logdir = os.fspath(logdir)
        directory_check(self.logdir)
        # (tensorboardX's own queue is written by a thread, which its flush does not wait
        # for: the events are written here, in order, and flushed by count and by time.
        # The pid and a count keep two writers' files apart, as TensorFlow's names do.)
        unique = f".{os.getpid()}.{next(_FILE_NUMBERS)}{filename_suffix}"
        self._file = EventsWriter(os.path.join(self.logdir, "events"), unique)
        self._max_queue = max(1, int(max_queue))
        self._flush_seconds = flush_millis / 1000
        self._pending = 0
        self._last_flush = time.monotonic()
        self._lock = threading.Lock()
        self._closed = False
        # closes the file once: at close(), when the writer is collected, or at exit
        self._finalizer = weakref.finalize(self, self._file.close)

    def __repr__(self):
        return f"<rt.summary.SummaryWriter logdir={self.logdir!r}>"

    @property
    def closed(self) -> bool:
        return self._closed

    def set_as_default(self, step=None) -> None:
        """Makes this the default writer (and `step`, when given, the default step) for
        the rest of the thread, until another writer is set.

        >>> writer = rt.summary.create_noop_writer()
        >>> writer.set_as_default(step=3)
        >>> rt.summary.experimental.get_step()
        3
        >>> rt.summary.experimental.set_step(None)
        """
        self._check_open()
        _state.writer = self
        if step is not None:
            _state.step = step

    def as_default(self, step=None):
        """A context manager in which this is the default writer (and `step`, when given,
        the default step); leaving it flushes the writer and restores the former ones.

        >>> with rt.summary.create_noop_writer().as_default(step=2):
        ...     rt.summary.experimental.get_step()
        2
        """
        self._check_open()
        return _DefaultWriter(self, step)

    def init(self) -> None:
        """Accepted for TensorFlow's API: the file is made when the writer is."""

    def flush(self):
        """Writes the queued events to disk (inside `rt.function`: every time the graph
        runs, in program order)."""
        if _current_graph() is not None:
            return _flush_op(self)
        self._flush_now()
        return None

    def close(self) -> None:
        """Flushes and closes the event file; a closed writer cannot be made the default,
        and a graph that writes through it raises when it runs. Closing twice does
        nothing."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._finalizer()

    def _flush_now(self) -> None:
        with self._lock:
            if not self._closed:
                self._flush_locked()

    def _flush_locked(self) -> None:
        self._file.flush()
        self._pending = 0
        self._last_flush = time.monotonic()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def write_summary(self, kind: str, tag: str, step: int, data: np.ndarray,
                      description: str = "", buckets: int = DEFAULT_BUCKET_COUNT) -> None:
        """Writes one summary event (called by the WriteSummary op's kernel)."""
        if kind == "flush":
            self._flush_now()
            return
        from tensorboardX.proto.event_pb2 import Event
        summary = _summary_proto(kind, tag, data, description, buckets)
        with self._lock:
            if self._closed:
                raise InvalidArgumentError(f"cannot write the summary {tag!r}: {self!r} is "
                                           "closed")
            self._file.write_event(Event(wall_time=time.time(), step=step, summary=summary))
            self._pending += 1
            if self._pending >= self._max_queue or \
                    time.monotonic() - self._last_flush >= self._flush_seconds:
                self._flush_locked()


class _NoopWriter(SummaryWriter):
    """A writer that writes nothing (`rt.summary.create_noop_writer`)."""

    def __init__(self):
        self.logdir = None
        self._closed = False
        self._lock = threading.Lock()

    def __repr__(self):
        return "<rt.summary noop writer>"

    def set_as_default(self, step=None) -> None:
        if step is not None:
            _state.step = step

    def as_default(self, step=None):
        return _DefaultWriter(None, step, keep_writer=True)

    def flush(self):
        return None

    def close(self) -> None:
        self._closed = True

    def write_summary(self, *args, **kwargs) -> None:
        return None


class _DefaultWriter:
    def __init__(self, writer, step, keep_writer: bool = False):
        self._writer, self._step, self._keep = writer, step, keep_writer

    def __enter__(self):
        self._old = (_state.writer, _state.step)
        if not self._keep:
            _state.writer = self._writer
        if self._step is not None:
            _state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        if self._writer is not None and not self._writer.closed:
            self._writer.flush()
        _state.writer, _state.step = self._old
        return False


def _summary_proto(kind, tag, data, description, buckets):
    """The `Summary` protocol buffer (tensorboardX's classes) of one value."""
    from tensorboardX.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
    # (the plugin TensorBoard shows it with: a reader warns of a value without one)
    metadata = SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = {"scalar": "scalars", "histogram": "histograms",
                                        "text": "text"}[kind]
    if kind == "scalar":
        value = Summary.Value(tag=tag, simple_value=float(data), metadata=metadata)
    elif kind == "histogram":
        data = np.asarray(data, dtype=np.float64).reshape(-1)
        rows = _histogram_buckets(data, buckets)
        empty = data.size == 0
        hist = HistogramProto(min=0.0 if empty else float(np.min(data)),
                              max=0.0 if empty else float(np.max(data)),
                              num=float(data.size), sum=float(np.sum(data)),
                              sum_squares=float(np.sum(data * data)),
                              bucket_limit=rows[:, 1].tolist(), bucket=rows[:, 2].tolist())
        value = Summary.Value(tag=tag, histo=hist, metadata=metadata)
    else:  # text: a string tensor of any shape, as TensorBoard's text plugin reads it
        from tensorboardX.proto.plugin_text_pb2 import TextPluginData
        from tensorboardX.proto.tensor_pb2 import TensorProto
        from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
        metadata.plugin_data.content = TextPluginData(version=0).SerializeToString()
        data = np.asarray(data)
        strings = [s if isinstance(s, bytes) else str(s).encode("utf-8")
                   for s in data.reshape(-1).tolist()]
        shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=n) for n in data.shape])
        value = Summary.Value(tag=tag, metadata=metadata, tensor=TensorProto(
            dtype="DT_STRING", string_val=strings, tensor_shape=shape))
    return Summary(value=[value])


def create_file_writer(logdir, max_queue: _Optional[int] = None,
                       flush_millis: _Optional[int] = None,
                       filename_suffix: _Optional[str] = None, name=None,
                       experimental_trackable: bool = False,
                       experimental_mesh=None) -> SummaryWriter:
    """A writer of TensorBoard event files in `logdir` (made when missing).

    Needs tensorboardX (`pip install 'autograph-rt[tensorboard]'`).

    Args:
      logdir: the directory the event file is written in.
      max_queue: how many events are queued before they are written (default 10).
      flush_millis: the most milliseconds between two writes to disk (default 120000).
      filename_suffix: the end of the event file's name (default ".v2").
      name: accepted for TensorFlow's signature; unused.
      experimental_trackable: accepted for TensorFlow's signature; unused.
      experimental_mesh: accepted for TensorFlow's signature; unused.

    Returns:
      A SummaryWriter.

    Raises:
      ImportError: when tensorboardX is not installed.

    >>> import tempfile
    >>> writer = rt.summary.create_file_writer(tempfile.mkdtemp())  # doctest: +SKIP
    >>> with writer.as_default():                                    # doctest: +SKIP
    ...     for step in range(3):
    ...         _ = rt.summary.scalar("loss", 1.0 / (step + 1), step=step)
    """
    return SummaryWriter(logdir, 10 if max_queue is None else max_queue,
                         120000 if flush_millis is None else flush_millis,
                         ".v2" if filename_suffix is None else filename_suffix)


def create_noop_writer() -> SummaryWriter:
    """A writer that writes nothing: summaries in its `as_default()` return False.

    >>> with rt.summary.create_noop_writer().as_default():
    ...     bool(rt.summary.scalar("loss", 1.0, step=0))
    False
    """
    return _NoopWriter()


@contextlib.contextmanager
def record_if(condition):
    """A context manager in which summaries are written only where `condition` holds:
    a Python bool, a bool scalar tensor (inside `rt.function`: its value when the graph
    runs), or a callable returning either (called at each summary call; in a function,
    when it is traced).

    >>> with rt.summary.record_if(False):
    ...     bool(rt.summary.should_record_summaries())
    False
    """
    old = _state.recording
    _state.recording = condition
    try:
        yield
    finally:
        _state.recording = old


def _recording():
    """The recording condition: a Python bool or a bool tensor; False without a writer."""
    if _state.writer is None:
        return False
    cond = _state.recording
    if callable(cond):
        cond = cond()
    if isinstance(cond, (Tensor, Variable)):
        static = get_static_value(cond)
        if static is None:
            return math_ops.cast(convert_to_tensor(cond), dtypes.bool_)
        cond = static
    return bool(np.asarray(cond))


def should_record_summaries():
    """Whether a summary call here would write: there is a default writer and the
    `record_if` condition holds. A bool scalar tensor.

    >>> bool(rt.summary.should_record_summaries())
    False
    """
    cond = _recording()
    return cond if isinstance(cond, Tensor) else constant(cond)


def _step_tensor(step):
    if step is None:
        step = _state.step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` "
                         "argument or through rt.summary.experimental.set_step()")
    if isinstance(step, (Tensor, Variable)):
        t = convert_to_tensor(step)
        if not t.dtype.is_integer:
            raise TypeError(f"a summary step must be an integer, got {t.dtype.name}")
        return t if t.dtype is dtypes.int64 else math_ops.cast(t, dtypes.int64)
    return convert_to_tensor(np.int64(step), dtype=dtypes.int64)


def _write(kind, name, data, step, buckets=0, description=None):
    """The common path of scalar, histogram and text: False when nothing is written,
    else the op's output (whether it wrote)."""
    if not isinstance(name, str):
        raise TypeError(f"a summary's name must be a str, got {name!r}")
    cond = _recording()
    if cond is False:
        return constant(False)
    step = _step_tensor(step)
    known = None
    if kind == "scalar":
        data = convert_to_tensor(data)
        if data.shape.rank not in (None, 0):
            raise ValueError(f"Expected scalar shape for {name!r}, saw shape: {data.shape}.")
        data = math_ops.cast(data, dtypes.float32)
    elif kind == "histogram":
        data = math_ops.cast(convert_to_tensor(data), dtypes.float64)
    else:
        known = _known_text(data)
        data = constant(0) if known is not None else convert_to_tensor(data, dtype=dtypes.string)
    record = constant(True) if cond is True else cond
    return _write_summary(_state.writer, kind, _current_name_scope() + name, record, step, data,
                         buckets, description or "", known, name=name)


def _known_text(data):
    """Text known now (a str, bytes, a list of them, or a constant string tensor) as an
    array of bytes, given to the op as an attribute so that no string passes through the
    graph (XLA has none); None for text computed in the graph."""
    if isinstance(data, (Tensor, Variable)):
        if not convert_to_tensor(data).dtype.is_string:
            raise TypeError(f"a text summary needs a string tensor, got {data.dtype.name}")
        data = get_static_value(data)
        if data is None:
            return None
    array = np.asarray(data, dtype=object)
    flat = array.reshape(-1)
    if not all(isinstance(s, (str, bytes)) for s in flat):
        raise TypeError(f"a text summary needs strings, got {data!r}")
    return np.array([s.encode("utf-8") if isinstance(s, str) else s for s in flat],
                    dtype=object).reshape(array.shape)


def _flush_op(writer):
    return _write_summary(writer, "flush", "", constant(True), constant(np.int64(0)),
                         constant(0.0), name="flush_summary_writer")


def scalar(name: str, data, step=None, description: _Optional[str] = None):
    """Writes a scalar summary: `data` as a float32 under the tag `name` (prefixed by the
    open rt.name_scope) at `step`.

    Args:
      name: the tag.
      data: a real scalar (tensor or Python number).
      step: an integer (int64) step: a number, a tensor or a Variable; None means the
        default step (`rt.summary.experimental.set_step`, or `as_default(step=)`).
      description: a longer description TensorBoard shows.

    Returns:
      A bool scalar tensor: whether it wrote (False without a default writer or while
      `record_if` is False).

    Raises:
      ValueError: when it would write and no step is given or set, or data is not a
        scalar.

    >>> bool(rt.summary.scalar("loss", 0.25, step=1))   # no default writer
    False
    >>> import tempfile
    >>> writer = rt.summary.create_file_writer(tempfile.mkdtemp())  # doctest: +SKIP
    >>> with writer.as_default():                                    # doctest: +SKIP
    ...     bool(rt.summary.scalar("loss", 0.25, step=1))
    True
    """
    return _write("scalar", name, data, step, description=description)


def histogram(name: str, data, step=None, buckets: _Optional[int] = None,
              description: _Optional[str] = None):
    """Writes a histogram summary of `data` (any shape, cast to float64) under the tag
    `name` at `step`: `buckets` (default 30) buckets of equal width from min(data) to
    max(data), a value x in bucket floor((x - min) / width) (the maximum in the last), as
    `tf.summary.histogram` buckets.

    Args:
      name: the tag.
      data: a real tensor of any shape.
      step: the step, as for `scalar`.
      buckets: the number of buckets (default 30; negative counts as 0).
      description: a longer description TensorBoard shows.

    Returns:
      A bool scalar tensor: whether it wrote.

    Raises:
      ValueError: when it would write and no step is given or set.

    >>> bool(rt.summary.histogram("weights", rt.constant([1.0, 2.0, 2.5]), step=0))
    False
    """
    n = DEFAULT_BUCKET_COUNT if buckets is None else buckets
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"buckets must be an int, got {buckets!r}")
    return _write("histogram", name, data, step, max(0, int(n)), description)


def text(name: str, data, step=None, description: _Optional[str] = None):
    """Writes a text summary: a string tensor (any shape; TensorBoard renders its
    items as Markdown) under the tag `name` at `step`.

    Args:
      name: the tag.
      data: a string, or a string tensor.
      step: the step, as for `scalar`.
      description: a longer description TensorBoard shows.

    Returns:
      A bool scalar tensor: whether it wrote.

    Raises:
      ValueError: when it would write and no step is given or set.
      TypeError: when data is not a string.

    >>> bool(rt.summary.text("notes", "**bold** text", step=0))
    False
    """
    return _write("text", name, data, step, description=description)


def flush(writer: _Optional[SummaryWriter] = None, name=None):
    """Writes the queued events of `writer` (default: the default writer, if any) to
    disk; inside `rt.function`, every time the graph runs.

    >>> rt.summary.flush()   # no default writer: nothing to do
    """
    writer = writer if writer is not None else _state.writer
    if writer is None:
        return None
    return writer.flush()


class experimental:  # noqa: N801 - the namespace `rt.summary.experimental`
    """The default step of summaries: `set_step` and `get_step`.

    >>> rt.summary.experimental.set_step(5)
    >>> rt.summary.experimental.get_step()
    5
    >>> rt.summary.experimental.set_step(None)
    """

    @staticmethod
    def set_step(step) -> None:
        """Sets the default step of summaries written without a `step` argument (per
        thread): a number, a tensor or a Variable (read when a graph writing it runs), or
        None.

        >>> step = rt.Variable(0, dtype=rt.int64)
        >>> rt.summary.experimental.set_step(step)
        >>> rt.summary.experimental.get_step() is step
        True
        >>> rt.summary.experimental.set_step(None)
        """
        _state.step = step

    @staticmethod
    def get_step():
        """The default step (what `set_step` or `as_default(step=)` set), or None.

        >>> rt.summary.experimental.get_step() is None
        True
        """
        return _state.step
