"""`converted_call`: calls from converted code, converting user functions on the way.

    y = f(x)   ->   y = ag__.converted_call(f, x)

User functions (and methods, and callable objects' `__call__`) are converted and
cached; builtins, the standard library, numpy, and this project's own packages are
called as they are, as are generators, `async def` functions and anything marked with
`do_not_convert`.
"""
from __future__ import annotations

from builtins import (  # the originals: see operators/__init__
    bool, enumerate, frozenset, getattr, isinstance, len, print, range, setattr, str, type)

import functools
import sys
import types
from typing import Any, Callable

# Top-level packages whose functions are never converted.
ALLOWLIST = frozenset({"autograph", "runtime", "numpy", "gast", "builtins", "_pytest",
                       "pytest", "pluggy"}) | frozenset(sys.stdlib_module_names)

_DO_NOT_CONVERT = "__autograph_do_not_convert__"
_BUILTIN_CALLABLES = frozenset({types.BuiltinFunctionType, types.BuiltinMethodType,
                                types.MethodWrapperType, types.WrapperDescriptorType, type})

# Generators and coroutines are never converted (their bodies run later, one step at a
# time): calls to them run them as they are, without trying.
# inspect.CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR (not imported: inspect is slow to load)
_NOT_CONVERTIBLE = 0x20 | 0x80 | 0x200


def do_not_convert(fn: Callable) -> Callable:
    """Decorator: `fn` is called as it is, never converted."""
    try:
        setattr(fn, _DO_NOT_CONVERT, True)
        return fn
    except (AttributeError, TypeError):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        setattr(wrapper, _DO_NOT_CONVERT, True)
        return wrapper


def is_allowlisted(obj: Any) -> bool:
    """Whether `obj` is called as it is (builtins, stdlib, numpy, our packages, classes)."""
    if isinstance(obj, types.ModuleType):
        module = obj.__name__
    else:
        if isinstance(obj, type) or isinstance(obj, (types.BuiltinFunctionType,
                                                     types.BuiltinMethodType)):
            return True
        if getattr(obj, _DO_NOT_CONVERT, False):
            return True
        module = getattr(obj, "__module__", None)
        if module is None and isinstance(obj, types.MethodType):
            module = getattr(obj.__func__, "__module__", None)
    if not isinstance(module, str):
        return False
    return module.partition(".")[0] in ALLOWLIST


def _target(fn: Any):
    """(function to convert, object to bind it to) or None to call `fn` as is."""
    if isinstance(fn, types.FunctionType):
        return fn, None
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        return fn.__func__, fn.__self__
    if isinstance(fn, (type, types.BuiltinFunctionType, functools.partial)):
        return None
    call = getattr(type(fn), "__call__", None)
    if isinstance(call, types.FunctionType):
        return call, fn
    return None


def _staged_builtins() -> dict:
    from autograph.operators.control_flow import enumerate_, range_
    from autograph.operators.py_builtins import len_
    return {range: range_, len: len_, enumerate: enumerate_}


def _convertible(fn: Any):
    """(function to convert, object to bind it to), or None to call `fn` as it is."""
    if getattr(fn, _DO_NOT_CONVERT, False) or is_allowlisted(fn):
        return None
    target = _target(fn)
    if target is None:
        return None
    func = target[0]
    if (getattr(func, _DO_NOT_CONVERT, False) or func.__code__.co_flags & _NOT_CONVERTIBLE
            or is_allowlisted(func)):
        return None
    return target


def converted_call(fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, with `fn` converted first when it is user code."""
    if type(fn) in _BUILTIN_CALLABLES:        # `xs.append(x)`, `len(x)`: the common case
        if (fn is range or fn is len or fn is enumerate) and not kwargs:
            return _STAGED_BUILTINS[fn](*args)   # `r = range; r(t)`: staged as range(t) is
        return fn(*args, **kwargs)
    target = _convertible(fn)
    if target is None:
        return fn(*args, **kwargs)
    func, bound_to = target
    from autograph import api
    converted = api.convert_function(func, recursive=True)
    if bound_to is not None:
        return converted(bound_to, *args, **kwargs)
    return converted(*args, **kwargs)


_FEATURES: dict = {}       # tuple of Feature names -> frozenset of Feature values


def converted_call_with(features: tuple, fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """`converted_call` in code converted with optional features (`features`: the names of
    the `autograph.experimental.Feature` values, a constant the converter wrote): user
    functions it calls are converted with the same features, so that a helper's
    `print(t)` stages as its caller's does. The features travel with the code, as
    TensorFlow's converted calls carry their conversion options; code converted without
    features calls `converted_call`, and pays nothing for them."""
    chosen = _FEATURES.get(features)
    if chosen is None:
        from autograph.experimental import Feature
        chosen = _FEATURES[features] = frozenset(Feature[name] for name in features)
    if type(fn) in _BUILTIN_CALLABLES:
        if fn is print and "BUILTIN_FUNCTIONS" in features:
            from autograph.operators.py_builtins import print_
            return print_(*args, **kwargs)       # `p = print; p(t)`: as print(t) is
        return converted_call(fn, *args, **kwargs)
    target = _convertible(fn)
    if target is None:
        return fn(*args, **kwargs)
    func, bound_to = target
    from autograph import api
    converted = api.convert_function(func, recursive=True, features=chosen)
    if bound_to is not None:
        return converted(bound_to, *args, **kwargs)
    return converted(*args, **kwargs)




_STAGED_BUILTINS = _staged_builtins()
