"""`rt.Module`: TensorFlow's `tf.Module`, a container that finds the Variables and
sub-Modules held by its attributes.

    class Dense(rt.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = rt.Variable(np.zeros((n_in, n_out), np.float32), name="w")

    Dense(2, 3).trainable_variables       # (<rt.Variable 'dense/w:0' ...>,)
"""
from __future__ import annotations

import functools
import re
from typing import Callable, Optional

from .core.graph import name_scope as _name_scope
from .ops.state_ops import Variable

_CAMEL_1 = re.compile(r"(.)([A-Z][a-z0-9]+)")
_CAMEL_2 = re.compile(r"([a-z])([A-Z])")


def _camel_to_snake(name: str) -> str:
    return _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub(r"\1_\2", name)).lower()


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _is_trainable_variable(x) -> bool:
    return isinstance(x, Variable) and x.trainable


def _is_non_trainable_variable(x) -> bool:
    return isinstance(x, Variable) and not x.trainable


def _is_module(x) -> bool:
    return isinstance(x, Module)


class Module:
    """Base class of objects that hold Variables and other Modules (TF's `tf.Module`).

    `variables`, `trainable_variables`, `non_trainable_variables` and `submodules` walk the
    module's attributes (sorted by name, as TensorFlow) and the lists, tuples and dicts in
    them, then the sub-Modules found, each value once (a Variable or Module reached twice,
    or a cycle of Modules, is listed once).

    Args:
      name: the module's name, a Python identifier; default: the class name in snake case
        (`MyDense` -> "my_dense"). Its `name_scope` is this name inside the name scope open
        when the module was made.

    >>> class Dense(rt.Module):
    ...     def __init__(self, n_in, n_out):
    ...         super().__init__()
    ...         self.w = rt.Variable(rt.ones([n_in, n_out]))
    ...         self.b = rt.Variable(rt.zeros([n_out]))
    ...     def __call__(self, x):
    ...         return rt.matmul(x, self.w) + self.b
    >>> class Model(rt.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.layers = [Dense(2, 3), Dense(3, 1)]
    ...     def __call__(self, x):
    ...         for layer in self.layers:
    ...             x = layer(x)
    ...         return x
    >>> m = Model()
    >>> m.name, len(m.submodules), len(m.trainable_variables)
    ('model', 2, 4)
    >>> print(m(rt.constant([[1.0, 2.0]])))
    rt.Tensor([[9.]], shape=(1, 1), dtype=float32)
    """

    # attributes the walk skips (TF's `_TF_MODULE_IGNORED_PROPERTIES`)
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_scope_name",))

    def __init__(self, name: Optional[str] = None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. a valid class name).")
        self._name = name
        with _name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        """The name given to the constructor (or made from the class name)."""
        return self._name

    @property
    def name_scope(self) -> _name_scope:
        """A context manager for the module's name scope: `with self.name_scope:` gives the
        Variables (and ops) made inside the prefix "<scope>/"."""
        return _name_scope(self._scope_name)

    @property
    def variables(self) -> tuple:
        """Every Variable of this module and its sub-Modules (each once), as a tuple."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        """The Variables with `trainable=True` of this module and its sub-Modules."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self) -> tuple:
        """The Variables with `trainable=False` of this module and its sub-Modules."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self) -> tuple:
        """Every Module reachable from this one's attributes (not itself), each once."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive: bool = True, predicate: Optional[Callable] = None,
                 attribute_traversal_key: Optional[Callable] = None, with_path: bool = False):
        """Yields the values found under this module's attributes that satisfy `predicate`
        (with `with_path`: (path tuple, value) pairs, every path to a value)."""
        predicate = predicate or (lambda _: True)
        return _flatten_module(self, recursive, predicate, attribute_traversal_key,
                               self._TF_MODULE_IGNORED_PROPERTIES, with_path, (),
                               None if with_path else {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator: runs the method inside the module's `name_scope`.

        Example:
          class M(rt.Module):
              @rt.Module.with_name_scope
              def __call__(self, x):
                  ...
        """
        @functools.wraps(method)
        def in_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return in_scope

    def __repr__(self):
        return f"<rt.Module {type(self).__name__} name={self._name!r}>"


def _leaves(value, path: tuple, open_containers: list):
    """(path, leaf) pairs of a nested attribute value: lists, tuples (namedtuples too) and
    dicts (in sorted key order, as rt.nest); a container inside itself is not re-entered."""
    if isinstance(value, (list, tuple, dict)):
        if any(value is c for c in open_containers):
            return
        open_containers.append(value)
        try:
            if isinstance(value, dict):
                try:
                    keys = sorted(value)
                except TypeError:  # keys of mixed types: sort them by type name, then repr
                    keys = sorted(value, key=lambda k: (type(k).__name__, repr(k)))
                items = [(k, value[k]) for k in keys]
            else:
                items = list(enumerate(value))
            for k, v in items:
                yield from _leaves(v, path + (k,), open_containers)
        finally:
            open_containers.pop()
    else:
        yield path, value


def _flatten_module(module, recursive, predicate, attribute_traversal_key, ignored,
                    with_path, module_path, seen, recursion_stack):
    """TF's walk: the module's own attributes first, then each sub-Module found, depth
    first; `seen` (ids) makes every value appear once and stops cycles of Modules."""
    if any(module is m for m in recursion_stack):
        recursive = False  # (with_path: a cycle is listed, not entered again)
    attrs = vars(module)
    submodules = []
    for key in sorted(attrs, key=attribute_traversal_key):
        if key in ignored:
            continue
        for leaf_path, leaf in _leaves(attrs[key], (key,), []):
            if seen is not None:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(module)
    try:
        for sub_path, sub in submodules:
            yield from _flatten_module(sub, recursive, predicate, attribute_traversal_key,
                                       ignored, with_path, sub_path, seen, recursion_stack)
    finally:
        recursion_stack.pop()
