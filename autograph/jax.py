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
            from autograph.jax_backend import bounded
            converted.append(api.for_staging(
                f, experimental_optional_features=Feature.BUILTIN_FUNCTIONS))
            converted.append(bounded)
        with Staging():
            if kwargs or not _all_concrete(args):
                bounded = converted[1]
                if bounded.linearized(_leaves((args, kwargs))):
                    return bounded.under_reverse_mode(converted[0], *args, **kwargs)
            return converted[0](*args, **kwargs)

    return staged


def _all_concrete(args: tuple) -> bool:
    concrete = _concrete_types()
    for a in args:
        if type(a) not in concrete:
            return False
    return True


def _leaves(tree: Any) -> list:
    import jax
    return jax.tree_util.tree_leaves(tree)


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
    jax.jit). Usable as `@ag.jax.jit` and `@ag.jax.jit(static_argnums=1)`.

    Under a reverse-mode transformation (`jax.grad(ag.jax.jit(f))`), which `jax.jit`
    would hide from the loops of `f` by tracing it afresh, `f`'s loops that have a bound
    lower to scans `jax.grad` differentiates (see autograph/jax_backend/bounded.py)."""
    if f is None:
        return functools.partial(jit, **jit_kwargs)
    return Jitted(f, jit_kwargs)


class Jitted:
    """What `ag.jax.jit` gives: called as `jax.jit` of the converted function is (its
    attributes, `lower`, `trace`, ..., are that function's)."""

    def __init__(self, f: Callable, jit_kwargs: dict):
        import jax
        functools.update_wrapper(self, f)
        self.converted = convert(f)
        self.jit_kwargs = jit_kwargs
        self.jitted = jax.jit(self.converted, **jit_kwargs)
        self.reverse = None
        self.concrete = _concrete_types()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete = self.concrete
        for a in args:
            if type(a) not in concrete:
                return self._traced_call(args, kwargs)
        if kwargs:
            return self._traced_call(args, kwargs)
        return self.jitted(*args)

    def _traced_call(self, args: tuple, kwargs: dict) -> Any:
        from autograph.jax_backend import bounded
        import jax
        if bounded.linearized(_leaves((args, kwargs))):
            if self.reverse is None:
                converted = self.converted

                @functools.wraps(converted)
                def reverse(*args: Any, **kwargs: Any) -> Any:
                    return bounded.under_reverse_mode(converted, *args, **kwargs)
                self.reverse = jax.jit(reverse, **self.jit_kwargs)
            return self.reverse(*args, **kwargs)
        return self.jitted(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["jitted"], name)


@functools.cache
def _concrete_types() -> frozenset:
    """The types of arguments no transformation traces: a call with only these goes
    straight to the jitted function."""
    import jax.numpy as jnp
    import numpy as np
    return frozenset({bool, int, float, complex, np.ndarray, type(jnp.zeros(()))})
