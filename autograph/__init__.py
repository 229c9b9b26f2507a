"""AutoGraph, small: plain Python control flow over tensors, converted to staged operators.

    import autograph as ag
    g = ag.to_graph(f)       # same results as f on Python values; stages on tensors
    print(ag.to_code(f))     # the converted source
"""
from autograph import experimental, operators
from autograph.errors import StagingError
from autograph.operators.calls import do_not_convert
from autograph.operators.lists import set_element_type, stack

__all__ = ["to_graph", "for_staging", "to_code", "do_not_convert", "set_verbosity", "operators",
           "StagingError", "experimental", "set_element_type", "stack"]

# The converter (gast, the analyses, every converter, logging) is imported when first
# used, so that converted code, which needs only the operators, imports light.
_CONVERTER = frozenset({"to_graph", "for_staging", "to_code", "set_verbosity"})


def _load_converter(fn, **options):
    """Converts `fn` through `autograph.api`, loading it (which then installs its own
    `convert_function` in the operators in place of this)."""
    from autograph import api
    return api.convert_function(fn, **options)


operators.calls.set_converter(_load_converter)


def __getattr__(name: str):
    if name == "jax":       # (autograph/jax.py imports jax when first used)
        import importlib
        return importlib.import_module("autograph.jax")
    if name not in _CONVERTER:
        raise AttributeError(f"module 'autograph' has no attribute {name!r}")
    from autograph import api
    value = getattr(api, name)
    globals()[name] = value
    return value


def __dir__():
    """The public names (the converter's among them, though imported when first used)."""
    return sorted(__all__ + ["errors", "jax"])
