"""`GradientTape`: records the ops that derive from watched tensors, then differentiates.

A tape records where it was opened: eagerly, or inside a trace (`gradient` then adds the
backward ops to that graph). The active tapes live on a thread-local stack
(`core.hooks.recording`); `apply_op` and `Graph.add_op` call the recorders registered
here while it is not empty (docs/architecture.md, "Gradients").

    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(w * x)
    dw = tape.gradient(loss, w)          # trainable Variables are watched automatically
"""
from __future__ import annotations

import contextlib
import enum
from typing import Optional

from .. import nest
from ..core import dtypes, hooks
from ..core.graph import current_graph
from ..core.tensor import EagerTensor, Tensor
from ..ops.core import convert_to_tensor
from ..ops.makers import ones_like, zeros_like
from ..ops.state_ops import Variable
from . import jacobians
from ..backprop import accumulate, backprop, variables_in


_state = hooks.recording     # .tapes: the open tapes of this thread (the core reads it)
_VARIANT = dtypes.variant


def recording() -> bool:
    """Whether some tape is open on this thread (the hooks' cheap test)."""
    return bool(_state.tapes)


def eager_tapes() -> list:
    return [t for t in _state.tapes if t._graph is None and t._recording]


class Entry:
    """One recorded op application: what a gradient rule is called with."""

    __slots__ = ("opdef", "inputs", "outputs", "attrs", "name")

    def __init__(self, opdef, inputs, outputs, attrs, name=None):
        self.opdef = opdef
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.attrs = attrs
        self.name = name or opdef.name


def record_eager(opdef, inputs, outputs, attrs):
    """Called by `apply_op` after an op ran eagerly (`outputs` a tensor or a tuple)."""
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    for tape in _state.tapes:
        if tape._graph is None and tape._recording:
            tape._record(opdef, inputs, outs, attrs, None)


def record_op(op):
    """Called by `Graph.add_op` for every new graph op."""
    for tape in _state.tapes:
        if tape._graph is op.graph and tape._recording:
            tape._record(op.opdef, op.inputs, op.outputs, op.attrs, op.name, op)


hooks.set_tape_recorders(record_eager, record_op)


class GradientTape:
    """Records operations for automatic differentiation (TensorFlow's `tf.GradientTape`).

    Ops run inside `with rt.GradientTape() as tape:` on watched values (trainable Variables
    read there, and tensors given to `tape.watch`) are recorded; `tape.gradient(target,
    sources)` then computes the gradients of target with respect to sources.

    Args:
      persistent: allow several `gradient` calls (a non-persistent tape frees its records
        after the first one).
      watch_accessed_variables: watch every trainable Variable read while the tape is open.

    >>> v = rt.Variable(3.0)
    >>> with rt.GradientTape() as tape:
    ...     y = v * v
    >>> print(tape.gradient(y, v))
    rt.Tensor(6.0, shape=(), dtype=float32)
    >>> x = rt.constant(2.0)
    >>> with rt.GradientTape(persistent=True) as tape:
    ...     tape.watch(x)
    ...     y = x * x
    ...     z = y * x
    >>> print(tape.gradient(y, x), tape.gradient(z, x))
    rt.Tensor(4.0, shape=(), dtype=float32) rt.Tensor(12.0, shape=(), dtype=float32)
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._entries: list = []
        self._watched: dict = {}        # id(tensor) -> tensor (kept alive: ids stay unique)
        self._watched_vars: dict = {}   # id(Variable) -> Variable, watched explicitly
        self._accessed: dict = {}       # id(Variable) -> Variable, read under the tape
        self._graph = None
        self._recording = False
        self._used = False

    # -- context --------------------------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        self._graph = current_graph()
        self._recording = True
        _state.tapes.append(self)
        return self

    def __exit__(self, *exc):
        self._recording = False
        if self in _state.tapes:
            _state.tapes.remove(self)
        return False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside are not recorded on this tape."""
        was = self._recording
        self._recording = False
        try:
            yield
        finally:
            self._recording = was

    def reset(self):
        """Forgets everything recorded so far (the tape stays open)."""
        self._entries = []
        self._watched = {}
        self._accessed = {}
        self._used = False

    # -- watching -------------------------------------------------------------------------
    def watch(self, tensor):
        """Records the ops applied to `tensor` (a tensor, a Variable, or a nested structure
        of them) from now on."""
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                self._watched_vars[id(t)] = t
            elif isinstance(t, Tensor):
                t = _in_graph(t)
                self._watched[id(t)] = t
            else:
                raise ValueError(f"GradientTape.watch needs tensors or Variables, got {t!r}")

    def watched_variables(self) -> tuple:
        """The Variables this tape watches and that were read under it, in first-use order."""
        return tuple(v for v in self._accessed.values() if self._watches(v))

    def _watches(self, var) -> bool:
        return id(var) in self._watched_vars or (self._watch_accessed and var.trainable)

    # -- recording ------------------------------------------------------------------------
    def _record(self, opdef, inputs, outputs, attrs, name, op=None):
        watched = self._watched
        if opdef.reads_variables:
            var = attrs["variable"]
            if not self._watches(var) or not var.dtype.is_floating:
                return
            self._accessed.setdefault(id(var), var)
        else:
            for t in inputs:
                if id(t) in watched:
                    break
            else:
                # a control-flow op's sub-graphs may read Variables its inputs do not show
                if not opdef.body_attrs or not self._reads_watched(opdef, attrs):
                    return
        for t in outputs:
            if t.dtype.is_floating or t.dtype is _VARIANT:  # TensorArray handles carry grads
                watched[id(t)] = t
        # a graph op is its own entry (it also knows where the user created it)
        self._entries.append(op if op is not None else Entry(opdef, inputs, outputs, attrs, name))

    def _reads_watched(self, opdef, attrs) -> bool:
        found = False
        for var in variables_in(opdef, attrs):
            if self._watches(var):
                self._accessed.setdefault(id(var), var)
                found = True
        return found

    def _record_call(self, entry, variables) -> bool:
        """Records a Function call (see function_grad) if it touches a watched value."""
        hit = any(id(t) in self._watched for t in entry.inputs)
        for var in variables:
            if self._watches(var):
                self._accessed.setdefault(id(var), var)
                hit = True
        if not hit:
            return False
        for t in entry.outputs:
            if t.dtype.is_floating or t.dtype is _VARIANT:
                self._watched[id(t)] = t
        self._entries.append(entry)
        return True

    def _watches_call(self, tensors, variables) -> bool:
        return (any(id(t) in self._watched for t in tensors)
                or any(self._watches(v) for v in variables))

    # -- differentiating ------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None):
        """d(sum of `target`)/d(each of `sources`): tensors (or Variables) shaped like
        `sources`. A source the target does not depend on (or reaches only through integer
        or boolean values) gets None (zeros with unconnected_gradients="zero")."""
        self._start_using()
        targets = nest.flatten(target)
        seeds_given = (nest.flatten(output_gradients) if output_gradients is not None
                       else [None] * len(targets))
        if len(seeds_given) != len(targets):
            raise ValueError("output_gradients must have the structure of target")
        out = self._gradients(targets, nest.flatten(sources), seeds_given,
                              _unconnected(unconnected_gradients))
        self._done_using()
        return nest.pack_sequence_as(sources, out) if nest.is_nested(sources) else out[0]

    def jacobian(self, target, sources, unconnected_gradients=None, parallel_iterations=None,
                 experimental_use_pfor=True):
        """The jacobian of `target` with respect to each of `sources`, as TensorFlow's: for
        each source a tensor of shape `target.shape + source.shape` whose element [i..., j...]
        is d target[i...] / d source[j...] (None for a source the target does not depend
        on, zeros with unconnected_gradients="zero"); the structure of `sources`. A
        non-persistent tape gives one jacobian (or gradient).

        One backward pass per element of `target`. Inside rt.function a target whose size
        the trace knows makes that many backward passes in the graph; one of unknown size
        makes a staged loop. `parallel_iterations` and `experimental_use_pfor` are accepted
        for TensorFlow's signature.

        >>> x = rt.constant([1.0, 2.0])
        >>> with rt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> print(tape.jacobian(y, x))
        rt.Tensor(
        [[2. 0.]
         [0. 4.]], shape=(2, 2), dtype=float32)
        """
        self._start_using()
        flat = nest.flatten(sources)
        unconnected = _unconnected(unconnected_gradients)
        target = _as_target(target)
        out = jacobians.jacobian(target, flat, lambda seed: self._gradients(
            [target], flat, [seed], None), unconnected)
        self._done_using()
        return nest.pack_sequence_as(sources, out) if nest.is_nested(sources) else out[0]

    def batch_jacobian(self, target, source, unconnected_gradients=None,
                       parallel_iterations=None, experimental_use_pfor=True):
        """The jacobian of each row of a batch, as TensorFlow's: `target` [b, y...] and
        `source` [b, x...] (rank 2 or more, the same b), where target[i] depends on
        source[i] alone, give [b, y..., x...], whose [i] is the jacobian of target[i] with
        respect to source[i]. None (zeros with unconnected_gradients="zero") where the target
        does not depend on the source. One backward pass per element of a target row.

        >>> x = rt.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> with rt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> print(tape.batch_jacobian(y, x))
        rt.Tensor(
        [[[2. 0.]
          [0. 4.]]
        <BLANKLINE>
         [[6. 0.]
          [0. 8.]]], shape=(2, 2, 2), dtype=float32)
        """
        self._start_using()
        unconnected = _unconnected(unconnected_gradients)
        target = _as_target(target)
        out = jacobians.batch_jacobian(target, source, lambda seed: self._gradients(
            [target], [source], [seed], None)[0], unconnected)
        self._done_using()
        return out

    def _start_using(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        self._used = True

    def _done_using(self) -> None:
        if not self._persistent:  # its records are freed; it records nothing more
            self._entries, self._watched, self._recording = [], {}, False

    def _gradients(self, targets, sources, seeds_given, unconnected) -> list:
        # As in TensorFlow: a persistent tape still open records the backward ops too (so
        # it can differentiate them again); a non-persistent one stops recording.
        was = self._recording and self._persistent
        self._recording = was
        try:
            seeds = {}
            for t, seed in zip(targets, seeds_given):
                if isinstance(t, Variable):
                    t = t.read_value()
                if not t.dtype.is_floating:
                    continue
                g = ones_like(t) if seed is None else convert_to_tensor(seed, dtype=t.dtype)
                seeds[id(t)] = accumulate(seeds.get(id(t)), g)
            grads, var_grads = backprop(list(self._entries), seeds, dict(self._watched))
            out = []
            for s in sources:
                if isinstance(s, Variable):
                    g = var_grads.get(id(s))
                    g = None if g is None else g[1]
                elif hasattr(s, "dtype") and hasattr(s, "shape"):
                    g = grads.get(id(_in_graph(s)))
                else:
                    raise ValueError(f"GradientTape.gradient sources must be tensors or "
                                     f"Variables, got {s!r}")
                if g is None and unconnected == "zero":
                    g = zeros_like(s.read_value() if isinstance(s, Variable) else s)
                out.append(g)
        finally:
            self._recording = was
        return out

    def __repr__(self):
        return (f"<rt.GradientTape persistent={self._persistent} with {len(self._entries)} "
                "recorded ops>")


def _in_graph(t):
    """An eager tensor made outside, watched or differentiated while a graph is built:
    the graph's tensor for it (the Const every use in the graph reads)."""
    if isinstance(t, EagerTensor):
        graph = current_graph()
        if graph is not None:
            return graph.eager_constant(t)
    return t


class UnconnectedGradients(enum.Enum):
    """What `gradient`/`jacobian` give for a source the target does not depend on:
    None (NONE) or zeros shaped like the source (ZERO), as TensorFlow's enum.

    >>> x, y = rt.constant(1.0), rt.constant(2.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch([x, y])
    ...     z = x * 3.0
    >>> print(tape.gradient(z, y, unconnected_gradients=rt.UnconnectedGradients.ZERO))
    rt.Tensor(0.0, shape=(), dtype=float32)
    """
    NONE = "none"
    ZERO = "zero"


def _unconnected(value) -> Optional[str]:
    """unconnected_gradients as "zero" or None ("none"); TensorFlow's enum's values too."""
    value = getattr(value, "value", value)
    if value not in (None, "none", "zero"):
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {value!r}")
    return "zero" if value == "zero" else None


def _as_target(target):
    if isinstance(target, Variable):
        return target.read_value()
    if not isinstance(target, Tensor):
        raise ValueError(f"a jacobian's target must be a tensor, got {target!r}")
    return target
