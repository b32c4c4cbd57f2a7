"""Reading logs: bad bytes are findings with their line and byte offset, never a traceback, and
the audit goes on; compressed logs read like plain ones; unreadable ones are named; chunks and
worker processes give the report one process gives."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path
from typing import Any

import pytest
from audit_logs import ASSISTANT, START, audit_bytes, counts, line
from eventproof.conformance.audit import Settings, SourceError, audit, expand
from eventproof.conformance.audit._audit import audit_part, merge
from eventproof.conformance.audit._render import document
from eventproof.conformance.audit._source import Source, chunks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TURN_END = line({"type": "turn_end", "message": ASSISTANT, "toolResults": []})


def _without_time(report: Any) -> dict[str, Any]:
    doc = document(report)
    doc.pop("durationSeconds")
    doc["settings"].pop("jobs")
    return doc


def test_bad_lines_are_found_where_they_are_and_the_audit_goes_on() -> None:
    log = [line(START), b'{"type":"turn_start",\n', b"\n", b'{"type":"x","t":"\xff\xfe"}\n',
           TURN_END, b'{"type":"agent_end","mess']
    report = audit_bytes(b"".join(log))
    found = {rule_id: [(item.line, item.offset) for item in tally.examples]
             for rule_id, tally in report.tallies.by_rule.items() if tally.count}
    offsets = [sum(len(item) for item in log[:index]) for index in range(len(log))]
    assert found["log.json"] == [(2, offsets[1] + 21), (3, offsets[2])]
    assert found["canon.utf8"] == [(4, offsets[3] + 17)]
    assert found["project.turn-end"] == [(5, offsets[4])]  # judged after the bad lines
    assert found["log.truncated"][0][0] == 6
    assert report.exit_code == 1
    assert report.lines == 6


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(st.binary(max_size=40), st.sampled_from(
    [line(START), TURN_END, b'{"type":"message_update"}', b"\xed\xa0\x80", b"1e400", b"[",
     b'{"type":"tool_execution_update","partialResult":{"content":[{"type":"text","text":'
     b'"[live output truncated]"}]}}', b'"\\ud800"', b"NaN"])), max_size=8))
def test_any_bytes_give_a_verdict_never_a_traceback(pieces: list[bytes]) -> None:
    report = audit_bytes(b"\n".join(pieces))
    assert report.exit_code in (0, 1, 2)
    assert document(report)["summary"]["lines"] == report.lines


def test_a_line_nested_too_deep_to_follow_is_named_not_judged() -> None:
    deep = b'{"type":"x","v":' + b"[" * 5000 + b"]" * 5000 + b"}\n"
    report = audit_bytes(line(START) + deep + TURN_END)
    assert report.exit_code == 2  # a line could not be read: the audit is not complete
    assert report.errors == [f"{report.files[0]['file']}:2 (byte {len(line(START))}): the line "
                             "nests deeper than this audit can follow (about a thousand "
                             "levels); it was not judged"]
    assert counts(report) == {"project.turn-end": 1}  # the lines around it were judged


def test_an_escaped_lone_surrogate_breaks_a_wire_line_not_a_session_line() -> None:
    wire = b'{"type":"agent_start","note":"\\udc00"}\n'
    assert counts(audit_bytes(wire)) == {"canon.utf8": 1}
    session = b'{"type":"user/message","seq":0,"time":0,"data":{"text":"\\udc00"}}\n'
    assert counts(audit_bytes(session, kind="session")) == {}
    assert counts(audit_bytes(session + b'{"type":"step/end","x":"\xff"}\n',
                              kind="session")) == {"log.utf8": 1}


def test_an_empty_log_has_nothing_to_audit() -> None:
    report = audit_bytes(b"")
    assert report.exit_code == 2
    assert document(report)["verdict"] == "nothing to audit"


def test_compressed_logs_read_like_plain_ones(tmp_path: Path) -> None:
    pytest.importorskip("zstandard")
    import zstandard

    data = line(START) + TURN_END + TURN_END
    (tmp_path / "plain.jsonl").write_bytes(data)
    (tmp_path / "run.jsonl.gz").write_bytes(gzip.compress(data))
    (tmp_path / "run.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    # dsh writes session.jsonl.zstd as a series of frames
    frames = b"".join(zstandard.ZstdCompressor().compress(piece)
                      for piece in (line(START), TURN_END + TURN_END))
    (tmp_path / "session.jsonl.zstd").write_bytes(frames)
    reports = {path.name: audit(expand((str(path),)), Settings())
               for path in sorted(tmp_path.iterdir())}
    for name, report in reports.items():
        assert counts(report) == {"project.turn-end": 2}, name
        assert report.files[0]["bytes"] == len(data), name


def test_zstandard_missing_is_a_clear_error(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "run.jsonl.zst").write_bytes(b"\x28\xb5\x2f\xfd")
    monkeypatch.setitem(sys.modules, "zstandard", None)
    report = audit(expand((str(tmp_path / "run.jsonl.zst"),)), Settings())
    assert report.exit_code == 2
    assert "pip install" in report.errors[0]
    assert "run.jsonl.zst" in report.errors[0]


def test_a_damaged_gzip_log_is_named_with_its_offset(tmp_path: Path) -> None:
    data = gzip.compress(line(START) * 2000)
    (tmp_path / "run.jsonl.gz").write_bytes(data[: len(data) // 2])
    report = audit(expand((str(tmp_path),)), Settings())
    assert report.exit_code == 2
    assert "damaged after byte" in report.errors[0]
    assert report.lines > 0  # the intact part was audited


@pytest.mark.parametrize(("argument", "says"), [
    ("missing.jsonl", "no such file"), ("*.nothing", "no file matches"),
    (".", "holds no log")])
def test_what_names_no_log_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      argument: str, says: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError, match=says):
        expand((argument,))


def test_directories_and_globs_find_every_log(tmp_path: Path) -> None:
    for name in ("a/session.jsonl", "a/b/session.jsonl.gz", "c.ndjson", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    found = [Path(source.path).relative_to(tmp_path).as_posix()
             for source in expand((str(tmp_path),))]
    assert found == ["a/b/session.jsonl.gz", "a/session.jsonl", "c.ndjson"]
    assert len(expand((str(tmp_path / "*" / "session.jsonl"), str(tmp_path / "a")))) == 2


def test_chunks_of_a_log_give_the_report_of_the_whole(tmp_path: Path) -> None:
    log = [line(START), TURN_END, b'{"type": "turn_start"}\n', b'oops\n'] * 40
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(log))
    whole = audit(expand((str(path),)), Settings(max_findings=200))
    pieces = chunks(Source(str(path)), 7, minimum=1)
    assert len(pieces) == 7
    assert pieces[0].start == 0
    assert pieces[-1].end is None
    parts = [audit_part(piece, "wire", Settings(max_findings=200)) for piece in pieces]
    merged = merge(parts, Settings(max_findings=200), 0.0)
    assert _without_time(merged) == _without_time(whole)


def test_worker_processes_give_the_report_of_one(tmp_path: Path) -> None:
    for index in range(3):
        (tmp_path / f"run-{index}.jsonl").write_bytes(line(START) + TURN_END * (index + 1))
    one = audit(expand((str(tmp_path),)), Settings())
    many = audit(expand((str(tmp_path),)), Settings(jobs=2))
    assert _without_time(many) == _without_time(one)
    assert counts(many) == {"project.turn-end": 6}
