"""Every rule id resolves, in one step, to each place it lives (``eventproof rules --where``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from eventproof.conformance._operations import RULES
from eventproof.conformance._where import describe, places_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rule", [pytest.param(rule, id=rule.id) for rule in RULES])
def test_rule_resolves_to_every_place(rule: object) -> None:
    """Spec line, schema, reference function, check, families, vectors and miniatures exist."""
    rule_id = rule.id  # type: ignore[attr-defined]
    places = places_of(rule_id)
    kinds = {place.kind for place in places}
    assert kinds == {"spec", "schema", "reference", "check", "families", "vectors",
                     "miniatures"}, kinds
    for place in places:
        assert not place.where.startswith("(none)"), (rule_id, place)
        file, _, line = place.where.partition(":")
        if file.endswith((".py", ".md", ".json")):
            assert (ROOT / file).is_file(), (rule_id, place)
        if line:
            text = (ROOT / file).read_text("utf-8").splitlines()
            assert 0 < int(line) <= len(text), (rule_id, place)
    spec = next(place for place in places if place.kind == "spec")
    file, _, line = spec.where.partition(":")
    assert f"`{rule_id}`" in (ROOT / file).read_text("utf-8").splitlines()[int(line) - 1]


def test_describe_names_the_rule_and_its_places() -> None:
    """The printed form leads with the rule and gives one line per place."""
    text = describe("bound.tail")
    assert text.splitlines()[0].startswith("bound.tail (MUST, wire profile, operation project)")
    assert re.search(r"check +conformance/wire/checks/bound\.py:\d+ +check_tail", text)
    assert re.search(r"miniatures +tests/miniatures/wire\.py:\d+", text)
