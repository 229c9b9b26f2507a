"""`rt.data`: input pipelines as `tf.data` (`rt.data.Dataset`). A `for` over a dataset
inside an `rt.function` is one staged loop whose graph does not grow with the data."""
from __future__ import annotations

from .base import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from . import shuffle, sources, transforms  # noqa: F401  (register the dataset kinds)


class experimental:  # noqa: N801 - `rt.data.experimental`, as in TensorFlow
    AUTOTUNE = AUTOTUNE
    INFINITE_CARDINALITY = INFINITE_CARDINALITY
    UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY

    @staticmethod
    def cardinality(dataset):
        return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "experimental"]


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
