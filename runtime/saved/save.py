"""`rt.saved.save`: concrete functions with their graphs, constants and variable values,
written as saved.json + arrays.npz (see format.py and docs/saved_format.md)."""
from __future__ import annotations

import json
import logging
import os
import tempfile
from typing import Optional

import numpy as np

from ..concrete import ConcreteFunction, Placeholder, WeakArg
from ..core import walk
from ..control_flow import Body
from ..core.tensor import Tensor
from ..errors import InvalidGraphError
from ..function import Function
from ..module import Module
from ..ops.io_ops import PRINT
from ..ops.state_ops import Variable
from ..version import __version__
from . import format as fmt
from .schema import registry

logger = logging.getLogger("runtime")


class SaveError(InvalidGraphError):
    """Something in the functions cannot be written (a py_function, a Python object, ...)."""


def save(obj, path: str, signatures=None) -> None:
    """Writes `obj`'s concrete functions (and an rt.Module's Variables) to the directory `path`.

    `rt.saved.load(path)` gives them back without the Python that defined them.

    Args:
      obj: a ConcreteFunction, an `rt.function` (all its traced concrete functions, or the
        one its input_signature gives), a dict {name: either}, an object whose attributes
        are functions, or an `rt.Module`: its traced or input_signature'd rt.function
        methods (`__call__` too; untraced ones are left out with a warning) and all its
        Variables (`loaded.variables` / `loaded.trainable_variables`, in its order).
      path: the directory to write (written atomically).
      signatures: a function or a dict {name: function}; the default is the one concrete
        function when there is exactly one ("serving_default").

    Returns:
      None.

    Raises:
      SaveError: for what cannot be written (a py_function, a Python object, a name that is
        not an identifier, a signature with several concrete functions, ...).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m")
    >>> @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    ... def square(x):
    ...     return x * x
    >>> rt.saved.save(square, path)
    >>> sorted(os.listdir(path))
    ['arrays.npz', 'saved.json']
    >>> print(rt.saved.load(path).signatures["serving_default"](rt.constant(3.0)))
    rt.Tensor(9.0, shape=(), dtype=float32)
    """
    objects = _objects(obj)
    if signatures is None:
        all_cfs = [cf for _, cfs in objects for cf in cfs]
        signatures = {"serving_default": all_cfs[0]} if len(all_cfs) == 1 else {}
    elif not isinstance(signatures, dict):
        signatures = {"serving_default": signatures}
    sigs = {}
    for name, f in signatures.items():
        cfs = _concretes(f, f"signature {name!r}")
        if len(cfs) != 1:
            raise SaveError(f"signature {name!r} must be one concrete function; {_name(f)} has "
                            f"{len(cfs)} (use get_concrete_function(...) to pick one)")
        sigs[str(name)] = cfs[0]

    w = _Writer()
    if isinstance(obj, Module):  # all its Variables, in its order, used by a function or not
        for v in obj.variables:
            w.variable(v)
    index = {}

    def add(cf):
        if id(cf) not in index:
            index[id(cf)] = len(w.functions)
            w.functions.append(w.function(cf))
        return index[id(cf)]

    doc = {"format": fmt.FORMAT, "version": fmt.VERSION, "about": fmt.ABOUT,
           "producer": f"autograph-rt {__version__}",
           "objects": {name: [add(cf) for cf in cfs] for name, cfs in objects},
           "signatures": {name: add(cf) for name, cf in sigs.items()}}
    doc["functions"] = w.functions
    doc["variables"] = w.variables
    doc["arrays"] = {k: {"dtype": a.dtype.name, "shape": list(a.shape)} for k, a in w.arrays.items()}
    # one line, written by json's fast C encoder; `python -m json.tool saved.json` shows it
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    os.makedirs(path, exist_ok=True)
    _write_atomic(os.path.join(path, fmt.ARRAYS_NAME), lambda f: np.savez(f, **w.arrays))
    _write_atomic(os.path.join(path, fmt.JSON_NAME), lambda f: f.write(text.encode("utf-8")))


def _write_atomic(target, write):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".saving-")
    try:
        # mkstemp makes the file 0600; a saved file gets what open() would give it: 0666
        # less the umask (read by the group and others where the umask says so)
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)      # (the only way to read it is to set it)
    os.umask(mask)
    return mask


def _name(f) -> str:
    return getattr(f, "__name__", None) or getattr(f, "name", None) or type(f).__name__


def _concretes(f, what) -> list:
    if isinstance(f, ConcreteFunction):
        return [f]
    if isinstance(f, Function):
        cfs = f.concrete_functions
        if not cfs and f.input_signature is not None:
            cfs = [f.get_concrete_function()]
        if not cfs:
            raise SaveError(f"{what}: {f.__name__} has not been traced yet; call it once, give it "
                            "an input_signature, or save f.get_concrete_function(...)")
        return cfs
    raise SaveError(f"{what}: expected an rt.function or a ConcreteFunction, got {f!r}")


def _objects(obj) -> list:
    """[(attribute name, [ConcreteFunction])] for what `save` was given."""
    if isinstance(obj, (ConcreteFunction, Function)):
        # a function given alone under a name no attribute can have (a lambda's
        # '<lambda>'): the user chose no name, so it is the loaded object's call
        name = _name(obj)
        items = [(name if fmt.usable_object_name(name) else "__call__", obj)]
    elif isinstance(obj, Module):
        items = _module_functions(obj)
    elif isinstance(obj, dict):
        items = list(obj.items())
    else:
        items = [(k, v) for k, v in sorted(vars(obj).items())
                 if isinstance(v, (ConcreteFunction, Function))]
        items += [(k, getattr(obj, k)) for k in sorted(dir(type(obj)))
                  if not k.startswith("_") and isinstance(getattr(type(obj), k, None), Function)]
        if not items:
            raise SaveError(f"found no rt.function or ConcreteFunction to save in {obj!r}")
    out = []
    for name, f in items:
        name = str(name)
        if not fmt.usable_object_name(name):
            raise SaveError(f"cannot save a function under the name {name!r}: use a Python "
                            "identifier not starting with '_' (or '__call__'; not "
                            "'signatures'/'variables'/'trainable_variables')")
        out.append((name, _concretes(f, name)))
    return out


def _module_functions(module) -> list:
    """An rt.Module's rt.functions (its attributes and methods, `__call__` included) that
    can be saved: traced ones and those with an input_signature. The others are left out
    with a warning, as TensorFlow does."""
    found = [(k, v) for k, v in sorted(vars(module).items())
             if isinstance(v, (ConcreteFunction, Function)) and fmt.usable_object_name(k)]
    found += [(k, getattr(module, k)) for k in sorted(dir(type(module)))
              if fmt.usable_object_name(k) and isinstance(getattr(type(module), k, None), Function)]
    items, untraced = [], []
    for k, f in found:
        if isinstance(f, Function) and not f.concrete_functions and f.input_signature is None:
            untraced.append(k)
        else:
            items.append((k, f))
    if untraced:
        logger.warning("Found untraced functions such as %s. These functions will not be "
                       "directly callable after loading.", ", ".join(untraced))
    return items


class _Writer:
    def __init__(self):
        self.functions: list = []
        self.variables: list = []
        self.arrays: dict = {}
        self._var_index: dict = {}

    def array(self, a: np.ndarray) -> dict:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.array(a, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
        return {"kind": "array", "key": key}

    def variable(self, v: Variable) -> dict:
        i = self._var_index.get(id(v))
        if i is None:
            i = self._var_index[id(v)] = len(self.variables)
            self.variables.append({"name": v._name, "dtype": v.dtype.name,
                                   "shape": fmt.shape_json(v.shape), "trainable": v.trainable,
                                   "value": self.value(np.asarray(v._value), "variable " + v.name)})
        return {"kind": "variable", "index": i}

    def value(self, v, where: str) -> dict:
        """An attribute value in the kind table's terms (SaveError when it has none)."""
        plain = fmt.encode_plain(v)
        if plain is not None:
            return plain
        if isinstance(v, np.generic):
            v = np.asarray(v)
        if isinstance(v, np.ndarray):
            if v.dtype == object:
                enc = fmt.encode_strings(v)
                if enc is None:
                    raise SaveError(f"{where}: an array of Python objects cannot be saved")
                return enc
            if v.dtype.kind not in "biuf":
                raise SaveError(f"{where}: arrays of dtype {v.dtype} cannot be saved")
            return fmt.encode_numbers(v) if v.size <= fmt.SMALL_ARRAY else self.array(v)
        if isinstance(v, (tuple, list)):
            return {"kind": "tuple", "items": [self.value(x, where) for x in v]}
        if isinstance(v, Variable):
            return self.variable(v)
        if isinstance(v, np.random.Generator):
            return fmt.encode_rng(v)
        if isinstance(v, Body):  # a control-flow op's sub-graph
            return self.body(v, where)
        raise SaveError(f"{where} holds {type(v).__name__} {_short(v)}, which cannot be saved")

    def body(self, body, where) -> dict:
        refs = _Refs(body.graph)
        return {"kind": "body", "graph": self.graph(body.graph, refs),
                "params": [None if p is None else refs.node(p) for p in body.params],
                "outputs": [refs.tensor(t) for t in body.outputs]}

    def graph(self, graph, refs) -> dict:
        nodes = []
        for op in walk.schedule(graph):  # every op, in creation order (_Refs' indices)
            where = f"node '{op.name}' ({op.type})"
            if registry().get(op.type) is not op.opdef:
                raise SaveError(f"{where}{_at(op)}: the op is not in runtime.ops.registry(), so a "
                                "saved graph could not be loaded; register it there")
            if op.opdef.calls_python:
                raise SaveError(f"{where}{_at(op)}: rt.py_function calls Python code, which a saved "
                                "graph cannot hold; compute it with rt ops to save the function")
            if op.opdef is PRINT and op.attrs["stream"] not in (None, "sys.stderr", "sys.stdout"):
                raise SaveError(f"{where}{_at(op)}: rt.print to {op.attrs['stream']!r} cannot be "
                                "saved; print to sys.stdout or sys.stderr")
            if op.opdef.constant and op.outputs[0].dtype.name == "variant":
                raise SaveError(f"{where}{_at(op)}: a constant TensorArray cannot be saved; "
                                "create the TensorArray inside the function")
            nodes.append({
                "name": op.name, "op": op.type,
                "inputs": [refs.tensor(t) for t in op.inputs],
                "attrs": {k: self.value(v, f"{where}, attribute '{k}'")
                          for k, v in sorted(op.attrs.items())},
                "outputs": [[fmt.shape_json(t.shape), t.dtype.name] for t in op.outputs],
                "location": _location(op.location)})
        return {"name": graph.name, "nodes": nodes,
                # (a function graph's inputs are (placeholder, record) pairs)
                "inputs": [refs.node(t[0] if isinstance(t, tuple) else t) for t in graph.inputs]}

    def function(self, cf: ConcreteFunction) -> dict:
        refs = _Refs(cf.graph)
        params = []
        for p in cf.python_signature.parameters.values():
            if p.name in cf.traced_arguments:
                params.append({"name": p.name, "kind": p.kind.name,
                               "value": self.structure(cf.traced_arguments[p.name], f"argument '{p.name}'")})
        outputs = list(cf.outputs)
        out_index = {id(t): i for i, t in enumerate(outputs)}
        return {"name": cf.name, "parameters": params,
                "inputs": [{"node": refs.node(t), "name": ph.spec.name}
                           for t, ph in zip(cf.inputs, cf.inputs_specs)],
                "graph": self.graph(cf.graph, refs),
                "outputs": [refs.tensor(t) for t in outputs],
                "structured_outputs": self.structure(cf.structured_outputs, "the result",
                                                     out_index)}

    def structure(self, v, where, out_index=None) -> dict:
        if isinstance(v, Placeholder):
            return {"kind": "input", "index": v.index}
        if isinstance(v, Tensor) and out_index is not None and id(v) in out_index:
            return {"kind": "output", "index": out_index[id(v)]}
        if isinstance(v, Variable):
            return self.variable(v)
        if isinstance(v, dict):
            return {"kind": "dict", "items": [[self.structure(k, where), self.structure(x, where, out_index)]
                                              for k, x in v.items()]}
        if isinstance(v, (list, tuple)):  # a namedtuple is saved as a tuple
            return {"kind": "list" if isinstance(v, list) else "tuple",
                    "items": [self.structure(x, where, out_index) for x in v]}
        plain = fmt.encode_plain(v)
        if plain is not None and plain["kind"] != "shape":
            return plain
        if isinstance(v, WeakArg):
            v = v.ref()
        raise SaveError(f"{where} was traced with the Python object {_short(v)}; a saved "
                        "function can only take tensors, Python numbers, strings, None and "
                        "Variables (in lists, tuples and dicts)")


class _Refs:
    """Node indices of one graph's ops (references are always within one graph)."""

    def __init__(self, graph):
        self.graph = graph
        self.index = {id(op): i for i, op in enumerate(graph.operations)}

    def node(self, t) -> int:
        return self.tensor(t)[0]

    def tensor(self, t) -> list:
        i = self.index.get(id(t.op))
        if i is None:
            raise SaveError(f"'{t.name}' is used in graph '{self.graph.name}' but belongs to "
                            "another graph")
        return [i, t.value_index]


def _location(loc) -> Optional[list]:
    if not loc:
        return None
    fn, line, func = loc
    return [str(fn), int(line), str(func)]


def _at(op) -> str:
    if op.location:
        fn, line, func = op.location
        return f", made at {fn}:{line} in {func}"
    return ""


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."

