"""`rt.config`: global switches."""
from __future__ import annotations

import collections
import os

_run_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """With True, every `rt.function` runs its Python code eagerly instead of a graph.

    For debugging: see where graph and eager behaviour differ (a Python `print` runs on
    every call, not only while tracing). The switch is global; False restores graphs.

    Args:
      run_eagerly: a bool.

    Returns:
      None.

    >>> @rt.function
    ... def f(x):
    ...     print("python ran")
    ...     return x + 1
    >>> rt.config.run_functions_eagerly(True)
    >>> print(f(rt.constant(1)))
    python ran
    rt.Tensor(2, shape=(), dtype=int32)
    >>> rt.config.run_functions_eagerly(False)
    """
    global _run_eagerly
    _run_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `rt.function`s run eagerly (set by rt.config.run_functions_eagerly).

    Returns:
      A bool (False by default).

    >>> rt.config.functions_run_eagerly()
    False
    """
    return _run_eagerly


_optimize_graphs = True


def optimize_graphs(enabled: bool) -> None:
    """Switches the graph optimisation passes on or off for functions compiled from now on.

    With False, concrete functions compiled from now on run their graphs as traced, without
    the optimisation passes (runtime/optimize): to check whether the passes change a result,
    or to time them.

    Args:
      enabled: a bool (True by default).

    Returns:
      None.

    >>> rt.config.optimize_graphs(False)
    >>> rt.config.graphs_optimized()
    False
    >>> rt.config.optimize_graphs(True)
    """
    global _optimize_graphs
    _optimize_graphs = bool(enabled)


def graphs_optimized() -> bool:
    """Whether graphs compiled from now on get the optimisation passes (see optimize_graphs).

    Returns:
      A bool (True by default).

    >>> rt.config.graphs_optimized()
    True
    """
    return _optimize_graphs


# RUNTIME_TRACEBACK_FILTERING=off (or 0, false, no) in the environment shows every frame
# from the start, as JAX_TRACEBACK_FILTERING=off does for JAX.
_filter_tracebacks = os.environ.get("RUNTIME_TRACEBACK_FILTERING", "on").strip().lower() not in (
    "off", "0", "false", "no")


def disable_traceback_filtering() -> None:
    """Show every frame in errors from `rt.function` and the API, the runtime's and autograph's too.

    They are hidden by default (see runtime/traceback_filter.py); the environment variable
    RUNTIME_TRACEBACK_FILTERING=off does the same from the start.

    Returns:
      None.

    >>> rt.debugging.disable_traceback_filtering()
    >>> rt.debugging.is_traceback_filtering_enabled()
    False
    >>> rt.debugging.enable_traceback_filtering()
    """
    global _filter_tracebacks
    _filter_tracebacks = False


def enable_traceback_filtering() -> None:
    """Hide the runtime's and autograph's frames in errors from `rt.function` and the API (the
    default).

    Returns:
      None.

    >>> rt.debugging.enable_traceback_filtering()
    >>> rt.debugging.is_traceback_filtering_enabled()
    True
    """
    global _filter_tracebacks
    _filter_tracebacks = True


def traceback_filtering_enabled() -> bool:
    """Whether errors from `rt.function` and the API hide the runtime's and autograph's frames.

    Also exported as rt.debugging.is_traceback_filtering_enabled.

    Returns:
      A bool: True unless disabled (by disable_traceback_filtering or the environment
      variable RUNTIME_TRACEBACK_FILTERING=off).

    >>> rt.debugging.is_traceback_filtering_enabled()
    True
    """
    return _filter_tracebacks


class PhysicalDevice(collections.namedtuple("PhysicalDevice", ["name", "device_type"])):
    """A device the runtime can run on (TensorFlow's `tf.config.PhysicalDevice`): `name`
    such as "/physical_device:CPU:0", `device_type` such as "CPU" or "GPU".

    >>> rt.config.list_physical_devices()[0].device_type
    'CPU'
    """

    __slots__ = ()


def list_physical_devices(device_type=None) -> list:
    """The devices found: the CPU (the numpy backend) and the accelerators JAX reports for
    `rt.function(jit_compile=True)` (GPU, TPU; none where JAX is absent or sees none).

    Args:
      device_type: "CPU", "GPU", "TPU" (any case) or None for all.

    Returns:
      a list of `PhysicalDevice(name, device_type)`.

    >>> rt.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    found = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    if device_type is None or str(device_type).upper() != "CPU":
        found += _accelerators()
    if device_type is None:
        return found
    wanted = str(device_type).upper()
    return [d for d in found if d.device_type == wanted]


def list_logical_devices(device_type=None) -> list:
    """The devices as `list_physical_devices` lists them, named "/device:CPU:0", ...

    >>> [d.name for d in rt.config.list_logical_devices("CPU")]
    ['/device:CPU:0']
    """
    return [PhysicalDevice(d.name.replace("/physical_device:", "/device:"), d.device_type)
            for d in list_physical_devices(device_type)]


def _accelerators() -> list:
    try:
        import jax
        devices = jax.devices()
    except Exception:  # no jax, or it cannot start a backend: the CPU alone
        return []
    kinds = {"gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}
    out, counts = [], {}
    for d in devices:
        kind = kinds.get(str(getattr(d, "platform", "")).lower())
        if kind is not None:
            out.append(PhysicalDevice(f"/physical_device:{kind}:{counts.get(kind, 0)}", kind))
            counts[kind] = counts.get(kind, 0) + 1
    return out


__all__ = ['PhysicalDevice', 'disable_traceback_filtering', 'enable_traceback_filtering', 'functions_run_eagerly', 'graphs_optimized', 'list_logical_devices', 'list_physical_devices', 'optimize_graphs', 'run_functions_eagerly', 'traceback_filtering_enabled']


def __dir__():
    return sorted(__all__)    # the API, not the names it is built from
