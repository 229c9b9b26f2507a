"""`assert` as a function: a Python check, or a run-time check in the graph.

    assert x > 0, 'x must be positive'  ->  ag__.assert_stmt(x > 0, lambda: 'x must be positive')

The message is a function so that, as in Python, it is computed only on failure
(for a staged check it is computed once, at trace time).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from autograph.errors import user_location
from autograph.operators.iterables import backend_of
from autograph.operators.undefined import unwrap


def assert_stmt(test: Any, message: Optional[Callable[[], Any]] = None) -> None:
    test = unwrap(test)
    backend = backend_of(test)
    if backend is None:
        if not test:
            if message is None:
                raise AssertionError
            raise AssertionError(message())
        return None
    text = f"assertion failed at {user_location(2)}"
    if message is not None:
        text += f": {message()}"
    backend.assert_(test, text)
    return None
