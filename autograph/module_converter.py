"""Whole modules, converted: the source of a `.py` file in, a runnable module out.

    text, report = convert_source(open("shapes.py").read(), "shapes.py")

Every function and method of the module (or those named in `only`) is replaced by its
converted form; everything else — imports, classes, module-level code, decorators,
comments outside converted bodies — is kept as text, line for line. A converted function
is its printed header and docstring, `if __ag__.staging:` with the printed converted body,
then its original body's text as written (see `convert_function_node`). The output
imports what converted code needs:

The design in full: docs/architecture.md, under `autograph/module_converter.py`.
"""
from __future__ import annotations

import __future__
import ast
import bisect
import builtins
import copy
import gc
import io
import itertools
import symtable
import tokenize
import warnings
from collections import ChainMap
from dataclasses import dataclass, field
from typing import Optional, Sequence

from autograph import nodes as gast
from autograph import anno, introspection, parsing, pipeline, templates, two_paths, unparsing
from autograph.converters.context import Context
from autograph.errors import ConversionError
from autograph.module_namespace import UNKNOWN, module_namespace
from autograph.tree import Scan, children, jump_outside_loop

PRELUDE = ("from autograph import operators as __ag__\n"
           "from autograph.module_support import converted as __ag_converted__\n")


class SourceError(Exception):
    """Input that cannot be converted; `str(e)` is one line naming the file (and line)."""


@dataclass
class Report:
    converted: list = field(default_factory=list)   # qualified names
    skipped: list = field(default_factory=list)     # (qualified name, line, reason)
    lines: int = 0

    def summary(self, filename: str) -> str:
        return (f"autograph: {filename}: converted {len(self.converted)} function"
                f"{'' if len(self.converted) == 1 else 's'}, skipped {len(self.skipped)}")


# ---------------------------------------------------------------------------------------
# Reading

def read_source(path: str) -> tuple[str, str]:
    """(text, encoding) of a Python file, or SourceError with a one-line reason."""
    import os
    if os.path.isdir(path):
        raise SourceError(f"{path}: is a directory, not a Python file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except OSError as e:
        raise SourceError(f"{path}: cannot read: {e.strerror or e}") from None
    return decode_source(data, path)


def decode_source(data: bytes, path: str) -> tuple[str, str]:
    """(text, encoding) of the bytes of a Python file (named `path` in messages), or
    SourceError: binary data is "not a Python source file"."""
    if b"\0" in data:
        raise SourceError(f"{path}: not a Python source file (it holds binary data)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        raise SourceError(f"{path}: not a Python source file ({e.msg})") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise SourceError(f"{path}:{line}: not a Python source file: cannot decode it as "
                          f"{encoding} (invalid byte {data[e.start:e.start + 1]!r})") from None
    if encoding == "utf-8-sig":
        text = text.lstrip("\ufeff")
    return text, encoding


# ---------------------------------------------------------------------------------------
# Which functions, and what their names resolve to

@dataclass
class _Target:
    node: ast.AST                 # FunctionDef or AsyncFunctionDef (pristine ast)
    qualname: str
    in_class: bool


def _targets(body: list, prefix: str = "", in_class: bool = False) -> list:
    """Functions whose `def` runs at module or class level (not inside functions)."""
    found = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(_Target(stmt, prefix + stmt.name, in_class))
        elif isinstance(stmt, ast.ClassDef):
            found += _targets(stmt.body, f"{prefix}{stmt.name}.", True)
        else:                                  # in source order: try, except, else, finally
            for name in ("body", "handlers", "cases", "orelse", "finalbody"):
                for part in getattr(stmt, name, None) or ():
                    if isinstance(part, (ast.ExceptHandler, ast.match_case)):
                        found += _targets(part.body, prefix, in_class)
                    else:
                        found += _targets([part], prefix, in_class)
    return found


_BUILTIN_NAMES = frozenset(vars(builtins))


# ---------------------------------------------------------------------------------------
# Converting one function

_YIELDS = (gast.Yield, gast.YieldFrom)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _is_generator(node: gast.AST) -> bool:
    """Whether `yield` is in the function's own scope (not in a nested function)."""
    todo = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, _YIELDS):
            return True
        if not isinstance(n, _SCOPES):
            todo.extend(children(n))
        else:
            todo.extend(getattr(n, "decorator_list", ()))
    return False


def _mark_nested(fn: gast.AST, may_yield: bool = True) -> None:
    """Decorate the user's functions nested in `fn` as the top-level ones are: converted
    with it (`@__ag_converted__`), or kept (`@ag__.do_not_convert`: generators), so that
    calling them from converted code neither converts them again nor warns that it
    cannot. Methods of nested classes were not converted: only their generators are
    marked (to be kept). `may_yield`: whether `fn` holds a `yield` anywhere (else none of
    its functions is a generator, and none is walked to find out)."""
    todo = [(fn.body, False)]
    while todo:
        block, in_class = todo.pop()
        for node in block:
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
                if not anno.getanno(node, anno.GENERATED, False):
                    if isinstance(node, gast.AsyncFunctionDef) or (may_yield
                                                                   and _is_generator(node)):
                        node.decorator_list.append(gast.Attribute(
                            value=templates.name("ag__"), attr="do_not_convert",
                            ctx=gast.Load()))
                    elif not in_class:
                        node.decorator_list.append(templates.name("__ag_converted__"))
                todo.append((node.body, in_class))
            elif isinstance(node, gast.ClassDef):
                todo.append((node.body, True))
            else:                      # a `def` is a statement: only statement lists hold one
                for name in _BLOCKS:
                    inner = getattr(node, name, None)
                    if inner:
                        todo.append((inner, in_class))


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


# Generated code calls the operators as `ag__.if_stmt(...)`; converted modules import
# them as `__ag__`, a name `from module import *` and checks of public names skip (a
# user's own `ag__` stays as it is). A function that binds one of the prelude's names
# itself would hide it: it stays as written.
_PRELUDE_NAMES = frozenset({"__ag__", "__ag_converted__"})


def _parameters(args: ast.arguments, scan: Scan) -> gast.arguments:
    """The parameter names only: the function's scope; its defaults and annotations are
    evaluated where the `def` runs, and are printed as written. Added to `scan` as
    `scan.add` would add them."""
    def name(a):
        if a is None:
            return None
        scan.names.add(a.arg)
        scan.stored.add(a.arg)
        return templates.make(gast.Name, id=a.arg, ctx=_PARAM, annotation=None,
                              type_comment=None)
    scan.kinds.add(gast.arguments)
    params = templates.make(gast.arguments, posonlyargs=[name(a) for a in args.posonlyargs],
                            args=[name(a) for a in args.args], vararg=name(args.vararg),
                            kwonlyargs=[name(a) for a in args.kwonlyargs],
                            kw_defaults=[None] * len(args.kwonlyargs),
                            kwarg=name(args.kwarg), defaults=[])
    if scan.names:
        scan.kinds.add(gast.Name)
    return params


_PARAM = gast.Param()


def convert_function_node(node: ast.FunctionDef, filename: str, namespace: dict,
                          in_class: bool, prefix: str = "", lines: Sequence[str] = ()) -> str:
    """Source of the converted `def` (without decorators), each line starting with
    `prefix`; the comments on lines of their own in its body, from the file's `lines`,
    are kept before the statements they preceded. Raises ConversionError (or any
    converter bug). The body of `node` is converted in place (it is not usable
    afterwards); its positions, signature and decorators are left as they were.

    The layout (`two_paths.staging_first`): the printed header, docstring and hoisted
    `global`/`nonlocal`, `if __ag__.staging:` and the printed converted body, then the
    original body's text verbatim from `lines`; where it cannot be copied so
    (`two_paths.verbatim_span`), or with no `lines`, both bodies are printed
    (`two_paths.join`: `if not __ag__.staging:` and the original body first)."""
    return _convert_function_node(node, filename, namespace, in_class, prefix, lines)[0]


def _convert_function_node(node, filename, namespace, in_class, prefix, lines, declares=True):
    """(source, the part of it that is printed here): all of it, or in the verbatim
    layout the part before the original body's text (which compiles where the input
    does, `_uncompilable`). `declares`: False where the module's text has no `global` or
    `nonlocal` at all (then no function's has: its text is not looked at)."""
    if isinstance(node, ast.AsyncFunctionDef):
        raise ConversionError("async def")
    # (the function's text, read only for those two words)
    text = ("global nonlocal" if not lines else
            "".join(lines[node.lineno - 1:node.end_lineno]) if declares else "")
    declared = (two_paths.declarations(node.body)
                if lines and ("global" in text or "nonlocal" in text) else [])
    verbatim = two_paths.verbatim_span(node, lines, prefix, declared) if lines else None
    doc = two_paths.copy_docstring(node.body) if verbatim is not None else []
    original = _original_body(node, lines) if verbatim is None else None
    scan = Scan()
    fn = templates.make(gast.FunctionDef, name=node.name, args=_parameters(node.args, scan),
                        body=parsing.from_ast(list(node.body), scan),
                        decorator_list=[], returns=None, type_comment=None, type_params=[],
                        lineno=node.lineno, col_offset=node.col_offset,
                        end_lineno=node.end_lineno, end_col_offset=node.end_col_offset)
    scan.kinds.add(gast.FunctionDef)
    ctx = Context(fn, filename, namespace, recursive=True, scan=scan)
    clash = ctx.all_locals & _PRELUDE_NAMES
    if clash:
        raise ConversionError(f"binds {min(clash)}, a name the converted module imports")
    if (gast.Yield in ctx.node_kinds or gast.YieldFrom in ctx.node_kinds) and _is_generator(fn):
        raise ConversionError("generator function")
    if verbatim is not None and ctx.node_kinds.isdisjoint(pipeline.CHANGED_KINDS):
        # Nothing in it that conversion changes: the converted body would be the
        # original, which staging may then run as it is (nothing to print or check).
        return two_paths.original_text((node.lineno, node.end_lineno), [], lines), ""
    shadowed = ctx.all_locals & _BUILTIN_NAMES
    if shadowed:       # a local `range` is not the builtin, in nested functions too
        ctx.namespace = ChainMap(dict.fromkeys(shadowed, UNKNOWN), namespace)
    ctx.has_class_cell = in_class     # `super()` becomes `super(__class__, self)`
    fn = pipeline.convert(fn, ctx)
    if not ctx.node_kinds.isdisjoint(_LOOPS):     # (what `_uncompilable` cannot see)
        jump = jump_outside_loop(fn.body)
        if jump is not None:
            raise ConversionError(f"its converted code has a `{type(jump).__name__.lower()}` "
                                  "outside a loop")
    if ctx.has_nested_functions:
        _mark_nested(fn, gast.Yield in ctx.node_kinds or gast.YieldFrom in ctx.node_kinds)
    fn.args, fn.returns = node.args, node.returns     # defaults and annotations as written
    fn.type_params = getattr(node, "type_params", [])   # `def f[T](...)` (3.12)
    # (moved code, tail_chains, no longer follows the text's order: its converted body
    # then has no comments; the original body that follows it keeps them)
    comments = _comments(lines, node, scan.strings) if not ctx.moved else []
    body_name = (ctx.new_name("converted_body") if ctx.converted_body_scope()  # (_nested)
                 else None)
    if verbatim is None:
        two_paths.join(fn, original, "__ag__", text,   # the original body runs while
                       body_name)                      # nothing stages
        # (generated `ag__.<operator>` print as `__ag__.<operator>`: api.rename_operators)
        printed = unparsing.unparse(fn, prefix, comments=comments, operators="__ag__")
        return printed, printed
    two_paths.staging_first(fn, doc, declared, "__ag__", text, body_name)
    head = unparsing.unparse(fn, prefix, comments=comments, operators="__ag__")
    if verbatim[0] > verbatim[1]:            # a docstring alone
        return head, head
    return head + "\n" + two_paths.original_text(verbatim, declared, lines), head


def _original_body(node: ast.FunctionDef, lines: Sequence[str]) -> list:
    """The body of `node` as written, a tree of its own (conversion edits `node`'s)."""
    if not lines:
        return copy.deepcopy(node.body)
    block = lines[node.lineno - 1:node.end_lineno]
    return parsing.original_tree_of(block, node.lineno).body


def _comments(lines: Sequence[str], node: ast.AST, strings: list) -> list:
    """[(line, "# text")]: the lines of the function's body that hold only a comment
    (lines inside strings that span lines do not count)."""
    found = []
    for number, line in enumerate(lines[node.lineno:node.end_lineno], node.lineno + 1):
        if "#" in line:                 # (most lines have none: no strip, no test)
            text = line.strip()
            if text.startswith("#") and not any(a < number <= b for a, b in strings):
                found.append((number, text))
    return found


# ---------------------------------------------------------------------------------------
# Converting a module

def _split_lines(source: str) -> list:
    """Lines as the tokenizer counts them (not str.splitlines, which splits at \\f)."""
    return io.StringIO(source, newline="").readlines()


def _prelude_line(tree: ast.Module) -> int:
    """0-based line before which the prelude goes: after the docstring and the
    `from __future__` imports, which must come first."""
    after = None
    for i, stmt in enumerate(tree.body):
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            after = stmt.end_lineno
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            after = stmt.end_lineno
        else:
            first = stmt.decorator_list[0] if getattr(stmt, "decorator_list", None) else stmt
            return after if after is not None else first.lineno - 1
    return after if after is not None else 0


def _indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t\f"))]


def _parse(source: str, filename: str) -> ast.Module:
    try:
        with warnings.catch_warnings():      # the user's warnings are for running it
            warnings.simplefilter("ignore")
            return ast.parse(source, filename)
    except SyntaxError as e:
        where = f"{filename}:{e.lineno}" if e.lineno else filename
        raise SourceError(f"{where}: syntax error: {e.msg}") from None
    except ValueError as e:                  # null bytes
        raise SourceError(f"{filename}: cannot parse: {e}") from None


def _frame_sensitive(targets: list, lines: list, namespace: dict) -> dict:
    """Functions that look at their own frame (`introspection.introspection`, the rule `to_graph`
    follows too: `locals()`, `eval`, `sys._getframe`, ...): they stay as written ({def
    line: reason}). Their callers are converted: on Python values a converted function
    runs its original body, which adds no frame. Only functions whose text has a hint are
    walked."""
    sensitive = {}
    source = "".join(lines)
    hints = [hint for hint in introspection.TEXT_HINTS if hint in source]
    if not hints:
        return sensitive             # (most modules: no function's text has one either)
    # The lines holding a hint (a hint is on one line), found once for the module rather
    # than in the text of each function; then a function has one if a line of its span
    # does.
    starts = list(itertools.accumulate(map(len, lines), initial=0))    # offset of each line
    hint_lines = set()
    for hint in hints:
        at = source.find(hint)
        while at >= 0:
            hint_lines.add(bisect.bisect_right(starts, at))            # (1-based)
            at = source.find(hint, at + 1)
    hint_lines = sorted(hint_lines)
    for target in targets:
        node = target.node
        first = bisect.bisect_left(hint_lines, node.lineno)
        if first == len(hint_lines) or hint_lines[first] > node.end_lineno:
            continue
        why = introspection.introspection(node, namespace)
        if why is not None:
            sensitive[node.lineno] = why[0]
    return sensitive


def convert_source(source: str, filename: str = "<string>",
                   only: Optional[Sequence[str]] = None) -> tuple[str, Report]:
    """The converted module's source and what was converted. `only`: names of functions,
    of methods (`Class.method` or `method`), or of classes (all their methods); each must
    name something to convert."""
    # Trees are big and short-lived, and hold few cycles (the CFGs'): pausing the cyclic
    # GC while one file converts saves a tenth of the time; it collects them afterwards.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _convert_source(source, filename, only)
    finally:
        if paused:
            gc.enable()


def _convert_source(source, filename, only):
    if not source.strip():
        raise SourceError(f"{filename}: the file is empty; nothing to convert")
    tree = _parse(source, filename)
    targets = _targets(tree.body)
    if not targets:
        raise SourceError(f"{filename}: no functions or methods; nothing to convert")
    lines = _split_lines(source)
    namespace = module_namespace(tree, source)
    if "__ag" in source:
        clash = _PRELUDE_NAMES.intersection(namespace.keys()) | {
            name for node in ast.walk(tree) if isinstance(node, ast.Global)
            for name in node.names if name in _PRELUDE_NAMES}
        if clash:
            raise SourceError(f"{filename}: the module binds {min(clash)}, a name the converted "
                              f"module imports for its own use: rename it to convert the file")
    forced = _frame_sensitive(targets, lines, namespace)   # def line -> why it stays as written
    if only is not None:
        def names(t):                  # `f`, `C.f`, and `C` for every method of class C
            parts = t.qualname.split(".")
            return {t.node.name} | {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        wanted = set(only)
        targets = [t for t in targets if names(t) & wanted]
        missing = wanted.difference(*map(names, targets))
        if missing:
            raise SourceError(f"{filename}: no function named {', '.join(sorted(missing))}")
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    report = Report(lines=len(lines))
    declares = "global" in source or "nonlocal" in source
    converted = {}                          # def line -> converted source
    printed = {}                  # def line -> (a header, the part of it printed here)
    for target in targets:
        node = target.node
        if node.lineno in forced:
            continue
        prefix = _indent_of(lines[node.lineno - 1])
        try:
            converted[node.lineno], part = _convert_function_node(
                node, filename, namespace, target.in_class, prefix, lines, declares)
            if part:
                printed[node.lineno] = ("class _:\n" if target.in_class else
                                        "if 1:\n" if prefix else "", part)
        except Exception as e:      # noqa: BLE001 — every failure keeps the function
            forced[node.lineno] = _one_line(e)
    # converted code that does not compile: the function stays as written
    forced.update(_uncompilable(printed, _future_flags(tree, filename), filename))
    return _assemble(tree, lines, targets, converted, report, forced), report


def _future_flags(tree: ast.Module, filename: str) -> int:
    """The compiler flags of the module's `from __future__` imports; SourceError for
    those `compile` refuses (`ast.parse` takes them): not first in the module, or of a
    feature Python does not have."""
    flags, first = 0, True
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            if not first:
                raise SourceError(f"{filename}:{stmt.lineno}: syntax error: from __future__ "
                                  "imports must occur at the beginning of the file")
            for alias in stmt.names:
                feature = getattr(__future__, alias.name, None)
                if alias.name not in __future__.all_feature_names or feature is None:
                    raise SourceError(f"{filename}:{stmt.lineno}: syntax error: future "
                                      f"feature {alias.name} is not defined")
                flags |= feature.compiler_flag
        elif not (i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                  and isinstance(stmt.value.value, str)):
            first = False
    return flags


def _uncompilable(printed: dict, flags: int, filename: str) -> dict:
    """{def line: reason} for each function whose printed code Python's parser or symbol
    table refuses. What is checked is the code printed here, all functions in one text,
    each on its own (under a class where it is a method: `nonlocal __class__` needs one;
    else under `if 1:` where it is indented). The lines copied from the input (module
    code, the original bodies of the verbatim layout) are not: they compile where the
    input does, and `compile` of the whole output took a third of the time of converting
    a module. `symtable` parses and resolves the scopes (every `global`, `nonlocal`,
    parameter and free-name error) without generating code, a quarter of the time of
    `compile`: of what only code generation refuses, a jump outside a loop is the one
    conversion could make (it moves loop bodies into functions), and
    `_convert_function_node` looks for that; the rest (starred targets, `except:` not
    last, patterns, `__debug__`) is the user's code as written, which compiles."""
    broken: dict = {}
    # `from __future__ import annotations` leaves annotations unresolved; the table
    # takes no flags, so the text says it. `barry_as_FLUFL` changes the grammar: compile.
    future = "from __future__ import annotations\n" if flags & _ANNOTATIONS else ""
    check = _check_scopes if not flags & _BARRY else (
        lambda text, name: compile(text, name, "exec", flags=flags, dont_inherit=True))
    while True:
        chunks, starts = [future], []          # starts: (first line in the text, def line)
        line = 2 if future else 1
        for def_line, (header, part) in printed.items():
            if def_line in broken:
                continue
            chunk = f"{header}{part}\n"
            starts.append((line, def_line))
            chunks.append(chunk)
            line += chunk.count("\n")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check("".join(chunks), filename)
            return broken
        except SyntaxError as e:
            where = e.lineno or 0
            culprit = next((d for first, d in reversed(starts) if first <= where), None)
            if culprit is None:
                raise SourceError(f"{filename}: the converted code does not compile: "
                                  f"{e.msg}") from None
            broken[culprit] = f"its converted code does not compile: {e.msg}"


def _check_scopes(text: str, filename: str) -> None:
    symtable.symtable(text, filename, "exec")


_ANNOTATIONS = __future__.annotations.compiler_flag
_BARRY = __future__.barry_as_FLUFL.compiler_flag
_LOOPS = frozenset({gast.For, gast.While, gast.AsyncFor})


def _assemble(tree, lines, targets, converted, report, forced):
    """The output text: the input's lines, with the converted functions in place of the
    originals and the functions in `forced` marked as left as written."""
    report.converted, report.skipped = [], []
    out: list = []
    prelude_at = _prelude_line(tree)
    copied = 0                         # lines[:copied] are in out
    prelude_done = False

    def copy_to(n):
        nonlocal copied, prelude_done
        if not prelude_done and prelude_at <= n:
            out.extend(lines[copied:prelude_at])
            out.append(PRELUDE)
            copied, prelude_done = prelude_at, True
        out.extend(lines[copied:n])
        copied = max(copied, n)

    for target in targets:
        node = target.node
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        indent = _indent_of(lines[node.lineno - 1])
        reason = forced.get(node.lineno)
        code = converted.get(node.lineno) if reason is None else None
        copy_to(first - 1)
        if code is None:
            out.append(f"{_indent_of(lines[first - 1])}# autograph: not converted: {reason}\n")
            copy_to(node.lineno - 1)
            out.append(f"{indent}@__ag__.do_not_convert\n")
            copy_to(node.end_lineno)
            report.skipped.append((target.qualname, node.lineno, reason))
        else:
            copy_to(node.lineno - 1)
            out.append(f"{indent}@__ag_converted__\n")
            out.append(code + "\n")
            copied = node.end_lineno
            report.converted.append(target.qualname)
    copy_to(len(lines))
    return "".join(out)


def _one_line(e: Exception) -> str:
    message = str(e).strip().splitlines()
    text = message[0] if message else ""
    name = type(e).__name__
    return text if name == "ConversionError" else f"converter error: {name}: {text}"
