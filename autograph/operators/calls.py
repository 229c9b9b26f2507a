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
from typing import Any, Callable, Optional

from autograph.experimental import Feature

_package = sys.modules[__package__]      # `ag__`: whether this thread stages (python_path)

# Top-level packages whose functions are never converted; a library that stages through
# autograph (a tensor runtime) adds its own with `register_library`.
ALLOWLIST = {"autograph", "numpy", "gast", "builtins", "_pytest", "pytest",
             "pluggy"} | set(sys.stdlib_module_names)
# Libraries known to write no context manager that swallows exceptions (see
# converters.context): the standard library's are listed there.
LIBRARIES = {"builtins", "numpy", "autograph"}


def register_library(package: str, logger: Optional[str] = None) -> None:
    """Marks the top-level package `package` as a library: its functions are called as
    they are (never converted), and its context managers never swallow exceptions.
    `logger`: the name of its logger, whose level `ag.set_verbosity` sets too."""
    ALLOWLIST.add(package)
    LIBRARIES.add(package)
    if logger is not None:
        LOGGERS.add(logger)


LOGGERS: set = set()     # loggers of registered libraries (see register_library)

_DO_NOT_CONVERT = "__autograph_do_not_convert__"
_CONVERTED = "__autograph_converted__"    # (module_support.CONVERTED, api._CONVERTED)
_BUILTIN_CALLABLES = frozenset({types.BuiltinFunctionType, types.BuiltinMethodType,
                                types.MethodWrapperType, types.WrapperDescriptorType, type})

# Generators and coroutines are never converted (their bodies run later, one step at a
# time): calls to them run them as they are, without trying.
# inspect.CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR (not imported: inspect is slow to load)
_NOT_CONVERTIBLE = 0x20 | 0x80 | 0x200
_OPTIMIZED = 0x1       # inspect.CO_OPTIMIZED: a function's code, not a class body's


def do_not_convert(fn: Callable) -> Callable:
    """Decorator: `fn` is called as it is, never converted by autograph.

    Its Python `if`/`while`/`for` stay Python even when called from a converted function
    (so they must not depend on symbolic tensors).

    Args:
      fn: a callable.

    Returns:
      fn itself, marked (or a marked wrapper when fn takes no attributes).

    >>> @ag.do_not_convert
    ... def scale(x, factor=2):
    ...     return x * factor
    >>> @rt.function
    ... def f(x):
    ...     return scale(x)
    >>> print(f(rt.constant(3)))
    rt.Tensor(6, shape=(), dtype=int32)
    """
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
    # The `__call__` as the class defines it (a staticmethod's function is not bound to
    # the object, a classmethod's is bound to the class), not as `getattr` unwraps it.
    for klass in type(fn).__mro__:
        call = klass.__dict__.get("__call__")
        if call is not None:
            break
    else:
        return None
    if isinstance(call, types.FunctionType):
        return call, fn
    if isinstance(call, (staticmethod, classmethod)) and isinstance(call.__func__,
                                                                     types.FunctionType):
        return call.__func__, (type(fn) if isinstance(call, classmethod) else None)
    return None


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


# The converter: `convert(fn, recursive=, features=, staged=)` (`api.convert_function`),
# installed by `set_converter`. The operators never import the converter: `autograph.api`
# installs itself when it loads, and until then the package installs a stand-in that
# loads it (converted code, which needs only the operators, imports light).
converter: Optional[Callable] = None


def set_converter(convert: Callable) -> None:
    """Installs `convert` as the function that converts user functions called from
    converted code."""
    global converter
    converter = convert


def _convert(func, features):
    if features is None:
        return converter(func, recursive=True, staged=True)
    return converter(func, recursive=True, features=features, staged=True)


# A function's conversions live on the function itself, so that they go when it goes:
# `fn.__autograph_cache__[options] = (code, closure, defaults, kwdefaults, result)`, the
# result valid while the function still has that code, closure and defaults (a wrapper
# that copied the function's `__dict__`, as `functools.wraps` does, has other code).
# (A cache keyed by the function that held the result would keep every function alive:
# a converted function refers to its original as `__wrapped__`.)
CACHE = "__autograph_cache__"


_generation = [0]         # bumped by `forget_all`: older entries are not used


def cached(fn: types.FunctionType, options: Any) -> Any:
    """The conversion of `fn` with `options` remembered by `remember`, or None."""
    entries = fn.__dict__.get(CACHE)
    if entries is not None:
        entry = entries.get(options)
        if (entry is not None and entry[0] is fn.__code__ and entry[1] is fn.__closure__
                and entry[2] is fn.__defaults__ and entry[3] is fn.__kwdefaults__
                and entry[4] == _generation[0]):
            return entry[5]
    return None


def remember(fn: types.FunctionType, options: Any, result: Any) -> None:
    entries = fn.__dict__.get(CACHE)
    if entries is None:
        entries = fn.__dict__[CACHE] = {}
    entries[options] = (fn.__code__, fn.__closure__, fn.__defaults__, fn.__kwdefaults__,
                        _generation[0], result)


def forget_all() -> None:
    """Every function's remembered conversions are stale from now on."""
    _generation[0] += 1


def options_key(recursive: bool, features: frozenset, staged: bool) -> Any:
    """The key of a conversion in the caches, by its options: `recursive` (the most
    common key, `True`), with the optional `features`, and `staged` (the converted body
    alone: see `api.for_staging`)."""
    key = (recursive, features) if features else recursive
    return ("staged", key) if staged else key


_STAGED_KEY = options_key(True, frozenset(), True)     # what converted code calls


def _options(features) -> Any:
    """The cache key of the conversions converted code calls (see `converted`)."""
    return _STAGED_KEY if not features else options_key(True, features, True)


def converted(fn: Callable, /) -> Callable:
    """What converted code calls for `fn(...)`: `ag__.converted(fn)(...)`. The converted
    form of a user function (or method, or callable object), cached, or `fn` itself
    (builtins, classes, the standard library, numpy, our packages, generators,
    `do_not_convert`). The call then happens in the caller's frame: no frame is added
    between the user's functions, as `logging`, `warnings` and `inspect.stack()` see.
    Converted code runs while a graph is being built (see python_path), so the
    conversion is the converted body alone (`api.for_staging`), without the original
    body that `to_graph` adds for Python values. A function that a traced one defined
    can run later, or in another thread, where no graph is built: there `fn` runs as
    it is, as every function does outside tracing."""
    if not _package.staging:
        return fn
    kind = type(fn)
    if kind is types.FunctionType:
        hit = cached(fn, _STAGED_KEY)
        return hit if hit is not None else _converted_function(fn, None)
    if kind is types.MethodType:
        func = fn.__func__
        if type(func) is types.FunctionType:
            conv = cached(func, _STAGED_KEY) or _converted_function(func, None)
            return fn if conv is func else types.MethodType(conv, fn.__self__)
    elif kind in _BUILTIN_CALLABLES:          # `xs.append`, `len`: the common case
        if fn is range or fn is len or fn is enumerate or fn is max or fn is min:
            return STAGED_BUILTINS[fn]        # `r = range; r(t)`: staged as range(t) is
        return fn
    return _converted_other(fn, None)


# id -> code object, of the functions and lambdas defined in code that conversion made
# (their conversion, with what the function around them told it): kept for the life of
# the process, as api's cache of converted code keeps that code.
_MADE_BY_CONVERSION: dict = {}


def made_by_conversion(made: list) -> None:
    """Records `made`, the code objects a converted body defines, and those nested in
    them: a function defined there is converted already, and converting it again from its
    source would lose what its enclosing function's conversion knew (a variable of that
    function that may be unassigned: `ag__.ld_free`). Not class bodies, generators and
    `async def`s, which conversion leaves as written, nor what they define."""
    todo = list(made)
    while todo:
        c = todo.pop()
        if type(c) is types.CodeType and c.co_flags & _OPTIMIZED and not (
                c.co_flags & _NOT_CONVERTIBLE):
            _MADE_BY_CONVERSION[id(c)] = c
            todo.extend(c.co_consts)


def _converted_function(func, features):
    """`func` (a plain function) converted with `features`, or itself: worked out once."""
    if (getattr(func, _DO_NOT_CONVERT, False) or getattr(func, _CONVERTED, False)
            or func.__code__.co_flags & _NOT_CONVERTIBLE or is_allowlisted(func)
            or id(func.__code__) in _MADE_BY_CONVERSION):
        remember(func, _options(features), func)  # (converted already: a converted module's)
        return func
    return _convert(func, features)           # (which remembers it)


def _converted_other(fn, features):
    if type(fn) is functools.partial:
        # the function a partial holds is user code like any other (TensorFlow's autograph
        # converts through partials too): the same arguments, bound to its conversion
        inner = _converted_other(fn.func, features)
        return fn if inner is fn.func else functools.partial(inner, *fn.args, **fn.keywords)
    target = _convertible(fn)
    if target is None:
        return fn
    func, bound_to = target
    conv = _converted_function(func, features)
    if bound_to is None:
        return conv
    if conv is func and type(fn) is types.MethodType:
        return fn
    return types.MethodType(conv, bound_to)


def converted_call(fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, with `fn` converted first when it is user code (what
    `converted(fn)(*args, **kwargs)` does, through one more frame)."""
    if kwargs and type(fn) in _BUILTIN_CALLABLES:
        return fn(*args, **kwargs)        # `range`/`len` with keywords: Python's error
    return converted(fn)(*args, **kwargs)


_FEATURES: dict = {}       # tuple of Feature names -> frozenset of Feature values


def converted_with(features: tuple, fn: Callable, /) -> Callable:
    """`converted` in code converted with optional features (`features`: the names of
    the `autograph.experimental.Feature` values, a constant the converter wrote): user
    functions it calls are converted with the same features, so that a helper's
    `print(t)` stages as its caller's does. The features travel with the code, as
    TensorFlow's converted calls carry their conversion options; code converted without
    features calls `converted`, and pays nothing for them."""
    if not _package.staging:
        return fn                              # (see `converted`)
    chosen = _FEATURES.get(features)
    if chosen is None:
        chosen = _FEATURES[features] = frozenset(Feature[name] for name in features)
    kind = type(fn)
    if kind in _BUILTIN_CALLABLES:
        if fn is print and "BUILTIN_FUNCTIONS" in features:
            return STAGED_BUILTINS[print]      # `p = print; p(t)`: as print(t) is
        return converted(fn)
    if kind is types.FunctionType:
        hit = cached(fn, _options(chosen))
        return hit if hit is not None else _converted_function(fn, chosen)
    return _converted_other(fn, chosen)


def converted_call_with(features: tuple, fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` as `converted_with(features, fn)` gives it."""
    if kwargs and type(fn) in _BUILTIN_CALLABLES and fn is not print:
        return fn(*args, **kwargs)
    return converted_with(features, fn)(*args, **kwargs)


# range, len, enumerate (and print, with Feature.BUILTIN_FUNCTIONS) -> their staged
# versions (`r = range; r(t)` stages as range(t) does), filled in by the operators
# package, whose control_flow and py_builtins define them.
STAGED_BUILTINS: dict = {}
