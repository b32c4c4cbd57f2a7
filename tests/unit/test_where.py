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


def _source_at(place_where: str) -> tuple[list[str], int]:
    file, _, line = place_where.partition(":")
    return (ROOT / file).read_text("utf-8").splitlines(), int(line)


def _block(lines: list[str], start: int) -> str:
    """The definition starting at line ``start`` (1-based), up to the next one at its indent."""
    first = lines[start - 1]
    indent = len(first) - len(first.lstrip())
    end = start
    while end < len(lines) and (not lines[end].strip()
                                or len(lines[end]) - len(lines[end].lstrip()) > indent
                                or lines[end].lstrip().startswith((")", "]"))):
        end += 1
    return "\n".join(lines[start - 1:end])


@pytest.mark.parametrize("rule", [pytest.param(rule, id=rule.id) for rule in RULES])
def test_each_pointer_opens_on_the_rule(rule: object) -> None:
    """Each pointer opens on the rule itself: the reference function cites the rule's section
    (or its parent's), the check is marked with the rule id, each vector line holds its id, and
    each miniature's class is declared for the rule."""
    from eventproof.conformance._where import _cites, miniatures_of

    rule_id, section = rule.id, rule.section  # type: ignore[attr-defined]
    file, _, number = section.partition("#")
    for place in places_of(rule_id):
        if place.kind == "reference":
            lines, line = _source_at(place.where)
            assert lines[line - 1].lstrip().startswith("def "), place
            source = _block(lines, line)
            parents = [number.rsplit(".", depth)[0] for depth in range(number.count(".") + 1)]
            own = "wire.md" if "_wire" in place.where or "_backstop" in place.where else file
            assert any(_cites(source, own, file, each) or _cites(source, file, file, each)
                       for each in parents) or place.what.startswith("reference_"), place
        elif place.kind == "check" and place.where.endswith(tuple("0123456789")):
            lines, line = _source_at(place.where)
            # Marked with the rule (``@judges``) above, or naming it in its docstring.
            assert rule_id in "\n".join(lines[max(0, line - 4):line]) + _block(lines, line), place
        elif place.kind == "vectors":
            lines, line = _source_at(place.where)
            assert f'"id": "{rule_id}/{place.what}"' in lines[line - 1], place
        elif place.kind == "miniatures":
            lines, line = _source_at(place.where)
            assert lines[line - 1].lstrip().startswith(f"class {place.what}"), place
            assert place.what in {item["class"] for item in miniatures_of(rule_id)}


def test_the_reference_pointer_is_not_a_dispatcher() -> None:
    """A rule of an operation answered through ``Reference.run`` points at the function that
    computes it, and the bound's rules at the backstop, not the projection that calls it."""
    for rule_id in ("details.fair-share", "roster.prefix", "bound.fits"):
        where = next(place for place in places_of(rule_id) if place.kind == "reference")
        assert "Reference.run" not in where.what, where
        assert where.what != "project_event", where


def test_the_shipped_index_of_miniatures_is_in_step_with_the_tests() -> None:
    """``eventproof rules --where`` names the wrong implementations from an index shipped with
    the package (an installed kit has no tests to import): the index lists exactly the classes
    each module's ``MINIATURES`` table declares, where they are defined now."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, str(ROOT / "tools" / "where_index.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_where_works_without_a_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a directory that is no checkout, with no tests on the import path, every rule still
    names its miniatures (and imports nothing from tests/)."""
    import sys

    monkeypatch.chdir(tmp_path)
    before = set(sys.modules)
    text = describe("bound.converges")
    assert "SliceMinusZeroLoop" in text
    assert not any(name.startswith("miniatures") for name in set(sys.modules) - before)
