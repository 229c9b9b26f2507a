"""Annotations on tree nodes: parsing, the analyses and the converters write them; later
converters, `api` and the printers read them. Every key is declared here, with what
writes it; read and write them with `getanno`, `setanno`, `hasanno`, `popanno`, `delanno`.

An annotation is an attribute of the node (in its `__dict__`, named by the key, `ag_...`):
copying a node keeps it, and `ast.dump` and `compile` ignore it. Code that builds a node
from a dict of its fields may give annotations there too, by these keys.
"""
from __future__ import annotations

from typing import Any

# -- parsing.parse_function, on the function's node ----------------------------------------
SOURCE = "ag_source"                  # (its source lines, the first one's line number)
SCAN = "ag_scan"                      # the parsing.Scan made while parsing (Context pops it)
ORIGINAL_TREE = "ag_original_tree"    # the `ast` parse it was copied from (original_tree pops it)

# -- analysis.cfg, on each compound statement (CFG: on the function's node) ---------------
CFG = "ag_cfg"                        # the function's cfg.Graph
CFG_BEFORE = "ag_cfg_before"          # the graph's node before the statement
CFG_AFTER = "ag_cfg_after"            # ... after it (where its paths join)
CFG_HEAD = "ag_cfg_head"              # an `if`'s or loop's test (a `for`'s: its extra test)
CFG_HANDLERS = "ag_cfg_handlers"      # a `try`'s nodes where its handlers and `finally` start
CFG_FINALLY = "ag_cfg_finally"        # a `try`'s node where its `finally` starts ([] if none)
MODIFIED = "ag_modified"              # the names the statement's body assigns
FEATURES = "ag_features"              # what its body holds that may keep it Python ("return", ...)

# -- analysis.liveness, on each compound statement ---------------------------------------
LIVE_IN = "ag_live_in"                # names live at its test (a loop's: each iteration's)
LIVE_OUT = "ag_live_out"              # names live right after it
LIVE_AFTER_WITH = "ag_cfg_after_live"          # a `with`'s LIVE_OUT (read if it may suppress)
LIVE_AT_HANDLERS = "ag_live_at_handlers"       # a `try`'s names its handlers may read
LIVE_AT_FINALLY = "ag_live_at_finally"         # a `try`'s names its `finally` may read

# -- analysis.reaching_definitions -------------------------------------------------------
MAYBE_UNDEFINED = "ag_maybe_undefined"         # on a read Name: it may be unassigned there
UNDEFINED_ON_ENTRY = "ag_undefined_on_entry"   # on a compound statement: names unassigned
DEFINED_ON_ENTRY = "ag_defined_on_entry"       # ... and assigned, on some path to it

# -- the converters -----------------------------------------------------------------------
# templates (and every converter that makes a name or function): a node autograph made,
# not the user's (a read it made is never wrapped in `ag__.ld`; a function it made holds
# the user's code, converted).
GENERATED = "ag_generated"
PARAMS = "ag_params"                  # state.function: a generated function's parameters
MAYBE_UNBOUND = "ag_maybe_unbound"    # state.initial_values: a state name some paths leave unset
FOUND = "ag_found"                    # state: what keeps a statement Python, found in it
FOUND_IN_LOOP = "ag_found_in_loop"    # ... as found in it inside a loop
PYTHON_LOOP = "ag_python_loop"        # break/continue_statements: why the loop stays Python
EXTRA_TEST = "ag_extra_test"          # break_statements: a `for`'s `not break_` test
RETURN_FORM = "ag_return_form"        # return_statements: an `if` ending the function that returns
ALWAYS_RETURNS = "ag_always_returns"  # return_statements: a statement every path returns from
RETURN_CHECK = "ag_return_check"      # return_statements: the `if not do_return:` it made
RETURN_INIT = "ag_return_init"        # return_statements: the `do_return = False` it made
RETURNS_MOVED = "ag_returns_moved"    # return_statements, on the function: False if no break made
TAIL_READS = "ag_tail_reads"          # conditionals: a return-form branch's later reads
PLACES = "ag_places"                  # composite: a statement's places (context drops it)
COMPOSITE_FEATURES = "ag_composite_features"   # composite, on the function: (writes, lists)
PYTHON_PATH = "ag_python_path"        # two_paths: the `if not ag__.staging:` of the original body
COMMENT_LINE = "ag_comment_line"      # unparsing_fallback: the line its comments print before

# -- api.convert_node, on the converted function's node -----------------------------------
ORIGINAL = "ag_original"              # a lambda's body as written
OPERATORS = "ag_operators"            # the name converted code reaches the operators by
ENTITY = "ag_entity"                  # the name the function is compiled under
BODY_NAME = "ag_body_name"            # the name of the function the converted body becomes
FRESH_NAMES = "ag_fresh_names"        # the names conversion generated
HANDLERS = "ag_handlers"              # whether it has an `except` (api pops it)


_REQUIRED = object()


def getanno(node: Any, key: str, default: Any = _REQUIRED) -> Any:
    """The annotation `key` of `node`, or `default` where it has none (KeyError without
    a default)."""
    value = node.__dict__.get(key, default)
    if value is _REQUIRED:
        raise KeyError(f"{type(node).__name__} has no annotation {key!r}")
    return value


def setanno(node: Any, key: str, value: Any) -> None:
    node.__dict__[key] = value


def hasanno(node: Any, key: str) -> bool:
    return key in node.__dict__


def popanno(node: Any, key: str, default: Any = None) -> Any:
    """The annotation `key` of `node` (or `default`), removed from it."""
    return node.__dict__.pop(key, default)


def delanno(node: Any, key: str) -> None:
    """Removes the annotation `key` from `node`, if it has it."""
    node.__dict__.pop(key, None)
