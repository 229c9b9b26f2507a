"""Arguments fitted to an `input_signature`: one rule for every way of calling.

Each argument is matched to its part of the signature, then each leaf to its
`TensorSpec`: a tensor must have its dtype (never cast), a Python value or numpy array is
converted to it without losing values; shapes must be compatible. A call that does not
fit raises one ValueError (`DoesNotFit`) listing each argument that does not, as
`argument 'x': expected float32[?,3], got int32[1,3]` (docs/architecture.md, "Arguments
fitted to an input_signature").
"""
from __future__ import annotations

from .core.opdef import to_numpy
from .core.shapes import TensorShape, TensorSpec
from .core.tensor import Tensor
from .ops.core import convert_to_tensor
from .ops.state_ops import Variable


class DoesNotFit(ValueError):
    """The arguments do not fit the signature: `problems`, one line per argument."""

    def __init__(self, problems: list):
        super().__init__("the arguments do not fit the input_signature:\n  "
                         + "\n  ".join(problems))
        self.problems = problems


def describe(dtype, shape) -> str:
    """`float32[?,3]`: a dtype and a shape as the messages write them."""
    shape = TensorShape(shape)
    if shape.rank is None:
        return f"{dtype.name}[...]"
    return f"{dtype.name}[{','.join('?' if d is None else str(d) for d in shape.as_list())}]"


def fit(names: list, args: list, signature) -> tuple:
    """(specs, values): `args` (the positional arguments, named `names`) as the
    signature's specs and as tensors, each nested as the signature is. ValueError when
    they do not fit."""
    problems: list = []
    specs, values = [], []
    if len(args) != len(signature):
        problems.append(f"expected {len(signature)} argument(s) (the input_signature's), "
                        f"got {len(args)}")
    if names and len(names) < len(args):     # a *args parameter: one name, several values
        names = list(names) + [f"{names[-1]}[{i}]" for i in range(1, len(args) - len(names) + 1)]
    for name, arg, part in zip(names, args, signature):
        s, v = _match(part, arg, f"argument '{name}'", problems)
        specs.append(s)
        values.append(v)
    if problems:
        raise DoesNotFit(problems)
    return specs, values


def _match(part, value, where: str, problems: list) -> tuple:
    if isinstance(part, TensorSpec):
        return part, _leaf(part, value, where, problems)
    if hasattr(type(part), "_rt_components") and hasattr(part, "is_compatible_with"):
        # a composite's spec (rt.SparseTensorSpec): the value must be one that fits it
        if not ((type(value) is type(part) and value == part) or part.is_compatible_with(value)):
            problems.append(f"{where}: expected {part!r}, got {_kind(value)}")
        return part, value
    if isinstance(part, dict):
        if not isinstance(value, dict) or set(value) != set(part):
            problems.append(f"{where}: expected a dict with keys {sorted(part)!r}, "
                            f"got {_kind(value)}")
            return part, value
        pairs = {k: _match(part[k], value[k], f"{where}[{k!r}]", problems) for k in part}
        return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
    if isinstance(part, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(part):
            problems.append(f"{where}: expected a sequence of {len(part)} item(s), "
                            f"got {_kind(value)}")
            return part, value
        pairs = [_match(p, v, f"{where}[{i}]", problems)
                 for i, (p, v) in enumerate(zip(part, value))]
        return type(part)(p[0] for p in pairs), type(part)(p[1] for p in pairs)
    problems.append(f"{where}: the input_signature holds {part!r}, not a TensorSpec")
    return part, value


def _kind(value) -> str:
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} item(s)"
    if isinstance(value, dict):
        return f"a dict with keys {sorted(value, key=repr)!r}"
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        dims = ",".join(str(d) for d in value.shape)
        return f"a {type(value).__name__} of {value.dtype}[{dims}]"
    return type(value).__name__


def _leaf(spec: TensorSpec, value, where: str, problems: list):
    expected = describe(spec.dtype, spec.shape)
    if isinstance(value, TensorSpec):
        if value.dtype is not spec.dtype or not spec.shape.is_compatible_with(value.shape):
            problems.append(f"{where}: expected {expected}, got the spec "
                            f"{describe(value.dtype, value.shape)}")
        return value
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, Tensor):
        if value.dtype is not spec.dtype or not spec.shape.is_compatible_with(value.shape):
            problems.append(f"{where}: expected {expected}, got {describe(value.dtype, value.shape)}"
                            + (" (a tensor is not cast: use rt.cast)"
                               if value.dtype is not spec.dtype else ""))
        return value
    try:
        array = to_numpy(value, spec.dtype)   # the rule concrete functions feed by
    except (TypeError, ValueError) as e:
        problems.append(f"{where}: expected {expected}, got {_kind(value)}: {e}")
        return value
    if not spec.shape.is_compatible_with(TensorShape(array.shape)):
        problems.append(f"{where}: expected {expected}, got {_kind(value)} of shape "
                        f"{list(array.shape)}")
        return value
    return convert_to_tensor(array)
