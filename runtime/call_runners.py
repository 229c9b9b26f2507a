"""How a ConcreteFunction runs for `Function`'s fastest call path: a runner per kind of
positional arguments (`positional_runner`), the input arrays of positional arguments
(`positional_arrays`, `picked`), and a compiled plan's device results as tensors
(`device_result`). Kept apart from runtime/concrete.py, which makes the runners."""
from __future__ import annotations

import numpy as np

from .core.device_tensor import DeviceTensor, is_device_array
from .core.opdef import wrap as wrap_array
from .core.tensor import EagerTensor, Tensor
from .trace_keys import NUMERIC_DTYPES, PRIMITIVE_TYPES


def positional_runner(plan, pack, structured_outputs, kinds, note):
    """A function of a call's positional arguments running `plan` on them and giving the
    structured outputs (`pack` of the plan's results): see
    `ConcreteFunction.positional_runner` for `kinds`. Each run first calls `note(False)`
    (the Function's log of recent calls: a call that did not trace), from the closure,
    which is cheaper than the caller's attribute reads."""
    direct = getattr(plan, "one_output", None)
    direct = (direct() if direct is not None and isinstance(structured_outputs, Tensor)
              else None)
    run_plan = getattr(plan, "run_device", plan)
    # one tensor argument (at `at`), the others Python values traced in the graph
    tensor_kinds = [(i, k) for i, k in enumerate(kinds) if k]
    at, kind = tensor_kinds[0] if len(tensor_kinds) == 1 else (0, None)
    if direct is not None and kind in (1, 2, 4):
        # (written out: this is all a call of one tensor in and out costs beyond XLA's)
        jitted, finish = direct
        dtype = structured_outputs.dtype
        np_dtype = dtype.np_dtype
        # The output's dtype is fixed by the input's, which the runner's key fixes: once
        # it has come out as the trace's, it is not read again (a jax array's dtype is a
        # Python property, a tenth of the call's own cost).
        same_dtype = False

        def result_of(result):
            nonlocal same_dtype
            if type(result) is tuple:           # a check in the trace: raised if it failed
                return device_result(finish(result), dtype)
            result.block_until_ready()          # (a failed run raises here, at the call)
            if same_dtype:
                return DeviceTensor(result, dtype)
            same_dtype = result.dtype is np_dtype
            return device_result(result, dtype)

        if kind == 4:
            def run(args):
                note(False)
                result = jitted(args[at].device_array)
                if same_dtype and type(result) is not tuple:
                    return DeviceTensor(result.block_until_ready(), dtype)
                return result_of(result)
        elif kind == 1:
            def run(args):
                note(False)
                result = jitted(args[at]._value)
                if same_dtype and type(result) is not tuple:
                    return DeviceTensor(result.block_until_ready(), dtype)
                return result_of(result)
        else:
            def run(args):
                note(False)
                result = jitted(args[at])
                if same_dtype and type(result) is not tuple:
                    return DeviceTensor(result.block_until_ready(), dtype)
                return result_of(result)
    elif kind == 1:
        def run(args):
            note(False)
            return pack(run_plan(args[at]._value))
    elif kind == 2:
        def run(args):
            note(False)
            return pack(run_plan(args[at]))
    elif kind == 4:
        def run(args):
            note(False)
            return pack(run_plan(args[at].device_array))
    elif all(k == 2 for k in kinds):     # (arrays given as they are: numpy, jax)
        def run(args):
            note(False)
            return pack(run_plan(*args))
    elif all(k == 1 for k in kinds):
        def run(args):
            note(False)
            return pack(run_plan(*[a._value for a in args]))
    else:
        def run(args):
            note(False)
            return pack(run_plan(*picked(args, kinds)))
    return run


def picked(args, kinds) -> list:
    """The input arrays of positional arguments `args` of `kinds` (see
    `ConcreteFunction.positional_runner`)."""
    return [a._value if k == 1 else a if k == 2 else a.device_array if k == 4 else np.array(a)
            for a, k in zip(args, kinds) if k]


def device_result(value, dtype) -> EagerTensor:
    """A result of a plan's `run_device` as a tensor of `dtype`: a DeviceTensor holding the
    device array, or (a numpy array, or a device array of another dtype) a numpy-backed
    EagerTensor."""
    if type(value) is np.ndarray or value.dtype is not dtype.np_dtype:
        return wrap_array(np.asarray(value), dtype)
    return DeviceTensor(value, dtype)


def device_packer(dtype):
    """The function of a plan's `run_device` results giving its one output, a tensor of
    `dtype` (`device_result`). A plan's outputs keep their dtypes from call to call:
    once one has come out a device array of `dtype`, the others are taken as such
    unread (a jax array's dtype is a Python property)."""
    same_dtype = False

    def pack(results):
        nonlocal same_dtype
        value = results[0]
        if same_dtype:
            return DeviceTensor(value, dtype)
        same_dtype = type(value) is not np.ndarray and value.dtype is dtype.np_dtype
        return device_result(value, dtype)
    return pack


def positional_arrays(args, copy: bool, device: bool):
    """The input arrays of a call whose positional arguments are all eager tensors,
    numeric numpy arrays or Python values (each tensor's array, in order; each numpy array
    copied when `copy`, as `array_for` has it; a DeviceTensor's device array when
    `device`: the backend takes device arrays), or None: the arguments need matching to
    the traced structure (`match_argument`)."""
    arrays = []
    for a in args:
        t = type(a)
        if t is EagerTensor:
            arrays.append(a._value)
        elif t is DeviceTensor:
            arrays.append(a.device_array if device else a._value)
        elif t is np.ndarray:
            if a.dtype not in NUMERIC_DTYPES:    # a string array is converted (`to_numpy`)
                return None
            arrays.append(np.array(a) if copy else a)
        elif t in PRIMITIVE_TYPES:
            continue                            # (traced in the graph)
        elif isinstance(a, np.generic) and a.dtype in NUMERIC_DTYPES:   # np.float32(1.0)
            arrays.append(np.array(a) if copy else a)
        elif device and is_device_array(a):
            arrays.append(a)
        else:
            return None
    return arrays
