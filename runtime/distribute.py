"""Data parallelism across devices for `rt.function(jit_compile=True)`, on `jax.sharding`.

    @rt.function(jit_compile=True, data_parallel=True)      # every device JAX sees
    def train_step(x, y): ...

    rt.function(predict, jit_compile=True,                   # 4 devices; `x` is the batch
                data_parallel=rt.distribute.DataParallel(devices=rt.distribute.devices()[:4],
                                                         batch_args=("x",)))

Each call splits the batch arguments on axis 0 over a one-axis mesh of the devices and
replicates the rest; XLA's SPMD partitioner splits the computation. Across processes (of
one host or several), each calls `rt.distribute.initialize(...)` first and feeds its own
rows of the batch; every process gets the whole results and the same Variables. How, and
its limits: docs/architecture.md, "Data parallelism".
"""
from __future__ import annotations

import numpy as np

from . import nest
from .concrete import Placeholder, to_spec
from .core.shapes import TensorShape
from .core.tensor import SymbolicTensor
from .core import walk
from .errors import InvalidGraphError
from .backends import INSTALL_JAX as INSTALL
from .ops import io_ops

__all__ = ["DataParallel", "devices", "initialize", "process_count", "process_index",
           "shutdown"]

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


def initialize(coordinator_address=None, num_processes=None, process_id=None,
               local_device_ids=None, cpu_collectives="gloo") -> None:
    """Joins this process to the others running the same program (`jax.distributed.initialize`).

    Call it in every process, before anything else uses JAX; then `rt.distribute.devices()`
    lists the devices of every process, and a `data_parallel` function spreads each call
    over all of them: each process passes its own rows of the batch (the global batch is
    the processes' rows in process order), and every process gets the results of the
    whole batch and the same Variables.

    Args:
      coordinator_address: "host:port" of process 0, which every process can reach (None:
        what JAX detects on a cluster, e.g. SLURM or Open MPI).
      num_processes: how many processes take part (None: detected).
      process_id: this process's index, 0 to num_processes - 1 (None: detected).
      local_device_ids: the local devices this process uses (None: all it sees).
      cpu_collectives: the CPU's cross-process collectives, "gloo" (JAX's
        `jax_cpu_collectives_implementation`; "mpi" needs an MPI build; None leaves
        JAX's default); GPUs use NCCL whatever it is.

    Raises:
      ImportError: when JAX is not installed.
      RuntimeError: when this JAX has no such CPU collectives, or JAX already ran
        computations in this process (initialize first).

    >>> rt.distribute.initialize("10.0.0.1:1234", num_processes=2, process_id=0)  # doctest: +SKIP
    """
    jax = _jax()
    if cpu_collectives is not None:
        try:
            jax.config.update("jax_cpu_collectives_implementation", cpu_collectives)
        except (AttributeError, ValueError) as e:
            raise RuntimeError(f"rt.distribute.initialize: this JAX ({jax.__version__}) has no "
                               f"CPU collectives {cpu_collectives!r}: {e}") from None
    jax.distributed.initialize(coordinator_address=coordinator_address,
                               num_processes=num_processes, process_id=process_id,
                               local_device_ids=local_device_ids)


def shutdown() -> None:
    """Leaves the processes joined by `initialize` (`jax.distributed.shutdown`); every
    process calls it, or none (they also leave at exit).

    >>> rt.distribute.shutdown()  # doctest: +SKIP
    """
    _jax().distributed.shutdown()


def process_count() -> int:
    """How many processes `initialize` joined (1 without it).

    >>> rt.distribute.process_count()  # doctest: +SKIP
    1
    """
    return _jax().process_count()


def process_index() -> int:
    """This process's index among them, 0 to `process_count() - 1` (0 without `initialize`).

    >>> rt.distribute.process_index()  # doctest: +SKIP
    0
    """
    return _jax().process_index()


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

    def trace_shapes(self, name, sig, bound, shapes):
        """The shapes a Function `name` of signature `sig` traces the arguments `bound` with
        (`shapes`: the relaxed shapes it would trace with, one per tensor, or None). Across
        processes each process passes its own rows, so a batch argument's axis 0 is traced
        as None (the global batch, the rows of every process, is known when XLA compiles);
        in one process, `shapes` as they are."""
        if _jax().process_count() == 1:
            return shapes
        split = self._chosen(list(sig.parameters.values()), name)
        given = iter(shapes) if shapes is not None else None
        out = []
        for pname, value in bound.arguments.items():   # as tracing makes the placeholders
            leaves = (nest.flatten(nest.composite_specs(value), True)
                      if nest.is_nested(value, expand_composites=True) else [value])
            for v in leaves:
                spec = to_spec(v, pname)
                if spec is None and not isinstance(v, SymbolicTensor):
                    continue
                shape = TensorShape(next(given) if given is not None else v.shape)
                if pname in split and shape.rank:
                    shape = TensorShape([None, *shape.as_list()[1:]])
                out.append(shape)
        return out

    def _batch_parameters(self, cf) -> set:
        return self._chosen(list(cf.python_signature.parameters.values()), cf.name)

    def _chosen(self, params, fname) -> set:
        if self.batch_args is None:
            return {p.name for p in params}
        chosen = set()
        for a in self.batch_args:
            if isinstance(a, int):
                positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                               p.POSITIONAL_OR_KEYWORD)]
                if not -len(positional) <= a < len(positional):
                    raise ValueError(f"DataParallel(batch_args={self.batch_args!r}): "
                                     f"{fname} has no positional parameter {a}")
                chosen.add(positional[a].name)
            elif a in {p.name for p in params}:
                chosen.add(a)
            else:
                raise ValueError(f"DataParallel(batch_args={self.batch_args!r}): {fname} "
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
        # Across processes, each process's devices hold its own rows; the results and
        # the Variables written are replicated by XLA (an all-gather of the batch rows)
        # so that every process reads them whole.
        self.local = len(mesh.local_devices) if jax.process_count() > 1 else None
        if self.local is not None:
            plan.jitted = jax.jit(plan.jitted, out_shardings=self.replicated)
            # Every process starts from process 0's Variables (as TensorFlow's
            # MultiWorkerMirroredStrategy broadcasts initial values from its first worker).
            from jax.experimental import multihost_utils
            for v in getattr(plan, "variables", ()):
                v.assign(multihost_utils.broadcast_one_to_all(v.numpy()))
        self.needed_placeholders = plan.needed_placeholders
        self.plan = plan
        return plan

    def __call__(self, *arrays):
        plan = self.plan or self._compile()
        local = self.local
        n = self.dp.mesh.size if local is None else local
        where = (f"{n} devices" if local is None else
                 f"{self.dp.mesh.size} devices of {self.jax.process_count()} processes, "
                 f"this process's rows over its {n}")
        put = self.jax.device_put if local is None else self._from_process
        placed = []
        for (name, batch), a in zip(self.inputs, arrays):
            a = np.asarray(a)
            sharding = self.replicated
            if batch and a.ndim >= 1:
                if a.shape[0] % n:
                    raise ValueError(
                        f"{self.cf.name}: data-parallel over {where}, the batch argument "
                        f"'{name}' has {a.shape[0]} rows on axis 0 (shape {a.shape}), not a "
                        f"multiple of {n}: pad the batch to a multiple of {n} or drop the "
                        f"remainder, or name the batch arguments in "
                        f"rt.distribute.DataParallel(batch_args=...)")
                sharding = self.split
            if a.dtype.itemsize == 8 and a.dtype.kind in "iuf":
                with self.jax.enable_x64(True):  # else JAX would make it 32-bit
                    placed.append(put(a, sharding))
            else:
                placed.append(put(a, sharding))
        return plan(*placed)

    def _from_process(self, a, sharding):
        """The global array of which `a` is this process's part: its rows of a split
        input (the processes' rows in process order), the whole of a replicated one."""
        return self.jax.make_array_from_process_local_data(sharding, a)


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
