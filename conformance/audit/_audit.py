"""An audit: every log read once, line by line, in this process or in ``--jobs`` workers (over
files, and over chunks of one large plain file), then the parts merged into one report."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any

from eventproof.reference import DEFAULT_MAX_BYTES

from .._model import Rule
from .._operations import OPS
from .._results import RuleRow, RunVerdict, judge_run
from . import _fast
from ._bytes import ByteStats
from ._findings import Finding, Tallies, excerpt
from ._lines import UNKNOWN, LineJudge, WireSettings, parse, read_wire
from ._rules import (
    AUDIT_RULES,
    BUDGET_RULE_IDS,
    LOG_RULES,
    SELECTION_RULE_IDS,
    WIRE_RULE_IDS,
    rule,
)
from ._sessions import (
    SESSION_TYPES,
    SessionReader,
    SessionSummary,
    judge_sessions,
    looks_like_session,
)
from ._source import MAX_LINE_BYTES, Source, SourceError, chunks, read_lines, size_of

KINDS = ("auto", "wire", "session")
#: Lines a log's kind is detected from.
DETECT_LINES = 32
#: Unreadable lines named one by one per file (the rest are counted).
UNREAD_NAMED = 5
#: Bytes between two progress reports.
PROGRESS_STEP = 8 << 20


@dataclass(frozen=True)
class Settings:
    """How an audit judges: the log kind, the opt-in, the bound, findings kept per rule."""

    kind: str = "auto"
    live_events: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    max_findings: int = 5
    fit: str = "halving"
    jobs: int = 1
    max_line_bytes: int = MAX_LINE_BYTES


@dataclass
class Part:
    """What auditing one file (or one chunk of it) found."""

    source: Source
    kind: str
    lines: int = 0
    bytes: int = 0
    tallies: Tallies = field(default_factory=lambda: Tallies(5))
    stats: ByteStats = field(default_factory=ByteStats)
    session: SessionSummary | None = None
    error: str | None = None
    #: Lines the audit could not read (they are not judged): line number, offset, why.
    unread: list[tuple[int, int, str]] = field(default_factory=list)


def _kind_of(lines: list[bytes]) -> str:
    types = []
    for raw in lines:
        try:
            value = _fast.loads(raw)
        except (_fast.DecodeError, ValueError):
            continue
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            types.append(value["type"])
    return "session" if looks_like_session(types) else "wire"


#: The event types of the wire profile (spec/wire.md §2.2): evidence that a log is a wire log.
WIRE_TYPES = frozenset({
    "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update",
    "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end",
})


def contradiction(kind: str, head: list[tuple[int, bytes]]) -> str | None:
    """Why the first lines of a log contradict ``--kind kind`` (the line and what it holds), or
    None: the lines read as the other kind, and one holds an event type only that kind has."""
    lines = [raw for _, raw in head]
    detected = _kind_of(lines)
    if detected == kind:
        return None
    theirs = WIRE_TYPES if detected == "wire" else SESSION_TYPES | {"session"}
    for number, raw in enumerate(lines, start=1):
        try:
            value = _fast.loads(raw)
        except (_fast.DecodeError, ValueError):
            continue
        kind_of_line = value.get("type") if isinstance(value, dict) else None
        if isinstance(kind_of_line, str) and kind_of_line in theirs:
            what = ("the session header of a session log" if kind_of_line == "session"
                    else f"a {detected} event")
            return (f"--kind {kind} contradicts the log: line {number} is {what} "
                    f"(type {json.dumps(kind_of_line)}: {excerpt(raw, 0, 80)}), and its first "
                    f"lines read as a {detected} log. Audit it with --kind {detected}, or "
                    "--kind auto to detect each log's kind")
    return None


def detect_kind(source: Source, max_line_bytes: int = MAX_LINE_BYTES) -> str:
    """``wire`` or ``session``, from the types of the first lines of ``source``."""
    try:
        lines = [raw for _, raw in islice(read_lines(Source(source.path), max_line_bytes),
                                          DETECT_LINES)]
    except SourceError:
        return "wire"
    return _kind_of(lines)


def audit_part(source: Source, kind: str, settings: Settings,
               progress: Callable[[int], None] | None = None) -> Part:
    """Audit one file or chunk: every line judged, every byte accounted."""
    name = source.label
    tallies = Tallies(settings.max_findings)
    part = Part(source, kind, tallies=tallies)
    stats = part.stats
    judge = LineJudge(tallies, name, WireSettings(settings.live_events, settings.max_bytes,
                                                 settings.fit))
    lines: Iterator[tuple[int, bytes]] = read_lines(source, settings.max_line_bytes)
    number = parsed_lines = events = 0
    reported = source.start
    reader: SessionReader | None = None
    try:
        if kind == "auto":
            head = list(islice(lines, DETECT_LINES))
            kind = part.kind = _kind_of([raw for _, raw in head])
            lines = chain(head, lines)
        elif source.start == 0:
            head = list(islice(lines, DETECT_LINES))
            refused = contradiction(kind, head)
            if refused is not None:
                part.error = f"{name}: {refused}"
                return part
            lines = chain(head, lines)
        wire = kind == "wire"
        reader = None if wire else SessionReader(name)
        utf8_rule = "canon.utf8" if wire else "log.utf8"
        figures = stats.file(name)
        figures.projected = wire
        complete = True
        for offset, raw in lines:
            number += 1
            complete = raw.endswith(b"\n")
            body = raw[:-1] if complete else raw
            judge.number, judge.offset, judge.line = number, offset, raw
            if progress is not None and offset - reported >= PROGRESS_STEP:
                progress(offset - reported)
                reported = offset
            if not body.strip():
                judge._find("log.json", "the line is blank: every line of a log is one event")
                stats.line(name, number, offset, "(blank)", len(raw), None)
                continue
            known: bytes | None = UNKNOWN
            if wire:
                parsed, known = read_wire(body)
            else:
                parsed = parse(body)
            if not parsed.ok:
                assert parsed.error is not None
                at, reason = parsed.error
                if at < 0:
                    part.unread.append((number, offset, reason))
                    stats.line(name, number, offset, "(not read)", len(raw), None)
                    continue
                if complete:
                    judge._find("log.json", reason, at)
                else:
                    judge._find("log.truncated",
                                f"the last line stops after {len(body):,} bytes, in the middle "
                                f"of a JSON value ({reason})", at)
                stats.line(name, number, offset, "(not JSON)", len(raw), None)
                continue
            if parsed.bad_utf8 is not None or parsed.lone_surrogate:
                judge.reading(parsed, body, utf8_rule=utf8_rule)  # all it judges (UTF-8)
            value = parsed.value
            parsed_lines += 1
            if not isinstance(value, dict) or not isinstance(value.get("type"), str):
                judge._find("log.event", "the line is not an event: an event is an object with "
                                         "a string member type")
                stats.line(name, number, offset, "(no type)", len(raw), value)
                continue
            events += 1
            if wire:
                figures.facts_only += judge.wire(value, parsed, body, known)
            else:
                assert reader is not None
                reader.line(value, number, offset, raw)
            stats.line(name, number, offset, value["type"], len(raw), value,
                       body if parsed.proven else None)
        if number and source.end is None:
            tallies.judged("log.truncated")
    except SourceError as error:
        part.error = str(error)
    # the rules every line, every JSON line or every event line is judged by, counted once
    for rule_id, count in (("log.json", number), ("log.event", parsed_lines),
                           ("canon.utf8" if part.kind == "wire" else "log.utf8", parsed_lines)):
        if count:
            tallies.judged(rule_id, count)
    if part.kind == "wire" and events:
        tallies.judged("project.numbers", events)
        if not settings.live_events:
            tallies.judged("project.frame-opt-in", events)
    part.lines = number
    if reader is not None:
        part.session = reader.summary
    part.bytes = stats.file(name).bytes
    if progress is not None:
        progress(max(0, part.bytes - (reported - source.start)))
    return part


def _audit_task(task: tuple[Source, str, Settings]) -> Part:
    return audit_part(*task)


@dataclass
class AuditReport:
    """The merged result of an audit."""

    settings: Settings
    files: list[dict[str, Any]]
    tallies: Tallies
    stats: ByteStats
    errors: list[str]
    records: int
    duration: float
    #: What the logs hold but do not let the audit judge, and why (never a finding).
    notices: list[str] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return sum(entry["lines"] for entry in self.files)

    def rules(self) -> list[Rule]:
        kinds = {entry["kind"] for entry in self.files}
        ids = [item.id for item in LOG_RULES if item.id != "log.utf8" or "session" in kinds]
        if "wire" in kinds:
            ids += [*WIRE_RULE_IDS, *BUDGET_RULE_IDS]
        if "session" in kinds:
            ids += list(SELECTION_RULE_IDS)
        return [rule(rule_id) for rule_id in ids]

    def outcome(self, cited: Rule) -> str:
        tally = self.tallies.by_rule.get(cited.id)
        if tally is None or (tally.judged == 0 and tally.count == 0):
            return "untested"
        return "fail" if tally.count else "pass"

    def findings(self) -> list[Finding]:
        order = {item.id: index for index, item in enumerate(AUDIT_RULES)}
        kept = [finding for tally in self.tallies.by_rule.values() for finding in tally.examples]
        return sorted(kept, key=lambda finding: (order[finding.rule], finding.file,
                                                 finding.line))

    def count(self, level: str | None = None) -> int:
        return sum(tally.count for rule_id, tally in self.tallies.by_rule.items()
                   if level is None or rule(rule_id).level == level)

    @property
    def verdict(self) -> RunVerdict:
        """The audit's verdict, judged by the run's own :func:`~.._results.judge_run` from each
        rule's outcome. A rule no line of these logs could show is ``untested`` and let through
        (a log shows what it holds: the audit judges the rules its lines reach), but an audit
        that judged no rule at all does not conform; an unreadable or empty log could not be
        checked (exit code 2)."""
        if self.errors:
            return RunVerdict.could_not_check("; ".join(self.errors[:3]))
        if self.lines == 0:
            return RunVerdict.could_not_check("the logs hold no line to audit")
        rows = []
        for cited in self.rules():
            tally = self.tallies.by_rule.get(cited.id)
            rows.append(RuleRow(cited.id, cited.level, cited.profile, cited.op,
                                self.outcome(cited),
                                tally is not None and (tally.judged > 0 or tally.count > 0)))
        return judge_run(rows, declared=OPS, allow_untested=True, untested_note=(
            "no line or record of these logs could show them (a log is judged on what it "
            "holds)"))

    @property
    def conforms(self) -> bool:
        return self.verdict.conforms

    @property
    def exit_code(self) -> int:
        return int(self.verdict.exit_code)


def audit(sources: list[Source], settings: Settings,
          progress: Callable[[int], None] | None = None) -> AuditReport:
    """Audit every source; ``progress`` is told the bytes read as the audit goes."""
    started = time.monotonic()
    tasks: list[tuple[Source, str, Settings]] = []
    for source in sources:
        kind = settings.kind
        if settings.jobs > 1 and source.compression() == "none" and source.path != "-":
            pieces = chunks(source, settings.jobs)
            if len(pieces) > 1:
                kind = detect_kind(source, settings.max_line_bytes) if kind == "auto" else kind
                if kind == "wire":
                    tasks.extend((piece, kind, settings) for piece in pieces)
                    continue
        tasks.append((source, kind, settings))
    if settings.jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=min(settings.jobs, len(tasks))) as pool:
            parts = []
            for part in pool.map(_audit_task, tasks):
                parts.append(part)
                if progress is not None:
                    progress(part.bytes)
    else:
        parts = [audit_part(*task, progress=progress) for task in tasks]
    return merge(parts, settings, time.monotonic() - started)


def merge(parts: list[Part], settings: Settings, duration: float) -> AuditReport:
    tallies = Tallies(settings.max_findings)
    stats = ByteStats()
    files: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    summaries: list[SessionSummary] = []
    for part in parts:
        name = part.source.label
        entry = files.get(name)
        if entry is None:
            entry = files[name] = {"file": name, "kind": part.kind, "lines": 0, "bytes": 0}
        shift = entry["lines"]
        if shift:
            part.tallies.shift_lines(shift)
            part.stats.shift_lines(name, shift)
        entry["lines"] += part.lines
        entry["bytes"] += part.bytes
        tallies.merge(part.tallies)
        stats.merge(part.stats)
        if part.error is not None:
            entry["error"] = part.error
            errors.append(part.error)
        errors.extend(f"{name}:{number + shift} (byte {offset:,}): {reason}; it was not judged"
                      for number, offset, reason in part.unread[:UNREAD_NAMED])
        if len(part.unread) > UNREAD_NAMED:
            errors.append(f"{name}: {len(part.unread) - UNREAD_NAMED:,} more lines could not "
                          "be read")
        if part.session is not None:
            summaries.append(part.session)
    notices: list[str] = []
    records = judge_sessions(summaries, tallies, notices) if summaries else 0
    return AuditReport(settings, list(files.values()), tallies, stats, errors, records, duration,
                       notices)


def total_size(sources: list[Source]) -> int | None:
    sizes = [size_of(source) for source in sources]
    return None if any(size is None for size in sizes) else sum(s for s in sizes if s)
