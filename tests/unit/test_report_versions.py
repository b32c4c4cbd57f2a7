"""Reports of the version before this kit's (3, whose effort is ``budget``) are read by
``eventproof report`` (``--html``, ``--merge``) as the current version (4, ``effort``), each with a
one-line note naming the old member and the version; other versions are refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._matrix import OLDER_VERSION, MatrixError, load_report, write_matrix
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
    report_from_document,
)
from eventproof.conformance._shard import split_ops
from eventproof.conformance._versions import REPORT_VERSION
from eventproof.conformance.cli import entry
from hypothesis import given, settings
from hypothesis import strategies as st

EFFORTS = st.sampled_from(["quick", "default", "thorough"])
OUTCOME_MAPS = st.dictionaries(st.sampled_from([rule.id for rule in RULES]),
                               st.sampled_from([o for o in OUTCOMES if o != "xpass"]),
                               max_size=6)


def run_report(effort: str, outcomes: dict[str, str], ops: tuple[str, ...] = OPS,
               shard: tuple[int, int] | None = None) -> dict[str, Any]:
    """The JSON report (this kit's version) of a run at ``effort`` with these outcomes."""
    results = [RuleResult(rule, outcomes.get(rule.id, "pass"),  # type: ignore[arg-type]
                          coverage=Coverage(judged=0 if outcomes.get(rule.id) in
                                            ("untested", "skip") else 5),
                          counterexample=Counterexample(rule.op, {}, 1, 2, "differs", None)
                          if outcomes.get(rule.id) in FAILING - {"xpass"} else None)
               for rule in RULES if rule.op in ops]
    return report_document(RunReport(
        implementation={"name": "port", "version": "1", "language": "js"},
        capabilities=Capabilities(), results=results, effort=effort, seed=None,
        deterministic=True, invocation=Invocation(impl="node port.mjs", effort=effort,
                                                  shard=shard)))


def as_version_3(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` as the kit before this one wrote it: version 3, the effort named
    ``budget`` (at the top and in ``run``) and given to ``run`` as ``--examples``."""
    old = {("budget" if key == "effort" else key): copy.deepcopy(value)
           for key, value in document.items()}
    old["reportVersion"] = 3
    old["run"] = {("budget" if key == "effort" else key): value
                  for key, value in old["run"].items()}
    old["rerun"] = old["rerun"].replace(" --effort ", " --examples ")
    assert "effort" not in json.dumps(old)
    return old


def save(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@settings(max_examples=25, deadline=None)
@given(effort=EFFORTS, outcomes=OUTCOME_MAPS)
def test_a_version_3_report_reads_as_the_same_report_of_version_4(
        tmp_path_factory: pytest.TempPathFactory, effort: str, outcomes: dict[str, str]) -> None:
    """Whatever its results, a version-3 report is read as the version-4 report of the same run
    (its budget as effort, its rerun command spelt --effort), with one note naming both."""
    current = run_report(effort, outcomes)
    folder = tmp_path_factory.mktemp("reports")
    read_new = load_report(save(folder / "new.json", current))
    read_old = load_report(save(folder / "old.json", as_version_3(current)))
    note = read_old.pop(OLDER_VERSION)
    assert OLDER_VERSION not in read_new
    assert read_old == read_new
    assert read_old["reportVersion"] == REPORT_VERSION
    assert read_old["effort"] == read_old["run"]["effort"] == effort
    assert f"--effort {effort}" in read_old["rerun"]
    assert report_from_document(read_old).effort == effort
    assert "\n" not in note
    assert note.startswith(f"{folder / 'old.json'}: report version 3: read as version 4")
    assert "($.budget as $.effort, $.run.budget as $.run.effort)" in note


def test_a_version_3_report_is_a_matrix_column_with_a_note(tmp_path: Path) -> None:
    """`report --html` of a version-3 report shows its effort as effort, and says on stderr
    that it was read as version 4."""
    old = save(tmp_path / "old.json", as_version_3(run_report("thorough", {})))
    notes: list[str] = []
    written = write_matrix(tmp_path / "site", [old], on_note=notes.append)
    page = written[0].read_text("utf-8")
    assert "effort thorough" in page
    assert "budget thorough" not in page
    assert [note for note in notes if "report version 3" in note] == [
        f"{old}: report version 3: read as version 4 ($.budget as $.effort, $.run.budget as "
        "$.run.effort); rerun the check with this eventproof to write the current version"]


def test_the_slices_of_a_version_3_run_merge_into_a_version_4_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`report --merge` of version-3 slices writes a version-4 report with the effort as
    effort, and names each slice read as version 3 on stderr, one line each."""
    broken = next(rule.id for rule in RULES if rule.level == "MUST")
    groups = split_ops(OPS, 2)
    paths = [str(save(tmp_path / f"s{k}.json",
                      as_version_3(run_report("quick", {broken: "fail"}, group, (k, 2)))))
             for k, group in enumerate(groups, start=1)]
    out = tmp_path / "merged.json"
    with pytest.raises(SystemExit) as stop:
        entry(["report", "--merge", str(out), *paths])
    merged = json.loads(out.read_text("utf-8"))
    assert stop.value.code == merged["verdict"]["exitCode"] == 1
    assert merged["reportVersion"] == REPORT_VERSION
    assert merged["effort"] == merged["run"]["effort"] == "quick"
    assert "budget" not in merged
    assert "budget" not in merged["run"]
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "report version 3" in line]
    assert len(notes) == len(paths)
    assert all("$.budget as $.effort" in line for line in notes)


@pytest.mark.parametrize("version", [1, 2, REPORT_VERSION + 1, "4", None])
def test_any_other_report_version_is_refused(tmp_path: Path, version: Any) -> None:
    """A report of a version this kit neither writes nor reads is refused, naming both
    versions; a version-3 document is read only as version 3 (an integer)."""
    document = as_version_3(run_report("quick", {}))
    document["reportVersion"] = version
    with pytest.raises(MatrixError, match=rf"renders report version {REPORT_VERSION}"):
        load_report(save(tmp_path / "other.json", document))


def test_a_version_4_report_naming_its_effort_budget_is_refused(tmp_path: Path) -> None:
    """Version 4 has no ``budget``: a report that says version 4 but names its effort the old
    way is no report of this kit's, and the message names the member it lacks."""
    document = as_version_3(run_report("quick", {}))
    document["reportVersion"] = REPORT_VERSION
    with pytest.raises(MatrixError, match="'effort' is a required property"):
        load_report(save(tmp_path / "mixed.json", document))


def test_an_unchecked_version_3_document_is_read_with_a_note_naming_no_member(
        tmp_path: Path) -> None:
    """The document of an implementation that could not be checked has no effort: version 3's
    is read as version 4, and the note claims no member renamed."""
    from eventproof.conformance._matrix import unchecked_report
    from eventproof.conformance._results import RunVerdict

    document = unchecked_report("node gone.mjs", RunVerdict.could_not_check("it exited"))
    document["reportVersion"] = 3
    read = load_report(save(tmp_path / "unchecked.json", document))
    assert read["reportVersion"] == REPORT_VERSION
    assert read[OLDER_VERSION].endswith("report version 3: read as version 4; rerun the check "
                                        "with this eventproof to write the current version")
