"""AutoGraph for JAX: plain Python `if`/`while`/`for` on traced arrays, staged into `lax`.

    import autograph as ag

    @ag.jax.jit
    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

`ag.jax.convert(f)` is `f` with its control flow (and that of the functions it calls)
converted: on concrete values it behaves as `f`; under `jax.jit`, `grad`, `vmap` (any
transformation) a condition or bound that is a traced value stages `lax.cond` /
`lax.while_loop`; Python values stay Python (`for k in range(3)` unrolls).
`ag.jax.jit(f, **kw)` is `jax.jit(ag.jax.convert(f), **kw)`. jax is imported when first
used, not with autograph.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from autograph.operators.python_path import Staging

__all__ = ["checkify", "convert", "jit"]


@functools.cache
def _install() -> None:
    """jax's own functions are called as they are (never converted)."""
    from autograph.operators import calls
    for package in ("jax", "jaxlib", "ml_dtypes", "opt_einsum"):
        calls.register_library(package)


def convert(f: Callable) -> Callable:
    """`f` with its Python control flow staged into `lax` wherever a condition, a loop's
    test or a `for`'s iterable is a JAX tracer; the functions it calls are converted too.

    Args:
      f: a function, method or callable object.

    Returns:
      A function with f's signature, usable under `jax.jit`, `jax.grad`, `jax.vmap`,
      `lax.scan` bodies, and as it is on concrete values.
    """
    converted: list = []

    @functools.wraps(f)
    def staged(*args: Any, **kwargs: Any) -> Any:
        if not converted:
            _install()
            from autograph import api
            from autograph.experimental import Feature
            converted.append(api.for_staging(
                f, experimental_optional_features=Feature.BUILTIN_FUNCTIONS))
        with Staging():
            return converted[0](*args, **kwargs)

    return staged


def checkify(f: Callable, errors: Any = None) -> Callable:
    """`jax.experimental.checkify.checkify` of `convert(f)`, its `assert`s on traced
    values staged as checkify checks: the function returns `(error, result)`, and
    `error.throw()` raises the first failed assertion's message (the user's file and
    line in it). Without it, a failed `assert` on a traced value fails the computation
    when it runs (a callback raising AssertionError).

    Args:
      f: a function, as for `convert`.
      errors: checkify's error set (default `checkify.user_checks`: the asserts).
    """
    from jax.experimental import checkify as checks
    from autograph.jax_backend import backend
    converted = convert(f)

    @functools.wraps(f)
    def checked(*args: Any, **kwargs: Any) -> Any:
        return backend.with_functional_checks(converted, *args, **kwargs)
    return checks.checkify(checked, errors=checks.user_checks if errors is None else errors)


def jit(f: Callable = None, **jit_kwargs: Any) -> Any:
    """`jax.jit(convert(f), **jit_kwargs)` (static_argnums, donate_argnums, ... as for
    jax.jit). Usable as `@ag.jax.jit` and `@ag.jax.jit(static_argnums=1)`."""
    import jax
    if f is None:
        return functools.partial(jit, **jit_kwargs)
    return jax.jit(convert(f), **jit_kwargs)
