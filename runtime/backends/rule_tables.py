"""The backends' rule tables: each rules module fills a table of its own (`registrar`
gives it a decorator bound to it), and each backend merges its modules' tables in one
place (`merged`), where an op given a rule twice is an error."""
from __future__ import annotations


def registrar(table: dict):
    """`rule(*opdefs)`: a decorator that puts the function it decorates in `table` under
    each of `opdefs`."""
    def rule(*opdefs):
        def register(fn):
            for d in opdefs:
                table[d] = fn
            return fn
        return register
    return rule


def merged(*tables: dict) -> dict:
    """One table of `tables`, in their order; a key in two of them raises ValueError."""
    out: dict = {}
    for table in tables:
        for key, value in table.items():
            if key in out:
                raise ValueError(f"two rule tables give {getattr(key, 'name', key)!r} a rule")
            out[key] = value
    return out
