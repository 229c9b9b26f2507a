"""The op behind `rt.summary`: writing one TensorBoard summary (a scalar, a histogram or
text) through a summary writer, in program order, every time a graph runs.

The writer is the default writer of the moment the op was made (at trace time inside
`rt.function`, as TensorFlow captures it); the step and the condition are the op's inputs,
so a Variable step is read when the graph runs. The public functions are in
`runtime/summary.py`."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..errors import InvalidArgumentError
from .core import OpDef, apply_op

KINDS = ("scalar", "histogram", "text", "flush")   # (flush: writes the queued events)
DEFAULT_BUCKET_COUNT = 30   # TensorBoard's, for histograms


def histogram_buckets(data, bucket_count: int = DEFAULT_BUCKET_COUNT) -> np.ndarray:
    """The histogram TensorBoard's `tf.summary.histogram` records: a float64 array of shape
    [k, 3] whose rows are (left edge, right edge, count), for k = `bucket_count` buckets of
    equal width from min(data) to max(data).

    A value falls in bucket floor((x - min) / width), the maximum in the last bucket. No
    data (or no buckets) gives k rows of zeros; data of one value v gives k buckets whose
    edges are all v, every value counted in the last. A NaN makes every edge NaN and no
    value is counted (as TensorFlow's kernel, whose NaN indices match no bucket).

    >>> histogram_buckets(np.array([0.0, 1.0, 1.0, 4.0]), 2)
    array([[0., 2., 3.],
           [2., 4., 1.]])
    """
    k = max(0, int(bucket_count))
    data = np.asarray(data, dtype=np.float64).reshape(-1)
    if k == 0 or data.size == 0:
        return np.zeros((k, 3))
    lo, hi = np.min(data), np.max(data)
    span = hi - lo
    if span == 0:
        counts = np.zeros(k)
        counts[-1] = data.size
        return np.stack([np.full(k, lo), np.full(k, hi), counts], axis=1)
    with np.errstate(all="ignore"):
        position = np.floor((data - lo) / (span / k))
    counted = np.isfinite(position) & (position >= 0)  # (NaN: in no bucket)
    index = np.minimum(position[counted], k - 1).astype(np.int64)
    counts = np.bincount(index, minlength=k).astype(np.float64)
    with np.errstate(all="ignore"):
        edges = np.linspace(lo, hi, k + 1)
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def _write_infer(inputs, writer, tag, kind, buckets, description, text):
    record, step = inputs[0], inputs[1]
    if not record.dtype.is_bool or record.shape.rank not in (None, 0):
        raise InvalidArgumentError("a summary's record condition must be a bool scalar, got "
                                   f"{record.dtype.name} of shape {record.shape}")
    if not step.dtype.is_integer or step.shape.rank not in (None, 0):
        raise InvalidArgumentError("a summary's step must be an integer scalar, got "
                                   f"{step.dtype.name} of shape {step.shape}")
    if kind not in KINDS:
        raise InvalidArgumentError(f"unknown summary kind {kind!r}")
    return [(TensorShape([]), dtypes.bool_)]


def _write_kernel(record, step, data, *, writer, tag, kind, buckets, description, text):
    """Writes when `record` holds; returns `record` (TensorFlow's summary ops return
    whether they wrote). `text`, when not None, is the text known when the op was made
    (an array of bytes), written in place of `data` (which XLA could not carry)."""
    record = bool(np.asarray(record))
    if record:
        if text is not None:
            data = text
        writer.write_summary(kind, tag, int(np.asarray(step)), np.asarray(data), description,
                             buckets)
    return np.bool_(record)


WRITE = OpDef("WriteSummary", _write_infer, _write_kernel, side_effect=True, observer=True,
              effect="writes a TensorBoard summary")
OPS = [WRITE]


def write_summary(writer, kind: str, tag: str, record, step, data, buckets: int = 0,
                  description: str = "", text=None, name=None):
    """The op writing `data` as a summary of `kind` under `tag` at `step` through
    `writer` (an object with `write_summary(kind, tag, step, array, description,
    buckets)`; a histogram's buckets: `histogram_buckets`)
    when the bool scalar tensor `record` holds; its output is `record`. `text`: a
    known text (an array of bytes) written instead of `data`."""
    return apply_op(WRITE, [record, step, data],
                    {"writer": writer, "tag": tag, "kind": kind, "buckets": int(buckets),
                     "description": description, "text": text}, name=name)
