"""Joining the slices of a sharded run (``eventproof report --merge``): a merge is the whole run
or nothing, and its verdict is the one the run's results give (``_shard.merge_documents``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._errors import HarnessError
from eventproof.conformance._model import FAILING, Capabilities
from eventproof.conformance._operations import OPS, RULES
from eventproof.conformance._reports import report_document
from eventproof.conformance._results import (
    OUTCOMES,
    Counterexample,
    Coverage,
    Invocation,
    RuleResult,
    RunReport,
    verdict_of_document,
)
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance._shard import RUN_KEYS, merge_documents, split_ops
from eventproof.conformance.cli import entry
from hypothesis import given
from hypothesis import strategies as st


def _report(outcomes: dict[str, str], ops: tuple[str, ...], shard: tuple[int, int] | None,
            declared: frozenset[str] = frozenset(OPS), seed: int | None = None) -> RunReport:
    """A report of the rules of ``ops`` with the given outcomes (pass where none is given)."""
    results = [RuleResult(rule, outcomes.get(rule.id, "pass"),  # type: ignore[arg-type]
                          coverage=Coverage(judged=0 if outcomes.get(rule.id) in
                                            ("untested", "skip") else 5),
                          counterexample=Counterexample(rule.op, {}, 1, 2, "differs", seed)
                          if outcomes.get(rule.id) in FAILING - {"xpass"} else None)
               for rule in RULES if rule.op in ops]
    return RunReport(
        implementation={"name": "sliced", "version": "1", "language": "js"},
        capabilities=Capabilities(ops=declared), results=results, effort="quick", seed=seed,
        deterministic=seed is None, allow_untested=False,
        invocation=Invocation(impl="node port.mjs", effort="quick", seed=seed,
                              deterministic=seed is None, shard=shard))


def _slices(count: int, outcomes: dict[str, str], seed: int | None = None
            ) -> list[dict[str, Any]]:
    groups = split_ops(OPS, count)
    return [report_document(_report(outcomes, group, (k, count), seed=seed))
            for k, group in enumerate(groups, start=1)]


_outcomes = st.dictionaries(st.sampled_from([rule.id for rule in RULES]),
                            st.sampled_from([o for o in OUTCOMES if o != "xpass"]), max_size=6)


@given(count=st.integers(1, 9), outcomes=_outcomes, data=st.data())
def test_a_merge_of_every_slice_gives_the_whole_runs_verdict(
        count: int, outcomes: dict[str, str], data: st.DataObject) -> None:
    """Every slice, in any order, merges into a valid report whose verdict is the whole run's."""
    slices = data.draw(st.permutations(_slices(count, outcomes)))
    merged = merge_documents(slices, [f"s{i}.json" for i in range(len(slices))])
    whole = report_document(_report(outcomes, OPS, None))
    assert schema_issues(merged, "report.json") == []
    assert merged["verdict"] == whole["verdict"]
    assert merged["verdict"] == verdict_of_document(merged).document()
    assert merged["conforms"] is whole["verdict"]["conforms"]
    assert [r["id"] for r in merged["results"]] == [r["id"] for r in whole["results"]]


@given(count=st.integers(2, 9), outcomes=_outcomes, data=st.data())
def test_a_missing_or_repeated_slice_is_refused(
        count: int, outcomes: dict[str, str], data: st.DataObject) -> None:
    """Any set of slices other than each exactly once is refused, naming the slice."""
    slices = _slices(count, outcomes)
    chosen = data.draw(st.lists(st.integers(0, len(slices) - 1), min_size=1,
                                max_size=len(slices) + 2))
    if sorted(chosen) == list(range(len(slices))):
        chosen = chosen[:-1]
    picked = [slices[i] for i in chosen]
    with pytest.raises(HarnessError, match=r"missing|given twice") as caught:
        merge_documents(picked, [f"s{i + 1}.json" for i in chosen])
    assert f"/{count}" in str(caught.value)


@given(key=st.sampled_from(RUN_KEYS), count=st.integers(2, 4))
def test_slices_of_different_runs_are_refused(key: str, count: int) -> None:
    """A slice whose run differs in any member that identifies the run is refused, naming it."""
    slices = _slices(count, {})
    other = copy.deepcopy(slices[-1])
    value = other["run"][key]
    other["run"][key] = ("x" + value if isinstance(value, str)
                         else [] if isinstance(value, list)
                         else (not value) if isinstance(value, bool)
                         else 7 if value is None else value + 1)
    with pytest.raises(HarnessError, match=rf"run\.{key} "):
        merge_documents([*slices[:-1], other], [f"s{i}.json" for i in range(count)])


def test_a_whole_run_is_no_slice() -> None:
    """The report of an unsliced run cannot be merged (it is the whole run already)."""
    whole = report_document(_report({}, OPS, None))
    with pytest.raises(HarnessError, match="not a slice"):
        merge_documents([whole], ["whole.json"])


def test_the_merge_command_writes_every_report_and_exits_with_the_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`report --merge` writes the merged JSON, JUnit and Markdown, and exits with the merged
    verdict's code; a partial set exits 2 and writes nothing."""
    broken = next(rule.id for rule in RULES if rule.level == "MUST")
    paths = []
    for index, document in enumerate(_slices(3, {broken: "fail"}), start=1):
        path = tmp_path / f"s{index}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        paths.append(str(path))
    out = tmp_path / "merged.json"
    with pytest.raises(SystemExit) as stop:
        entry(["report", "--merge", str(out), *paths[:2]])
    assert stop.value.code == 2
    assert not out.exists()
    assert "missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        entry(["report", "--merge", str(out), *paths, "--junit", str(tmp_path / "m.xml"),
               "--markdown", str(tmp_path / "m.md")])
    merged = json.loads(out.read_text("utf-8"))
    assert stop.value.code == merged["verdict"]["exitCode"] == 1
    line = merged["verdict"]["line"]
    assert line in capsys.readouterr().out
    assert line in (tmp_path / "m.md").read_text("utf-8")
    assert 'name="exit-code" value="1"' in (tmp_path / "m.xml").read_text("utf-8")
