"""`set_loop_options(...)` statements of a loop body -> the `opts=` of its operator call.

    for i in rt.range(n):                                  def loop_body(i, x):
        ag.experimental.set_loop_options(                      x = rt.concat([x, [i]], 0)
            maximum_iterations=5,                   ->         return x
            shape_invariants=[(x, rt.TensorShape([None]))])
        x = rt.concat([x, [i]], 0)                         x = ag__.for_stmt(rt.range(n), loop_body, (x,), ('x',),
                                                               opts={'maximum_iterations': 5,
                                                                     'shape_invariants': {'x': rt.TensorShape([None])}})

The design in full: docs/architecture.md, under `autograph/converters/loop_options.py`.
"""
from __future__ import annotations

from typing import Optional

from autograph import nodes as gast
from autograph import experimental, templates, unparsing
from autograph.converters.context import UNKNOWN, resolve
from autograph.converters.context import Context

OPTIONS = experimental.LOOP_OPTIONS


def extract(node: gast.AST, ctx: Context) -> Optional[gast.keyword]:
    """Removes the `set_loop_options` statements directly in `node.body` (a `for` or
    `while`); returns the `opts=` keyword for the loop's operator, or None."""
    options, body = {}, []
    for stmt in node.body:
        found = _options(stmt, ctx)
        if found is None:
            body.append(stmt)
        else:
            options.update(found)             # a later call overrides an earlier one
    if len(body) == len(node.body):
        return None
    if not body:
        body = [gast.Pass()]
        body[0].lineno, body[0].col_offset = node.lineno, 0
    node.body = body
    ctx.log(node, f"loop options: {', '.join(sorted(options)) or 'none'}")
    keys, values = [], []
    for key in OPTIONS:
        if key in options:
            value = options[key]
            keys.append(gast.Constant(value=key, kind=None))
            values.append(_invariants(value) if key == "shape_invariants" else value)
    return gast.keyword(arg="opts", value=gast.Dict(keys=keys, values=values))


def _options(stmt: gast.AST, ctx: Context) -> Optional[dict]:
    """{option: expression} when `stmt` is a well-formed `set_loop_options(...)` call."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
        return None
    call = stmt.value
    if templates.is_operator(call.func):
        # `ag__.if_stmt(...)` of a converted `if` in the body: never set_loop_options;
        # resolving it would look `ag__` up in the namespace and the builtins, for nothing
        return None
    target = resolve(call.func, ctx)
    if target is UNKNOWN or target is not experimental.set_loop_options:
        return None
    if len(call.args) > len(OPTIONS) or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    found = dict(zip(OPTIONS, call.args))
    for kw in call.keywords:
        if kw.arg not in OPTIONS or kw.arg in found:
            return None                       # `**kw`, unknown or repeated: Python's error
        found[kw.arg] = kw.value
    return found


def _invariants(value: gast.AST) -> gast.AST:
    """`[(x, s), (y, t)]` -> `{'x': s, 'y': t}`; anything else as it is (the operator
    says how to write it when the loop is staged)."""
    if not isinstance(value, (gast.List, gast.Tuple)):
        return value
    pairs = value.elts
    if not all(isinstance(p, (gast.List, gast.Tuple)) and len(p.elts) == 2
               and not any(isinstance(e, gast.Starred) for e in p.elts) for p in pairs):
        return value
    keys = [gast.Constant(value=p.elts[0].id if isinstance(p.elts[0], gast.Name)
                          else unparsing.unparse(p.elts[0]), kind=None) for p in pairs]
    return gast.Dict(keys=keys, values=[p.elts[1] for p in pairs])
