"""Turn a saved pytest-benchmark run into the figures of docs/benchmark.md.

Reads the newest run saved under the benchmark storage (``--benchmark-autosave``), or the file
given with ``--json`` (``--benchmark-json``), and prints:

- the stream table: the reference's whole projection next to ``orjson.dumps`` and ``json.dumps``
  of the same events, as ratios measured in that one run;
- the backstop on 1 MiB texts: time per MiB per text kind, serializations, and the cost in
  plain serializations of the same update;
- the linearity table: time per byte at four input sizes;
- throughput against event size;
- the amplification table (computed here: it is a byte count, not a timing).

It writes the tables to ``docs/benchmark-results.md`` and two plots (matplotlib, Agg) to
``docs/img/throughput.svg`` and ``docs/img/amplification.svg`` under ``--out`` (default: the
repository). The storage is ``--storage``, else ``$EVENTPROOF_BENCH_STORAGE``, else
``.benchmarks`` in the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE) not in sys.path:  # run as a script or imported: amplification sits beside it
    sys.path.insert(0, str(HERE))

MiB = 1024 * 1024
#: The target of docs/benchmark.md: whole projection within this factor of orjson.dumps.
TARGET_RATIO = 1.5

Bench = dict[str, Any]


class ReportError(Exception):
    """A problem the user can fix (no run saved, an unreadable file): one line, exit code 2."""


# -- loading ------------------------------------------------------------------------------------


def latest_run(storage: Path) -> Path:
    """The newest saved run under ``storage`` (pytest-benchmark keeps one folder per machine)."""
    if not storage.is_dir():
        raise ReportError(
            f"the benchmark storage {storage} does not exist: run `nox -s bench` (or pytest "
            "tests/benchmarks --benchmark-autosave --benchmark-storage DIR) first, or pass "
            "--storage DIR / --json FILE")
    runs = sorted(storage.rglob("*.json"), key=lambda path: (path.stat().st_mtime, path.name))
    if not runs:
        raise ReportError(
            f"no saved run in {storage}: run the benchmarks with --benchmark-autosave first")
    return runs[-1]


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ReportError(f"cannot read the benchmark run {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ReportError(f"{path} is not a pytest-benchmark JSON file (no 'benchmarks' list)")
    return data


def figure(data: dict[str, Any], name: str) -> list[Bench]:
    return [bench for bench in data["benchmarks"]
            if bench.get("extra_info", {}).get("figure") == name]


def median(bench: Bench) -> float:
    return float(bench["stats"]["median"])


def _index(benches: Iterable[Bench], *keys: str) -> dict[tuple[Any, ...], Bench]:
    return {tuple(bench["extra_info"][key] for key in keys): bench for bench in benches}


# -- tables ----------------------------------------------------------------------------------------


def markdown(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f}" if seconds >= 0.01 else f"{seconds * 1e3:,.3f}"


def _ratio(numerator: Bench | None, denominator: Bench | None) -> float | None:
    if numerator is None or denominator is None:
        return None
    return median(numerator) / median(denominator)


def _x(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def stream_tables(data: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    benches = _index(figure(data, "stream"), "stream", "subject")
    streams = sorted({stream for stream, _ in benches},
                     key=lambda name: ("realistic", "escape", "astral").index(name)
                     if name in ("realistic", "escape", "astral") else 9)
    if not streams:
        return "(no stream benchmarks in this run)", []
    summary: list[dict[str, Any]] = []
    times, ratios = [], []
    for stream in streams:
        get = {subject: benches.get((stream, subject)) for subject in (
            "reference-halving", "reference-maximal", "orjson", "json", "orjson-lines")}
        info = next(bench["extra_info"] for bench in get.values() if bench is not None)
        mib = info["input_bytes"] / MiB
        times.append([
            stream, f"{info['events']:,}", f"{mib:,.1f}",
            *(_ms(median(bench)) if bench else "n/a" for bench in get.values()),
            f"{info.get('events_with_floats', 0) / info['events']:.0%}",
            (get["reference-halving"] or {}).get("extra_info", {}).get("bounded_lines", "n/a"),
        ])
        row: dict[str, Any] = {"stream": stream}
        for fit in ("halving", "maximal"):
            reference = get[f"reference-{fit}"]
            row[f"{fit}/orjson"] = _ratio(reference, get["orjson"])
            row[f"{fit}/json"] = _ratio(reference, get["json"])
            row[f"{fit}/orjson-lines"] = _ratio(reference, get["orjson-lines"])
            row[f"{fit} MB/s"] = (info["input_bytes"] / 1e6 / median(reference)
                                  if reference else None)
        row["orjson MB/s"] = info["input_bytes"] / 1e6 / median(get["orjson"]) if get[
            "orjson"] else None
        summary.append(row)
        meets = [row[f"{fit}/orjson"] for fit in ("halving", "maximal")]
        ratios.append([
            stream, _x(row["halving/orjson"]), _x(row["maximal/orjson"]), _x(row["halving/json"]),
            _x(row["maximal/json"]), _x(row["halving/orjson-lines"]),
            _x(row["maximal/orjson-lines"]),
            "n/a" if None in meets else ("yes" if max(meets) <= TARGET_RATIO else "no"),
        ])
    time_table = markdown(
        ["stream", "events", "input MiB", "reference halving ms", "reference maximal ms",
         "orjson ms", "json ms", "orjson of the output lines ms", "events with floats",
         "bounded lines"], times)
    ratio_table = markdown(
        ["stream", "halving / orjson", "maximal / orjson", "halving / json", "maximal / json",
         "halving / orjson(lines)", "maximal / orjson(lines)",
         f"within {TARGET_RATIO}x of orjson"], ratios)
    return time_table + "\n\nRatios (median / median, one run):\n\n" + ratio_table, summary


def backstop_table(data: dict[str, Any]) -> str:
    benches = _index(figure(data, "backstop"), "text_kind", "subject")
    kinds = [kind for kind in ("ascii", "cjk", "emoji", "nul")
             if any(key[0] == kind for key in benches)]
    if not kinds:
        return "(no backstop benchmarks in this run)"
    rows = []
    for kind in kinds:
        plain = benches.get((kind, "orjson-update"))
        for subject in ("halving", "maximal", "maximal-clear"):
            bench = benches.get((kind, subject))
            if bench is None:
                continue
            info = bench["extra_info"]
            rows.append([
                kind, subject, _ms(median(bench)),
                _ms(median(bench) / (info["text_bytes"] / MiB)),
                f"{info['serializations']} (bound {info['serialization_bound']})",
                f"{info['tail_code_points']:,} of {info['code_points']:,}",
                _x(_ratio(bench, plain)),
            ])
    return markdown(["text (1 MiB UTF-8)", "strategy", "median ms", "ms per MiB",
                     "serializations", "tail kept (code points)",
                     "x one orjson.dumps of the update"], rows)


def linearity_table(data: dict[str, Any]) -> str:
    benches = figure(data, "linearity")
    if not benches:
        return "(no linearity benchmarks in this run)"
    plain = _index((bench for bench in benches
                    if bench["extra_info"]["subject"] == "orjson-update"), "size")
    rows = []
    growth = []
    for subject in ("halving", "maximal"):
        mine = sorted((bench for bench in benches if bench["extra_info"]["subject"] == subject),
                      key=lambda bench: bench["extra_info"]["size"])
        per_byte = []
        for bench in mine:
            info = bench["extra_info"]
            ns = median(bench) / info["text_bytes"] * 1e9
            per_byte.append(ns)
            rows.append([subject, f"{info['size'] // 1024:,} KiB", _ms(median(bench)),
                         f"{ns:.2f}", info["serializations"],
                         _x(_ratio(bench, plain.get((info["size"],))))])
        if len(per_byte) > 1:
            growth.append(f"{subject} {per_byte[-1] / per_byte[0]:.2f}")
    table = markdown(["strategy", "input", "median ms", "ns per input byte", "serializations",
                      "x one orjson.dumps of the update"], rows)
    return (table + "\n\nTime per byte at the largest input divided by time per byte at the "
            "smallest: " + ", ".join(growth) + " (at most about 1 means no worse than linear; "
            "below 1, a fixed cost is spread over more bytes).")


def event_size_table(data: dict[str, Any]) -> tuple[str, dict[str, list[tuple[int, float]]]]:
    benches = figure(data, "event-size")
    series: dict[str, list[tuple[int, float]]] = {}
    for bench in benches:
        info = bench["extra_info"]
        throughput = info["input_bytes"] / 1e6 / median(bench)
        series.setdefault(info["subject"], []).append((info["size"], throughput))
    for points in series.values():
        points.sort()
    if not series:
        return "(no event-size benchmarks in this run)", series
    sizes = sorted({size for points in series.values() for size, _ in points})
    lookup = {subject: dict(points) for subject, points in series.items()}
    rows = []
    for size in sizes:
        reference = lookup.get("reference", {}).get(size)
        orjson = lookup.get("orjson", {}).get(size)
        rows.append([
            f"{size:,}", *(f"{lookup.get(subject, {}).get(size, float('nan')):,.0f}"
                           for subject in ("reference", "orjson", "json")),
            _x(orjson / reference if reference and orjson else None),
        ])
    return markdown(["event text bytes", "reference MB/s", "orjson MB/s", "json MB/s",
                     "reference time / orjson time"], rows), series


# -- plots ----------------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "eventproof"  # stable ids: plots diff cleanly
    import matplotlib.pyplot as plt

    return plt


def plot_throughput(series: dict[str, list[tuple[int, float]]], path: Path) -> None:
    plt = _pyplot()
    figure_, axes = plt.subplots(figsize=(7, 4.2))
    labels = {"reference": "reference projection", "orjson": "orjson.dumps",
              "json": "json.dumps + encode"}
    for subject in ("orjson", "json", "reference"):
        points = series.get(subject)
        if points:
            axes.plot([size for size, _ in points], [mbs for _, mbs in points], marker="o",
                      label=labels[subject])
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("tool output per event (bytes)")
    axes.set_ylabel("throughput (MB of input JSON per second)")
    axes.set_title("Projection throughput against event size (facts, fresh objects)")
    _finish(plt, figure_, axes, path)


def _finish(plt: Any, figure_: Any, axes: Any, path: Path) -> None:
    """Grid, legend and layout, then write ``path`` as SVG (no date: the file is reproducible)."""
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure_.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure_.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure_)


def plot_amplification(rows: Sequence[Any], path: Path) -> None:
    plt = _pyplot()
    figure_, axes = plt.subplots(figsize=(7, 4.2))
    turns = [row.child.turns for row in rows]
    for attribute, label in (("naive", "(a) naive: every update re-sends the transcript"),
                             ("live", "(c) live events opted in, bounded at 256 KiB"),
                             ("facts", "(b) facts only (the default)")):
        axes.plot(turns, [getattr(row, attribute).bytes / MiB for row in rows], marker="o",
                  label=label)
    axes.set_yscale("log")
    axes.set_xticks(turns, [f"{row.child.turns} turns\n{row.child.deltas} deltas/turn\n"
                            f"{row.child.result_bytes // 1000} KB results" for row in rows])
    axes.set_xlabel("simulated child")
    axes.set_ylabel("parent's JSONL record (MiB)")
    axes.set_title("Record size against child size")
    _finish(plt, figure_, axes, path)


# -- the whole report -----------------------------------------------------------------------------


def _machine(data: dict[str, Any]) -> str:
    machine = data.get("machine_info", {})
    cpu = machine.get("cpu", {})
    brand = cpu.get("brand_raw") or machine.get("processor") or "unknown CPU"
    cores = cpu.get("count", "?")
    python = machine.get("python_version", "?")
    implementation = machine.get("python_implementation", "Python")
    return f"{brand}, {cores} logical CPUs, {implementation} {python}"


def _settings(data: dict[str, Any]) -> str:
    benches = data["benchmarks"]
    timers = {bench.get("options", {}).get("timer", "?") for bench in benches}
    rounds = statistics.median([bench["stats"]["rounds"] for bench in benches]) if benches else 0
    return f"timer {', '.join(sorted(timers))}; median rounds per benchmark {rounds:g}"


def build_report(data: dict[str, Any], source: Path, *, amplification_rows: Sequence[Any] | None
                 ) -> tuple[str, dict[str, list[tuple[int, float]]]]:
    stream_text, _ = stream_tables(data)
    size_text, series = event_size_table(data)
    parts = [
        "# Benchmark results",
        "",
        "Generated by `tests/benchmarks/report.py` from one saved run "
        f"(`{source.name}`, {data.get('datetime', 'unknown date')}). "
        "How to read and reproduce these figures: [benchmark.md](benchmark.md).",
        "",
        f"Machine: {_machine(data)}; {_settings(data)}. Times are medians; every figure that "
        "compares two subjects is a ratio of medians from this same run.",
        "",
        "## Whole projection against plain serialization",
        "",
        stream_text,
        "",
        "## The backstop alone (1 MiB texts, maxBytes 262144)",
        "",
        backstop_table(data),
        "",
        "## Linearity (tool output, maxBytes 65536)",
        "",
        linearity_table(data),
        "",
        "## Throughput against event size",
        "",
        size_text,
        "",
        "![throughput against event size](img/throughput.svg)",
        "",
    ]
    if amplification_rows is not None:
        import amplification

        parts += [
            "## Amplification",
            "",
            amplification.format_table(list(amplification_rows)),
            "",
            "![record size against child size](img/amplification.svg)",
            "",
        ]
    return "\n".join(parts), series


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--storage", type=Path,
                        default=Path(os.environ.get("EVENTPROOF_BENCH_STORAGE",
                                                    ROOT / ".benchmarks")),
                        help="pytest-benchmark storage to take the newest run from "
                             "(default: $EVENTPROOF_BENCH_STORAGE or .benchmarks)")
    parser.add_argument("--json", type=Path, default=None,
                        help="read this run instead (a --benchmark-json or saved file)")
    parser.add_argument("--out", type=Path, default=ROOT,
                        help="write docs/benchmark-results.md and docs/img/*.svg under this "
                             "directory (default: the repository)")
    parser.add_argument("--no-amplification", action="store_true",
                        help="skip the amplification table")
    parser.add_argument("--no-write", action="store_true", help="print only; write no files")
    args = parser.parse_args(argv)
    try:
        source = args.json if args.json is not None else latest_run(args.storage)
        data = load(source)
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    rows = None
    if not args.no_amplification:
        import amplification

        rows = amplification.amplification_table()
    text, series = build_report(data, source, amplification_rows=rows)
    print(text)
    if not args.no_write:
        docs = args.out / "docs"
        docs.mkdir(parents=True, exist_ok=True)
        (docs / "benchmark-results.md").write_text(text, encoding="utf-8")
        if series:
            plot_throughput(series, docs / "img" / "throughput.svg")
        if rows is not None:
            plot_amplification(rows, docs / "img" / "amplification.svg")
        print(f"\nwrote {docs / 'benchmark-results.md'} and the plots in {docs / 'img'}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
