"""Data parallelism across devices for `rt.function(jit_compile=True)`, on `jax.sharding`.

    @rt.function(jit_compile=True, data_parallel=True)      # every device JAX sees
    def train_step(x, y): ...

    rt.function(predict, jit_compile=True,                   # 4 devices; `x` is the batch
                data_parallel=rt.distribute.DataParallel(devices=rt.distribute.devices()[:4],
                                                         batch_args=("x",)))

Each call splits the batch arguments on axis 0 over a one-axis mesh of the devices and
replicates the rest; XLA's SPMD partitioner splits the computation. How, and its limits:
docs/architecture.md, "Data parallelism".
"""
from __future__ import annotations

import numpy as np

from . import nest
from .concrete import Placeholder
from .core import walk
from .errors import InvalidGraphError
from .backends import INSTALL_JAX as INSTALL
from .ops import io_ops

__all__ = ["DataParallel", "devices"]

AXIS = "batch"


def _jax():
    try:
        import jax  # an optional dependency
    except ImportError:
        raise ImportError(f"rt.distribute places computations on JAX's devices, and JAX is "
                          f"not installed: {INSTALL} (or pip install jax)") from None
    return jax


def devices() -> list:
    """The devices JAX sees (`jax.devices()`: the GPUs or TPUs, else the CPU).

    Run with XLA_FLAGS=--xla_force_host_platform_device_count=8 set before JAX is imported
    to see 8 CPU devices.

    Returns:
      A list of JAX devices.

    Raises:
      ImportError: when JAX is not installed (naming the install command).

    >>> rt.distribute.devices()  # doctest: +SKIP
    [CpuDevice(id=0)]
    """
    return list(_jax().devices())


class DataParallel:
    """How `rt.function(..., jit_compile=True, data_parallel=...)` spreads each call over devices.

    The batch arguments are split on axis 0, everything else replicated (see this module's
    docstring for the rules). Making one needs no JAX; the devices are looked up when the
    function first runs.

    Args:
      devices: a list of distinct JAX devices (None: `rt.distribute.devices()`, all of
        them).
      batch_args: the parameters that hold the batch, by name or position, one or a tuple
        (None: every tensor argument with an axis 0).

    Raises:
      ValueError: for an empty list of devices or a device listed twice.
      TypeError: for batch_args that are neither names nor positions.

    >>> dp = rt.distribute.DataParallel(batch_args="x")
    >>> dp
    DataParallel(devices=None, batch_args=('x',))
    >>> step = rt.function(lambda x, w: x @ w, jit_compile=True, data_parallel=dp)  # doctest: +SKIP
    """

    def __init__(self, devices=None, batch_args=None):
        if devices is not None:
            devices = list(devices)
            if not devices or len(set(devices)) != len(devices):
                raise ValueError(f"DataParallel: devices must be distinct JAX devices, at "
                                 f"least one; got {devices!r}")
        if isinstance(batch_args, (str, int)):
            batch_args = (batch_args,)
        if batch_args is not None:
            batch_args = tuple(batch_args)
            for a in batch_args:
                if isinstance(a, bool) or not isinstance(a, (str, int)):
                    raise TypeError("DataParallel: batch_args are parameter names or "
                                    f"positions, got {a!r}")
        self._devices = devices
        self.batch_args = batch_args
        self._mesh = None

    @property
    def devices(self) -> list:
        return list(self._devices) if self._devices is not None else devices()

    @property
    def mesh(self):
        """The one-axis `jax.sharding.Mesh` ("batch") of the devices."""
        if self._mesh is None:
            from jax.sharding import Mesh
            self._mesh = Mesh(np.array(self.devices, dtype=object), (AXIS,))
        return self._mesh

    def __repr__(self):
        return (f"DataParallel(devices={self._devices!r}, batch_args={self.batch_args!r})")

    def attach(self, cf) -> None:
        """Makes the ConcreteFunction `cf` run data-parallel (called as it is traced)."""
        split = self._batch_parameters(cf)
        names = {}
        for pname, traced in cf.traced_arguments.items():
            for leaf in nest.flatten(traced):
                if isinstance(leaf, Placeholder):
                    names[leaf.index] = pname
        cf._plan = _Plan(self, cf, [(names.get(i, f"input {i}"), names.get(i) in split)
                                    for i in range(len(cf.inputs))])

    def _batch_parameters(self, cf) -> set:
        params = list(cf.python_signature.parameters.values())
        if self.batch_args is None:
            return {p.name for p in params}
        chosen = set()
        for a in self.batch_args:
            if isinstance(a, int):
                positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                               p.POSITIONAL_OR_KEYWORD)]
                if not -len(positional) <= a < len(positional):
                    raise ValueError(f"DataParallel(batch_args={self.batch_args!r}): "
                                     f"{cf.name} has no positional parameter {a}")
                chosen.add(positional[a].name)
            elif a in {p.name for p in params}:
                chosen.add(a)
            else:
                raise ValueError(f"DataParallel(batch_args={self.batch_args!r}): {cf.name} "
                                 f"has no parameter named {a!r}; its parameters: "
                                 f"{', '.join(p.name for p in params)}")
        return chosen


def as_data_parallel(value, backend):
    """`rt.function`'s `data_parallel=` argument as a DataParallel (None when off), for a
    function on `backend` (the backend's name: data parallelism is XLA's)."""
    if value not in (None, False) and backend != "xla":
        raise ValueError("rt.function: data_parallel runs on XLA: pass jit_compile=True too")
    if value is None or value is False:
        return None
    if value is True:
        _jax()  # without JAX: the ImportError now, at decoration
        return DataParallel()
    if isinstance(value, DataParallel):
        _jax()
        return value
    raise TypeError("rt.function: data_parallel is True, False or an "
                    f"rt.distribute.DataParallel, got {value!r}")


class _Plan:
    """A concrete function's XLA plan, called with its inputs placed on the mesh."""

    def __init__(self, dp: DataParallel, cf, inputs):
        self.dp = dp
        self.cf = cf
        self.inputs = inputs      # (parameter name, is a batch argument) per input
        self.plan = None
        self.needed_placeholders = None

    def _compile(self):
        jax = _jax()
        from jax.sharding import NamedSharding, PartitionSpec
        graph, inputs, outputs = self.cf._optimized()
        plan = graph.compile(inputs, outputs, backend=self.cf.backend)
        mesh = self.dp.mesh
        if mesh.size > 1:
            _check_no_ordered_callbacks(self.cf.name, mesh.size, graph, outputs)
        self.split = NamedSharding(mesh, PartitionSpec(AXIS))
        self.replicated = NamedSharding(mesh, PartitionSpec())
        self.jax = jax
        self.needed_placeholders = plan.needed_placeholders
        self.plan = plan
        return plan

    def __call__(self, *arrays):
        plan = self.plan or self._compile()
        n = self.dp.mesh.size
        placed = []
        for (name, batch), a in zip(self.inputs, arrays):
            a = np.asarray(a)
            sharding = self.replicated
            if batch and a.ndim >= 1:
                if a.shape[0] % n:
                    raise ValueError(
                        f"{self.cf.name}: data-parallel over {n} devices, the batch argument "
                        f"'{name}' has {a.shape[0]} rows on axis 0 (shape {a.shape}), not a "
                        f"multiple of {n}: pad the batch to a multiple of {n} or drop the "
                        f"remainder, or name the batch arguments in "
                        f"rt.distribute.DataParallel(batch_args=...)")
                sharding = self.split
            if a.dtype.itemsize == 8 and a.dtype.kind in "iuf":
                with self.jax.enable_x64(True):  # else JAX would make it 32-bit
                    placed.append(self.jax.device_put(a, sharding))
            else:
                placed.append(self.jax.device_put(a, sharding))
        return plan(*placed)


def _check_no_ordered_callbacks(name, n, graph, outputs) -> None:
    found = []

    def scan(g, outs):
        for op in walk.schedule(g, outs):
            if op.opdef is io_ops.PRINT or op.opdef is io_ops.ASSERT:
                where = f" made at {op.location[0]}:{op.location[1]}" if op.location else ""
                found.append(f"{op.type} ('{op.name}'{where})")
            for body in op.opdef.bodies(op):
                scan(body.graph, body.outputs)

    scan(graph, outputs)
    if found:
        raise InvalidGraphError(
            f"{name}: cannot run data-parallel over {n} devices: rt.print and assertions "
            f"run as XLA's ordered host callbacks, which JAX allows on one device only:\n  "
            + "\n  ".join(found)
            + "\n(remove them from the function, or run it on one device)")


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
