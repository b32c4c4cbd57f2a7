"""The Hypothesis internals the engine relies on are still where it looks
(``conformance/_hypothesis_compat.py``): a Hypothesis release that moves them fails here, by
name, rather than silently making runs unreproducible."""

from __future__ import annotations

import hypothesis
from eventproof.conformance import _hypothesis_compat as compat
from hypothesis import given, settings
from hypothesis import strategies as st


def test_this_hypothesis_has_every_internal_the_engine_uses() -> None:
    """Both internals are found in the installed Hypothesis."""
    assert compat.INTERNALS_FOUND, (
        f"Hypothesis {hypothesis.__version__} moved an internal that "
        "conformance/_hypothesis_compat.py uses: update the shim")


def test_a_digest_keys_a_derandomized_search() -> None:
    """Two tests with one digest draw the same values; another digest draws others."""

    def drawn(digest: str) -> list[int]:
        seen: list[int] = []

        @settings(derandomize=True, max_examples=20, database=None)
        @given(st.integers())
        def record(value: int) -> None:
            seen.append(value)

        compat.set_digest(record, digest)
        assert compat.digest_of(record) == digest.encode()
        record()
        return seen

    assert drawn("a") == drawn("a")
    assert drawn("a") != drawn("b")


LOCAL_CONSTANT = 987_654_321_123  # a literal of a local module, which Hypothesis may draw


def test_inside_the_block_no_local_constant_is_drawn() -> None:
    """Within isolated_constants the literals of loaded local modules are not mixed in."""
    seen: set[int] = set()

    @settings(derandomize=True, max_examples=300, database=None)
    @given(st.integers())
    def record(value: int) -> None:
        seen.add(value)

    with compat.isolated_constants():
        record()
    assert LOCAL_CONSTANT not in seen
