"""More `rt.data.Dataset` transformations, as `tf.data`'s: `padded_batch`, `unbatch`,
`shard` (batching_more.py), `flat_map`, `interleave` (interleave.py) and `window`
(window.py). The Dataset class takes these methods from the mixin here; the classes that
build the datasets register themselves in `KINDS_MORE` (this module imports none of them,
so that base.py may import it)."""
from __future__ import annotations

KINDS_MORE: dict = {}


def more_kind(cls):
    """Registers a dataset class built by the methods of `MoreTransformations`."""
    KINDS_MORE[cls.__name__] = cls
    return cls


class MoreTransformations:
    """The mixin of `rt.data.Dataset` holding the methods below."""

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Consecutive elements in batches of `batch_size`, each component padded at the
        end of every dimension to `padded_shapes` (a nest of shapes like the element's;
        None or -1 for a dimension: the largest in the batch; default: the element's
        shapes, their unknown dimensions padded to the batch's largest) with
        `padding_values` (a scalar per component, or one for all; default 0, or "" for
        strings, False for bools). The last batch is smaller unless `drop_remainder`.

        >>> ds = rt.data.Dataset.range(1, 4, dtype=rt.int32).map(lambda x: rt.fill([x], x))
        >>> [b.tolist() for b in ds.padded_batch(2).as_numpy_iterator()]
        [[[1, 0], [2, 2]], [[3, 3, 3]]]
        """
        return KINDS_MORE["PaddedBatch"](self, batch_size, padded_shapes, padding_values,
                                         drop_remainder)

    def unbatch(self, name=None):
        """The slices of each element along its first dimension, one element each (the
        inverse of `batch`).

        >>> ds = rt.data.Dataset.range(5).batch(2).unbatch()
        >>> [int(x) for x in ds]
        [0, 1, 2, 3, 4]
        """
        return KINDS_MORE["Unbatch"](self)

    def shard(self, num_shards, index, name=None):
        """Every `num_shards`-th element, starting at `index`: the elements whose
        position p has p % num_shards == index.

        >>> [int(x) for x in rt.data.Dataset.range(10).shard(3, 1)]
        [1, 4, 7]
        """
        return KINDS_MORE["Shard"](self, num_shards, index)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets `map_func` makes of each element, one dataset
        after another (`interleave` with cycle_length 1).

        >>> ds = rt.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])
        >>> [int(x) for x in ds.flat_map(rt.data.Dataset.from_tensor_slices)]
        [1, 2, 3, 4]
        """
        return KINDS_MORE["Interleave"](self, map_func, 1, 1)

    def interleave(self, map_func, cycle_length=None, block_length=1,
                   num_parallel_calls=None, deterministic=None, name=None):
        """The elements of the datasets `map_func` makes of each element, interleaved as
        `tf.data` does: `cycle_length` of them are open at once; `block_length`
        consecutive elements are taken from each in turn; one that ends is replaced by
        the dataset of the next input element (cycle_length None or AUTOTUNE: the number
        of CPU cores). The order is always this deterministic one.

        >>> ds = rt.data.Dataset.range(1, 6).interleave(
        ...     lambda x: rt.data.Dataset.from_tensors(x).repeat(6), cycle_length=2,
        ...     block_length=4)
        >>> [int(x) for x in ds]
        [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]
        """
        return KINDS_MORE["Interleave"](self, map_func, cycle_length, block_length)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows, each a dataset of up to `size` elements: window k holds
        the elements at positions k*shift + j*stride (j < size; `shift` default `size`)
        that exist, for every k with k*shift a position of the input; `drop_remainder`
        keeps only full windows. A tuple/dict element gives a tuple/dict of windows.
        Eagerly each window is an rt.data.Dataset; inside rt.function windows are used
        through `flat_map`/`interleave` (the common `flat_map(lambda w: w.batch(size))`).

        >>> ds = rt.data.Dataset.range(7).window(3, shift=2, drop_remainder=True)
        >>> [b.tolist() for b in ds.flat_map(lambda w: w.batch(3)).as_numpy_iterator()]
        [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
        >>> [[int(x) for x in w] for w in rt.data.Dataset.range(5).window(2, 3)]
        [[0, 1], [3, 4]]
        """
        return KINDS_MORE["Window"](self, size, shift, stride, drop_remainder)
