"""`rt.saved.load`: rebuilds saved concrete functions as Graphs of registered ops, without
the Python that defined them. Nothing in the files is executed: each node's op is looked
up in `schema.registry()`, its attributes are read through the kind table of format.py,
and its inference rule must agree with the shapes and dtypes the file declares."""
from __future__ import annotations

import inspect
import os
from typing import Optional

from .. import nest
from ..concrete import ConcreteFunction, Placeholder
from ..control_flow import Body
from ..core.graph import Graph
from ..errors import InvalidGraphError
from ..ops.state_ops import Variable
from ..core.shapes import TensorShape, TensorSpec
from . import format as fmt
from . import schema
from .schema import registry
from .checks import CHECKS
from .files import DEFAULT_MAX_BYTES, Arrays, Directory, read_json
from .format import FormatError, Reader
from .loaded import GuardedFunction, Loaded, LoadedFunction, RunGuards

MAX_OUTPUTS = 1 << 16  # outputs of one node


def load(path: str, *, max_bytes: int = DEFAULT_MAX_BYTES,
         max_loop_iterations: Optional[int] = None, deadline_seconds: Optional[float] = None,
         max_elements: Optional[int] = None) -> "Loaded":
    """The functions saved in the directory `path`, ready to call.

    `loaded.signatures[name]` and `loaded.<function name>(...)` call them;
    `loaded.variables` holds the restored Variables.

    Loading runs nothing from the files, reads nothing outside `path`, and is bounded:
    `max_bytes` caps the bytes of all arrays read (64 GiB by default). Every problem with
    the files is one `rt.errors.InvalidGraphError` naming the file and the field.

    Run guards, for graphs from strangers (docs/saved_format.md), all off by default:
    `max_loop_iterations` caps the iterations of all loops of one call, `deadline_seconds`
    the time of one call (checked at each loop iteration), `max_elements` what one kernel
    may allocate from sizes computed while running (Fill, Range, BroadcastTo, Tile, OneHot,
    Pad; `rt.saved.MAX_ELEMENTS` = 2**28 is the limit the loader puts on shapes a file
    declares). A guard that trips raises `rt.errors.InvalidArgumentError` naming the node.
    A function loaded with guards runs only when called on its own (numpy backend, no
    GradientTape, not traced into another function), where they hold.

    Args:
      path: the directory `rt.saved.save` wrote.
      max_bytes: the most bytes of arrays to read.
      max_loop_iterations: a run guard (see above), or None.
      deadline_seconds: a run guard (see above), or None.
      max_elements: a run guard (see above), or None.

    Returns:
      A `rt.saved.Loaded` object.

    Raises:
      InvalidGraphError: for any problem with the files.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m")
    >>> @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    ... def double(x):
    ...     return x * 2
    >>> rt.saved.save(double, path)
    >>> loaded = rt.saved.load(path)
    >>> loaded
    <rt.saved.Loaded functions=['double'] signatures=['serving_default']>
    >>> print(loaded.double(rt.constant([1.0, 2.0])))
    rt.Tensor([2. 4.], shape=(2,), dtype=float32)
    >>> guarded = rt.saved.load(path, max_loop_iterations=1000)
    >>> print(guarded.signatures["serving_default"](rt.constant([3.0])))
    rt.Tensor([6.], shape=(1,), dtype=float32)
    """
    guards = _guards(max_bytes, max_loop_iterations, deadline_seconds, max_elements)
    json_path = os.path.join(path, fmt.JSON_NAME)
    r = Reader(fmt.escape(json_path))
    try:
        directory = Directory(path)
        try:
            return _load_files(r, directory, max_bytes, guards)
        finally:
            directory.close()
    except InvalidGraphError:
        raise
    except MemoryError:
        raise FormatError(f"cannot load {fmt.escape(path)}: out of memory while loading "
                          "(lower max_bytes, or free memory)") from None
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
        # a check this loader lacks: still one error naming the file, never a crash
        raise FormatError(fmt.escape(f"cannot load {json_path}: {type(e).__name__}: {e}")) \
            from None
    except RecursionError:
        raise FormatError(f"cannot load {fmt.escape(path)}: structures nested too deeply") \
            from None


def _guards(max_bytes, max_loop_iterations, deadline_seconds, max_elements) -> RunGuards:
    def count(name, v, none_ok=True):
        if (v is None and none_ok) or (isinstance(v, int) and not isinstance(v, bool) and v >= 0):
            return v
        raise TypeError(f"rt.saved.load: {name} must be a non-negative int"
                        f"{' or None' if none_ok else ''}, got {v!r}")
    count("max_bytes", max_bytes, none_ok=False)
    count("max_loop_iterations", max_loop_iterations)
    count("max_elements", max_elements)
    if deadline_seconds is not None and not (
            isinstance(deadline_seconds, (int, float)) and not isinstance(deadline_seconds, bool)
            and deadline_seconds > 0):
        raise TypeError(f"rt.saved.load: deadline_seconds must be a positive number or None, "
                        f"got {deadline_seconds!r}")
    return RunGuards(max_loop_iterations, deadline_seconds, max_elements)


def _load_files(r: Reader, directory, max_bytes, guards) -> "Loaded":
    doc = read_json(r, directory)
    if r.get(doc, "format", str, "top level") != fmt.FORMAT:
        raise r.fail("top level.format", f"expected {fmt.FORMAT!r}: this is not a saved function")
    version = r.get(doc, "version", int, "top level")
    if version != fmt.VERSION:
        newer = "a newer" if version > fmt.VERSION else "an unknown"
        raise r.fail("top level.version", f"the file is format version {version}, written by "
                                          f"{newer} release; this runtime reads version {fmt.VERSION}")
    arrays = Arrays(r, directory, r.get(doc, "arrays", dict, "top level"), max_bytes)
    try:
        ctx = _Context(r, arrays)
        ctx.guards = guards if any(g is not None for g in guards) else None
        return _load(r, doc, ctx)
    finally:
        arrays.close()


def _load(r: Reader, doc: dict, ctx) -> "Loaded":
    for i, v in enumerate(r.get(doc, "variables", list, "top level")):
        ctx.variables.append(_variable(ctx, v, f"variables[{i}]"))
    functions = []
    for i, f in enumerate(r.get(doc, "functions", list, "top level")):
        functions.append(_function(ctx, f, f"functions[{i}]"))
    n = len(functions)
    objects = {}
    for name, idxs in r.get(doc, "objects", dict, "top level").items():
        where = f"objects.{name}"
        if not fmt.usable_object_name(name):
            raise r.fail(where, "not a usable attribute name")
        r.check(idxs, list, where)
        if not idxs:
            raise r.fail(where, "lists no functions")
        objects[name] = LoadedFunction(name, [functions[r.index(i, n, where, "function")]
                                              for i in idxs])
    signatures = {}
    for name, i in r.get(doc, "signatures", dict, "top level").items():
        if not name.isprintable():
            raise r.fail("signatures", f"the name {name!r} holds characters that are not printable")
        signatures[name] = functions[r.index(i, n, f"signatures.{name!r}", "function")]
    return Loaded(objects, signatures, ctx.variables)


class _Context:
    def __init__(self, r: Reader, arrays: Arrays):
        self.r = r
        self.arrays = arrays
        self.variables: list = []
        self.guards: Optional[RunGuards] = None


def _variable(ctx, obj, where) -> Variable:
    r = ctx.r
    name = _name(r, obj, where)
    dt = r.dtype(r.get(obj, "dtype", str, where), where + ".dtype")
    shape = r.shape(r.get(obj, "shape", (list, type(None)), where), where + ".shape")
    trainable = r.get(obj, "trainable", bool, where)
    value = _value(ctx, r.get(obj, "value", dict, where), where + ".value",
                   ("array", "numbers", "strings"), None, 0)
    if value.dtype != dt.np_dtype or not shape.is_compatible_with(value.shape):
        raise r.fail(where, f"the value ({value.dtype} {value.shape}) does not fit the declared "
                            f"{dt.name} {shape}")
    return Variable(value, trainable=trainable, name=name or None, dtype=dt, shape=shape)


def _value(ctx, obj, where, allowed, graph, depth):
    """An attribute value, read by its kind."""
    r = ctx.r
    kind = fmt.tagged(r, obj, where, allowed)
    if kind in ("none", "bool", "int", "float", "str", "bytes", "dtype", "shape"):
        return fmt.decode_plain(r, kind, obj, where)
    if kind == "tuple":
        if depth > fmt.MAX_DEPTH:
            raise r.fail(where, "nested too deeply")
        items = r.get(obj, "items", list, where)
        return tuple(_value(ctx, x, f"{where}.items[{i}]", allowed, graph, depth + 1)
                     for i, x in enumerate(items))
    if kind == "array":
        return ctx.arrays.get(r.get(obj, "key", str, where), where + ".key")
    if kind == "strings":
        return fmt.decode_strings(r, obj, where)
    if kind == "numbers":
        return fmt.decode_numbers(r, obj, where)
    if kind == "variable":
        return ctx.variables[r.index(r.get(obj, "index", int, where), len(ctx.variables),
                                     where + ".index", "variable")]
    if kind == "rng":
        return fmt.decode_rng(r, obj, where)
    if kind == "body":
        return _body(ctx, obj, where, graph, depth)
    raise AssertionError(kind)


def _body(ctx, obj, where, outer, depth) -> Body:
    r = ctx.r
    if depth > fmt.MAX_DEPTH:
        raise r.fail(where, "sub-graphs nested too deeply")
    g = _graph(ctx, r.get(obj, "graph", dict, where), where + ".graph", outer, depth + 1)
    ops = g.operations
    params = []
    for i, p in enumerate(r.get(obj, "params", list, where)):
        w = f"{where}.params[{i}]"
        if p is None:
            params.append(None)
            continue
        op = ops[r.index(p, len(ops), w, "node")]
        if not op.opdef.feedable:
            raise r.fail(w, f"a parameter must be a Placeholder node, '{op.name}' is {op.type}")
        params.append(op.outputs[0])
    outputs = [_tensor(r, t, ops, f"{where}.outputs[{i}]")
               for i, t in enumerate(r.get(obj, "outputs", list, where))]
    return Body(g, params, outputs)


def _tensor(r, ref, ops, where):
    """A [node, output] reference to a tensor of an earlier node of the same graph."""
    if not (isinstance(ref, list) and len(ref) == 2):
        raise r.fail(where, "a tensor reference must be [node index, output index]")
    op = ops[r.index(ref[0], len(ops), where + "[0]", "node")]
    return op.outputs[r.index(ref[1], len(op.outputs), where + "[1]", f"output of '{op.name}'")]


def _graph(ctx, obj, where, outer, depth) -> Graph:
    r = ctx.r
    g = Graph(_name(r, obj, where), outer=outer)
    names = set()
    for i, n in enumerate(r.get(obj, "nodes", list, where)):
        w = f"{where}.nodes[{i}]"
        name = _name(r, n, w)
        if not name or name in names:
            raise r.fail(w + ".name", f"node names must be unique and not empty: {name!r}")
        names.add(name)
        w = f"{where}.nodes[{i}] ({name!r})"
        _node(ctx, g, n, name, w, depth)
    g.inputs = [g.operations[r.index(i, len(g.operations), f"{where}.inputs", "node")].outputs[0]
                for i in r.get(obj, "inputs", list, where)]
    for t in g.inputs:
        if not t.op.opdef.feedable:
            raise r.fail(f"{where}.inputs", f"'{t.op.name}' is not a Placeholder")
    return g


_ATTR_NAMES: dict = {}  # id(opdef) -> its attribute names (registered OpDefs live forever)


def _attr_names(opdef) -> set:
    names = _ATTR_NAMES.get(id(opdef))
    if names is None:
        params = list(inspect.signature(opdef.infer).parameters.values())[1:]
        names = _ATTR_NAMES[id(opdef)] = {
            p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names


def _node(ctx, g, n, name, w, depth):
    r = ctx.r
    opname = r.get(n, "op", str, w)
    opdef = registry().get(opname)
    if opdef is None:
        raise r.fail(w + ".op", f"unknown op {opname!r}: this runtime has no such op (was the "
                                "file written by a newer release?)")
    types = schema.ATTRS.get(opdef)
    if types is None:
        why = "calls Python" if opdef.calls_python else "is not in the list of loadable ops"
        raise r.fail(w + ".op", f"the op {opname!r} cannot be loaded (it {why})")
    inputs = [_tensor(r, t, g.operations, f"{w}.inputs[{k}]")
              for k, t in enumerate(r.get(n, "inputs", list, w))]
    attrs_json = r.get(n, "attrs", dict, w)
    expected = _attr_names(opdef)
    if set(attrs_json) != expected:
        raise r.fail(w + ".attrs", f"{opname} takes the attributes {sorted(expected)}, the file "
                                   f"gives {sorted(attrs_json)}")
    attrs = {k: _value(ctx, v, f"{w}.attrs.{k}", fmt.ATTR_KINDS, g, depth)
             for k, v in attrs_json.items()}
    for k, v in attrs.items():
        if not types[k].ok(v):
            raise r.fail(f"{w}.attrs.{k}", f"{opname}.{k} must be {types[k].text}, the file "
                                           f"gives {schema.describe(v)}")
    outs = r.get(n, "outputs", list, w)
    if len(outs) > MAX_OUTPUTS:
        raise r.fail(w + ".outputs", f"{len(outs)} outputs (at most {MAX_OUTPUTS})")
    specs = []
    for k, o in enumerate(outs):
        wo = f"{w}.outputs[{k}]"
        if not (isinstance(o, list) and len(o) == 2):
            raise r.fail(wo, "an output must be [shape, dtype]")
        specs.append((r.shape(o[0], wo + "[0]"), r.dtype(o[1], wo + "[1]", allow_variant=True)))
    check = CHECKS.get(opdef)
    if check is not None:
        check(r, w, inputs, attrs, specs)
    try:
        inferred = opdef.infer(inputs, **attrs)
        inferred = [(TensorShape(s), d) for s, d in inferred]
    except Exception as e:  # noqa: BLE001 - any failure means the node is malformed
        raise r.fail(w, f"{opname} does not accept these inputs and attributes: "
                        f"{type(e).__name__}: {e}") from None
    if len(inferred) != len(specs):
        raise r.fail(w + ".outputs", f"{opname} gives {len(inferred)} outputs, the file declares "
                                     f"{len(specs)}")
    for k, ((s, d), (ss, sd)) in enumerate(zip(inferred, specs)):
        if d is not sd or not s.is_compatible_with(ss):
            raise r.fail(f"{w}.outputs[{k}]", f"declared {sd.name} {ss}, but {opname} gives "
                                              f"{getattr(d, 'name', d)} {s} here")
        r.size(s, f"{w}.outputs[{k}]")
    op = g.add_op(opdef, inputs, attrs, specs, name)  # (lists the Variable it reads/writes)
    op.location = _location(r, n, w)


def _location(r, n, w):
    loc = n.get("location") if isinstance(n, dict) else None
    if loc is None:
        return None
    if not (isinstance(loc, list) and len(loc) == 3 and isinstance(loc[0], str)
            and isinstance(loc[1], int) and isinstance(loc[2], str)):
        raise r.fail(w + ".location", "expected [file, line, function] or null")
    # only ever shown in messages: as text that cannot fake a line or steer a terminal
    return (fmt.escape(loc[0]), loc[1], fmt.escape(loc[2]))


def _name(r, obj, where, key="name") -> str:
    """A name from the file (of a node, graph, function, ...): printable text only, as it
    reaches messages."""
    name = r.get(obj, key, str, where)
    if not name.isprintable():
        raise r.fail(f"{where}.{key}", f"{name!r} holds characters that are not printable")
    return name


# -- functions --------------------------------------------------------------------------------

_PARAM_KINDS = {k.name: k for k in (inspect.Parameter.POSITIONAL_ONLY,
                                    inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    inspect.Parameter.VAR_POSITIONAL,
                                    inspect.Parameter.KEYWORD_ONLY,
                                    inspect.Parameter.VAR_KEYWORD)}


def _function(ctx, obj, where) -> ConcreteFunction:
    r = ctx.r
    name = _name(r, obj, where)
    graph = _graph(ctx, r.get(obj, "graph", dict, where), where + ".graph", None, 0)
    ops = graph.operations
    placeholders, records = [], []
    for i, inp in enumerate(r.get(obj, "inputs", list, where)):
        w = f"{where}.inputs[{i}]"
        op = ops[r.index(r.get(inp, "node", int, w), len(ops), w + ".node", "node")]
        if not op.opdef.feedable or any(p is op.outputs[0] for p in placeholders):
            raise r.fail(w + ".node", f"'{op.name}' is not a distinct Placeholder")
        t = op.outputs[0]
        placeholders.append(t)
        records.append(Placeholder(TensorSpec(t.shape, t.dtype, _name(r, inp, w)), i))
    graph.inputs = list(placeholders)
    outputs = [_tensor(r, t, ops, f"{where}.outputs[{i}]")
               for i, t in enumerate(r.get(obj, "outputs", list, where))]

    used_inputs = []
    params, bound = [], {}
    for i, p in enumerate(r.get(obj, "parameters", list, where)):
        w = f"{where}.parameters[{i}]"
        pname = r.get(p, "name", str, w)
        if not pname.isidentifier():
            raise r.fail(w + ".name", f"{pname!r} is not a parameter name")
        kind = _PARAM_KINDS.get(r.get(p, "kind", str, w))
        if kind is None:
            raise r.fail(w + ".kind", f"expected one of {sorted(_PARAM_KINDS)}")
        try:
            params.append(inspect.Parameter(pname, kind))
        except ValueError as e:
            raise r.fail(w, str(e)) from None
        bound[pname] = _structure(ctx, r.get(p, "value", dict, w), w + ".value", records,
                                  used_inputs, None, 0)
    try:
        sig = inspect.Signature(params)
    except ValueError as e:
        raise r.fail(where + ".parameters", str(e)) from None
    if sorted(used_inputs) != list(range(len(records))):
        raise r.fail(where + ".parameters", "the arguments must use each tensor input exactly once")
    structured = _structure(ctx, r.get(obj, "structured_outputs", dict, where),
                            where + ".structured_outputs", records, [], outputs, 0)
    leaves = [t for t in nest.flatten(structured) if hasattr(t, "op")]
    if len(leaves) != len(outputs) or any(a is not b for a, b in zip(leaves, outputs)):
        raise r.fail(where + ".structured_outputs", "must hold each output once, in order")
    if ctx.guards is None:
        cf = ConcreteFunction(name, sig, graph, bound, placeholders, structured, outputs)
    else:
        cf = GuardedFunction(name, sig, graph, bound, placeholders, structured, outputs)
        cf.run_guards = ctx.guards
    cf.inputs_specs = records
    return cf


_ARGUMENT_KINDS = tuple(k for k in fmt.STRUCTURE_KINDS if k != "output")
_RESULT_KINDS = tuple(k for k in fmt.STRUCTURE_KINDS if k not in ("input", "variable"))


def _structure(ctx, obj, where, records, used_inputs, outputs, depth):
    """An argument (outputs None: tensors are inputs) or the result (tensors are outputs)."""
    r = ctx.r
    if depth > fmt.MAX_DEPTH:
        raise r.fail(where, "nested too deeply")
    allowed = _ARGUMENT_KINDS if outputs is None else _RESULT_KINDS
    kind = fmt.tagged(r, obj, where, allowed)
    if kind == "input":
        i = r.index(r.get(obj, "index", int, where), len(records), where + ".index", "input")
        used_inputs.append(i)
        return records[i]
    if kind == "output":
        return outputs[r.index(r.get(obj, "index", int, where), len(outputs), where + ".index",
                               "output")]
    if kind in ("list", "tuple"):
        items = [_structure(ctx, x, f"{where}.items[{i}]", records, used_inputs, outputs, depth + 1)
                 for i, x in enumerate(r.get(obj, "items", list, where))]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        out = {}
        for i, item in enumerate(r.get(obj, "items", list, where)):
            w = f"{where}.items[{i}]"
            if not (isinstance(item, list) and len(item) == 2):
                raise r.fail(w, "a dict item must be [key, value]")
            key_kind = fmt.tagged(r, item[0], w + "[0]", ("none", "bool", "int", "float", "str", "bytes"))
            key = fmt.decode_plain(r, key_kind, item[0], w + "[0]")
            if key in out:
                raise r.fail(w, f"duplicate key {key!r}")
            out[key] = _structure(ctx, item[1], w + "[1]", records, used_inputs, outputs, depth + 1)
        try:
            nest.flatten(out)  # keys of mixed types cannot be ordered
        except TypeError:
            raise r.fail(where, "dict keys of mixed types") from None
        return out
    return _value(ctx, obj, where, allowed, None, depth)
