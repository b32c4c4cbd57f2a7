"""Reading logs: bad bytes are findings with their line and byte offset, never a traceback, and
the audit goes on; compressed logs read like plain ones; unreadable ones are named; chunks and
worker processes give the report one process gives."""

from __future__ import annotations

import gzip
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from audit_logs import ASSISTANT, START, audit_bytes, counts, line
from click.testing import CliRunner
from eventproof.conformance.audit import Settings, SourceError, _fast, audit, expand
from eventproof.conformance.audit._audit import audit_part, merge
from eventproof.conformance.audit._lines import MAX_DEPTH, parse, strict_parse
from eventproof.conformance.audit._render import document
from eventproof.conformance.audit._source import Source, chunks
from eventproof.conformance.cli import main
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


@pytest.mark.parametrize("fast", [True, False], ids=["orjson", "standard-library"])
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_a_line_nested_too_deep_is_a_finding_and_the_rest_is_read(
        depth: int, fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whichever reader runs, a line nested past the audit's depth is one finding, never a
    traceback, and every other line is judged."""
    if not fast:
        monkeypatch.setattr(_fast, "orjson", None)
    deep = b'{"type":"x","v":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}\n"
    report = audit_bytes(line(START) + deep + TURN_END)
    assert report.errors == []
    assert counts(report) == {"log.json": 1, "project.turn-end": 1}  # the rest was judged
    finding = report.tallies.by_rule["log.json"].examples[0]
    assert finding.line == 2
    assert f"nests {depth:,} arrays and objects deep" in finding.message
    assert report.exit_code == 1


def test_the_deepest_line_read_is_read() -> None:
    deep = b'{"type":"x","v":' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}\n"
    report = audit_bytes(line(START) + deep)
    assert "log.json" not in counts(report)
    assert report.errors == []


def test_a_lone_surrogate_in_an_event_type_is_a_finding_on_every_output(
        tmp_path: Path) -> None:
    """A lone surrogate in a type (a name every report shows) is a finding; every output is
    written, none fails."""
    log = tmp_path / "run.jsonl"
    log.write_bytes(line(START) + b'{"type":"\\ud800x"}\n')
    outputs = [str(tmp_path / name) for name in ("a.json", "a.html", "a.md", "a.xml")]
    result = CliRunner().invoke(main, ["audit", str(log), "--no-progress", "--json",
                                       outputs[0], "--html", outputs[1], "--markdown",
                                       outputs[2], "--junit", outputs[3]])
    assert result.exit_code == 1, result.output
    assert "internal error" not in result.output
    assert "\\ud800x" in Path(outputs[0]).read_text(encoding="utf-8")


def test_an_endless_line_stops_the_file_with_a_message(tmp_path: Path) -> None:
    """A line past the bound (an endless input with no line feed) stops the audit of that file
    with a message naming the file, the line, the bound and the option; nothing unbounded is
    read."""
    log = tmp_path / "endless.jsonl"
    log.write_bytes(line(START) + b"0" * 5000)
    report = audit(expand((str(log),)), Settings(max_line_bytes=4096))
    assert report.exit_code == 2
    (error,) = report.errors
    assert all(part in error for part in (str(log), "line 2", "4,096", "--max-line-bytes"))
    assert "--max-line-bytes" in error
    assert audit(expand((str(log),)), Settings(max_line_bytes=8192)).exit_code == 1


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


# -- one reader, whichever parser runs ----------------------------------------------------------

_ODD_STRINGS = ["\ud800", "a\udc00b", "\ud83d\ude00", "é", "\u2028", ":", '"', "\\", "\x00",
                "[{", "x" * 20]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False,
                                                                         allow_infinity=False)
    | st.sampled_from(_ODD_STRINGS) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["a", "b", "type", "\ud800", "é"]) | st.text(max_size=3),
                      inner, max_size=4),
    max_leaves=12)


def _written(value: Any, how: str) -> bytes:
    import json

    orjson = pytest.importorskip("orjson", reason="orjson writes some of the lines (nox -s bare "
                                 "has none)")

    if how == "orjson":
        try:
            return orjson.dumps(value)
        except TypeError:
            how = "ascii"
    if how == "ascii":
        return json.dumps(value).encode()
    if how == "spaced":
        return json.dumps(value, indent=None, separators=(", ", ": ")).encode()
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def _lines(draw: st.DrawFn) -> bytes:
    """One line as a harness, a careless writer or a damaged file may write it: an event of
    drawn values serialized one of several ways, then perhaps a member name repeated, a
    number beyond every double or any integer spelled out, nesting around the bound, or bytes
    changed."""
    event = {"type": draw(st.sampled_from(["agent_start", "tool_execution_end", "\ud800x",
                                           "user/message"])), "v": draw(_JSON)}
    body = _written(event, draw(st.sampled_from(["orjson", "ascii", "spaced", "raw"])))
    change = draw(st.sampled_from(["none", "repeat", "number", "deep", "bytes"]))
    if change == "repeat":
        body = body[:1] + b'"v":1,' + body[1:]
    elif change == "number":
        literal = draw(st.sampled_from([b"1e400", b"9007199254740993", b"1" * 5000,
                                        b"10000000000000000", b"-0", b"1E5", b"0.1"]))
        body = body[:-1] + b',"n":' + literal + b"}"
    elif change == "deep":
        depth = draw(st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3))
        body = body[:-1] + b',"d":' + b"[" * depth + b"]" * depth + b"}"
    elif change == "bytes" and body:
        at = draw(st.integers(0, len(body) - 1))
        body = body[:at] + draw(st.sampled_from([b"\xff", b"\xed\xa0\x80", b"\\", b'"']))\
            + body[at + 1:]
    return body


def _reading(parsed: Any) -> tuple[Any, ...]:
    return (parsed.ok, repr(parsed.value), parsed.bad_utf8, parsed.lone_surrogate,
            parsed.numbers, parsed.error, parsed.exact)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(_lines())
def test_a_line_reads_the_same_with_or_without_orjson(body: bytes) -> None:
    """orjson's reading of a line stands only where it is the strict reader's: the same value,
    surrogates, numbers, repeated names, depth and errors."""
    assert _reading(parse(body)) == _reading(strict_parse(body))


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(_lines(), min_size=1, max_size=6), st.sampled_from(["wire", "session"]))
def test_an_audit_is_the_same_with_or_without_orjson(bodies: list[bytes], kind: str) -> None:
    """The whole report (findings, counts, verdict) of a log is the same whether the reader
    had orjson or forced the standard library's path."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "run.jsonl"
        path.write_bytes(b"".join(body + b"\n" for body in bodies))
        how = Settings(kind=kind, max_findings=100)
        with_orjson = _without_time(audit(expand((str(path),)), how))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_fast, "orjson", None)
            without = _without_time(audit(expand((str(path),)), how))
    assert with_orjson == without


@pytest.mark.parametrize("body", [b'{"type":"x","type":"y"}', b'{"type":"x","v":"\\ud800"}'])
def test_readings_that_trust_their_parser_are_caught(body: bytes) -> None:
    """The wrong readers the property above rules out: orjson's reading taken as it comes (a
    repeated name read as the last one), and the standard library's without the strict rules
    (a lone surrogate read as a string)."""
    import json

    from eventproof.conformance.audit._lines import Parsed

    orjson = pytest.importorskip("orjson", reason="orjson's own reading (nox -s bare has none)")

    strict = _reading(strict_parse(body))
    try:
        trusting = Parsed(orjson.loads(body), True, exact=True)
    except orjson.JSONDecodeError:
        trusting = strict_parse(body)
    plain = Parsed(json.loads(body), True, exact=True)
    if b"\\ud800" in body:
        assert strict != _reading(plain)  # orjson refuses this line: the fallback reads it
    else:
        assert strict != _reading(trusting)


@pytest.mark.parametrize(("log", "forced", "line_number", "type_name"), [
    (line(START) + TURN_END, "session", 1, "agent_start"),
    (b'{"note":1}\n' + line(START), "session", 2, "agent_start"),
    (b'{"type":"session","id":"s","createdAt":0}\n', "wire", 1, "session"),
    (b'{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}\n', "wire", 1, "turn/start"),
])
def test_a_kind_the_log_contradicts_is_refused_naming_the_evidence(
        log: bytes, forced: str, line_number: int, type_name: str) -> None:
    report = audit_bytes(log, kind=forced)
    assert report.exit_code == 2
    (error,) = report.errors
    assert f"--kind {forced} contradicts the log: line {line_number}" in error
    assert f'type "{type_name}"' in error
    assert "--kind auto" in error
    assert audit_bytes(log).exit_code != 2  # detected, it is audited


def test_a_kind_the_log_does_not_contradict_is_taken() -> None:
    """Lines of types neither kind names (or too few to tell) are audited as told."""
    log = b'{"type":"custom_event"}\n'
    assert audit_bytes(log, kind="session").errors == []
    assert audit_bytes(log, kind="wire").errors == []
