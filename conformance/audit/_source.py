"""Where an audit's lines come from: files, directories, globs and standard input, plain,
gzip or Zstandard, read one line at a time (a file is never loaded whole)."""

from __future__ import annotations

import glob
import gzip
import io
import itertools
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

#: Suffixes of Zstandard files (dsh writes ``session.jsonl.zstd``).
ZSTD_SUFFIXES = (".zst", ".zstd")
#: File names a directory is searched for.
LOG_SUFFIXES = (".jsonl", ".ndjson", ".log", ".jsonl.gz", ".ndjson.gz", ".log.gz",
                *(f".jsonl{suffix}" for suffix in ZSTD_SUFFIXES),
                *(f".ndjson{suffix}" for suffix in ZSTD_SUFFIXES))
#: Bytes read at a time from a plain file.
BUFFER = 1 << 20
#: The longest line read by default (``--max-line-bytes``): a line is one event, and the audit
#: holds a small multiple of its largest line in memory.
MAX_LINE_BYTES = 64 << 20
STDIN = "-"


class SourceError(Exception):
    """A log that cannot be read at all: names it, says why and what to do."""


@dataclass(frozen=True)
class Source:
    """One log to audit: a path (or ``-``) and, for a chunk of a large plain file, the byte
    range it covers."""

    path: str
    start: int = 0
    end: int | None = None

    @property
    def label(self) -> str:
        if self.path == STDIN:
            return "<stdin>"
        # a file name that is not UTF-8 holds lone surrogates (os.fsdecode): shown escaped
        return self.path.encode("utf-8", "backslashreplace").decode("utf-8")

    def compression(self) -> str:
        name = self.path.lower()
        if name.endswith(".gz"):
            return "gzip"
        if name.endswith(ZSTD_SUFFIXES):
            return "zstd"
        return "none"


def expand(arguments: tuple[str, ...]) -> list[Source]:
    """Every log named by ``arguments``: files as given, directories searched (recursively, in
    name order) for JSON Lines files, globs expanded; ``-`` is standard input."""
    found: list[Source] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        if path not in seen:
            seen.add(path)
            found.append(Source(path))

    for argument in arguments:
        if argument == STDIN:
            add(STDIN)
            continue
        path = Path(argument)
        if path.is_dir():
            logs = sorted(str(entry) for entry in path.rglob("*")
                          if entry.is_file() and entry.name.lower().endswith(LOG_SUFFIXES))
            if not logs:
                raise SourceError(
                    f"{argument}: this directory holds no log (no file ending in "
                    f"{', '.join(LOG_SUFFIXES[:3])}, .gz, .zst). Name the log files, or the "
                    "directory a harness wrote them to")
            for log in logs:
                add(log)
        elif path.exists():
            add(argument)
        elif glob.has_magic(argument):
            matches = sorted(glob.glob(argument, recursive=True))
            if not matches:
                raise SourceError(f"{argument}: no file matches this pattern. Check the pattern, "
                                  "or quote it so that the shell passes it on")
            for match in matches:
                if Path(match).is_dir():
                    found.extend(source for source in expand((match,)) if source.path not in seen)
                    seen.update(source.path for source in found)
                else:
                    add(match)
        else:
            raise SourceError(f"{argument}: no such file or directory. Name a log file, a "
                              "directory of logs, a glob, or - for standard input")
    return found


def _zstd_reader(raw: BinaryIO, label: str) -> BinaryIO:
    try:
        import zstandard
    except ImportError:
        raise SourceError(
            f"{label}: is Zstandard-compressed, and reading it needs the zstandard package. "
            "Install it (pip install 'eventproof[zstd]' or pip install zstandard), or "
            f"decompress the file first (zstd -d {label})") from None
    reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return io.BufferedReader(reader, BUFFER)


def open_source(source: Source) -> BinaryIO:
    """The decompressed bytes of ``source`` as a buffered binary stream, positioned at its
    start; raises :class:`SourceError` naming the file when it cannot be opened."""
    try:
        if source.path == STDIN:
            raw: BinaryIO = sys.stdin.buffer
        else:
            raw = open(source.path, "rb", buffering=BUFFER)  # noqa: SIM115 - returned
    except OSError as error:
        raise SourceError(f"{source.label}: cannot be read ({error.strerror or error}). Check "
                          "the path and its permissions") from None
    kind = source.compression()
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if kind == "zstd":
        return _zstd_reader(raw, source.label)
    if source.start:
        raw.seek(source.start)
    return raw


def read_lines(source: Source,
               max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """``(byte offset, line)`` for every line of ``source`` (the line feed kept when present),
    one at a time. A decompression failure raises :class:`SourceError` with the offset, and so
    does a line longer than ``max_line_bytes`` (an endless input, ``/dev/zero``, stops there)."""
    stream = open_source(source)
    offset = source.start
    end = source.end
    number = 0
    try:
        while True:
            if end is not None and offset >= end:
                return
            try:
                line = stream.readline(max_line_bytes + 1)
            except (OSError, EOFError, ValueError) as error:
                raise SourceError(
                    f"{source.label}: the {source.compression()} stream is damaged after byte "
                    f"{offset} of its content ({error}). The lines before it were audited; "
                    "recompress the log or audit the part that is intact") from None
            except Exception as error:  # zstandard.ZstdError is not an OSError
                raise SourceError(
                    f"{source.label}: the {source.compression()} stream is damaged after byte "
                    f"{offset} of its content ({type(error).__name__}: {error}). Recompress the "
                    "log or audit the part that is intact") from None
            if not line:
                return
            number += 1
            if len(line) > max_line_bytes:
                raise SourceError(
                    f"{source.label}: line {number:,} (byte {offset:,} of its content) is longer "
                    f"than {max_line_bytes:,} bytes, the longest line the audit reads: it stopped "
                    "reading this file there (the lines before it were audited). A log holds one "
                    "event per line; if this file is a log whose events are that large, audit it "
                    "with --max-line-bytes N (N more than the line's length), else check that it "
                    "is a log at all")
            yield offset, line
            offset += len(line)
    finally:
        if source.path != STDIN:
            stream.close()


def chunks(source: Source, count: int, minimum: int = 64 << 20) -> list[Source]:
    """``source`` split at line boundaries into at most ``count`` byte ranges of at least
    ``minimum`` bytes (only a plain, seekable file splits)."""
    if count <= 1 or source.path == STDIN or source.compression() != "none":
        return [source]
    try:
        size = os.path.getsize(source.path)
    except OSError:
        return [source]
    count = min(count, max(1, size // minimum))
    if count <= 1:
        return [source]
    bounds = [0]
    with open(source.path, "rb") as stream:
        for index in range(1, count):
            stream.seek(max(bounds[-1], size * index // count))
            if stream.tell() > 0:
                stream.seek(stream.tell() - 1)
                while True:  # to the start of the next line, in bounded reads
                    piece = stream.readline(BUFFER)
                    if not piece or piece.endswith(b"\n"):
                        break
            bounds.append(stream.tell())
    bounds.append(size)
    # the last chunk runs to the end of the file (it judges whether the last line is whole)
    return [Source(source.path, start, end if end < size else None)
            for start, end in itertools.pairwise(bounds) if end > start]


def size_of(source: Source) -> int | None:
    """The bytes ``source`` covers on disk, when known (progress and plot widths)."""
    if source.path == STDIN:
        return None
    try:
        size = os.path.getsize(source.path)
    except OSError:
        return None
    if source.end is not None:
        return source.end - source.start
    return size
