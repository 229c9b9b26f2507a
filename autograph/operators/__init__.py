"""The functions converted code calls, as `ag__.<name>`. These names are stable.

The operators run inside the user's program, which may replace builtins (CPython's
functools tests set `builtins.len` to an `lru_cache` wrapper whose own code is then
converted): each operator module imports the builtins it uses (`from builtins import
len, ...`), so that it calls the originals and never the user's replacement.

The table of operators: docs/architecture.md, under `autograph/operators/__init__.py`.
"""
from autograph.operators.python_path import Staging  # sets `staging`
from autograph.operators.calls import (converted, converted_call, converted_call_with,
                                      converted_with, do_not_convert)
from autograph.operators.composite import attribute_name, set_attr, set_global, set_item
from autograph.operators.lists import set_element_type, stack
from autograph.operators.py_builtins import in_, len_, max_, min_, not_in, print_
from autograph.operators.control_flow import for_stmt, if_exp, if_stmt, while_stmt
from autograph.operators.iterables import backend_of, enumerate_, range_, zip_
from autograph.operators.exceptions import assert_stmt
from autograph.operators.logical import and_, compare, not_, or_
from autograph.operators.undefined import MaybeUndefined, Undefined, is_undefined, ld, ld_free
from autograph.operators import calls as _calls
from builtins import (enumerate as _enumerate, len as _len, max as _max,  # the originals
                      min as _min, print as _print, range as _range)

_calls.STAGED_BUILTINS.update({_range: range_, _len: len_, _enumerate: enumerate_,
                               _print: print_, _max: max_, _min: min_})

__all__ = ["if_stmt", "if_exp", "while_stmt", "for_stmt", "range_", "enumerate_", "zip_", "and_", "or_", "not_", "compare",
           "assert_stmt", "converted_call", "do_not_convert", "Undefined", "MaybeUndefined",
           "is_undefined", "ld", "ld_free", "backend_of", "set_attr", "set_item", "set_global", "attribute_name",
           "set_element_type", "stack", "len_", "max_", "min_", "in_", "not_in", "print_", "converted_call_with", "staging", "Staging", "converted",
           "converted_with"]
