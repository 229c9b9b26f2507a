"""Sets of names as the bits of an int, for the dataflow analyses: a union, difference
or comparison is then one operation on a few machine words, not one per name."""
from __future__ import annotations

from collections.abc import Set

_NOTHING = frozenset()


class Names:
    """The numbering of the names one analysis meets (a name's bit: its number)."""

    __slots__ = ("bit", "order", "sets")

    def __init__(self):
        self.bit: dict = {}       # name -> 1 << its number
        self.order: list = []     # number -> name
        self.sets: dict = {}      # mask -> `names(mask)` (two in five are asked again)

    def mask(self, names) -> int:
        """The int of a set of names (numbering those not seen before)."""
        bit, m = self.bit, 0
        for n in names:
            b = bit.get(n)
            if b is None:
                b = bit[n] = 1 << len(self.order)
                self.order.append(n)
            m |= b
        return m

    def names(self, mask: int) -> frozenset:
        """The set of names of an int."""
        if not mask:
            return _NOTHING
        found = self.sets.get(mask)
        if found is None:
            order, out, rest = self.order, [], mask
            while rest:
                low = rest & -rest
                out.append(order[low.bit_length() - 1])
                rest ^= low
            found = self.sets[mask] = frozenset(out)
        return found


class NameSet(Set):
    """A set of names kept as its int: membership is a bit test, and the names are
    only listed when iterated (a set per statement listed at once would cost the
    number of names each: quadratic in a long function). Set operations give
    frozensets."""

    __slots__ = ("mask", "table")

    def __init__(self, mask: int, table: Names):
        self.mask, self.table = mask, table

    def __contains__(self, name) -> bool:
        return bool(self.mask & self.table.bit.get(name, 0))

    def __iter__(self):
        return iter(self.table.names(self.mask))

    def __len__(self) -> int:
        return bin(self.mask).count("1")

    @classmethod
    def _from_iterable(cls, it):
        return frozenset(it)

    def __repr__(self) -> str:
        return f"NameSet({sorted(self)!r})"
