"""`to_graph`, `to_code`, and the conversion cache.

A function is converted once per code object (and `recursive` flag): the converted code
is compiled inside a factory whose free variables mirror the original's, and each
function object then gets the converted code bound to *its own* closure cells, globals
and defaults, so closures created in a loop share one conversion and still see their
own (and later-updated) captured values.
"""
from __future__ import annotations

import __future__

import ast
import copy
import dis
import functools
import gc
import linecache
import logging
import os
import sys
import time
import types
from collections import ChainMap
from typing import Any, Callable

from autograph import nodes as gast
from autograph import (anno, experimental, introspection, operators, parsing, pipeline, qualnames,
                       sourceless, templates, tree, two_paths, unparsing)
from autograph.converters.context import UNKNOWN, Context
from autograph.operators import calls
from autograph.errors import ConversionError, record_python_construct

logger = logging.getLogger("autograph")

code_cache: dict = {}     # (code, options) -> converted code, False (failed) or _AS_WRITTEN
# (per function conversions are kept on the function: operators.calls.cached / remember)
_CONVERTED = "__autograph_converted__"
_warned_sourceless: set = set()     # the code of functions said to be left unconverted


class LeftAsWritten(ConversionError):
    """`fn` looks at its own frame (`locals()`, `eval`, `sys._getframe`, ...: see
    `introspection.introspection`); converting it would change what it sees, so it runs as
    written."""


_AS_WRITTEN = "as written"      # in code_cache: a function that runs unconverted by design


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
                 features: frozenset = frozenset(),
                 both_paths: bool = True) -> tuple[gast.AST, str]:
    """The converted tree of `fn` and its file name (raises ConversionError). With
    `both_paths`, the tree keeps what `two_paths` needs to add the original body."""
    node, filename = parsing.parse_function(fn, keep_original=both_paths)
    namespace = _namespace(fn)
    if introspection.may_introspect(fn.__code__):
        found = introspection.introspection(node, namespace)
        if found is not None:
            # (a tensor that reaches one of its `if`s or loops then says why it stays Python)
            record_python_construct(filename, node.lineno, node.end_lineno, "def", found[0])
            raise LeftAsWritten(f"{fn.__qualname__} is not converted: {found[0]}")
    # One conversion serves every closure of the code (see the module docstring): what it
    # decides must not depend on one closure's cell values, so the converters see the
    # free variables as names of unknown value (a call of one is decided when it runs).
    shared = (ChainMap(dict.fromkeys(fn.__code__.co_freevars, UNKNOWN), fn.__globals__)
              if fn.__code__.co_freevars else namespace)
    ctx = Context(node, filename, shared, recursive)
    ctx.features = features
    ctx.has_class_cell = "__class__" in fn.__code__.co_freevars
    original = (copy.deepcopy(node.body) if both_paths and isinstance(node, gast.Lambda)
                else None)
    node = pipeline.convert(node, ctx)
    anno.setanno(node, anno.ORIGINAL, original)    # a lambda's body as written (see two_paths)
    # A function of the user's that names `ag__` itself keeps it; the operators take
    # another name (`ag__1`), in to_code's output as in the compiled code.
    operators = ctx.new_name("ag__", unique=True) if "ag__" in ctx.used_names else "ag__"
    anno.setanno(node, anno.OPERATORS, operators)
    # (and the name the function is compiled under in the factory, for the same reason:
    # a name the function reads from the factory's scope would get the operators' cell)
    anno.setanno(node, anno.ENTITY, ctx.new_name("ag__entity", unique=True)
                 if "ag__entity" in ctx.used_names else "ag__entity")
    # the function the converted body becomes (see two_paths._nested)
    anno.setanno(node, anno.BODY_NAME, ctx.new_name("converted_body") if both_paths
                 and isinstance(node, gast.FunctionDef)
                 and ctx.converted_body_scope(frozenset(fn.__code__.co_cellvars)) else None)
    # generated functions' names (none is the user's)
    anno.setanno(node, anno.FRESH_NAMES, ctx.taken)
    # (see _compile_unpaused)
    anno.setanno(node, anno.HANDLERS, gast.ExceptHandler in ctx.node_kinds)
    if operators != "ag__":
        rename_operators(node, operators)
    return node, filename


def rename_operators(node: gast.AST, name: str) -> None:
    """Refer to the operators module as `name` in the converted tree `node`: generated
    code reaches it as `ag__.<operator>` (templates.is_operator)."""
    for n in tree.walk(node):
        if templates.is_operator(n):
            n.value = templates.name(name)


def _private_class(qualname: str):
    """The name Python mangles `__x` with in the function `qualname` (`_C__x`): the
    innermost class around it (`C.m`, `C.m.<locals>.g`, `f.<locals>.C.m` -> `C`) without
    leading underscores, or None."""
    if "." not in qualname:         # a module's function, the most common case
        return None
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i].isidentifier() and parts[i + 1] != "<locals>":
            return parts[i].lstrip("_") or None     # `class __:` mangles nothing
    return None


def _strip_for_compile(node: gast.AST) -> None:
    """Defaults and annotations come from the live function, not from re-evaluation."""
    args = node.args
    # (most functions have no defaults: their lists are rebuilt only when they have some)
    if args.defaults:
        args.defaults = [_none(d) for d in args.defaults]
    if args.kw_defaults:
        args.kw_defaults = [None if d is None else _none(d) for d in args.kw_defaults]
    for params in (args.posonlyargs, args.args, args.kwonlyargs):
        for a in params:
            a.annotation = None
    for a in (args.vararg, args.kwarg):
        if a is not None:
            a.annotation = None
    if isinstance(node, gast.FunctionDef):
        node.returns = None
        # `def f[T](...)` (3.12): its type parameters are the live function's too, and
        # its free variables (`T`, read in the body) come from its closure like any
        # other (compiled with them, the function would be nested one scope deeper).
        node.type_params = []


def _none(default: gast.AST) -> gast.Constant:
    """`None` where `default` was."""
    return templates.make(gast.Constant, value=None, kind=None, lineno=default.lineno,
                          col_offset=default.col_offset, end_lineno=default.end_lineno,
                          end_col_offset=default.end_col_offset)


_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag


def _compile(fn: types.FunctionType, recursive: bool, features: frozenset = frozenset(),
             both_paths: bool = True) -> types.CodeType:
    """The code of `fn` converted: with `both_paths`, the converted body while staging and
    the original body otherwise (see two_paths); without, the converted body alone."""
    # Conversion allocates thousands of short-lived nodes and no cycles worth collecting:
    # pausing the cyclic GC for these ~2 ms saves about a tenth of the time.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _compile_unpaused(fn, recursive, features, both_paths)
    finally:
        if paused:
            gc.enable()


def _compile_unpaused(fn: types.FunctionType, recursive: bool, features: frozenset,
                      both_paths: bool = True) -> types.CodeType:
    node, filename = convert_node(fn, recursive, features, both_paths)
    _strip_for_compile(node)
    entity_name = anno.getanno(node, anno.ENTITY)
    operators = anno.getanno(node, anno.OPERATORS)
    if isinstance(node, gast.FunctionDef):
        node.name = entity_name     # so that the factory scope does not shadow a recursive call
        if both_paths:
            # The original body runs while nothing is staged (see two_paths).
            two_paths.join(node, parsing.original_tree(node).body, operators,
                           "".join(anno.getanno(node, anno.SOURCE)[0]),
                           anno.getanno(node, anno.BODY_NAME), traced_lines=True)
        # (a decorated function's code starts at its first decorator's line, as compiled
        # with the decorators, which conversion strips; what join added keeps the `def`'s)
        node.lineno = fn.__code__.co_firstlineno
    elif both_paths:
        two_paths.join_lambda(node, anno.getanno(node, anno.ORIGINAL), operators)
    lineno = node.lineno
    node_fresh_names = anno.getanno(node, anno.FRESH_NAMES)
    cells = [operators, *fn.__code__.co_freevars]
    # A method, or a function nested in one, is compiled in a class of its class's name,
    # so that Python mangles `self.__x` (in generated functions and nested ones too).
    owner = _private_class(getattr(fn.__code__, "co_qualname", fn.__qualname__))
    if owner:       # `_C`, `__C`, ...: the same mangling, and not a name the code reads
        used = _names_read(fn.__code__)
        owner = next(o for k in range(1, len(used) + 2)
                     for o in ["_" * k + owner] if o not in used and o not in cells)
    # The factory, built as `ast` nodes (no template to fill):
    #     def ag__factory():
    #         ag__, <free variables> = None      (makes them cells of the factory)
    #         [class _Owner:]  def ag__entity(...): ...   (or `ag__entity = lambda ...`)
    #         return [_Owner.]ag__entity
    if anno.popanno(node, anno.HANDLERS, False):
        # The name of an `except ... as name` is a str in `ast`'s trees (see compile below).
        parsing.to_ast(node, lineno)
    if not _QUALNAMES_IN_CODE:
        qualnames.mark_generated_lambdas(node)
    if isinstance(node, ast.Lambda):
        node = _at(ast.Assign, lineno, targets=[_at(ast.Name, lineno, id=entity_name, ctx=_STORE)],
                   value=node, type_comment=None)
    entity = [node]
    result = _at(ast.Name, lineno, id=entity_name, ctx=_LOAD)
    if owner:
        entity = [_at(ast.ClassDef, lineno, name=owner, bases=[], keywords=[], body=entity,
                      decorator_list=[], **_TYPE_PARAMS)]
        result = _at(ast.Attribute, lineno, value=_at(ast.Name, lineno, id=owner, ctx=_LOAD),
                     attr=entity_name, ctx=_LOAD)
    cells_target = _at(ast.Tuple, lineno, ctx=_STORE,
                       elts=[_at(ast.Name, lineno, id=c, ctx=_STORE) for c in cells])
    factory = _at(
        ast.FunctionDef, lineno, name="ag__factory", args=_NO_ARGS, decorator_list=[],
        returns=None, type_comment=None, **_TYPE_PARAMS,
        body=[_at(ast.Assign, lineno, targets=[cells_target], type_comment=None,
                  value=_at(ast.Constant, lineno, value=None, kind=None)),
              *entity, _at(ast.Return, lineno, value=result)])
    # The user's `from __future__` flags, not this module's (`annotations`: compile()
    # would otherwise make the annotations of converted code strings).
    module = ast.Module(body=[factory], type_ignores=[])
    flags = fn.__code__.co_flags & _FUTURE_FLAGS
    try:
        # The converted tree's classes are `ast`'s too (see autograph.nodes): most trees
        # compile as they are.
        code = compile(module, filename, "exec", flags=flags, dont_inherit=True)
    except (TypeError, ValueError):
        # What only `ast`'s classes have (the name of an `except ... as name` a str), or a
        # node that conversion made without positions: the tree as `ast`'s, and again.
        parsing.to_ast(node, lineno)
        code = compile(module, filename, "exec", flags=flags, dont_inherit=True)
    scope = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    if owner:
        scope = next(c for c in scope.co_consts if isinstance(c, types.CodeType))
    entity = next(c for c in scope.co_consts
                  if isinstance(c, types.CodeType) and c.co_name in (entity_name, "<lambda>"))
    if not _QUALNAMES_IN_CODE:
        original = fn.__qualname__
        return qualnames.requalify_310(entity, original, original + ".<locals>", node_fresh_names,
                              (fn.__code__.co_name, original), fn.__code__.co_name)
    original = fn.__code__.co_qualname
    return qualnames.requalify(entity, original, original + ".<locals>", node_fresh_names,
                      (fn.__code__.co_name, original), fn.__code__.co_name)


# Python 3.11 keeps a function's qualified name in its code (`co_qualname`); 3.10 has it
# a constant of the code that makes the function (see `_requalify_310`).
_QUALNAMES_IN_CODE = hasattr(types.CodeType, "co_qualname")


_LOAD, _STORE = ast.Load(), ast.Store()
_NO_ARGS = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


def _at(cls: type, lineno: int, **fields):
    """An `ast` node of class `cls` with `fields`, at column 0 of `lineno` (every field
    given: `templates.make`, no constructor call)."""
    return templates.make(cls, lineno=lineno, end_lineno=lineno, col_offset=0,
                          end_col_offset=0, **fields)


def _converted_part(code: types.CodeType, staged: bool) -> list:
    """The code objects that the converted body of `code` defines (its functions,
    lambdas, classes, comprehensions): all of them without the original body, else those
    made before the jump of the staging test to the original body."""
    consts = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    if staged or not consts:
        return consts
    instructions = iter(dis.get_instructions(code))
    for i in instructions:
        if i.argval == "staging" and ("ATTR" in i.opname or "METHOD" in i.opname):
            break
    end = next((i.argval for i in instructions if "JUMP" in i.opname), 0)
    return [i.argval for i in dis.get_instructions(code)
            if i.offset < end and isinstance(i.argval, types.CodeType)]


def _names_read(code: types.CodeType) -> set:
    """Global, builtin, free and attribute names that `code` or code nested in it uses."""
    names, todo = set(code.co_freevars), [code]
    while todo:
        code = todo.pop()
        names.update(code.co_names)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def _bind(code: types.CodeType, fn: types.FunctionType) -> types.FunctionType:
    originals = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(originals[name] if name in originals else types.CellType(operators)
                    for name in code.co_freevars)      # the one other cell: the operators'
    converted = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__qualname__ = fn.__qualname__
    converted.__doc__ = fn.__doc__
    converted.__annotations__ = fn.__annotations__
    if hasattr(fn, "__type_params__"):
        converted.__type_params__ = fn.__type_params__
    converted.__dict__.update(fn.__dict__)
    converted.__wrapped__ = fn
    setattr(converted, _CONVERTED, True)
    return converted


def _generated_without_source(fn: types.FunctionType) -> bool:
    """Whether `fn` was made from text that is not kept anywhere (`exec`, `eval`: the
    `__init__` of a dataclass, a namedtuple's `__new__`): there is no source to convert,
    and it is not code the user wrote, so it runs as it is without a warning."""
    filename = fn.__code__.co_filename
    return (filename[:1] == "<" and not filename.startswith("<frozen")
            and (not linecache.getlines(filename)
                 or sourceless.made_by_library(fn.__code__, fn.__module__)
                 or (filename in sourceless.UNREAD_FILES
                     and not sourceless.source_is_its_own(fn.__code__))))


def _warn_sourceless(fn: types.FunctionType) -> None:
    """Once per function: the user's code is left unconverted, with no source to convert."""
    if fn.__code__ not in _warned_sourceless:
        _warned_sourceless.add(fn.__code__)
        logger.warning("%s", sourceless.left_unconverted(fn))


def convert_function(fn: types.FunctionType, recursive: bool = True,
                     features: frozenset = frozenset(), staged: bool = False) -> Callable:
    """`fn` converted, or `fn` itself (with a logged warning) when it cannot be. With
    `staged`, the converted body alone (see `for_staging`)."""
    if getattr(fn, _CONVERTED, False):
        return fn
    options = calls.options_key(recursive, features, staged)
    known = calls.cached(fn, options)
    if known is not None and (known is not fn or not strict()):
        return known
    # Code objects compare equal across files (co_filename is not compared) and across
    # modules: the conversion names its file in errors and resolves names in its module.
    key = (fn.__code__, fn.__code__.co_filename, fn.__module__, options)
    code = code_cache.get(key)
    if code is None or (code is False and strict()):
        try:
            if _generated_without_source(fn):
                if sourceless.source_not_kept(fn.__code__, fn.__module__):
                    _warn_sourceless(fn)
                raise LeftAsWritten(f"{fn.__qualname__} has no source to convert "
                                    f"(made by exec or eval: {fn.__code__.co_filename})")
            start = time.perf_counter()
            code = _compile(fn, recursive, features, both_paths=not staged)
            if any(type(c) is types.CodeType for c in fn.__code__.co_consts):
                # (functions the user's code defines: made by the converted body, they are
                # converted already; the generated ones are called by the operators alone)
                calls.made_by_conversion(_converted_part(code, staged))
            if logger.isEnabledFor(logging.INFO):
                _log_conversion(fn, recursive, features, time.perf_counter() - start)
        except LeftAsWritten as e:
            logger.info("autograph: %s", e)
            code = _AS_WRITTEN
        except Exception as e:        # never run a wrongly converted function
            if strict():
                raise
            logger.warning("autograph could not convert %s, running it unconverted: %s",
                           getattr(fn, "__qualname__", fn), e)
            logger.debug("conversion failure", exc_info=True)
            code = False
        code_cache[key] = code
    converted = fn if code is False or code is _AS_WRITTEN else _bind(code, fn)
    calls.remember(fn, options, converted)
    return converted


calls.set_converter(convert_function)      # the converter calls from converted code reach


def to_graph(entity: Any, recursive: bool = True, experimental_optional_features: Any = None) -> Any:
    """The converted function: Python semantics on Python values, staged on tensors.

    Its `if`, `while`, `for`, `break`, `continue`, `return`, `assert`, list appends and
    (with the features) `print` become autograph operators: on Python values they run as
    Python, on symbolic tensors they stage graph control flow (rt.function does this
    conversion itself).

    Args:
      entity: a function, a method or a callable object (other callables are returned as
        they are).
      recursive: also convert the functions it calls (default True).
      experimental_optional_features: `ag.experimental.Feature` values (see there).

    Returns:
      The converted callable.

    Raises:
      TypeError: for something that is not callable.

    >>> def f(x):
    ...     if x > 0:
    ...         x = x * 2
    ...     return x
    >>> g = ag.to_graph(f)
    >>> g(3), g(-1)
    (6, -1)
    >>> print(rt.function(g, autograph=False)(rt.constant(3)))
    rt.Tensor(6, shape=(), dtype=int32)
    """
    return _converted(entity, recursive, experimental.features(experimental_optional_features),
                      False, "to_graph")


def for_staging(entity: Any, recursive: bool = True,
                experimental_optional_features: Any = None) -> Any:
    """What `to_graph` returns, for a caller that calls it only while a graph is being
    built (`rt.function` tracing, the runtime's functional ops): the converted body
    alone. `to_graph`'s function also carries the original body, which runs while
    nothing is staged; compiling it is a sixth of converting a small function, and a
    tracer never runs it. (Called on Python values, the converted body gives the same
    results, only slower.) Functions that converted code calls are converted so too.

    Args:
      entity: a function, a method or a callable object, as for `to_graph`.
      recursive: as for `to_graph`.
      experimental_optional_features: as for `to_graph`.

    Returns:
      The converted callable (cached apart from `to_graph`'s).

    Raises:
      TypeError: for something that is not callable.

    >>> def wrap(x):
    ...     while x >= 10:
    ...         x -= 10
    ...     return x
    >>> print(rt.function(ag.for_staging(wrap), autograph=False)(rt.constant(34)))
    rt.Tensor(4, shape=(), dtype=int32)
    """
    return _converted(entity, recursive, experimental.features(experimental_optional_features),
                      True, "for_staging")


def _converted(entity: Any, recursive: bool, features: frozenset, staged: bool, what: str) -> Any:
    if isinstance(entity, types.MethodType):
        return types.MethodType(_converted(entity.__func__, recursive, features, staged, what),
                                entity.__self__)
    if isinstance(entity, types.FunctionType):
        return convert_function(entity, recursive, features, staged)
    if type(entity) is functools.partial:
        # (its function converted, with the same arguments bound, as converted code's
        # calls of a partial are: operators/calls.py)
        inner = _converted(entity.func, recursive, features, staged, what)
        return entity if inner is entity.func else functools.partial(
            inner, *entity.args, **entity.keywords)
    call = getattr(type(entity), "__call__", None)
    if isinstance(call, types.FunctionType) and not isinstance(entity, type):
        # a callable object
        return types.MethodType(convert_function(call, recursive, features, staged), entity)
    if callable(entity):
        logger.info("autograph: %r is not Python source code; called as it is", entity)
        return entity
    raise TypeError(f"{what} expects a function or method, got {type(entity).__name__}")


def to_code(entity: Any, recursive: bool = True, experimental_optional_features: Any = None) -> str:
    """Source of the converted function, as a str.

    It compiles once `ag__` is importable (`from autograph import operators as ag__`;
    `ag__1` when the function's own code names `ag__`). This is the converted body: what
    runs while a graph is being built. The function `to_graph` compiles also starts with
    `if not ag__.staging:` and the original body, which runs on Python values outside
    tracing (see `autograph.operators.python_path`); `autograph convert` writes both.

    Args:
      entity: a function, a method or an rt.function.
      recursive: as for `to_graph`.
      experimental_optional_features: as for `to_graph`.

    Returns:
      The converted source code, a str.

    Raises:
      TypeError: for something that is not a Python function.

    >>> def f(x):
    ...     if x > 0:
    ...         x = x * 2
    ...     return x
    >>> print(ag.to_code(f))
    def f(x):
    <BLANKLINE>
        def if_true(x):
            x = x * 2
            return x
        x = ag__.if_stmt(x > 0, if_true, None, (x,), ('x',))
        return x
    <BLANKLINE>
    """
    python_function = getattr(entity, "python_function", None)    # an `rt.function`
    if not isinstance(entity, types.FunctionType) and callable(python_function):
        entity = python_function
    if isinstance(entity, types.MethodType):
        entity = entity.__func__
    entity = getattr(entity, "__wrapped__", entity) if getattr(entity, _CONVERTED, False) else entity
    if not isinstance(entity, types.FunctionType):
        raise TypeError(f"to_code expects a function or method, got {type(entity).__name__}")
    node, _ = convert_node(entity, recursive, experimental.features(experimental_optional_features))
    return unparsing.unparse(node) + "\n"


def _log_conversion(fn, recursive: bool, features: frozenset, seconds: float) -> None:
    code = fn.__code__
    logger.info("autograph: converted %s (%s:%d) in %.1f ms", fn.__qualname__,
                code.co_filename, code.co_firstlineno, seconds * 1000)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("autograph: the converted code of %s:\n%s", fn.__qualname__,
                     to_code(fn, recursive, features or None))


class _UnlessConfigured(logging.StreamHandler):
    """Prints to stderr what no handler of the root logger would print: with
    `logging.basicConfig()` (before or after `set_verbosity`), records reach the user's
    handlers only, not twice."""

    def emit(self, record: logging.LogRecord) -> None:
        if not logging.getLogger().handlers:
            super().emit(record)


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """How much the `autograph` logger says, as TensorFlow's `tf.autograph.set_verbosity`.

    0, warnings only (functions left unconverted, loops unrolled while tracing); 1, also
    each conversion (function, file:line, time) and each decision to leave code as Python;
    2 and above, also the converted code of each function. Also set by the environment
    variable `AUTOGRAPH_VERBOSITY`. Records go to the handlers the program configured
    (`logging.basicConfig()`), else to stderr. The level applies also to the loggers of the
    registered tensor libraries (named as the library: the runtime's `runtime` logger tells
    each trace of an `rt.function` at level 1, and warns about retracing).

    Args:
      level: an int, 0 and up.
      alsologtostdout: also write the records to stdout.

    Returns:
      None.

    >>> import logging
    >>> loggers = [logging.getLogger(n) for n in ("autograph", "runtime")]
    >>> levels = [log.level for log in loggers]
    >>> ag.set_verbosity(1)
    >>> logging.getLogger("autograph").level == logging.INFO
    True
    >>> ag.set_verbosity(0)
    >>> for log, level in zip(loggers, levels):
    ...     log.setLevel(level)
    """
    loggers = [logger] + [logging.getLogger(name) for name in sorted(calls.LOGGERS - {"autograph"})]
    for log in loggers:
        log.setLevel(logging.WARNING if level <= 0 else logging.INFO if level == 1
                     else logging.DEBUG)
    for log, handler in _HANDLERS:
        log.removeHandler(handler)
    _HANDLERS.clear()
    for log in loggers:
        if level > 0:
            _HANDLERS.append((log, _UnlessConfigured()))
        if alsologtostdout:
            _HANDLERS.append((log, logging.StreamHandler(sys.stdout)))
    for log, handler in _HANDLERS:
        log.addHandler(handler)


_HANDLERS: list = []     # (logger, handler) that set_verbosity added


if os.environ.get("AUTOGRAPH_VERBOSITY"):
    set_verbosity(int(os.environ["AUTOGRAPH_VERBOSITY"]))
