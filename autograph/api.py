"""`to_graph`, `to_code`, and the conversion cache.

A function is converted once per code object (and `recursive` flag): the converted code
is compiled inside a factory whose free variables mirror the original's, and each
function object then gets the converted code bound to *its own* closure cells, globals
and defaults, so closures created in a loop share one conversion and still see their
own (and later-updated) captured values.
"""
from __future__ import annotations

import gc
import logging
import os
import types
import weakref
from collections import ChainMap
from typing import Any, Callable

import gast

from autograph import experimental, operators, parsing, pipeline, templates, unparsing
from autograph.converters.context import Context

logger = logging.getLogger("autograph")

_code_cache: dict = {}                        # (code, recursive) -> converted code object
_function_cache = weakref.WeakKeyDictionary()  # function -> {recursive: converted function}
_CONVERTED = "__autograph_converted__"


def strict() -> bool:
    return os.environ.get("AUTOGRAPH_STRICT", "") not in ("", "0")


def _namespace(fn: types.FunctionType) -> ChainMap:
    closure = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:
            pass
    return ChainMap(closure, fn.__globals__)


def convert_node(fn: types.FunctionType, recursive: bool = True,
                 features: frozenset = frozenset()) -> tuple[gast.AST, str]:
    """The converted tree of `fn` and its file name (raises ConversionError)."""
    node, filename = parsing.parse_function(fn)
    ctx = Context(node, filename, _namespace(fn), recursive)
    ctx.features = features
    ctx.has_class_cell = "__class__" in fn.__code__.co_freevars
    node = pipeline.convert(node, ctx)
    _mangle_private_names(node, fn.__qualname__)
    return node, filename


def _mangle_private_names(node: gast.AST, qualname: str) -> None:
    """`self.__x` in a method means `self._Cls__x`: Python mangles it when compiling the
    class body, and the converted method is compiled outside it, so do it here."""
    parts = qualname.split(".")
    if len(parts) < 2 or parts[-2] == "<locals>":
        return
    prefix = "_" + parts[-2].lstrip("_")
    if prefix == "_":
        return

    def mangled(name: str) -> str:
        if name.startswith("__") and not name.endswith("__") and "." not in name:
            return prefix + name
        return name

    for n in gast.walk(node):
        if isinstance(n, gast.Attribute):
            n.attr = mangled(n.attr)
        elif isinstance(n, gast.Name):
            n.id = mangled(n.id)


def _strip_for_compile(node: gast.AST) -> None:
    """Defaults and annotations come from the live function, not from re-evaluation."""
    args = node.args
    none = lambda: gast.Constant(value=None, kind=None)
    args.defaults = [none() for _ in args.defaults]
    args.kw_defaults = [None if d is None else none() for d in args.kw_defaults]
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    if isinstance(node, gast.FunctionDef):
        node.returns = None


def _compile(fn: types.FunctionType, recursive: bool, features: frozenset) -> types.CodeType:
    # Conversion allocates thousands of short-lived nodes and no cycles worth collecting:
    # pausing the cyclic GC for these ~2 ms saves about a tenth of the time.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _compile_unpaused(fn, recursive, features)
    finally:
        if paused:
            gc.enable()


def _compile_unpaused(fn: types.FunctionType, recursive: bool, features: frozenset) -> types.CodeType:
    node, filename = convert_node(fn, recursive, features)
    _strip_for_compile(node)
    if isinstance(node, gast.FunctionDef):
        node.name = "ag__entity"    # so that the factory scope does not shadow a recursive call
    lineno = node.lineno
    cells = ["ag__"] + [n for n in fn.__code__.co_freevars if n != "ag__"]
    factory = templates.replace("def factory():\n    cells = None\n    entity\n    return result",
                                lineno, factory="ag__factory",
                                cells=templates.names_tuple(cells, store=True),
                                entity=[node] if isinstance(node, gast.FunctionDef) else [],
                                result=node if isinstance(node, gast.Lambda)
                                else templates.name(node.name))
    module = gast.Module(body=factory, type_ignores=[])
    tree = parsing.to_ast(module)
    code = compile(tree, filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    wanted = "<lambda>" if isinstance(node, gast.Lambda) else "ag__entity"
    entity = next(c for c in factory_code.co_consts
                  if isinstance(c, types.CodeType) and c.co_name == wanted)
    return entity.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)


def _bind(code: types.CodeType, fn: types.FunctionType) -> types.FunctionType:
    originals = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(types.CellType(operators) if name == "ag__" else
                    originals.get(name) or types.CellType()
                    for name in code.co_freevars)
    converted = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__qualname__ = fn.__qualname__
    converted.__doc__ = fn.__doc__
    converted.__annotations__ = fn.__annotations__
    converted.__dict__.update(fn.__dict__)
    converted.__wrapped__ = fn
    setattr(converted, _CONVERTED, True)
    return converted


def convert_function(fn: types.FunctionType, recursive: bool = True,
                     features: frozenset = frozenset()) -> Callable:
    """`fn` converted, or `fn` itself (with a logged warning) when it cannot be."""
    if getattr(fn, _CONVERTED, False):
        return fn
    options = (recursive, features) if features else recursive
    try:
        per_fn = _function_cache.get(fn)
        if per_fn is not None and options in per_fn:
            if per_fn[options] is not fn or not strict():
                return per_fn[options]
    except TypeError:
        per_fn = None
    key = (fn.__code__, options)
    code = _code_cache.get(key)
    if code is None or (code is False and strict()):
        try:
            code = _compile(fn, recursive, features)
        except Exception as e:        # never run a wrongly converted function
            if strict():
                raise
            logger.warning("autograph could not convert %s, running it unconverted: %s",
                           getattr(fn, "__qualname__", fn), e)
            logger.debug("conversion failure", exc_info=True)
            code = False
        _code_cache[key] = code
    converted = fn if code is False else _bind(code, fn)
    try:
        _function_cache.setdefault(fn, {})[options] = converted
    except TypeError:
        pass
    return converted


def to_graph(entity: Any, recursive: bool = True, experimental_optional_features: Any = None) -> Any:
    """The converted function: Python semantics on Python values, staged on tensors.

    `experimental_optional_features`: `ag.experimental.Feature` values (see there)."""
    features = experimental.features(experimental_optional_features)
    if isinstance(entity, types.MethodType):
        return types.MethodType(to_graph(entity.__func__, recursive, features), entity.__self__)
    if isinstance(entity, types.FunctionType):
        return convert_function(entity, recursive, features)
    call = getattr(type(entity), "__call__", None)
    if isinstance(call, types.FunctionType) and not isinstance(entity, type):
        return types.MethodType(convert_function(call, recursive, features), entity)   # a callable object
    if callable(entity):
        logger.info("autograph: %r is not Python source code; called as it is", entity)
        return entity
    raise TypeError(f"to_graph expects a function or method, got {type(entity).__name__}")


def to_code(entity: Any, recursive: bool = True) -> str:
    """Source of the converted function; it compiles once `ag__` is importable
    (`from autograph import operators as ag__`)."""
    if isinstance(entity, types.MethodType):
        entity = entity.__func__
    entity = getattr(entity, "__wrapped__", entity) if getattr(entity, _CONVERTED, False) else entity
    if not isinstance(entity, types.FunctionType):
        raise TypeError(f"to_code expects a function or method, got {type(entity).__name__}")
    node, _ = convert_node(entity, recursive)
    return unparsing.unparse(node) + "\n"


def set_verbosity(level: int) -> None:
    """0: warnings only; 1: conversion decisions; 2: debug detail."""
    logger.setLevel(logging.WARNING if level <= 0 else logging.INFO if level == 1 else logging.DEBUG)
    if not logger.handlers and level > 0:
        logger.addHandler(logging.StreamHandler())


if os.environ.get("AUTOGRAPH_VERBOSITY"):
    set_verbosity(int(os.environ["AUTOGRAPH_VERBOSITY"]))
