"""`rt.data`: input pipelines as `tf.data` (`rt.data.Dataset`). A `for` over a dataset
inside an `rt.function` is one staged loop whose graph does not grow with the data."""
from __future__ import annotations

from .base import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from . import iterator, shuffle, sources, transforms  # noqa: F401  (register the kinds)
from . import batching_more, interleave, window  # noqa: F401  (register the kinds)
from .csv import CsvDataset, make_csv_dataset
from .text import TextLineDataset


class experimental:  # noqa: N801 - `rt.data.experimental`, as in TensorFlow
    """`rt.data.experimental`, as TensorFlow's `tf.data.experimental`.

    Holds AUTOTUNE, INFINITE_CARDINALITY and UNKNOWN_CARDINALITY (also in rt.data) and
    `cardinality(dataset)`, the same as `dataset.cardinality()`: an int64 scalar tensor.

    >>> print(rt.data.experimental.cardinality(rt.data.Dataset.range(3)))
    rt.Tensor(3, shape=(), dtype=int64)
    >>> rt.data.experimental.INFINITE_CARDINALITY
    -1
    >>> print(rt.data.experimental.cardinality(rt.data.Dataset.range(3).repeat()))
    rt.Tensor(-1, shape=(), dtype=int64)
    """
    AUTOTUNE = AUTOTUNE
    INFINITE_CARDINALITY = INFINITE_CARDINALITY
    UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY
    CsvDataset = CsvDataset
    make_csv_dataset = staticmethod(make_csv_dataset)

    @staticmethod
    def cardinality(dataset):
        return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "TextLineDataset",
           "experimental"]


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
