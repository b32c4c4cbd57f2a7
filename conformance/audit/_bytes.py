"""Where the bytes go: bytes by event type and by JSON path, repeated heavy values, the largest
lines, the facts-only projection, and bytes along the log by event type (the seed's analysis,
for any log).

Memory stays bounded: per path a count and a sum, per distinct heavy value one digest (a CRC-32
and the length, never the value), a fixed number of bins along each log, and the
largest lines as a small heap. Heavy values are looked for at every depth: a transcript mirrored
into progress updates sits many levels below the event.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from zlib import crc32

from . import _fast
from ._fast import dumps
from ._findings import well_formed

#: A value at least this large (serialized) is descended into, and digested to count repeats:
#: every value of this size is reached whatever its depth (its containers are larger still).
HEAVY_BYTES = 4096
#: Members smaller than this are counted in their parent's bytes only.
SMALL_BYTES = 256
#: The bins of the plot along the log; the bin width doubles to keep at most this many.
ALONG_BINS = 256
#: The first bin width, in bytes.
ALONG_BASE = 4096
#: The largest lines kept.
LARGEST = 10
#: Paths kept in a report, heaviest first.
PATHS_SHOWN = 25


_dump = dumps


#: The compiled walk's signature: the stats' counts by path and digests by path, the line's
#: type, its value and orjson's writing of it.
CompiledWalk = Callable[[dict[tuple[str, str], list[int]], dict[tuple[str, str], dict[int, int]],
                         str, Any, bytes], None]


def _compiled_walk() -> CompiledWalk | None:
    """The compiled byte walk (reference/_speedups.c), unless switched off
    (``EVENTPROOF_NO_EXTENSIONS=1``) or not built."""
    if os.environ.get("EVENTPROOF_NO_EXTENSIONS", "") not in ("", "0"):
        return None
    try:
        from eventproof.reference import _speedups
    except ImportError:  # built without a C compiler: the Python walk counts the same
        return None
    return _speedups.byte_walk


#: ``byte_walk(by_path, repeats, kind, value, data)``: :meth:`ByteStats._walk` of a line from
#: orjson's writing ``data`` of it, compiled (it reads each member's span from ``data`` where the
#: Python walk writes members again); None: the Python walk alone. A differential property test
#: holds the two equal.
BYTE_WALK = _compiled_walk()
#: Writings this long or longer are walked in Python (the compiled walk packs sizes in 31 bits).
_COMPILED_LIMIT = 1 << 31


#: Objects of at most this many members have their members' spans found (every member that
#: can be counted: a container or a string of :data:`SMALL_BYTES` code points or more); a larger
#: object's members are written again, one by one.
SPANNED_MEMBERS = 64
#: A member of a value: its key (``"[*]"`` for an array element), the member, and where its
#: writing lies in the line's writing (None: not known, the caller writes the member).
Span = tuple[str, Any, "tuple[int, int] | None"]


#: Member names as orjson writes them, the first few thousand names met (a log uses few).
_NAMES: dict[str, bytes] = {}
_NAMES_KEPT = 4096


def _name(key: str) -> bytes:
    written = _NAMES.get(key)
    if written is None:
        written = _dump(key)
        if len(_NAMES) < _NAMES_KEPT:
            _NAMES[key] = written
    return written


def _spans(value: dict[str, Any] | list[Any], data: bytes | None, low: int,
           high: int) -> Iterator[Span]:
    """Every member of ``value`` that may be counted, whose writing is ``data[low:high]``
    (``data``: orjson's writing of the whole line, or None; without it, every member). An
    object member's writing starts after its name (found after the previous member counted: a
    scalar or a short string between holds no ``,"name":``, since inside a written string a
    quote is always escaped) and is as long as orjson's writing of the member alone (orjson
    writes a member inside a value as it writes it alone); the last member's runs to the
    closing brace; an array's only element is the array less its brackets. Only objects of at
    most :data:`SPANNED_MEMBERS` members are read so."""
    if isinstance(value, list):
        if data is not None and len(value) == 1:
            yield "[*]", value[0], (low + 1, high - 1)
            return
        for item in value:
            yield "[*]", item, None
        return
    if data is None or len(value) > SPANNED_MEMBERS:
        for key, item in value.items():
            yield key, item, None
        return
    keys = list(value)
    last = len(keys) - 1
    named = 0  # the member whose name is known to start at ``position``
    position = low + 1  # after the opening brace
    for index, key in enumerate(keys):
        item = value[key]
        if (isinstance(item, str) and len(item) < SMALL_BYTES) or \
                not isinstance(item, str | dict | list):
            continue  # never counted: only its neighbours' spans are wanted
        name = _name(key)
        if index == named:
            start = position + len(name) + 1  # the name and its colon
        else:
            # the members since the last span are scalars and short strings, which hold no
            # ``,"name":``: the first one after it is this member's
            at = data.find(b"," + name + b":", position - 1, high)
            if at < 0:  # pragma: no cover - orjson writes every member
                yield key, item, None
                continue
            start = at + len(name) + 2
        # the last member runs to the closing brace; another is as long as its own writing
        # (its strings' UTF-8 is kept from the line's writing: writing it again is a copy,
        # faster than searching its bytes for the next name)
        stop = high - 1 if index == last else start + len(_dump(item))
        yield key, item, (start, stop)
        named, position = index + 1, stop + 1  # after the comma


@dataclass
class Along:
    """Bytes of each event type along one log, in bins of ``width`` bytes of the log."""

    width: int = ALONG_BASE
    bins: dict[int, dict[str, int]] = field(default_factory=dict)

    def add(self, offset: int, kind: str, size: int) -> None:
        index = offset // self.width
        while index >= ALONG_BINS:
            self._widen()
            index = offset // self.width
        row = self.bins.setdefault(index, {})
        row[kind] = row.get(kind, 0) + size

    def _widen(self) -> None:
        merged: dict[int, dict[str, int]] = {}
        for index, row in self.bins.items():
            target = merged.setdefault(index // 2, {})
            for kind, size in row.items():
                target[kind] = target.get(kind, 0) + size
        self.bins = merged
        self.width *= 2

    def merge(self, other: Along) -> None:
        while self.width < other.width:
            self._widen()
        while other.width < self.width:
            other._widen()
        for index, row in other.bins.items():
            target = self.bins.setdefault(index, {})
            for kind, size in row.items():
                target[kind] = target.get(kind, 0) + size
        while self.bins and max(self.bins) >= ALONG_BINS:
            self._widen()


def _inside(inner: str, outer: str) -> bool:
    """True when the path pattern ``inner`` lies below ``outer``."""
    return len(inner) > len(outer) and inner.startswith(outer) and inner[len(outer)] in ".["


def _named(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The repeats worth naming: paths that repeat alike (the same distinct values written as
    often, one inside the other) are one repeat, named once: by the inner path when it holds
    nine tenths of the outer's bytes (the outer only wraps it), else by the outer (the inner is
    a part of each repeated value)."""
    hidden: set[int] = set()
    alike: dict[tuple[str, int, int], list[int]] = {}
    for index, row in enumerate(rows):
        alike.setdefault((row["type"], row["distinct"], row["occurrences"]), []).append(index)
    for members in alike.values():
        for outer in members:
            for inner in members:
                if _inside(rows[inner]["path"], rows[outer]["path"]):
                    wraps = rows[inner]["bytes"] * 10 >= rows[outer]["bytes"] * 9
                    hidden.add(outer if wraps else inner)
    return [row for index, row in enumerate(rows) if index not in hidden]


@dataclass
class FileBytes:
    """One log's byte figures."""

    lines: int = 0
    bytes: int = 0
    facts_only: int = 0
    projected: bool = True
    along: Along = field(default_factory=Along)


class ByteStats:
    """The byte accounting of an audit, mergeable across files and chunks."""

    def __init__(self) -> None:
        self.by_type: dict[str, list[int]] = {}
        self.by_path: dict[tuple[str, str], list[int]] = {}
        self.repeats: dict[tuple[str, str], dict[int, int]] = {}
        self.largest: list[tuple[int, str, int, int, str]] = []
        self.files: dict[str, FileBytes] = {}

    def file(self, name: str) -> FileBytes:
        found = self.files.get(name)
        if found is None:
            found = self.files[name] = FileBytes()
        return found

    def line(self, name: str, number: int, offset: int, kind: str, size: int,
             value: Any, written: bytes | None = None) -> None:
        """Account one line of ``size`` bytes whose parsed value is ``value`` (``written``:
        orjson's writing of it, when the line is that writing)."""
        if not kind.isascii():
            kind = well_formed(kind)
        figures = self.files.get(name)
        if figures is None:
            figures = self.files[name] = FileBytes()
        figures.lines += 1
        figures.bytes += size
        along = figures.along
        index = offset // along.width
        row = along.bins.get(index) if index < ALONG_BINS else None
        if row is None:
            along.add(offset, kind, size)
        else:  # the bin is open already (most lines)
            row[kind] = row.get(kind, 0) + size
        totals = self.by_type.get(kind)
        if totals is None:
            self.by_type[kind] = [1, size]
        else:
            totals[0] += 1
            totals[1] += size
        largest = self.largest
        if len(largest) < LARGEST:
            heapq.heappush(largest, (size, name, number, offset, kind))
        elif size >= largest[0][0]:  # a smaller line is never among the largest
            entry = (size, name, number, offset, kind)
            if entry > largest[0]:  # the largest under one total order, whatever the order
                heapq.heapreplace(largest, entry)  # lines arrive in (chunks, --jobs)
        if size >= HEAVY_BYTES and isinstance(value, dict | list):
            if written is None and _fast.orjson is not None:
                try:
                    written = _fast.orjson.dumps(value)
                except TypeError:  # a lone surrogate, an integer beyond 64 bits
                    written = None
            if BYTE_WALK is not None and written is not None and len(written) < _COMPILED_LIMIT:
                BYTE_WALK(self.by_path, self.repeats, kind, value, written)
            else:
                self._walk(kind, "$", value, written, 0, len(written or b""), own=False)

    def _count(self, kind: str, path: str, size: int) -> None:
        key = (kind, path)
        totals = self.by_path.get(key)
        if totals is None:
            self.by_path[key] = [1, size]
        else:
            totals[0] += 1
            totals[1] += size

    def _record(self, kind: str, path: str, digest: int) -> None:
        key = (kind, path)
        seen = self.repeats.get(key)
        if seen is None:
            seen = self.repeats[key] = {}
        seen[digest] = seen.get(digest, 0) + 1

    def _walk(self, kind: str, path: str, value: dict[str, Any] | list[Any],
              data: bytes | None = None, low: int = 0, high: int = 0, *,
              own: bool = True) -> int | None:
        """Count the members of ``value`` (at ``path``) of at least :data:`SMALL_BYTES`, and
        digest the heavy ones, at every depth (array elements share the path ``[*]``); answer
        ``value``'s own digest when its members' writings were found in ``data`` (else None:
        the caller digests its writing).

        ``data`` is orjson's writing of the line, holding ``value``'s at ``data[low:high]``;
        the members of a wrapper or a small object are read from it (:func:`_spans`), and the
        digest of such a value is the CRC-32 of its writing with each heavy member's writing
        replaced by that member's digest, so that each byte is read once whatever the depth.
        Which of the paths that repeat alike is named is decided in the report
        (:func:`_named`). With ``own`` False (the line itself, whose digest nobody counts)
        no digest of ``value`` is made."""
        spanned = data is not None and (len(value) == 1 if isinstance(value, list)
                                        else len(value) <= SPANNED_MEMBERS)
        if spanned:
            members: Any = _spans(value, data, low, high)
            view = memoryview(data)  # type: ignore[arg-type]
        elif isinstance(value, dict):
            members = ((key, item, None) for key, item in value.items())
        else:
            members = (("[*]", item, None) for item in value)
        crc = 0
        position = low
        for key, item, span in members:
            if isinstance(item, str):
                # a string is counted by its serialized size when it is large (exact, and
                # digested to count repeats); a small one only in its parent's bytes
                if len(item) < SMALL_BYTES:
                    continue
                if span is None or data is None:
                    dumped: bytes | memoryview = _dump(item)
                else:
                    dumped = memoryview(data)[span[0]:span[1]]
                size = len(dumped)
                child = f"{path}{key}" if key == "[*]" else \
                    f"{path}.{key if key.isascii() else well_formed(key)}"
                self._count(kind, child, size)
                if size < HEAVY_BYTES:
                    continue
                digest = crc32(dumped) | size << 32
            elif isinstance(item, dict | list):
                if span is None or data is None:
                    inner = _dump(item)
                    start, stop = 0, len(inner)
                else:
                    inner, (start, stop) = data, span
                size = stop - start
                if size < SMALL_BYTES:
                    continue
                child = f"{path}{key}" if key == "[*]" else \
                    f"{path}.{key if key.isascii() else well_formed(key)}"
                self._count(kind, child, size)
                if size < HEAVY_BYTES:
                    continue
                found = self._walk(kind, child, item, inner, start, stop)
                digest = found if found is not None else \
                    crc32(memoryview(inner)[start:stop]) | size << 32
            else:
                continue
            self._record(kind, child, digest)
            if spanned and own and span is not None:
                crc = crc32(view[position:span[0]], crc)
                crc = crc32(digest.to_bytes(16, "little"), crc)
                position = span[1]
        if not spanned or not own:
            return None
        return crc32(view[position:high], crc) | (high - low) << 32

    def merge(self, other: ByteStats) -> None:
        for kind, (lines, size) in other.by_type.items():
            totals = self.by_type.setdefault(kind, [0, 0])
            totals[0] += lines
            totals[1] += size
        for key, (count, size) in other.by_path.items():
            totals = self.by_path.setdefault(key, [0, 0])
            totals[0] += count
            totals[1] += size
        for key, seen in other.repeats.items():
            mine = self.repeats.setdefault(key, {})
            for digest, count in seen.items():
                mine[digest] = mine.get(digest, 0) + count
        for entry in other.largest:
            if len(self.largest) < LARGEST:
                heapq.heappush(self.largest, entry)
            elif entry > self.largest[0]:
                heapq.heapreplace(self.largest, entry)
        for name, figures in other.files.items():
            mine_file = self.files.get(name)
            if mine_file is None:
                self.files[name] = figures
                continue
            mine_file.lines += figures.lines
            mine_file.bytes += figures.bytes
            mine_file.facts_only += figures.facts_only
            mine_file.projected = mine_file.projected and figures.projected
            mine_file.along.merge(figures.along)

    def shift_lines(self, name: str, by: int) -> None:
        self.largest = [(size, file, number + by if file == name else number, offset, kind)
                        for size, file, number, offset, kind in self.largest]
        heapq.heapify(self.largest)

    # -- the report's part --------------------------------------------------------------------

    def document(self) -> dict[str, Any]:
        total = sum(size for _, size in self.by_type.values())
        lines = sum(count for count, _ in self.by_type.values())
        projected = [figures for figures in self.files.values() if figures.projected]
        facts_before = sum(figures.bytes for figures in projected)
        facts_after = sum(figures.facts_only for figures in projected)
        paths = sorted(self.by_path.items(), key=lambda item: (-item[1][1], item[0]))
        repeated: list[dict[str, Any]] = []
        for (kind, path), seen in self.repeats.items():
            occurrences = sum(seen.values())
            if occurrences > len(seen):
                size = self.by_path[(kind, path)][1]
                again = sum((count - 1) * (digest >> 32) for digest, count in seen.items())
                repeated.append({"type": kind, "path": path, "distinct": len(seen),
                                 "occurrences": occurrences, "bytes": size,
                                 "repeatedBytes": again})
        repeated = _named(repeated)
        repeated.sort(key=lambda entry: (-entry["repeatedBytes"], -entry["bytes"], entry["type"],
                                         entry["path"]))
        return {
            "lines": lines,
            "bytes": total,
            "byType": [{"type": kind, "lines": count, "bytes": size,
                        "share": size / total if total else 0.0}
                       for kind, (count, size) in sorted(self.by_type.items(),
                                                        key=lambda item: (-item[1][1], item[0]))],
            "byPath": [{"type": kind, "path": path, "count": count, "bytes": size,
                        "share": size / total if total else 0.0}
                       for (kind, path), (count, size) in paths[:PATHS_SHOWN]],
            "repeated": repeated[:PATHS_SHOWN],
            "largestLines": [{"file": name, "line": number, "offset": offset, "bytes": size,
                              "type": kind}
                             for size, name, number, offset, kind in
                             sorted(self.largest, key=lambda entry: (-entry[0], entry[1:]))],
            "factsOnly": None if not projected else {
                "bytes": facts_before, "projectedBytes": facts_after,
                "ratio": facts_before / facts_after if facts_after else None},
            "files": [{"file": name, "lines": figures.lines, "bytes": figures.bytes,
                       "factsOnlyBytes": figures.facts_only if figures.projected else None,
                       "along": {"binBytes": figures.along.width,
                                 "bins": [{"index": index, "bytes": dict(sorted(row.items()))}
                                          for index, row in sorted(figures.along.bins.items())]}}
                      for name, figures in self.files.items()],
        }
