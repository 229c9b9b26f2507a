"""`rt.train.Checkpoint`: TensorFlow's object-based checkpoints.

A checkpoint holds the values of the Variables reachable from its objects, each under the
path of attribute names that leads to it (TensorFlow's keys):

    model/w1/.ATTRIBUTES/VARIABLE_VALUE                     a Module's Variable
    model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE             inside a list attribute
    optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE               the optimizer's step
    model/w1/.OPTIMIZER_SLOT/optimizer/m                    the optimizer's slot for model.w1
    save_counter/.ATTRIBUTES/VARIABLE_VALUE                 the Checkpoint's own counter

`restore` assigns the values into the live objects found under the same paths. Objects
that do not exist yet get their value when they are made (deferred restoration): an
optimizer's slots when it makes them (its first `apply_gradients`), an attribute set on
the Checkpoint or on a Module after the restore call. The files are described in
docs/checkpoints.md (runtime/train/files.py reads them as files from strangers).
"""
from __future__ import annotations

import os
import weakref

import numpy as np

from ..core.graph import current_graph, eager_scope
from ..errors import InvalidArgumentError
from ..module import Module
from ..ops import state_ops
from ..ops.random_more import Generator
from ..ops.state_ops import Variable
from ..optimizers import Optimizer
from .. import optimizers as _optimizers_module
from . import files

VALUE = ".ATTRIBUTES/VARIABLE_VALUE"
SLOT = "/.OPTIMIZER_SLOT/"

__all__ = ["Checkpoint", "CheckpointLoadStatus", "CheckpointMismatchError"]


class CheckpointMismatchError(InvalidArgumentError):
    """Values of a checkpoint that do not fit the live Variables at their paths (shape or
    dtype); the message lists each."""


def escape_name(name) -> str:
    """A path component as TensorFlow writes it: "." -> "..", "/" -> ".S"."""
    return str(name).replace(".", "..").replace("/", ".S")


# -- walking the objects ------------------------------------------------------------------

def _trackable(x) -> bool:
    return isinstance(x, (Variable, Module, Optimizer, Checkpoint, Generator, list, tuple, dict))


def _children(obj):
    """(escaped name, child) pairs of a trackable object, in a fixed order."""
    if isinstance(obj, Checkpoint):
        items = list(obj._objects.items())
    elif isinstance(obj, Optimizer):
        items = [("iter", obj.iterations)]
        lr = obj.learning_rate
        if isinstance(lr, Variable):
            items.append(("learning_rate", lr))
    elif isinstance(obj, Generator):   # its state, under TensorFlow's name
        items = [("_state_var", obj.state)]
    elif isinstance(obj, Module):
        ignored = getattr(type(obj), "_TF_MODULE_IGNORED_PROPERTIES", ())
        attrs = vars(obj)
        items = [(k, attrs[k]) for k in sorted(attrs) if k not in ignored]
    elif isinstance(obj, dict):
        try:
            keys = sorted(obj)
        except TypeError:
            keys = sorted(obj, key=lambda k: (type(k).__name__, repr(k)))
        items = [(k, obj[k]) for k in keys]
    elif isinstance(obj, (list, tuple)):
        items = list(enumerate(obj))
    else:
        items = []
    return [(escape_name(k), v) for k, v in items if _trackable(v)]


class Graph:
    """The objects reachable from some roots, breadth first, each at its first path."""

    def __init__(self):
        self.paths = {}          # id(obj) -> path
        self.objects = {}        # path -> obj
        self.variables = {}      # path -> Variable
        self.optimizers = {}     # path -> Optimizer

    def add(self, root, path: str) -> list:
        """Walks `root` (at `path`); returns the new (path, obj) pairs found."""
        new, queue = [], [(path, root)]
        while queue:
            p, obj = queue.pop(0)
            if id(obj) in self.paths:
                continue
            self.paths[id(obj)] = p
            self.objects[p] = obj
            new.append((p, obj))
            if isinstance(obj, Variable):
                self.variables[p] = obj
                continue
            if isinstance(obj, Optimizer):
                self.optimizers[p] = obj
            queue.extend((f"{p}/{name}" if p else name, child) for name, child in _children(obj))
        return new

    def slots(self):
        """(key, slot Variable) of the slots the graph's optimizers made for its Variables."""
        for po, opt in self.optimizers.items():
            names = opt.get_slot_names()
            for pv, var in self.variables.items():
                for name in names:
                    try:
                        slot = opt.get_slot(var, name)
                    except KeyError:
                        continue
                    yield f"{pv}{SLOT}{po}/{name}", slot


def values_of(root) -> dict:
    """{key: numpy array} of every Variable and slot reachable from `root`."""
    g = Graph()
    g.add(root, "")
    out = {f"{p}/{VALUE}": np.asarray(v.numpy()) for p, v in g.variables.items()}
    out.update((key, np.asarray(slot.numpy())) for key, slot in g.slots())
    return out


# -- restoring ------------------------------------------------------------------------------

_pending_slots = weakref.WeakKeyDictionary()   # optimizer -> [(restoration, var, name, key)]
_watched = weakref.WeakKeyDictionary()         # owner -> [(restoration, attr, path)]
_watching_classes: dict = {}                   # Module subclass -> its watching subclass


def _on_slots_created(optimizer, var, slots: dict) -> None:
    """The optimizer made `var`'s slots: give them the values a restore left waiting."""
    entries = _pending_slots.get(optimizer)
    if not entries:
        return
    keep = []
    for r, v, name, key in entries:
        if r.cancelled:
            continue
        if v is var and name in slots:
            r.assign([(slots[name], key)])
        else:
            keep.append((r, v, name, key))
    if keep:
        _pending_slots[optimizer] = keep
    else:
        del _pending_slots[optimizer]


_optimizers_module.slot_callbacks.append(_on_slots_created)


def _on_attribute_set(owner, name, value) -> None:
    entries = _watched.get(owner)
    if not entries:
        return
    attr = escape_name(name)
    hits = [e for e in entries if e[1] == attr and not e[0].cancelled]
    rest = [e for e in entries if e[1] != attr and not e[0].cancelled]
    if rest:
        _watched[owner] = rest
    else:
        _unwatch(owner)
    for r, _, path in hits:
        if _trackable(value):
            r.match(value, path)


def _watch(owner, restoration, attr: str, path: str) -> None:
    entries = _watched.setdefault(owner, [])
    if any(e[0] is restoration and e[1] == attr for e in entries):
        return
    entries.append((restoration, attr, path))
    if isinstance(owner, Module) and type(owner) not in _watching_classes.values():
        owner.__class__ = _watching_class(type(owner))


def _unwatch(owner) -> None:
    _watched.pop(owner, None)
    base = getattr(type(owner), "_checkpoint_watched_base", None)
    if base is not None and type(owner) is _watching_classes.get(base):
        owner.__class__ = base


def _watching_class(cls):
    """A subclass of the Module class `cls` whose attribute assignments a pending restore
    sees (the object's class while a value waits for one of its attributes)."""
    sub = _watching_classes.get(cls)
    if sub is None:
        def __setattr__(self, name, value):
            super(sub, self).__setattr__(name, value)
            _on_attribute_set(self, name, value)
        sub = type(cls)(cls.__name__, (cls,), {
            "__setattr__": __setattr__, "__module__": cls.__module__,
            "__qualname__": cls.__qualname__, "_checkpoint_watched_base": cls})
        _watching_classes[cls] = sub
    return sub


class _Restoration:
    """One restore call: the values read, which were used, which live objects got one."""

    def __init__(self, root, path: str, values: dict):
        self.path = path
        self.values = values              # key -> array, the ones not used yet
        self.used = set()
        self.matched = set()              # ids of the live Variables given a value
        self.graph = Graph()
        self.cancelled = False
        self.match(root, "")

    def match(self, obj, path: str) -> None:
        new = self.graph.add(obj, path)
        pairs = []
        for p, o in new:
            if isinstance(o, Variable) and f"{p}/{VALUE}" in self.values:
                pairs.append((o, f"{p}/{VALUE}"))
        pairs.extend(self._slot_pairs())
        self.assign(pairs)
        self._defer()

    def _slot_pairs(self) -> list:
        pairs = []
        for key in [k for k in self.values if SLOT in k]:
            pv, _, rest = key.partition(SLOT)
            po, _, name = rest.rpartition("/")
            var, opt = self.graph.variables.get(pv), self.graph.optimizers.get(po)
            if var is None or opt is None:
                continue
            try:
                pairs.append((opt.get_slot(var, name), key))
            except KeyError:  # not made yet: on its first update
                waiting = _pending_slots.setdefault(opt, [])
                if not any(e[0] is self and e[3] == key for e in waiting):
                    waiting.append((self, var, name, key))
        return pairs

    def assign(self, pairs: list) -> None:
        """Gives each (Variable, key) its value, after checking all of them."""
        wrong = []
        for var, key in pairs:
            value = self.values[key]
            if value.dtype != var.dtype.np_dtype:
                wrong.append(f"  {key}: the checkpoint holds {value.dtype.name} "
                             f"{tuple(value.shape)}, the Variable '{var.name}' is "
                             f"{var.dtype.name} {var.shape}")
            elif not var.shape.is_compatible_with(value.shape):
                wrong.append(f"  {key}: the checkpoint holds shape {tuple(value.shape)}, the "
                             f"Variable '{var.name}' has shape {var.shape}")
        if wrong:
            raise CheckpointMismatchError(
                f"cannot restore {self.path!r}: {len(wrong)} value(s) do not fit the objects at "
                "their paths (nothing was restored):\n" + "\n".join(wrong))
        with eager_scope():
            for var, key in pairs:
                var.assign(np.array(self.values.pop(key)), read_value=False)
                self.used.add(key)
                self.matched.add(id(var))

    def _defer(self) -> None:
        """Watches the live objects under which values still wait for an attribute."""
        for key in self.values:
            obj_path = key.partition(SLOT)[0] if SLOT in key else key[:-len(VALUE) - 1]
            parts = obj_path.split("/")
            for i in range(len(parts) - 1, -1, -1):
                owner = self.graph.objects.get("/".join(parts[:i]))
                if owner is None:
                    continue
                if isinstance(owner, (Checkpoint, Module)) and not _has_escaped(owner, parts[i]):
                    _watch(owner, self, parts[i], "/".join(parts[:i + 1]))
                break

    def cancel(self) -> None:
        self.cancelled = True
        self.values = {}


def _has_escaped(owner, attr: str) -> bool:
    """Whether `owner` holds a trackable object under the (escaped) attribute name."""
    names = owner._objects if isinstance(owner, Checkpoint) else vars(owner)
    return any(escape_name(n) == attr and _trackable(v) for n, v in names.items())


class CheckpointLoadStatus:
    """What a `restore` matched (TensorFlow's `CheckpointLoadStatus`).

    `assert_consumed()`: every value of the checkpoint went to an object and every
    Variable reachable now got one (values that wait for a slot or attribute not made yet
    fail it until they are made). `assert_existing_objects_matched()`: every Variable and
    slot reachable now got a value. `assert_nontrivial_match()`: at least one did.
    `expect_partial()`: says a partial restore is meant; returns the status.

    >>> import tempfile, os
    >>> path = rt.train.Checkpoint(a=rt.Variable(1.0), b=rt.Variable(2.0)).save(
    ...     os.path.join(tempfile.mkdtemp(), "c"))
    >>> status = rt.train.Checkpoint(a=rt.Variable(0.0)).restore(path)
    >>> status.assert_existing_objects_matched() is status     # `a` got its value
    True
    >>> status.assert_consumed()          # `b` went nowhere  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: ...
    """

    def __init__(self, checkpoint, restoration):
        self._checkpoint = checkpoint
        self._r = restoration

    def _unmatched_live(self) -> list:
        g = Graph()
        g.add(self._checkpoint, "")
        live = [(f"{p}/{VALUE}", v) for p, v in g.variables.items()]
        live.extend(g.slots())
        return [f"  {k} ('{v.name}', {v.dtype.name} {v.shape})" for k, v in live
                if id(v) not in self._r.matched]

    def assert_consumed(self):
        """Raises AssertionError listing the values not used and the Variables not given
        one; returns the status."""
        unused = [f"  {k} ({v.dtype.name} {tuple(v.shape)})" for k, v in self._r.values.items()]
        live = self._unmatched_live()
        if unused or live:
            parts = []
            if unused:
                parts.append("values in the checkpoint that no object received (not made yet, "
                             "or not in the program):\n" + "\n".join(unused))
            if live:
                parts.append("Variables that got no value:\n" + "\n".join(live))
            raise AssertionError(f"restoring {self._r.path!r} did not match all: "
                                 + "\n".join(parts))
        return self

    def assert_existing_objects_matched(self):
        """Raises AssertionError listing the Variables (and slots) reachable now that got no
        value; returns the status."""
        live = self._unmatched_live()
        if live:
            raise AssertionError(f"restoring {self._r.path!r}: Variables that got no value:\n"
                                 + "\n".join(live))
        return self

    def assert_nontrivial_match(self):
        if not self._r.used:
            raise AssertionError(f"restoring {self._r.path!r} matched no object")
        return self

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: values are assigned when they are matched (TF 2's eager)."""


class InitializationOnlyStatus:
    """The status of `restore(None)`: nothing restored (TensorFlow's
    `InitializationOnlyStatus`); its assertions fail, `expect_partial` does not.

    >>> status = rt.train.Checkpoint(a=rt.Variable(1.0)).restore(None)
    >>> status.expect_partial() is status
    True
    """

    def _fail(self):
        raise AssertionError("no checkpoint was given (restore(None)): nothing was restored")

    def assert_consumed(self):
        self._fail()

    def assert_existing_objects_matched(self):
        self._fail()

    def assert_nontrivial_match(self):
        self._fail()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run."""


class Checkpoint:
    """Saves and restores the Variables of Modules, optimizers and Variables (TF's
    `tf.train.Checkpoint`).

    Args:
      root: an object whose children become the checkpoint's (TF's `root=`), optional.
      **kwargs: the objects to keep, by name: Modules, optimizers (with their slots),
        Variables, other Checkpoints, and lists/dicts of them.

    `save(prefix)` writes "prefix-N" (N: `save_counter` after adding 1) and returns it;
    `write(path)` writes `path` as given; `restore(path)` / `read(path)` assign the values
    into the live objects and return a status (`assert_consumed()`, ...). Values for
    objects made after the restore (an optimizer's slots, made on its first update; an
    attribute set later on the Checkpoint or a Module) are given when they are made.

    >>> import tempfile, os
    >>> step = rt.Variable(3, dtype=rt.int64)
    >>> ckpt = rt.train.Checkpoint(step=step)
    >>> path = ckpt.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
    >>> os.path.basename(path)
    'ckpt-1'
    >>> _ = step.assign(10)
    >>> _ = ckpt.restore(path).assert_consumed()
    >>> int(step.numpy())
    3
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_objects", {})
        object.__setattr__(self, "_restoration", None)
        if root is not None:
            kwargs = {**{n: c for n, c in _children(root)}, **kwargs} \
                if not isinstance(root, Variable) else {"root": root, **kwargs}
        for name, obj in kwargs.items():
            if name == "save_counter":
                raise ValueError("'save_counter' is the Checkpoint's own; pick another name")
            self._track(name, obj)
        previous = state_ops.set_creation_hook(None)
        try:
            with eager_scope():
                counter = Variable(np.int64(0), trainable=False, name="save_counter")
        finally:
            state_ops.set_creation_hook(previous)
        self._objects["save_counter"] = counter

    def _track(self, name, obj):
        if not _trackable(obj):
            raise ValueError(f"rt.train.Checkpoint was expecting a trackable object (a "
                             f"Variable, Module, optimizer, random Generator or Checkpoint) "
                             f"for {name!r}, got "
                             f"{type(obj).__name__}: {obj!r}")
        self._objects[name] = obj

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if name == "save_counter":
            raise AttributeError("save_counter is the Checkpoint's own")
        self._track(name, value)
        _on_attribute_set(self, name, value)

    def __getattr__(self, name):
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    @property
    def save_counter(self) -> Variable:
        """The int64 Variable counting `save` calls (restored with the rest)."""
        return self._objects["save_counter"]

    # -- writing --------------------------------------------------------------------------
    def write(self, file_prefix, options=None) -> str:
        """Writes the checkpoint at `file_prefix` (files `file_prefix.index` and
        `file_prefix.data-00000-of-00001`), leaving `save_counter` alone; returns the path."""
        if current_graph() is not None:
            raise RuntimeError("Checkpoint.write/save runs eagerly: call it outside "
                               "rt.function (between training steps)")
        prefix = os.fspath(file_prefix)
        files.write(prefix, values_of(self))
        return prefix

    def save(self, file_prefix, options=None) -> str:
        """Adds 1 to `save_counter`, writes "file_prefix-<save_counter>", records it in the
        directory's `checkpoint` file (for `latest_checkpoint`) and returns the path."""
        with eager_scope():
            self.save_counter.assign_add(1, read_value=False)
        prefix = os.fspath(file_prefix)
        path = self.write(f"{prefix}-{int(self.save_counter.numpy())}")
        files.write_state(os.path.dirname(path) or ".", path, [path])
        return path

    # -- reading --------------------------------------------------------------------------
    def read(self, save_path, options=None):
        """Restores the values of the checkpoint `save_path` into the live objects; returns
        a `CheckpointLoadStatus`. (`restore` does the same.)

        Raises:
          NotFoundError (a FileNotFoundError): no checkpoint there.
          FormatError: a file that is not a checkpoint, or a damaged one.
          CheckpointMismatchError: values whose shape or dtype do not fit their Variables.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        path = os.fspath(save_path)
        values = files.read(path)
        previous = self._restoration
        if previous is not None:
            previous.cancel()   # the newer restore wins for what the older left waiting
        r = _Restoration(self, path, values)
        self._restoration = r
        return CheckpointLoadStatus(self, r)

    def restore(self, save_path, options=None):
        """`read`: restores `save_path` (a path `save` returned, or None: nothing, as
        `rt.train.latest_checkpoint` gives for an empty directory) into the live objects.

        Returns:
          a `CheckpointLoadStatus` (`InitializationOnlyStatus` for None).
        """
        return self.read(save_path, options)

    def __repr__(self):
        return f"<rt.train.Checkpoint {sorted(n for n in self._objects if n != 'save_counter')}>"
