"""A derandomized run asks the recorded inputs: a change to the strategies that changes which
inputs an implementation is sent fails here.

Speed-ups of the strategies must leave every input as it was, so that every verdict, counterexample
and catch rate stays what it was. ``tools/bench/generation-digests.json`` records, for every
family of every operation, the inputs of three searches run the way the engine runs one (see
tools/bench/generation.py); this test repeats the short one. The long ones (300 inputs per
family, and a search that fails and shrinks) are checked by::

    python tools/bench/generation.py check

When a change of inputs is intended, regenerate the record with::

    python tools/bench/generation.py digest --out tools/bench/generation-digests.json
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import hypothesis
import pytest
from eventproof.conformance.selection.strategies import events as selection_events
from eventproof.conformance.wire.strategies.events import _clipped_id
from eventproof.reference import ID_CLIP_CODE_POINTS, well_formed
from hypothesis import given
from hypothesis import strategies as st

BENCHMARK = Path(__file__).resolve().parents[2] / "tools" / "bench" / "generation.py"
REGENERATE = ("python tools/bench/generation.py digest --out "
              "tools/bench/generation-digests.json")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eventproof_generation_benchmark", BENCHMARK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


generation = _load()
RECORD: dict[str, Any] = json.loads(generation.DIGESTS.read_text())
OPS = sorted({name.split("[")[0] for name, _, _ in generation.variants()})
same_hypothesis = pytest.mark.skipif(
    hypothesis.__version__ != RECORD["meta"]["hypothesis"],
    reason=(f"the record was made with Hypothesis {RECORD['meta']['hypothesis']}, this is "
            f"{hypothesis.__version__}: another version draws other inputs; regenerate it with "
            f"{REGENERATE}"))


def _recorded(op: str, kind: str) -> dict[str, Any]:
    return {key: value for key, value in RECORD["families"].items()
            if key.split("/")[0].split("[")[0] == op and key.endswith(f"/{kind}")}


def test_the_record_covers_every_family() -> None:
    """Every family of every operation (and ``project`` with a fixed bound) has all three
    searches recorded."""
    expected = {f"{name}/{family.name}/{kind}"
                for name, op, capabilities in generation.variants()
                for family in op.families(capabilities) for kind in generation.SEARCHES}
    assert set(RECORD["families"]) == expected, f"out of step with the families: {REGENERATE}"


@same_hypothesis
@pytest.mark.parametrize("op", OPS)
def test_a_short_search_asks_the_recorded_inputs(op: str) -> None:
    current = generation.digests(RECORD["meta"]["examples"], {op}, ("quick",))
    problems = generation.compare(_recorded(op, "quick"), current)
    assert not problems, (
        "the strategies now generate other inputs than recorded:\n" + "\n".join(problems)
        + f"\nIf that is intended, regenerate the record: {REGENERATE}")


@same_hypothesis
def test_a_changed_mapping_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same choices mapped to other values (the envelope extras in another order) give other
    digests: the check compares values, not only how many choices were made."""
    extras = selection_events._ENVELOPE_EXTRAS
    # Patched where the events are drawn (the profile's strategies package is split by domain).
    monkeypatch.setattr(selection_events, "_ENVELOPE_EXTRA_DRAWS",
                        st.sampled_from(tuple(reversed(extras))))
    current = generation.digests(RECORD["meta"]["examples"], {"select"}, ("quick",))
    assert generation.compare(_recorded("select", "quick"), current)


_PIECES = st.lists(st.sampled_from(("a", "\ud83d", "\ude00", "\U0001f600", "\udc00", "é")),
                  min_size=1, max_size=4).map("".join)


@given(st.builds(lambda unit, count, tail: unit * count + tail, _PIECES,
                 st.integers(0, 2 * ID_CLIP_CODE_POINTS), _PIECES))
def test_clipping_reads_the_head_of_an_id_only(value: str) -> None:
    """Well-forming the first 2N code points of an id gives the same first N code points as
    well-forming all of it (a pair at the cut changes only a later one)."""
    assert _clipped_id(value) == well_formed(value)[:ID_CLIP_CODE_POINTS]
