"""Peak memory while one 64 MiB update is bounded (docs/benchmark.md): tracemalloc, not time.

The update is built before tracing starts, so the peak is what the projection itself holds at
once: never the oversized line (it is provably over the bound and not written), never a copy
of the whole text, only tails and their measurements. The target is 2.5 times the text's UTF-8
size for both fit strategies; ``orjson.dumps`` of the same update is measured beside it, since
the line an unbounded writer holds is the cost this avoids.
"""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.reference import DEFAULT_MAX_BYTES, project_event
from paired import peak_memory
from workloads import live_update

orjson = pytest.importorskip("orjson")

MiB = 1024 * 1024
SIZE = 64 * MiB
#: Peak allocation over the text's UTF-8 size that both fits stay within.
TARGET = 2.5


@pytest.mark.parametrize("fit", ["halving", "maximal"])
@pytest.mark.parametrize("kind", ["ascii", "cjk", "emoji", "control"])
def test_bounding_a_64_mib_update_stays_within_its_size(kind: str, fit: str) -> None:
    """Projecting one 64 MiB update allocates at most 2.5x its UTF-8 size at the peak."""

    def build() -> dict[str, Any]:
        return live_update(kind, SIZE)

    text_bytes = len(build()["partialResult"]["content"][0]["text"].encode("utf-8"))
    peak, line = peak_memory(build, lambda update: project_event(
        update, include_live_events=True, fit_strategy=fit))
    assert line is not None
    assert len(line) <= DEFAULT_MAX_BYTES
    assert peak <= TARGET * text_bytes, f"{peak / text_bytes:.2f}x the text's UTF-8 size"
