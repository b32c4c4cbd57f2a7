"""Files the kit reads back (reports, case files, expectations) are bounded, version-checked and
judged again (docs/threat-model.md): drawn edits of a report's stored verdict never reach the
page, the badge or ``report --merge``; a drawn bad file (a FIFO, a device, a directory, a file
over its bound, a file of a later kit or another spec) given to a drawn reader (``replay``,
``report --html``, ``report --merge``, ``run --expect``) is one clear error naming the file,
exit 2, at once.
"""

from __future__ import annotations

import copy
import json
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from eventproof.conformance._files import CASE_FILE_BYTES, EXPECTATIONS_BYTES, REPORT_BYTES
from eventproof.conformance._matrix import badge, write_matrix
from eventproof.conformance._model import Capabilities
from eventproof.conformance._replay import save_failures
from eventproof.conformance._results import RunReport, verdict_of_document
from eventproof.conformance._versions import REPORT_VERSION, SUITE_VERSION
from eventproof.conformance.cli import main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_matrix import broken, every_pass, report
from test_merge import _slices

SETTINGS = settings(max_examples=25, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))
#: Edits of a stored verdict, each toward the other verdict.
EDITS = ("headline", "conforms", "exitCode", "counts", "profiles")


def _edit(verdict: dict[str, Any], what: str) -> None:
    conforms = verdict["conforms"]
    if what == "headline":
        verdict["headline"] = "does not conform" if conforms else "conforms"
    elif what == "conforms":
        verdict["conforms"] = not conforms
    elif what == "exitCode":
        verdict["exitCode"] = 1 if conforms else 0
    elif what == "counts":
        verdict["counts"]["fail"] = 0 if verdict["counts"]["fail"] else 3
    else:
        for entry in verdict["profiles"]:
            entry["status"] = "does not conform" if entry["status"] == "conforms" else "conforms"


@contextmanager
def bounded(seconds: int = 30) -> Iterator[None]:
    """Fail, rather than hang, when a reader waits on a file."""
    def expire(_signum: int, _frame: Any) -> None:
        raise AssertionError(f"a reader waited more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=8, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(base=st.sampled_from(["conforms", "broken"]),
       edits=st.sets(st.sampled_from(EDITS), min_size=1))
def test_every_verdict_shown_from_a_report_is_judged_again(
        base: str, edits: set[str], tmp_path_factory: pytest.TempPathFactory) -> None:
    """A report whose stored verdict was edited: the page, the badge and ``report --merge``
    show the verdict its results give, and the disagreement is named with the file."""
    directory = tmp_path_factory.mktemp("edited")
    # A run of one slice (1/1), so that report --merge takes it too.
    [document] = _slices(1, {} if base == "conforms" else {"select.last-message": "fail"})
    truth = verdict_of_document(document)
    edited = copy.deepcopy(document)
    for what in sorted(edits):
        _edit(edited["verdict"], what)
    source = directory / "port.json"
    source.write_text(json.dumps(edited), encoding="utf-8")
    notes: list[str] = []
    written = write_matrix(directory / "site", [source], on_note=notes.append)
    page = written[0].read_text("utf-8")
    assert f'data-headline="{truth.headline}"' in page
    assert json.loads(written[1].read_text("utf-8"))["message"].startswith(truth.headline)
    assert badge(document)["message"].startswith(truth.headline)
    assert notes
    assert str(source) in notes[0]
    assert "stored verdict" in notes[0]
    merged = CliRunner().invoke(main, ["report", "--merge", str(directory / "merged.json"),
                                       str(source)])
    assert merged.exit_code == int(truth.exit_code), merged.output
    assert "stored verdict" in merged.output
    assert json.loads((directory / "merged.json").read_text("utf-8"))["verdict"][
        "headline"] == truth.headline


# -- bad files -----------------------------------------------------------------------------------

READERS = ("replay", "html", "merge", "expect")
KINDS = ("fifo", "device", "directory", "oversize", "newer", "other-spec")
BOUNDS = {"replay": CASE_FILE_BYTES, "html": REPORT_BYTES, "merge": REPORT_BYTES,
          "expect": EXPECTATIONS_BYTES}


def _case_file(directory: Path) -> dict[str, Any]:
    run = RunReport(implementation={"name": "port", "language": "python"},
                    capabilities=Capabilities(), results=broken(), effort="quick", seed=None,
                    deterministic=True, duration=1.0, calls=3)
    [path] = save_failures(run, directory / "cases").values()
    document: dict[str, Any] = json.loads(Path(path).read_text("utf-8"))
    return document


def _bad_file(reader: str, kind: str, directory: Path) -> tuple[Path, tuple[str, ...]]:
    """A file of ``kind`` for ``reader``, and what the error must also name."""
    path = directory / f"bad-{reader}-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
        return path, ("FIFO",)
    if kind == "device":
        return Path("/dev/zero"), ()
    if kind == "directory":
        path.mkdir()
        return path, ()
    if kind == "oversize":
        with path.open("wb") as sparse:  # no bytes are written: the size alone must refuse it
            sparse.truncate(BOUNDS[reader] + 1)
        return path, ("MiB",)
    if reader == "expect":
        spec = "0.9" if kind == "other-spec" else "1.0"
        suite = "99.0.0" if kind == "newer" else SUITE_VERSION
        path.write_text(f"# Written by eventproof {suite} (spec {spec}) from a run\n"
                        "classify.kind\n", encoding="utf-8")
        return path, (suite,) if kind == "newer" else ("spec 0.9",)
    if reader == "replay":
        document = _case_file(directory)
        if kind == "newer":
            document["suiteVersion"] = "99.0.0"
        else:
            document["specVersion"] = "0.9"
        path.write_text(json.dumps(document), encoding="utf-8")
        return path, ("99.0.0", SUITE_VERSION) if kind == "newer" else ("0.9",)
    document = report("port", every_pass())
    document["reportVersion"] = REPORT_VERSION + 96
    path.write_text(json.dumps(document), encoding="utf-8")
    return path, (str(REPORT_VERSION + 96), str(REPORT_VERSION))


def _command(reader: str, path: Path, directory: Path) -> list[str]:
    if reader == "replay":
        return ["replay", str(path)]
    if reader == "html":
        return ["report", "--html", str(directory / "site"), str(path)]
    if reader == "merge":
        return ["report", "--merge", str(directory / "merged.json"), str(path)]
    return ["run", "--expect", str(path), "--state-dir", str(directory / "state"),
            "--ops", "classify"]


@SETTINGS
@given(reader=st.sampled_from(READERS), kind=st.sampled_from(KINDS))
def test_a_bad_file_read_back_is_one_clear_error_at_once(
        reader: str, kind: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every reader refuses every bad file at once (no hang, no read to the end of
    /dev/zero), with exit code 2 and a message naming the file (and, for a version, both)."""
    if reader in ("html", "merge") and kind == "other-spec":
        kind = "newer"  # a report of another spec is judged again, not refused
    directory = tmp_path_factory.mktemp("bad")
    path, named = _bad_file(reader, kind, directory)
    with bounded():
        result = CliRunner().invoke(main, _command(reader, path, directory))
    said = " ".join(result.output.split())
    assert result.exit_code == 2, said
    assert str(path) in said, said
    for word in named:
        assert word in said, said
    assert "Traceback" not in said
    assert "internal error" not in said
