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
import gc
import linecache
import logging
import os
import sys
import time
import types
from collections import ChainMap
from typing import Any, Callable, Optional

import gast

from autograph import (experimental, operators, parsing, pipeline, templates, tree, two_paths,
                       unparsing)
from autograph.converters.context import UNKNOWN, Context
from autograph.operators import calls
from autograph.errors import ConversionError

logger = logging.getLogger("autograph")

_code_cache: dict = {}     # (code, options) -> converted code, False (failed) or _AS_WRITTEN
# (per function conversions are kept on the function: operators.calls.cached / remember)
_CONVERTED = "__autograph_converted__"


class LeftAsWritten(ConversionError):
    """`fn` looks at its own frame (`locals()`, `eval`, `sys._getframe`, ...: see
    `parsing.introspection`); converting it would change what it sees, so it runs as
    written."""


_AS_WRITTEN = "as written"      # in _code_cache: a function that runs unconverted by design


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
    namespace = _namespace(fn)
    if parsing.may_introspect(fn.__code__):
        found = parsing.introspection(node, namespace)
        if found is not None:
            raise LeftAsWritten(f"{fn.__qualname__} is not converted: {found[0]}")
    # One conversion serves every closure of the code (see the module docstring): what it
    # decides must not depend on one closure's cell values, so the converters see the
    # free variables as names of unknown value (a call of one is decided when it runs).
    shared = (ChainMap(dict.fromkeys(fn.__code__.co_freevars, UNKNOWN), fn.__globals__)
              if fn.__code__.co_freevars else namespace)
    ctx = Context(node, filename, shared, recursive)
    ctx.features = features
    ctx.has_class_cell = "__class__" in fn.__code__.co_freevars
    original = copy.deepcopy(node.body) if isinstance(node, gast.Lambda) else None
    node = pipeline.convert(node, ctx)
    node.ag_original = original         # a lambda's body as written (see two_paths)
    # A function of the user's that names `ag__` itself keeps it; the operators take
    # another name (`ag__1`), in to_code's output as in the compiled code.
    node.ag_operators = ctx.new_name("ag__", unique=True) if "ag__" in ctx.used_names else "ag__"
    # the function the converted body becomes (see two_paths._nested)
    node.ag_body_name = ctx.new_name("converted_body") if isinstance(node, gast.FunctionDef) \
        else None
    node.ag_fresh_names = ctx.taken      # generated functions' names (none is the user's)
    if node.ag_operators != "ag__":
        rename_operators(node, node.ag_operators)
    return node, filename


def rename_operators(node: gast.AST, name: str) -> None:
    """Refer to the operators module as `name` in the converted tree `node`: generated
    code reaches it as `ag__.<operator>` (a generated `ag__` that is not followed by an
    attribute is a user's variable, such as a loop's state)."""
    for n in tree.walk(node):
        if (type(n) is gast.Attribute and type(n.value) is gast.Name and n.value.id == "ag__"
                and getattr(n.value, "ag_generated", False)):
            n.value = templates.name(name)


def _private_class(qualname: str):
    """The name Python mangles `__x` with in the function `qualname` (`_C__x`): the
    innermost class around it (`C.m`, `C.m.<locals>.g`, `f.<locals>.C.m` -> `C`) without
    leading underscores, or None."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i].isidentifier() and parts[i + 1] != "<locals>":
            return parts[i].lstrip("_") or None     # `class __:` mangles nothing
    return None


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


_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag


def _compile(fn: types.FunctionType, recursive: bool, features: frozenset = frozenset()) -> types.CodeType:
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
        # The original body runs while nothing is staged (see two_paths).
        two_paths.join(node, parsing.original_tree(node).body, node.ag_operators,
                       "".join(node.ag_source[0]), node.ag_body_name)
    else:
        two_paths.join_lambda(node, node.ag_original, node.ag_operators)
    lineno = node.lineno
    node_fresh_names = node.ag_fresh_names
    cells = [node.ag_operators, *fn.__code__.co_freevars]
    # A method, or a function nested in one, is compiled in a class of its class's name,
    # so that Python mangles `self.__x` (in generated functions and nested ones too).
    owner = _private_class(getattr(fn.__code__, "co_qualname", fn.__qualname__))
    if owner:       # `_C`, `__C`, ...: the same mangling, and not a name the code reads
        used = _names_read(fn.__code__)
        owner = next(o for k in range(1, len(used) + 2)
                     for o in ["_" * k + owner] if o not in used and o not in cells)
    # The factory, built as `ast` nodes (no template to fill, nothing for to_ast):
    #     def ag__factory():
    #         ag__, <free variables> = None      (makes them cells of the factory)
    #         [class _Owner:]  def ag__entity(...): ...   (or `ag__entity = lambda ...`)
    #         return [_Owner.]ag__entity
    node = parsing.to_ast(node)
    if not _QUALNAMES_IN_CODE:
        _mark_generated_lambdas(node)
    if isinstance(node, ast.Lambda):
        node = _at(ast.Assign(targets=[_at(ast.Name("ag__entity", _STORE), lineno)], value=node),
                   lineno)
    entity = [node]
    result = _at(ast.Name("ag__entity", _LOAD), lineno)
    if owner:
        entity = [_at(ast.ClassDef(name=owner, bases=[], keywords=[], body=entity,
                                   decorator_list=[], **_TYPE_PARAMS), lineno)]
        result = _at(ast.Attribute(_at(ast.Name(owner, _LOAD), lineno), "ag__entity", _LOAD),
                     lineno)
    cells_target = _at(ast.Tuple([_at(ast.Name(c, _STORE), lineno) for c in cells], _STORE),
                       lineno)
    factory = _at(ast.FunctionDef(
        name="ag__factory", args=_NO_ARGS, decorator_list=[], returns=None, type_comment=None,
        body=[_at(ast.Assign(targets=[cells_target], value=_at(ast.Constant(None), lineno)),
                  lineno), *entity, _at(ast.Return(result), lineno)], **_TYPE_PARAMS), lineno)
    # The user's `from __future__` flags, not this module's (`annotations`: compile()
    # would otherwise make the annotations of converted code strings).
    code = compile(ast.Module(body=[factory], type_ignores=[]), filename, "exec",
                   flags=fn.__code__.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    scope = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    if owner:
        scope = next(c for c in scope.co_consts if isinstance(c, types.CodeType))
    entity = next(c for c in scope.co_consts
                  if isinstance(c, types.CodeType) and c.co_name in ("ag__entity", "<lambda>"))
    if not _QUALNAMES_IN_CODE:
        original = fn.__qualname__
        return _requalify_310(entity, original, original + ".<locals>", node_fresh_names,
                              (fn.__code__.co_name, original), fn.__code__.co_name)
    original = fn.__code__.co_qualname
    return _requalify(entity, original, original + ".<locals>", node_fresh_names,
                      (fn.__code__.co_name, original), fn.__code__.co_name)


# Python 3.11 keeps a function's qualified name in its code (`co_qualname`); 3.10 has it
# a constant of the code that makes the function (see `_requalify_310`).
_QUALNAMES_IN_CODE = hasattr(types.CodeType, "co_qualname")


_LOAD, _STORE = ast.Load(), ast.Store()
_NO_ARGS = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


def _at(node, lineno: int):
    node.lineno = node.end_lineno = lineno
    node.col_offset = node.end_col_offset = 0
    return node


def _names_read(code: types.CodeType) -> set:
    """Global, builtin, free and attribute names that `code` or code nested in it uses."""
    names, todo = set(code.co_freevars), [code]
    while todo:
        code = todo.pop()
        names.update(code.co_names)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


_OPTIMIZED = 0x0001     # inspect.CO_OPTIMIZED: set on functions, not on class bodies
_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


def _requalify(code: types.CodeType, qualname: str, inner: str, generated: set,
               user: tuple, name: Optional[str] = None) -> types.CodeType:
    """`code`, qualified as `qualname`, and the code nested in it, qualified under `inner`
    (`f.<locals>` in a function `f`) as in the user's function: generated functions
    (`if_true`) and lambdas (`ag__.if_exp(c, lambda: ...)`) pass their own `inner` on, so
    that a nested `def`, lambda or class has the `__qualname__` it has unconverted.

    Generated functions take the name of the user's function they are part of (`user`:
    its name and qualified name), so that what reads frames while the converted body
    runs (tracebacks, `logging`'s funcName, `inspect.stack()`, the locations recorded for
    staged ops) names the user's function, at the user's lines. `name`: a new co_name.
    A code object with nothing to change is returned as it is."""
    made_here = _generated_lambdas(code) if any(
        type(c) is types.CodeType and c.co_name == "<lambda>" for c in code.co_consts) else ()
    consts = []
    changed = False
    for const in code.co_consts:
        if type(const) is types.CodeType:
            # Everything compiled in the factory is qualified under it, but for what is
            # declared `global` (its name alone). The compiler shares equal code objects
            # within a module: a user's `lambda: 1` in the original body is also the one
            # inside `or_`'s thunk in the converted body, where it is not a child.
            if const.co_qualname.startswith("ag__factory."):
                own = f"{inner}.{const.co_name}"
            else:
                own = const.co_qualname         # declared `global`: its name alone
            if id(const) in made_here or (const.co_name in generated
                                          and const.co_flags & _OPTIMIZED):
                new = _requalify(const, user[1], inner, generated, user, user[0])
            else:
                if const.co_flags & _OPTIMIZED and const.co_name not in _COMPREHENSIONS:
                    nested = own + ".<locals>"
                else:                           # class bodies, comprehensions
                    nested = own
                new = _requalify(const, own, nested, generated, (const.co_name, own))
            if new is not const:
                const, changed = new, True
        consts.append(const)
    if not code.co_flags & _OPTIMIZED:        # a class body stores its `__qualname__`
        old = code.co_qualname
        if old != qualname and any(type(c) is str and c == old for c in consts):
            consts = [qualname if type(c) is str and c == old else c for c in consts]
            changed = True
    changes = {"co_consts": tuple(consts)} if changed else {}
    if code.co_qualname != qualname:
        changes["co_qualname"] = qualname
    if name is not None and code.co_name != name:
        changes["co_name"] = name
    return code.replace(**changes) if changes else code


def _generated_lambdas(code: types.CodeType) -> set:
    """ids of the lambdas in `code` that autograph wrote: template nodes have no width
    (their `lambda` is made where a zero-width span says), a user's lambda has one. (The
    LOAD_CONST instructions of `co_code`, with `co_positions()`, read directly: `dis`
    costs a fifth of converting a long function.)"""
    consts = code.co_consts
    lambdas = {i for i, c in enumerate(consts)
               if type(c) is types.CodeType and c.co_name == "<lambda>"}
    found = set()
    if not lambdas:
        return found
    raw = code.co_code
    arg = 0
    for (line, end, col, end_col), i in zip(code.co_positions(), range(0, len(raw), 2)):
        op = raw[i]
        if op == _EXTENDED_ARG:
            arg = (arg | raw[i + 1]) << 8
            continue
        value = arg | raw[i + 1]
        arg = 0
        if (op == _LOAD_CONST and value in lambdas and line is not None and line == end
                and col == end_col):
            found.add(id(consts[value]))
    return found


_LOAD_CONST, _EXTENDED_ARG = dis.opmap["LOAD_CONST"], dis.opmap["EXTENDED_ARG"]


# Python 3.10. Its code has no qualified name: `MAKE_FUNCTION` takes the function's from
# a constant of the code making it (LOAD_CONST <code>; LOAD_CONST <qualname>), and a class
# body stores its own (LOAD_CONST <qualname>; STORE_NAME __qualname__). Nor has it column
# positions, which tell autograph's lambdas from the user's on 3.11: autograph's (those
# with no width) are compiled at line -1 instead, a `co_firstlineno` no source line has,
# and given their line back once found (`_generated_lambdas_310`).

_GENERATED_LINE = -1
_MAKE_FUNCTION, _STORE_NAME = dis.opmap["MAKE_FUNCTION"], dis.opmap["STORE_NAME"]


def _mark_generated_lambdas(node) -> None:
    for n in ast.walk(node):
        if (type(n) is ast.Lambda and n.lineno == n.end_lineno
                and n.col_offset == n.end_col_offset):
            n.lineno = _GENERATED_LINE


def _instructions_310(raw: bytes) -> list:
    """[(offset, opcode, argument, offset of its argument's first byte)] of 3.10's
    `co_code` (two bytes an instruction; EXTENDED_ARG prefixes folded in)."""
    found, arg, first = [], 0, None
    for i in range(0, len(raw), 2):
        op = raw[i]
        if first is None:
            first = i
        if op == _EXTENDED_ARG:
            arg = (arg | raw[i + 1]) << 8
            continue
        found.append((i, op, arg | raw[i + 1], first))
        arg, first = 0, None
    return found


def _set_argument_310(raw: bytearray, offset: int, first: int, value: int) -> bool:
    """Writes `value` as the argument of the instruction at `offset` (its prefixes from
    `first`), if it fits in as many bytes; whether it did."""
    width = (offset - first) // 2 + 1
    if value >= 1 << (8 * width):
        return False
    for k in range(width):
        raw[offset + 1 - 2 * k] = (value >> (8 * k)) & 0xFF
    return True


def _with_line_310(code: types.CodeType, line: int) -> types.CodeType:
    """`code` with `co_firstlineno` `line`, its instructions' lines as they were (3.10's
    line table counts from `co_firstlineno`: pairs of no width move it back first)."""
    shift, prefix = code.co_firstlineno - line, bytearray()
    while shift:
        step = max(-127, min(127, shift))
        prefix += bytes([0, step & 0xFF])
        shift -= step
    return code.replace(co_firstlineno=line, co_linetable=bytes(prefix) + code.co_linetable)


def _class_qualname_310(code: types.CodeType) -> Optional[int]:
    """Index in `co_consts` of the qualified name a 3.10 class body stores."""
    previous = None
    for _, op, arg, _ in _instructions_310(code.co_code):
        if (op == _STORE_NAME and code.co_names[arg] == "__qualname__" and previous
                and previous[0] == _LOAD_CONST and type(code.co_consts[previous[1]]) is str):
            return previous[1]
        previous = (op, arg)
    return None


def _requalify_310(code: types.CodeType, qualname: str, inner: str, generated: set,
                   user: tuple, name: Optional[str] = None) -> types.CodeType:
    """`_requalify` for Python 3.10, where qualified names are constants (see above): the
    constant each `MAKE_FUNCTION` of `code` reads is changed (a new one where the
    argument fits; else the function keeps the name compiled), and a class body's own."""
    consts = list(code.co_consts)
    changed = False
    for i, const in enumerate(code.co_consts):
        if type(const) is types.CodeType and const.co_firstlineno == _GENERATED_LINE:
            line = next((line for _, _, line in const.co_lines() if line is not None), 1)
            consts[i] = _with_line_310(const, line)
            changed = True
    made_here = {i for i, const in enumerate(code.co_consts)
                 if type(const) is types.CodeType and const.co_firstlineno == _GENERATED_LINE}
    raw = bytearray(code.co_code)
    instructions = _instructions_310(raw)
    done = {}                           # index of a code constant: its new version
    for (_, op1, arg1, _), (at, op2, arg2, first), (_, op3, _, _) in zip(
            instructions, instructions[1:], instructions[2:]):
        if not (op1 == op2 == _LOAD_CONST and op3 == _MAKE_FUNCTION):
            continue
        const, compiled = consts[arg1], code.co_consts[arg2]
        if type(const) is not types.CodeType or type(compiled) is not str:
            continue
        if const.co_flags & _OPTIMIZED:
            own = (f"{inner}.{const.co_name}" if compiled.startswith("ag__factory.")
                   else compiled)       # declared `global`: its name alone
            if arg1 in made_here or const.co_name in generated:
                new, new_name = _requalify_310(const, user[1], inner, generated, user,
                                               user[0]), user[1]
            else:
                nested = own if const.co_name in _COMPREHENSIONS else own + ".<locals>"
                new, new_name = _requalify_310(const, own, nested, generated,
                                               (const.co_name, own)), own
        else:                           # a class body: the name given is its own
            index = _class_qualname_310(const)
            if index is None:
                continue
            stored = const.co_consts[index]
            own = f"{inner}.{const.co_name}" if stored.startswith("ag__factory.") else stored
            new, new_name = _requalify_310(const, own, own, generated,
                                           (const.co_name, own)), compiled
        if new is not const:
            done[arg1] = new
        if new_name != compiled:
            if new_name not in consts:
                consts.append(new_name)
            if _set_argument_310(raw, at, first, consts.index(new_name)):
                changed = True
    for i, new in done.items():
        consts[i] = new
        changed = True
    if not code.co_flags & _OPTIMIZED:          # a class body stores its `__qualname__`
        index = _class_qualname_310(code)
        if index is not None and consts[index] != qualname:
            consts[index] = qualname
            changed = True
    changes = {"co_consts": tuple(consts), "co_code": bytes(raw)} if changed else {}
    if name is not None and code.co_name != name:
        changes["co_name"] = name
    return code.replace(**changes) if changes else code


def _bind(code: types.CodeType, fn: types.FunctionType) -> types.FunctionType:
    originals = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(originals[name] if name in originals else types.CellType(operators)
                    for name in code.co_freevars)      # the one other cell: the operators'
    converted = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__qualname__ = fn.__qualname__
    converted.__doc__ = fn.__doc__
    converted.__annotations__ = fn.__annotations__
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
            and not linecache.getlines(filename))


def convert_function(fn: types.FunctionType, recursive: bool = True,
                     features: frozenset = frozenset()) -> Callable:
    """`fn` converted, or `fn` itself (with a logged warning) when it cannot be."""
    if getattr(fn, _CONVERTED, False):
        return fn
    options = (recursive, features) if features else recursive
    known = calls.cached(fn, options)
    if known is not None and (known is not fn or not strict()):
        return known
    # Code objects compare equal across files (co_filename is not compared) and across
    # modules: the conversion names its file in errors and resolves names in its module.
    key = (fn.__code__, fn.__code__.co_filename, fn.__module__, options)
    code = _code_cache.get(key)
    if code is None or (code is False and strict()):
        try:
            if _generated_without_source(fn):
                raise LeftAsWritten(f"{fn.__qualname__} has no source to convert "
                                    f"(made by exec or eval: {fn.__code__.co_filename})")
            start = time.perf_counter()
            code = _compile(fn, recursive, features)
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
        _code_cache[key] = code
    converted = fn if code is False or code is _AS_WRITTEN else _bind(code, fn)
    calls.remember(fn, options, converted)
    return converted


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
