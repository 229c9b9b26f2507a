"""From a live function or lambda to its `gast` tree, with the user's line numbers.

Source comes from `linecache`, so functions defined in files, in `exec`'d code whose
source was registered there, and in interactive sessions (IPython registers its cells)
all work. Each node's `lineno` is its line in the user's file, so that the converted
code, compiled with the user's file name, reports the user's lines in tracebacks.

Also the two conversions between `ast` and gast trees, in place: `from_ast` (for
parsing: the nodes take autograph.nodes' classes, gast's and `ast`'s at once) and
`to_ast` (to `ast`'s own classes and shapes, positions fixed: for compiling the trees
that cannot be compiled as they stand, see autograph.nodes).
"""
from __future__ import annotations

import ast
import copy
import inspect
import linecache
import types
from typing import Optional

from autograph import anno
from autograph import nodes as gast
from autograph.errors import ConversionError
from autograph.tree import LIST_METHODS, MUTATORS, Scan, holds_nodes

_file_trees: dict = {}   # filename -> (lines list, parsed module) for lambdas


def _shift_lines(tree: gast.AST, offset: int) -> None:
    if offset:
        for node in gast.walk(tree):
            if hasattr(node, "lineno") and node.lineno is not None:
                node.lineno += offset
                if getattr(node, "end_lineno", None) is not None:
                    node.end_lineno += offset


def _block_by_indent(lines: list, start: int) -> list:
    """The lines of the definition at `start`: up to the next line indented no deeper
    than its `def` (a fast guess; `inspect.getblock` is the careful fallback)."""
    first = lines[start - 1]
    indent = len(first) - len(first.lstrip())
    end = start
    seen_def = False
    for i in range(start - 1, len(lines)):
        line = lines[i]
        stripped = line.lstrip()
        if not stripped or stripped[0] == "#":
            continue
        if seen_def:
            if len(line) - len(stripped) <= indent and i > start - 1:
                break
        elif stripped[0] != "@" or stripped.startswith(("def ", "async def ", "lambda")):
            seen_def = True
        end = i + 1
    return lines[start - 1:end]


def _parse_lines(block: list, start: int, parser=None, keep_original: bool = True) -> gast.AST:
    """The first statement of `block` (which starts at line `start`), parsed by `parser`
    (default: into gast); a gast node remembers its text for `original_tree`, and what
    a `Scan` of it finds (`anno.SCAN`, for the Context: it saves a walk). With
    `keep_original`, also the parse it was copied from (`anno.ORIGINAL_TREE`); without,
    the parse itself becomes the gast tree."""
    source = "".join(block)
    if source[:1] in (" ", "\t"):
        # Methods and nested functions: wrap instead of dedenting, which breaks on
        # multi-line strings that start at column 0. Blank lines in front keep the
        # user's line numbers without a pass over the tree.
        node = (parser or ast.parse)("\n" * (start - 2) + "if 1:\n" + source).body[0].body[0]
    else:
        node = (parser or ast.parse)("\n" * (start - 1) + source).body[0]
    if parser is None:
        scan = Scan()
        original = node
        node = from_ast(node, scan, outer=node, copy=keep_original)
        anno.setanno(node, anno.SOURCE, (block, start))
        anno.setanno(node, anno.SCAN, scan)
        if keep_original:
            anno.setanno(node, anno.ORIGINAL_TREE, original)
    return node


def original_tree(node: gast.AST) -> ast.AST:
    """The `ast` tree of the function `parse_function` gave as `node`, as written: the
    parse that `node` was copied from (conversion edits `node` in place), once; a second
    parse of its text after that."""
    original = anno.popanno(node, anno.ORIGINAL_TREE)
    return original if original is not None else original_tree_of(*anno.getanno(node, anno.SOURCE))


def original_tree_of(block: list, start: int) -> ast.AST:
    """The `ast` tree of the definition whose lines `block` are, the first at `start`."""
    return _parse_lines(block, start, ast.parse)


def _parse_block(lines: list, start: int, keep_original: bool = True) -> gast.AST:
    """Parse the statement starting at 1-based line `start`, indented or not."""
    try:
        return _parse_lines(_block_by_indent(lines, start), start, keep_original=keep_original)
    except SyntaxError:
        return _parse_lines(inspect.getblock(lines[start - 1:]), start,
                            keep_original=keep_original)


def _file_tree(filename: str, lines: list) -> gast.AST:
    cached = _file_trees.get(filename)
    if cached is not None and cached[0] is lines:
        return cached[1]
    tree = parse("".join(lines))
    _file_trees[filename] = (lines, tree)
    return tree


def _find_lambda(fn: types.FunctionType, lines: list) -> gast.Lambda:
    code = fn.__code__
    try:
        tree = _file_tree(code.co_filename, lines)
    except SyntaxError:
        tree = parse("".join(inspect.getblock(lines[code.co_firstlineno - 1:])))
        _shift_lines(tree, code.co_firstlineno - 1)
    arg_names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = []
    for node in gast.walk(tree):
        if isinstance(node, gast.Lambda) and node.lineno == code.co_firstlineno:
            args = node.args
            names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
            if names == arg_names:
                found.append(node)
    if len(found) > 1 and hasattr(code, "co_positions"):
        # Several lambdas with these arguments on one line: the body's first instruction
        # position (3.11 code positions) says which one this is.
        where = next(((line, col) for line, _, col, _ in code.co_positions()
                      if line is not None and col), None)
        if where is not None:
            found = [n for n in found
                     if (n.body.lineno, n.body.col_offset) <= where
                     <= (n.body.end_lineno, n.body.end_col_offset)]
    elif len(found) > 1:
        # Python 3.10 has no column positions: the one whose code compiles the same (of
        # lambdas written alike, `lambda x: x * 2.0, lambda x: x * 2.0`, any one is it)
        found = [n for n in found if _compiles_as(n, code)]
        if len(found) > 1 and len({gast.dump(n) for n in found}) == 1:
            found = found[:1]
    if len(found) != 1:
        raise ConversionError(f"cannot tell which lambda on {code.co_filename}:"
                              f"{code.co_firstlineno} is {fn!r}")
    return copy.deepcopy(found[0])      # the file's tree is cached; conversion edits in place


def _compiles_as(node: gast.Lambda, code: types.CodeType) -> bool:
    """Whether the lambda `node` compiles to the instructions of `code` (with its free
    variables free variables of a function around it, as they were)."""
    lam = to_ast(copy.deepcopy(node))
    body = [ast.Return(lam)]
    if code.co_freevars:
        names = [ast.Name(v, ast.Store()) for v in code.co_freevars]
        body.insert(0, ast.Assign([ast.Tuple(names, ast.Store())], ast.Constant(None)))
    outer = ast.FunctionDef("outer", ast.arguments([], [], None, [], [], None, []), body, [],
                            None, None, **({"type_params": []} if "type_params"
                                           in ast.FunctionDef._fields else {}))
    module = ast.fix_missing_locations(ast.Module([outer], []))
    try:
        compiled = compile(module, code.co_filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError):
        return False
    outer_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    expected = _instructions(code)
    return any(isinstance(c, types.CodeType) and c.co_name == "<lambda>"
               and _instructions(c) == expected for c in outer_code.co_consts)


def _instructions(code: types.CodeType) -> list:
    """(operation, argument) of each instruction of `code`, constants by value, but code
    objects and (on 3.10, constants too) qualified names, which may differ."""
    import dis
    names = {c.co_name for c in code.co_consts if isinstance(c, types.CodeType)}
    out = []
    for i in dis.get_instructions(code):
        value = i.argval
        if isinstance(value, types.CodeType):
            value = ("code", value.co_name)
        elif i.opname == "LOAD_CONST" and type(value) is str and value.rpartition(".")[2] in names:
            value = "qualified name"
        elif i.opcode in dis.hasjrel or i.opcode in dis.hasjabs:
            value = i.arg
        out.append((i.opname, repr(value)))
    return out


def parse_function(fn: types.FunctionType, keep_original: bool = True) -> tuple[gast.AST, str]:
    """(FunctionDef or Lambda node, filename) for `fn`; with `keep_original`, the node
    keeps the parse as written for `original_tree` (the caller will compile both)."""
    code = fn.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines and filename.startswith("<frozen "):
        # Frozen standard-library modules still ship their source file.
        filename = fn.__globals__.get("__file__") or filename
        lines = linecache.getlines(filename)
    if not lines:
        raise ConversionError(f"source of {fn.__qualname__} is not available "
                              f"({code.co_filename}); define it in a file")
    if code.co_name == "<lambda>":
        return _find_lambda(fn, lines), filename
    try:
        node = _parse_block(lines, code.co_firstlineno, keep_original)
    except (SyntaxError, IndexError) as e:
        raise ConversionError(f"cannot parse the source of {fn.__qualname__}: {e}") from e
    if isinstance(node, gast.AsyncFunctionDef):
        raise ConversionError(f"{fn.__qualname__} is `async def`")
    if not isinstance(node, gast.FunctionDef) or node.name != code.co_name:
        raise ConversionError(f"the source at {code.co_filename}:{code.co_firstlineno} "
                              f"is not the definition of {fn.__qualname__}")
    return node, filename


_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _name_to_ast(name: gast.Name, lineno: int) -> None:
    """A gast Name met as a child in `to_ast`, made an `ast.Name` there (not pushed):
    positions fixed as `to_ast` fixes them, its context `ast`'s."""
    d = name.__dict__
    if "lineno" not in d or not _positioned(d):       # (a name conversion made has none)
        _fix_positions(d, lineno)
    d["ctx"] = _AST_LEAF[type(d["ctx"])]
    name.__class__ = ast.Name


def _positioned(d: dict) -> bool:
    """Whether the node of `d` has its four positions as `compile` takes them (the user's
    nodes, and most of those conversion makes)."""
    try:
        line, col, end, end_col = (d["lineno"], d["col_offset"], d["end_lineno"],
                                   d["end_col_offset"])
    except KeyError:
        return False
    return bool(line and col is not None and end is not None and end_col is not None
                and (end > line or (end == line and end_col >= col)))


def _fix_positions(d: dict, lineno: int) -> int:
    """Gives the node of `d` the positions `compile` needs (see `to_ast`); its line."""
    get = d.get
    line = get("lineno") or lineno
    col = get("col_offset") or 0
    end, end_col = get("end_lineno"), get("end_col_offset")
    if end is None or end_col is None or end < line or (end == line and end_col < col):
        end, end_col = line, col
    d["lineno"], d["col_offset"], d["end_lineno"], d["end_col_offset"] = line, col, end, end_col
    return line


def to_ast(node, lineno: int = 1):
    """gast -> ast for compiling, in place (as `from_ast` the other way): each gast node
    changes class, and keeps its fields, which the ast classes share (`gast.gast_to_ast`
    builds a second tree, at six times the cost). A parameter's Name becomes an
    `ast.arg`, an `except ... as name` its name; contexts and operators become `ast`'s.
    Nodes of `ast`'s own classes already (the original body of `two_paths`) stay as
    they are. Positions are fixed on the way: a generated node without one takes its
    parent's line, and a span may be empty but never reversed (compile rejects that).
    Returns `node`, an `ast` tree from then on (or the list of them)."""
    todo = [(n, lineno) for n in node] if type(node) is list else [(node, lineno)]
    pop, push = todo.pop, todo.append
    table, leaves, name_kind, ast_name = _TO_AST, _AST_LEAF, gast.Name, ast.Name
    while todo:
        n, lineno = pop()
        entry = table.get(type(n))
        if entry is None:
            continue                # an `ast` node, or a gast node met before
        cls, positioned, fields, leaf_fields, role = entry
        d = n.__dict__
        if positioned:
            # (most nodes have their positions right: read, not written again)
            # (most nodes have their positions right: read, not written again)
            try:
                line, col, end, end_col = (d["lineno"], d["col_offset"], d["end_lineno"],
                                           d["end_col_offset"])
            except KeyError:                # (a node conversion made, without them)
                line = None
            if (line and col is not None and end is not None and end_col is not None
                    and (end > line or (end == line and end_col >= col))):
                lineno = line
            else:
                lineno = _fix_positions(d, lineno)
        for field in leaf_fields:
            d[field] = leaves[type(d[field])]
        if role:
            if role == _NAME:
                n.__class__ = ast_name
                continue
            if role == _ARGUMENTS:
                for field in ("posonlyargs", "args", "kwonlyargs"):
                    for a in d[field]:
                        _arg(a)
                for field in ("vararg", "kwarg"):
                    if d[field] is not None:
                        _arg(d[field])
                for field in ("kw_defaults", "defaults"):
                    for v in d[field]:
                        if v is not None:
                            push((v, lineno))
                n.__class__ = cls
                continue
            if role == _COMPARE:
                d["ops"] = [leaves[type(op)] for op in d["ops"]]
            elif d["name"] is not None:        # _EXCEPT
                d["name"] = d["name"].id
        for field in fields:
            value = d.get(field)
            if type(value) is list:
                for v in value:
                    if type(v) is name_kind:        # (a third of the nodes: here, not pushed)
                        _name_to_ast(v, lineno)
                    elif v is not None:
                        push((v, lineno))
            elif value is not None:
                if type(value) is name_kind:        # (as in a list, above)
                    _name_to_ast(value, lineno)
                else:
                    push((value, lineno))
        n.__class__ = cls
    return node


def _arg(name: gast.Name) -> None:
    """A parameter's gast Name as an `ast.arg`, in place."""
    d = name.__dict__
    if type(name) is ast.arg:
        return
    d["arg"] = d["id"]
    if d.get("annotation") is not None:
        to_ast(d["annotation"])
    lineno = d.get("lineno") or 1
    col = d.get("col_offset") or 0
    d["lineno"], d["col_offset"], d["end_lineno"], d["end_col_offset"] = lineno, col, lineno, col
    name.__class__ = ast.arg


# ast -> gast, in place. The two libraries' node classes have the same fields but for a
# few (below), so each node keeps its fields and only changes class: three to six times
# faster than building a second tree, which was a sixth of the time of converting a file.
GAST_CLASS = {cls: getattr(gast, name) for name, cls in vars(ast).items()
              if isinstance(cls, type) and issubclass(cls, ast.AST)
              and isinstance(getattr(gast, name, None), type)}
# Contexts and operators are shared singletons in `ast` trees; gast gets its own.
_GAST_SHARED = {cls: gast_cls() for cls, gast_cls in GAST_CLASS.items()
                if issubclass(cls, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop,
                                    ast.boolop))}
# Per class: the fields that may hold nodes (a Compare's `ops` are replaced apart), and
# gast's extra fields with their defaults.
_CHILD_FIELDS = {cls: tuple(f for f in cls._fields if holds_nodes(cls, f)
                            and not (f == "ops" and cls is ast.Compare))
                 for cls in [*GAST_CLASS, ast.arg]}
_EXTRA_FIELDS = {cls: {f: [] if f == "type_params" else None
                       for f in gcls._fields if f not in cls._fields}
                 for cls, gcls in GAST_CLASS.items()}


# What `from_ast` does besides changing their class, for the nodes of some classes: each
# takes the node, its __dict__, the Scan, the function being converted and `copy`.
def _note_place_write(node, d, scan, outer, copy) -> None:
    """An item written or deleted (an attribute's: in `_convert_trees`)."""
    if type(d["ctx"]) is not gast.Load:
        scan.place_writes = True


def _note_mutating_call(node, d, scan, outer, copy) -> None:
    """A call of a method in MUTATORS (and in LIST_METHODS)."""
    func = d["func"]
    if type(func) is ast.Attribute and func.attr in MUTATORS:
        scan.place_writes = True
        if func.attr in LIST_METHODS:
            scan.list_calls = True


def _note_long_string(node, d, scan, outer, copy) -> None:
    if d["end_lineno"] != d["lineno"]:
        scan.strings.append((d["lineno"], d["end_lineno"]))


def _arg_to_name(node, d, scan, outer, copy) -> None:
    """A parameter becomes `gast.Name(ctx=Param)` (`_convert_node` sets the class)."""
    d["id"] = d.pop("arg")
    d["ctx"] = gast.Param()
    scan.names.add(d["id"])
    scan.stored.add(d["id"])


def _note_definition(node, d, scan, outer, copy) -> None:
    if node is not outer:
        scan.defined.add(d["name"])


def _count_return(node, d, scan, outer, copy) -> None:
    scan.returns += 1


def _note_loop_else(node, d, scan, outer, copy) -> None:
    if d["orelse"]:
        scan.loop_else = True


def _share_comparison_ops(node, d, scan, outer, copy) -> None:
    d["ops"] = [_GAST_SHARED[type(op)] for op in d["ops"]]


def _except_name_to_name(node, d, scan, outer, copy) -> None:
    """The name in `except ... as name`, a Name node (at the handler's position)."""
    if d["name"] is not None:
        name = d["name"] = gast.Name(id=d["name"], ctx=gast.Store(),
                                     annotation=None, type_comment=None)
        for attr in _POSITIONS:
            setattr(name, attr, d.get(attr))
        scan.names.add(name.id)
        scan.stored.add(name.id)


def _note_pattern_capture(node, d, scan, outer, copy) -> None:
    """A `case` pattern's name binds a local (a mapping pattern's: its `rest`)."""
    name = d.get("name") if type(node) is not _AST_MATCH_MAPPING else d.get("rest")
    if name:
        scan.names.add(name)
        scan.stored.add(name)


def _copy_declared_names(node, d, scan, outer, copy) -> None:
    """`global`, `nonlocal`: the copy gets its own list of names."""
    if copy:
        d["names"] = list(d["names"])


_AST_MATCH_MAPPING = getattr(ast, "MatchMapping", None)
_ROLES = {ast.arg: _arg_to_name, ast.Attribute: _note_place_write,
          ast.Subscript: _note_place_write, ast.Call: _note_mutating_call,
          ast.Constant: _note_long_string, ast.JoinedStr: _note_long_string,
          ast.FunctionDef: _note_definition, ast.AsyncFunctionDef: _note_definition,
          ast.ClassDef: _note_definition, ast.Return: _count_return, ast.For: _note_loop_else,
          ast.AsyncFor: _note_loop_else, ast.While: _note_loop_else,
          ast.Compare: _share_comparison_ops, ast.ExceptHandler: _except_name_to_name,
          ast.Global: _copy_declared_names, ast.Nonlocal: _copy_declared_names,
          **{getattr(ast, k): _note_pattern_capture
             for k in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(ast, k)}}
# Per ast class, what `from_ast` does to its nodes, looked up once per node: (the gast
# class, the fields that may hold nodes, those that hold a context or an operator (a
# Compare's `ops` are replaced apart), gast's extra fields with their defaults, and the
# function above for the class, or None).
_LEAVES = frozenset(_GAST_SHARED)
_FROM_AST = {cls: (GAST_CLASS.get(cls, gast.Name),
                   tuple(f for f in _CHILD_FIELDS[cls] if f not in ("ctx", "op")),
                   tuple(f for f in _CHILD_FIELDS[cls] if f in ("ctx", "op")),
                   _EXTRA_FIELDS.get(cls), _ROLES.get(cls))
             for cls in _CHILD_FIELDS if cls not in _LEAVES and cls is not ast.Name}


def from_ast(tree, scan: Optional[Scan] = None, outer=None, copy: bool = False):
    """ast -> gast (what `gast.ast_to_gast` does), converting `tree` in place: `ast.arg`
    becomes `gast.Name(ctx=Param)`, an `except ... as name` gets a Name node, and the
    rest only change class. Returns `tree`, which is a gast tree from then on. With
    `scan`, also gathers what `Scan.add(tree, outer)` would (saving a walk). With
    `copy`, `tree` stays as it is and a gast copy of it is returned (each node copied
    on the way: cheaper than parsing the text again for a second tree). `tree` may be
    a list of nodes (a body), converted in place (not with `copy`)."""
    if copy:
        new = _shallow(tree)
        if outer is tree:
            outer = new
        tree = new
    if scan is None:
        scan = Scan()           # (gathered and dropped: cheaper than a test per node)
    todo = list(tree) if type(tree) is list else [tree]    # (a list: its nodes, in place)
    constants = _convert_trees(todo, scan, outer, copy)
    if scan.names:
        scan.kinds.add(gast.Name)
    if constants:
        scan.kinds.add(_GAST_CONSTANT)
    return tree


def _convert_trees(todo: list, scan: Scan, outer, copy: bool) -> bool:
    """`from_ast`'s walk over `todo` and all below; whether it met a constant. Names,
    constants and attributes (over half the nodes) here, the others in `_convert_node`."""
    names, stored, kinds, strings = scan.names, scan.stored, scan.kinds, scan.strings
    pop, push, extend = todo.pop, todo.append, todo.extend
    shared, ast_name, gast_name, load = _GAST_SHARED, ast.Name, gast.Name, gast.Load
    constants = False
    while todo:
        node = pop()
        kind = type(node)
        if kind is ast_name:              # a third of all nodes
            d = node.__dict__
            ctx = d["ctx"] = shared[type(d["ctx"])]
            d["annotation"] = d["type_comment"] = None
            node.__class__ = gast_name
            names.add(d["id"])
            if type(ctx) is not load:
                stored.add(d["id"])
        elif kind is _AST_CONSTANT:       # (as their `_FROM_AST` entries say, without loops)
            d = node.__dict__
            if d["end_lineno"] != d["lineno"]:
                strings.append((d["lineno"], d["end_lineno"]))
            node.__class__ = _GAST_CONSTANT
            constants = True
        elif kind is _AST_ATTRIBUTE:
            d = node.__dict__
            ctx = d["ctx"] = shared[type(d["ctx"])]
            if type(ctx) is not load:
                scan.place_writes = True
            value = d["value"]
            if copy:
                value = d["value"] = _shallow(value)
            push(value)
            node.__class__ = _GAST_ATTRIBUTE
            kinds.add(_GAST_ATTRIBUTE)
        elif node is not None:            # (None: a Dict's keys, an `arguments`' kw_defaults)
            kinds.add(_convert_node(node, _FROM_AST[kind], scan, outer, copy, push, extend))
    return constants


def _convert_node(node, entry: tuple, scan: Scan, outer, copy: bool, push, extend):
    """One node of another class, converted as its `_FROM_AST` entry says, its children
    pushed for `_convert_trees` (each copied first, with `copy`). Returns its class."""
    d = node.__dict__
    new, fields, leaves, more, role = entry
    for field in fields:
        value = d[field]
        if type(value) is list:
            if copy:            # (`_shallow` inlined: a copy of each node in the list)
                copies = []
                for v in value:
                    if v is not None:
                        c = _AST_NEW(type(v))
                        c.__dict__ = v.__dict__.copy()
                        v = c
                    copies.append(v)
                value = d[field] = copies
            extend(value)
        elif value is not None:
            if copy:
                c = _AST_NEW(type(value))
                c.__dict__ = value.__dict__.copy()
                value = d[field] = c
            push(value)
    for field in leaves:
        d[field] = _GAST_SHARED[type(d[field])]
    if role:
        role(node, d, scan, outer, copy)
    if more:
        d.update(more)
        if "type_params" in more:
            d["type_params"] = []
    node.__class__ = new
    return new


def _shallow(node):
    """A new node of `node`'s class with the same fields (lists shared until replaced)."""
    new = _AST_NEW(type(node))
    new.__dict__ = node.__dict__.copy()
    return new


_AST_NEW = ast.AST.__new__      # (every node class's)
_AST_CONSTANT, _GAST_CONSTANT, _AST_ATTRIBUTE, _GAST_ATTRIBUTE = (
    ast.Constant, gast.Constant, ast.Attribute, gast.Attribute)


# gast -> ast (`to_ast`): node classes, the shared contexts and operators, the fields
# that may hold nodes (contexts and operators included), the classes with positions.
_AST_CLASS = {gast_cls: cls for cls, gast_cls in GAST_CLASS.items()
              if not issubclass(cls, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop,
                                      ast.boolop))}
_AST_LEAF = {gast_cls: cls() for cls, gast_cls in GAST_CLASS.items()
             if issubclass(cls, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop,
                                 ast.boolop))}
_AST_LEAF[gast.Param] = ast.Load()     # (never compiled: parameters become ast.arg)
_AST_FIELDS = {cls: tuple(f for f in cls._fields
                          if f in ("ctx", "op", "ops") or (holds_nodes(cls, f) and f != "name"))
               for cls in _AST_CLASS.values()}
# Per gast class, what `to_ast` does to its nodes: (the ast class, whether it has
# positions, the fields that may hold nodes, those that hold a context or an operator,
# and what else is done: 0, nothing, or one of the roles below).
_NAME, _ARGUMENTS, _COMPARE, _EXCEPT = range(1, 5)
_TO_AST = {gast_cls: (cls, "lineno" in cls._attributes,
                      tuple(f for f in _AST_FIELDS[cls] if f not in ("ctx", "op", "ops")),
                      tuple(f for f in _AST_FIELDS[cls] if f in ("ctx", "op")),
                      {ast.Name: _NAME, ast.arguments: _ARGUMENTS, ast.Compare: _COMPARE,
                       ast.ExceptHandler: _EXCEPT}.get(cls, 0))
           for gast_cls, cls in _AST_CLASS.items()}


def parse(source: str) -> gast.Module:
    return from_ast(ast.parse(source))
