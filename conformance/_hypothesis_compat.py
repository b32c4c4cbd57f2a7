"""Everything the engine does with Hypothesis beyond its public API, in one place.

Two internals are used, each for reproducibility, never for correctness:

- the digest Hypothesis keys a test's example database and its derandomized seed by
  (``_hypothesis_internal_add_digest`` on the inner test): every search of the engine runs one
  test function, so the digest names the operation, the family and the rules set aside;
- the pool of *local constants* Hypothesis mixes into its draws (the literals of every module
  outside site-packages it finds loaded): emptied while a search runs, so that a derandomized run
  draws the same inputs however eventproof was installed.

:data:`INTERNALS_FOUND` says whether this Hypothesis still has both; ``tests/unit/
test_hypothesis_compat.py`` fails loudly when a release moves them (runs would then still be
correct, but no longer reproducible across installs, or keyed apart).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["INTERNALS_FOUND", "digest_of", "isolated_constants", "set_digest"]


def _constants_internals() -> tuple[Any, Any, Any] | None:
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants

        providers._get_local_constants  # noqa: B018 - present, or this Hypothesis moved it
        return providers, providers.CONSTANTS_CACHE.cache, Constants
    except (ImportError, AttributeError):  # pragma: no cover - another Hypothesis layout
        return None


def _digest_internal() -> bool:
    from hypothesis import given, strategies

    @given(strategies.none())
    def probe(_: None) -> None:
        pass

    return hasattr(probe, "hypothesis") and hasattr(probe.hypothesis, "inner_test")


#: Whether this Hypothesis has both internals the engine uses.
INTERNALS_FOUND = _constants_internals() is not None and _digest_internal()


def set_digest(test: Any, digest: str) -> None:
    """Key a ``@given`` test's example database and derandomized seed by ``digest``."""
    test.hypothesis.inner_test._hypothesis_internal_add_digest = digest.encode()


def digest_of(test: Any) -> bytes:
    """The digest :func:`set_digest` gave ``test``."""
    digest: bytes = test.hypothesis.inner_test._hypothesis_internal_add_digest
    return digest


@contextmanager
def isolated_constants() -> Iterator[None]:
    """Keep Hypothesis from drawing constants out of the modules loaded in this process.

    Hypothesis mixes into its draws the literals of every *local* module it finds in
    ``sys.modules`` (code outside site-packages). Which modules those are depends on how
    eventproof was installed (an editable install is local, a wheel is not), on the
    implementation under test, and on what else the process imported; so the same derandomized
    run would try other inputs in other installs. Inside this block that pool is empty: a run
    depends only on its seed, the strategies and the Hypothesis version. Should a Hypothesis
    release move this internal, the block does nothing and the run is merely less reproducible.
    """
    found = _constants_internals()
    if found is None:  # pragma: no cover - another Hypothesis layout
        yield
        return
    providers, cache, constants = found
    original = providers._get_local_constants
    empty = constants()
    providers._get_local_constants = lambda: empty
    cache.clear()  # cached choices may hold constants from earlier draws
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()
