"""The functions converted code calls, as `ag__.<name>`. These names are stable.

| name | replaces |
| --- | --- |
| `if_stmt(test, if_true, if_false, state=(), names=())` | `if` statements |
| `if_exp(test, if_true, if_false)` | `a if test else b` |
| `while_stmt(test, body, state=(), names=(), opts=None)` | `while` loops |
| `for_stmt(iterable, body, state=(), names=(), extra_test=None, opts=None)` | `for` loops |
| `range_(*args)`, `enumerate_(x, start=0)` | `range(...)`, `enumerate(...)` as a `for` iterable |
| `and_(a, *fns)`, `or_(a, *fns)`, `not_(a)` | `and`, `or`, `not` |
| `compare(a, op, fn, op, fn, ...)` | a chained comparison `a < f(b) < c` |
| `assert_stmt(test, message=None)` | `assert` |
| `converted(f)` | calls: `f(x)` becomes `ag__.converted(f)(x)` (`f` converted when it is user code; the call stays in the caller's frame) |
| `converted_with(features, f)` | the same, in code converted with optional features (names of `Feature` values) |
| `converted_call(f, *args, **kwargs)`, `converted_call_with(features, f, ...)` | `converted(f)(*args, **kwargs)` in one call (through one more frame) |
| `len_(x)`, `in_(x, xs)`, `not_in(x, xs)` | `len(x)`, `x in xs`, `x not in xs` (staged on staged values) |
| `print_(*values, sep=, end=, file=, flush=)` | `print(...)` with `Feature.BUILTIN_FUNCTIONS` (staged when a value is) |
| `Undefined(name)`, `ld(value)`, `ld_free(value)` | names not assigned on every path (`ld_free`: read by a nested function) |
| `staging` | true in a thread that builds a graph: converted functions run their original body where it is false (see `python_path`) |
| `set_attr(obj, name, v)`, `set_item(obj, key, v)`, `set_global(ns, name, v)` | writing back attributes, items and globals a staged construct carried (`composite=`) |

The operators run inside the user's program, which may replace builtins (CPython's
functools tests set `builtins.len` to an `lru_cache` wrapper whose own code is then
converted): each operator module imports the builtins it uses (`from builtins import
len, ...`), so that it calls the originals and never the user's replacement.
"""
from autograph.operators.python_path import Staging  # sets `staging`
from autograph.operators.calls import (converted, converted_call, converted_call_with,
                                      converted_with, do_not_convert)
from autograph.operators.composite import attribute_name, set_attr, set_global, set_item
from autograph.operators.lists import set_element_type, stack
from autograph.operators.py_builtins import in_, len_, not_in, print_
from autograph.operators.control_flow import for_stmt, if_exp, if_stmt, while_stmt
from autograph.operators.iterables import backend_of, enumerate_, range_
from autograph.operators.exceptions import assert_stmt
from autograph.operators.logical import and_, compare, not_, or_
from autograph.operators.undefined import MaybeUndefined, Undefined, is_undefined, ld, ld_free
from autograph.operators import calls as _calls
from builtins import (enumerate as _enumerate, len as _len, print as _print,  # the originals
                      range as _range)

_calls.STAGED_BUILTINS.update({_range: range_, _len: len_, _enumerate: enumerate_,
                               _print: print_})

__all__ = ["if_stmt", "if_exp", "while_stmt", "for_stmt", "range_", "enumerate_", "and_", "or_", "not_", "compare",
           "assert_stmt", "converted_call", "do_not_convert", "Undefined", "MaybeUndefined",
           "is_undefined", "ld", "ld_free", "backend_of", "set_attr", "set_item", "set_global", "attribute_name",
           "set_element_type", "stack", "len_", "in_", "not_in", "print_", "converted_call_with", "staging", "Staging", "converted",
           "converted_with"]
