"""The engine's search is a function of its seed, its strategies and the Hypothesis version."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._adapters import InProcessAdapter, Ok
from eventproof.conformance._engine import EFFORTS, _key, split_examples
from eventproof.conformance._model import Family
from eventproof.reference import Reference
from hypothesis import given
from hypothesis import strategies as st
from miniatures.selection import LastMessageUnfiltered

#: A module outside site-packages, full of literals Hypothesis would otherwise draw from.
LOCAL_MODULE = "\n".join(
    [f"S{i} = {('tool_execution_update' + 'x' * i)!r}" for i in range(40)]
    + [f"I{i} = {3215 + 7 * i}" for i in range(40)]
    + [f"F{i} = {i + 0.5}" for i in range(40)]
)


class Recording(Reference):
    """The reference, noting every input it is asked about."""

    def __init__(self, seen: list[str]) -> None:
        super().__init__("halving")
        self.seen = seen

    def run(self, op: str, op_input: Any) -> Any:
        self.seen.append(json.dumps(op_input, sort_keys=True))
        return super().run(op, op_input)


def _inputs_tried() -> list[str]:
    seen: list[str] = []
    check_implementation(lambda: Recording(seen), ops=("classify", "project"), max_examples=40)
    return seen


def test_loaded_local_modules_do_not_change_the_search(tmp_path: Path) -> None:
    """Loading a local module full of literals (as an editable install, the implementation
    under test or the caller's own code does) leaves a deterministic run's inputs unchanged."""
    before = _inputs_tried()
    path = tmp_path / "lots_of_literals.py"
    path.write_text(LOCAL_MODULE)
    spec = importlib.util.spec_from_file_location("lots_of_literals", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["lots_of_literals"] = module
    try:
        spec.loader.exec_module(module)
        after = _inputs_tried()
    finally:
        del sys.modules["lots_of_literals"]
    assert len(before) > 40
    assert after == before


def test_budget_is_shared_by_weight() -> None:
    """Each family gets its weight's share of the examples, at least one, all of them used."""
    families = tuple(Family(name, weight, None) for name, weight in
                     (("a", 2), ("b", 1), ("c", 3), ("d", 1)))
    assert split_examples(200, families) == [57, 29, 86, 28]
    assert sum(split_examples(61, families)) == 61
    assert split_examples(2, families) == [1, 1, 1, 1]  # every family is tried at least once


def test_fixed_shares_are_counted_within_the_budget() -> None:
    """Built families take their fixed shares out of the budget; the drawn ones share the rest
    by weight, and keep at least two thirds of the budget and a quick search's examples."""
    families = (Family("a", 2, None), Family("built", 1, None, examples=40),
                Family("b", 1, None), Family("c", 3, None), Family("d", 1, None))
    assert split_examples(200, families) == [46, 40, 23, 68, 23]
    assert sum(split_examples(200, families)) == 200
    # The quick budget: the built ones come on top of what the drawn ones keep.
    assert split_examples(60, families) == [17, 40, 9, 26, 8]
    # Fixed shares past a third of the budget: the drawn families keep two thirds of it.
    big = (*families, Family("built-big", 1, None, examples=180))
    assert split_examples(200, big) == [38, 40, 19, 57, 19, 180]


def _drawn_share(total: int, fixed: int) -> int:
    """What the weighted families share (the rule of ``split_examples``)."""
    return max(total - fixed, min(total, max(total * 2 // 3, EFFORTS["quick"])))


@given(st.integers(1, 3000), st.lists(st.tuples(st.integers(1, 5), st.one_of(
    st.none(), st.integers(1, 40))), min_size=1, max_size=12))
def test_a_fixed_share_comes_out_of_the_budget_and_the_rest_is_shared_by_weight(
        total: int, specs: list[tuple[int, int | None]]) -> None:
    """A family with a fixed share (``examples``) gets exactly it, counted within the budget
    where the budget allows: the weighted families share what is left, as if they were alone,
    but never less than two thirds of the budget nor less than a quick search's examples (or the
    whole budget, when smaller); every family is tried."""
    families = tuple(Family(f"f{i}", weight, None, examples=examples)
                     for i, (weight, examples) in enumerate(specs))
    shares = split_examples(total, families)
    weighted = tuple(family for family in families if family.examples is None)
    fixed = sum(family.examples for family in families if family.examples is not None)
    assert all(share >= 1 for share in shares)
    assert [share for family, share in zip(families, shares, strict=True)
            if family.examples is not None] == [family.examples for family in families
                                                if family.examples is not None]
    drawn_total = _drawn_share(total, fixed)
    assert drawn_total >= min(total, EFFORTS["quick"])
    assert drawn_total >= total * 2 // 3
    if fixed <= total - max(total * 2 // 3, EFFORTS["quick"]):
        assert drawn_total + fixed == total  # the fixed shares come out of the budget
    if weighted:
        drawn = [share for family, share in zip(families, shares, strict=True)
                 if family.examples is None]
        assert drawn == split_examples(drawn_total, weighted)
        assert sum(drawn) == max(drawn_total, len(weighted))


def test_each_family_is_searched() -> None:
    """A deterministic run asks about inputs of every project family, in proportion."""
    seen: list[str] = []
    check_implementation(lambda: Recording(seen), ops=("project",), max_examples=60)
    kinds = {json.loads(text)["event"]["type"] for text in seen}
    assert {"tool_execution_update", "message_update", "turn_end", "agent_end"} <= kinds
    assert len(seen) >= 60


def test_answers_are_cached_per_exact_input() -> None:
    """Inputs that differ only in member order or in 30 versus 30.0 are different inputs (the
    canonical line differs), so a cached answer to one is never reported for the other."""
    assert _key({"a": 1, "b": 2}) != _key({"b": 2, "a": 1})
    assert _key({"n": 30}) != _key({"n": 30.0})
    assert _key({"a": [1, {"x": None}]}) == _key({"a": [1, {"x": None}]})


def test_a_violation_met_before_the_implementation_is_lost_still_stands(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A search meets a violation, and then, while it shrinks, no further request can be
    judged (the implementation was given up on, by this search or by another worker's): the
    violation met stands as found, with its counterexample, rather than the search ending as
    if it had found nothing; and every rule not found says why it was not checked, whichever
    adapter ran the implementation."""
    reference = Reference()

    def run(self: InProcessAdapter, op: str, input: Any, *, timeout: float | None = None) -> Any:
        response = original(self, op, input, timeout=timeout)
        if not (isinstance(response, Ok) and response.output == reference.run(op, input)):
            self._unavailable = "the implementation could not be restarted (a test's fault)"
        return response

    original = InProcessAdapter.run
    monkeypatch.setattr(InProcessAdapter, "run", run)
    report = check_implementation(LastMessageUnfiltered, ops=("select",), effort="quick")
    broken = {result.rule.id: result for result in report.results if result.counterexample}
    assert "select.never-empty" in broken, [(r.rule.id, r.outcome) for r in report.results]
    # Every other rule says why it was not checked: none is judged on the requests before.
    for result in report.results:
        if result.rule.id not in broken:
            assert result.outcome == "error", result
            assert result.note == "not checked: the implementation could not be restarted " \
                "(a test's fault)"
    assert not report.conforms
