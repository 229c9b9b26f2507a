"""The saved format: its name, version, limits, and the one table of value kinds.

A saved directory holds two files (docs/saved_format.md is the full description):

    saved.json    structure: functions, their graphs (nodes, attrs, shapes), variables
    arrays.npz    every numeric array, by key (plain .npy members, never pickled)

Every value in the JSON that is not plain structure is a tagged object
`{"kind": KIND, ...}`; `KINDS` below says, for each kind, how a Python value is written
and how it is read back and checked. Reading never runs code: no pickle, no eval; each
field is checked, and everything wrong is one `InvalidGraphError` saying where.
"""
from __future__ import annotations

import base64
import re

import numpy as np

from ..core import dtypes
from ..errors import InvalidGraphError
from ..core.shapes import TensorShape

FORMAT = "autograph-rt.saved"
VERSION = 1
ABOUT = ("functions saved by rt.saved.save (autograph-rt): graphs of registered ops, "
         "arrays in arrays.npz; described in docs/saved_format.md")
JSON_NAME = "saved.json"
ARRAYS_NAME = "arrays.npz"

# Limits: a file may declare anything; these keep loading bounded.
MAX_JSON_BYTES = 256 << 20
MAX_ELEMENTS = 1 << 28          # elements of one array or one statically shaped tensor
MAX_RANK = 32
MAX_DEPTH = 48                  # nesting of sub-graphs and of structures


def usable_object_name(name: str) -> bool:
    """Whether a saved function can be the loaded object's attribute `name`: an identifier
    not starting with "_" (or `__call__`: calling the loaded object) that does not hide
    the loaded object's own attributes."""
    return name == "__call__" or (name.isidentifier() and not name.startswith("_") and name
                                  not in ("signatures", "variables", "trainable_variables"))


def escape(text: str) -> str:
    """`text` with each non-printable character (control characters, terminal escapes,
    line breaks) written as repr() writes it: file-derived text in a message shows as it
    is, never as a fake line or a terminal command."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class FormatError(InvalidGraphError):
    """A saved file that cannot be loaded; the message says which file and where."""


class Reader:
    """Checks JSON fields, carrying the path of the field being read for messages."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, problem: str) -> FormatError:
        return FormatError(escape(f"cannot load {self.source}: {where}: {problem}"))

    def get(self, obj: dict, key: str, kind, where: str, optional: bool = False):
        if not isinstance(obj, dict):
            raise self.fail(where, f"expected an object, got {_json_type(obj)}")
        if key not in obj:
            if optional:
                return None
            raise self.fail(where, f"the field '{key}' is missing")
        return self.check(obj[key], kind, f"{where}.{key}")

    def check(self, value, kind, where: str):
        if kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            name = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise self.fail(where, f"expected {_JSON_NAMES.get(name, name)}, got {_json_type(value)}")
        return value

    def index(self, value, n: int, where: str, what: str) -> int:
        self.check(value, int, where)
        if not 0 <= value < n:
            raise self.fail(where, f"refers to {what} {value}, but there are only {n}")
        return value

    def dtype(self, value, where: str, allow_variant: bool = False) -> dtypes.DType:
        self.check(value, str, where)
        if value == "variant" and allow_variant:
            return dtypes.variant
        if value not in _DTYPE_NAMES:
            raise self.fail(where, f"unknown dtype {value!r}; expected one of {sorted(_DTYPE_NAMES)}")
        return dtypes.as_dtype(value)

    def shape(self, value, where: str) -> TensorShape:
        if value is None:
            return TensorShape(None)
        self.check(value, list, where)
        if len(value) > MAX_RANK:
            raise self.fail(where, f"a shape of rank {len(value)} (at most {MAX_RANK})")
        for d in value:
            if d is not None and not (isinstance(d, int) and not isinstance(d, bool) and d >= 0):
                raise self.fail(where, f"a dimension must be a non-negative integer or null, got {d!r}")
        shape = TensorShape(value)
        self.size(shape, where)
        return shape

    def size(self, shape: TensorShape, where: str) -> None:
        """Refuses a declared shape too big to make (a huge Fill or Const, say)."""
        if shape.rank is None:
            return
        n = 1
        for d in shape.as_tuple():
            n *= d or 1
            if n > MAX_ELEMENTS:
                raise self.fail(where, f"declares a tensor of shape {shape}, more than "
                                       f"{MAX_ELEMENTS} elements")


_DTYPE_NAMES = {d.name for d in dtypes.ALL}
_JSON_NAMES = {"dict": "an object", "list": "a list", "str": "a string", "int": "an integer",
               "float": "a number", "bool": "true/false"}


def _json_type(v) -> str:
    if v is None:
        return "null"
    return _JSON_NAMES.get(type(v).__name__, type(v).__name__)


def shape_json(shape: TensorShape):
    return None if shape.rank is None else list(shape.as_tuple())


# -- the value kinds ------------------------------------------------------------------------
#
# kind       JSON                                  Python value
# none       {}                                    None
# bool       {"value": true}                       bool
# int        {"value": 3}                          int
# float      {"value": "0x1.8p+1"}                 float (float.hex: exact, and JSON has no nan)
# str        {"value": "text"}                     str
# bytes      {"value": BASE64}                     bytes
# tuple      {"items": [VALUE, ...]}               tuple
# list       {"items": [VALUE, ...]}               list (in structures only)
# dict       {"items": [[KEY, VALUE], ...]}        dict (in structures only)
# dtype      {"value": "float32"}                  DType
# shape      {"value": [2, null] | null}           TensorShape
# array      {"key": "a0"}                         numpy array, from arrays.npz
# numbers    {"dtype": "int32", "shape": [2], "items": [1, 2]}   a small numeric array, inline
#            (floats as float.hex text)
# strings    {"shape": [2], "items": [BASE64...]}  string tensor value (object array of bytes)
# body       {"graph": GRAPH, "params": [...], "outputs": [...]}  a cond/while sub-graph
# variable   {"index": 0}                          a Variable (the file's variables list)
# rng        {"state": {...} | null}               a numpy Generator (PCG64 state, or fresh)
# input      {"index": 0}                          a function's tensor input (structures only)
# output     {"index": 0}                          a function's tensor output (structures only)

PLAIN_KINDS = ("none", "bool", "int", "float", "str", "bytes", "tuple")
ATTR_KINDS = PLAIN_KINDS + ("dtype", "shape", "array", "numbers", "strings", "body", "variable",
                            "rng")
STRUCTURE_KINDS = PLAIN_KINDS + ("dtype", "list", "dict", "variable", "input", "output")


def encode_plain(v):
    """A plain Python value as a tagged JSON value, or None when it is not plain."""
    if v is None:
        return {"kind": "none"}
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "float", "value": float.hex(v)}
    if isinstance(v, str):
        return {"kind": "str", "value": v}
    if isinstance(v, bytes):
        return {"kind": "bytes", "value": base64.b64encode(v).decode("ascii")}
    if isinstance(v, dtypes.DType):
        return {"kind": "dtype", "value": v.name}
    if isinstance(v, TensorShape):
        return {"kind": "shape", "value": shape_json(v)}
    return None


_FLOAT_HEX = re.compile(r"^-?(0x[0-9a-f]+(\.[0-9a-f]*)?p[+-]?\d{1,4}|inf|nan)$")
_B64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def decode_plain(r: Reader, kind: str, obj: dict, where: str):
    """The Python value of a plain kind (checked)."""
    if kind == "none":
        return None
    if kind == "bool":
        return r.get(obj, "value", bool, where)
    if kind == "int":
        return r.get(obj, "value", int, where)
    if kind == "float":
        text = r.get(obj, "value", str, where)
        if not _FLOAT_HEX.match(text):
            raise r.fail(where + ".value", f"not a hexadecimal float: {text[:40]!r}")
        return float.fromhex(text)
    if kind == "str":
        return r.get(obj, "value", str, where)
    if kind == "bytes":
        return decode_b64(r, r.get(obj, "value", str, where), where + ".value")
    if kind == "dtype":
        return r.dtype(r.get(obj, "value", str, where), where + ".value", allow_variant=True)
    if kind == "shape":
        return r.shape(r.get(obj, "value", (list, type(None)), where), where + ".value")
    raise AssertionError(kind)


def decode_b64(r: Reader, text: str, where: str) -> bytes:
    if len(text) % 4 or not _B64.match(text):
        raise r.fail(where, "not base64 text")
    return base64.b64decode(text)


def encode_strings(a: np.ndarray):
    items = []
    for v in a.reshape(-1):
        if not isinstance(v, bytes):
            return None
        items.append(base64.b64encode(v).decode("ascii"))
    return {"kind": "strings", "shape": list(a.shape), "items": items}


def decode_strings(r: Reader, obj: dict, where: str) -> np.ndarray:
    shape = r.shape(r.get(obj, "shape", list, where), where + ".shape")
    if not shape.is_fully_defined():
        raise r.fail(where + ".shape", "a string array needs a fully known shape")
    items = r.get(obj, "items", list, where)
    n = shape.num_elements()
    if len(items) != n:
        raise r.fail(where + ".items", f"{len(items)} strings for shape {shape} ({n} elements)")
    out = np.empty(n, dtype=object)
    for i, text in enumerate(items):
        out[i] = decode_b64(r, r.check(text, str, f"{where}.items[{i}]"), f"{where}.items[{i}]")
    return out.reshape(shape.as_tuple())


SMALL_ARRAY = 64  # arrays up to this many elements are written in the JSON (kind "numbers")


def encode_numbers(a: np.ndarray) -> dict:
    if a.dtype.kind == "f":
        items = [float.hex(float(v)) for v in a.reshape(-1)]
    else:
        items = [v.item() for v in a.reshape(-1)]
    return {"kind": "numbers", "dtype": dtypes.as_dtype(a.dtype).name, "shape": list(a.shape),
            "items": items}


def decode_numbers(r: Reader, obj: dict, where: str) -> np.ndarray:
    dt = r.dtype(r.get(obj, "dtype", str, where), where + ".dtype")
    shape = r.shape(r.get(obj, "shape", list, where), where + ".shape")
    items = r.get(obj, "items", list, where)
    if len(items) > SMALL_ARRAY:
        raise r.fail(where + ".items", f"{len(items)} numbers inline; at most {SMALL_ARRAY} "
                                       "(larger arrays go in arrays.npz)")
    if dt.is_string or not shape.is_fully_defined() or len(items) != shape.num_elements():
        raise r.fail(where, f"{len(items)} numbers do not make a {dt.name} array of shape {shape}")
    if dt.is_floating:
        kind = "a hexadecimal float"
        ok = all(isinstance(v, str) and _FLOAT_HEX.match(v) for v in items)
        items = [float.fromhex(v) for v in items] if ok else items
    elif dt.is_bool:
        kind, ok = "true/false", all(isinstance(v, bool) for v in items)
    else:
        kind = "an integer"
        info = np.iinfo(dt.np_dtype)
        ok = all(isinstance(v, int) and not isinstance(v, bool) and info.min <= v <= info.max
                 for v in items)
    if not ok:
        raise r.fail(where + ".items", f"each item of a {dt.name} array must be {kind} in range")
    return np.array(items, dtype=dt.np_dtype).reshape(shape.as_tuple())


def encode_rng(rng) -> dict:
    state = rng.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        return {"kind": "rng", "state": None}  # drawn afresh after loading
    s = state["state"]
    return {"kind": "rng", "state": {"state": str(s["state"]), "inc": str(s["inc"]),
                                     "has_uint32": int(state["has_uint32"]),
                                     "uinteger": int(state["uinteger"])}}


def decode_rng(r: Reader, obj: dict, where: str):
    state = r.get(obj, "state", (dict, type(None)), where)
    if state is None:
        return np.random.default_rng()
    nums = {}
    for k in ("state", "inc"):
        text = r.get(state, k, str, where + ".state")
        if not (text.isdigit() and len(text) <= 40):
            raise r.fail(f"{where}.state.{k}", "expected a non-negative integer of at most 40 digits")
        nums[k] = int(text)
    has = r.get(state, "has_uint32", int, where + ".state")
    uint = r.get(state, "uinteger", int, where + ".state")
    if nums["state"] >= 1 << 128 or nums["inc"] >= 1 << 128 or has not in (0, 1) \
            or not 0 <= uint < 1 << 32:
        raise r.fail(where + ".state", "out of range for a PCG64 generator")
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": nums, "has_uint32": has, "uinteger": uint}
    return np.random.Generator(bg)


def tagged(r: Reader, obj, where: str, allowed) -> str:
    """The kind of a tagged value, checked against the kinds allowed here."""
    kind = r.get(obj, "kind", str, where)
    if kind not in allowed:
        raise r.fail(where + ".kind", f"unknown or misplaced kind {kind!r}; expected one of "
                                      f"{', '.join(allowed)}")
    return kind
