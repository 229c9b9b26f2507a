"""The hint added to an error that a dimension unknown while tracing caused: `x.shape[0]`
is None while tracing a function whose argument has shape (None,) (as in TensorFlow;
`x.shape[0] is None` is how code asks), and used as a number it raises a TypeError about
None that does not say why."""
from __future__ import annotations

_UNKNOWN_DIMENSION = "While tracing, a dimension unknown until the graph runs"


def add_hint(error: BaseException, graph) -> None:
    """A TypeError about None (`None * 2`, `range(None)`, `int(None)`) raised while
    tracing `graph`, whose tensors have dimensions unknown until it runs: most often
    `x.shape[0]`, None while tracing, used as a number. Says so in the error's message
    (in place; its type and traceback stay), naming such a tensor and what to write."""
    if (type(error) is not TypeError or len(error.args) != 1 or "NoneType" not in str(error)
            or _UNKNOWN_DIMENSION in str(error)):     # (said by an inner trace already)
        return
    unknown = next((t for t in graph.inputs if not t.shape.is_fully_defined()), None)
    if unknown is None:
        unknown = next((t for op in graph.operations for t in op.outputs
                        if not t.shape.is_fully_defined()), None)
    if unknown is None:
        return
    shape = unknown.shape
    named = any(unknown is t for t in graph.inputs)      # an argument's placeholder
    x = unknown.op.name if named else "x"
    what = x if named else f"x = {unknown!r}"
    if shape.rank is None:
        example, advice = f"{what} has an unknown rank", f"rt.shape({x})[i]"
    else:
        i = shape.as_list().index(None)
        example = f"{what} has shape {shape}, so {x}.shape[{i}] is None"
        advice = f"rt.shape({x})[{i}]"
    error.args = (f"{error.args[0]}. {_UNKNOWN_DIMENSION} is None in a static shape "
                  f"({example}): use {advice} instead, a tensor with the dimension's "
                  f"value when the graph runs (or give the function an input_signature "
                  f"that fixes that dimension)",)
