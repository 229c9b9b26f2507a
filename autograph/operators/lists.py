"""Python lists that staged constructs change: `out.append(v)` in a staged loop.

The converter makes such a list state of the construct (`lists=` holds the positions of
those values in its state); when the construct is staged, a Python list there becomes
the backend's staged list (`backend.new_list(items, element_type)`), which the
construct then passes through unchanged (it is a reference: its appends are ops).

    ag.set_element_type(l, rt.int32, ())    # dtype (and shape) for an empty list
    ag.stack(l)                             # the elements as one tensor
"""
from __future__ import annotations

from builtins import id, len, list, tuple, type

from typing import Any, Optional, Sequence

from autograph.operators.staging_backends import backend_of

# id(list) -> (list, dtype, shape): the list is held so that its id stays its own.
_ELEMENT_TYPES: dict = {}
_DEFAULT: list = []          # the backend `stack` uses for lists of Python values


def register_default_backend(backend: Any) -> None:
    """The backend that stacks a list holding no staged value (a runtime registers
    itself when imported)."""
    _DEFAULT[:] = [backend]


def set_element_type(entity: Any, dtype: Any, shape: Any = None) -> Any:
    """Declares the dtype (and shape) of the elements of a Python list.

    For when a staged construct (a staged loop appending to it) makes it a staged list, or
    `stack` stacks it empty. It has no other effect.

    Args:
      entity: the list.
      dtype: its elements' dtype.
      shape: its elements' shape (optional).

    Returns:
      entity.

    >>> @rt.function
    ... def squares(n):
    ...     out = []
    ...     ag.set_element_type(out, rt.int32)
    ...     for i in rt.range(n):
    ...         out.append(i * i)
    ...     return ag.stack(out)
    >>> print(squares(rt.constant(4)))
    rt.Tensor([0 1 4 9], shape=(4,), dtype=int32)
    """
    if type(entity) is list:
        if len(_ELEMENT_TYPES) > 10000:
            _ELEMENT_TYPES.clear()
        _ELEMENT_TYPES[id(entity)] = (entity, dtype, shape)
    return entity


def element_type(entity: Any) -> Optional[tuple]:
    entry = _ELEMENT_TYPES.get(id(entity))
    if entry is None or entry[0] is not entity:
        return None
    return entry[1], entry[2]


def stack(entity: Any, strict: bool = True) -> Any:
    """The elements of a list (a Python list, or a staged one) as one tensor.

    Args:
      entity: a list of tensors (or values the backend converts), or a staged list.
      strict: raise ValueError when it cannot be stacked (else return it as it is).

    Returns:
      A tensor with the elements stacked along a new first axis.

    Raises:
      ValueError: for an empty list with no element type (see set_element_type), or no
        staging backend loaded.

    >>> print(ag.stack([rt.constant(1), rt.constant(2)]))
    rt.Tensor([1 2], shape=(2,), dtype=int32)
    """
    backend = backend_of(entity)
    if backend is None and type(entity) is list:
        for item in entity:
            backend = backend_of(item)
            if backend is not None:
                break
        else:
            backend = _DEFAULT[0] if _DEFAULT else None
        kind = element_type(entity)
        if not entity and kind is None:
            raise ValueError("cannot stack a list without knowing its element type; use "
                             "set_element_type to annotate it")
        if backend is None:
            if strict:
                raise ValueError("no staging backend is loaded to stack a list of Python values")
            return entity
        return backend.stack(entity, kind)
    if backend is None:
        if strict:
            raise ValueError(f"cannot stack a {type(entity).__name__}: expected a list")
        return entity
    return backend.stack(entity, None)


def originals(state: Sequence[Any], positions: Sequence[int]) -> tuple:
    """The Python lists at `positions` (before `staged` replaces them)."""
    return tuple(state[i] for i in positions if type(state[i]) is list)


def staged(backend: Any, state: Sequence[Any], positions: Sequence[int]) -> tuple:
    """`state` with the Python lists at `positions` made staged lists of `backend`."""
    state = list(state)
    for i in positions:
        value = state[i]
        if type(value) is list:
            state[i] = backend.new_list(value, element_type(value))
    return tuple(state)
