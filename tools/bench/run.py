"""Measure projection against plain serialization and write every published figure.

    python tools/bench/run.py --out DIR                 # what `nox -s bench` runs (scratch)
    python tools/bench/run.py --out . --readme README.md  # `nox -s bench-publish`

Every timing is paired (:mod:`paired`): in each round every variant runs once on freshly built
objects, in an order that rotates, and a ratio is taken within the round; the figures are the
median of those ratios with their quartiles and range, so drift of a shared machine that lasts
longer than a round cancels. The timer is process time (this process's CPU time, user and
system), which other jobs on the machine do not inflate.

Written under ``--out``: ``docs/benchmark-results.md``, ``docs/img/throughput.svg``,
``docs/img/ratios.svg``, ``docs/img/amplification.svg`` and ``docs/benchmark-results.json`` (every
round's times). With ``--readme FILE`` the Throughput bullet between the markers
``<!-- bench:throughput -->`` and ``<!-- /bench:throughput -->`` is rewritten from the same
figures, so the README, the results page and the plots always come from one run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE) not in sys.path:  # run as a script: the helpers sit beside it
    sys.path.insert(0, str(HERE))

import orjson  # noqa: E402
from eventproof.conformance._workloads import (  # noqa: E402
    STREAM_KINDS,
    TRANSCRIPT_TURNS,
    build_workload,
    child_transcript,
    json_size,
    live_update,
    sized_events,
)
from eventproof.reference import (  # noqa: E402
    DEFAULT_MAX_BYTES,
    MARKER,
    project_event,
)
from eventproof.reference._backstop import BoundStats, bound_live_update  # noqa: E402
from paired import (  # noqa: E402
    Spread,
    Variant,
    measure,
    orjson_stream,
    peak_memory,
    project_stream,
)

KiB, MiB = 1024, 1024 * 1024
FITS = ("halving", "maximal")
#: The two streams of the target, the two escape- and astral-heavy ones, a child's transcript
#: (seed 002's 20 turns x 150 deltas, docs/benchmark.md) and facts of 256 and 1,024 code points.
STREAMS = (*STREAM_KINDS, "transcript", "facts-256", "facts-1k")
#: The target of docs/benchmark.md: the whole projection within this factor of orjson.dumps.
TARGET_RATIO = 1.15
#: Where a stream's target differs: small facts, whose fixed per-event cost orjson's C code
#: does not pay (docs/benchmark.md).
TARGET_RATIOS = {"facts-256": 2.0, "facts-1k": 1.3}
#: The projections each stream is timed with: both fits with live events, and facts only.
PROJECTIONS = (*FITS, "facts only")
#: The memory target: peak allocation while projecting one update, over its UTF-8 size.
MEMORY_TARGET = 2.5
BACKSTOP_KINDS = ("ascii", "cjk", "emoji", "nul", "control")
MEMORY_KINDS = ("ascii", "cjk", "emoji", "control")
EVENT_SIZES = (256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB)
EVENT_SIZE_BYTES_PER_ROUND = 4 * MiB
BEGIN, END = "<!-- bench:throughput -->", "<!-- /bench:throughput -->"
COMMAND = "nox -s bench-publish"


# -- what is timed ---------------------------------------------------------------------------


def project_one(fit: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Callable[[Any], bytes | None]:
    def run(update: Any) -> bytes | None:
        return project_event(update, include_live_events=True, max_bytes=max_bytes,
                             fit_strategy=fit)

    return run


def _bounded(lines: Sequence[bytes]) -> int:
    marker = orjson.dumps(MARKER)[1:-1]
    return sum(1 for line in lines
               if line.startswith(b'{"type":"tool_execution_update"') and marker in line)


# -- figures ---------------------------------------------------------------------------------


def target(kind: str) -> float:
    return TARGET_RATIOS.get(kind, TARGET_RATIO)


def build(kind: str, *, events: int, scale: float, well_formed: bool = False,
          turns: int = TRANSCRIPT_TURNS) -> Any:
    """The events of one stream: ``transcript`` is seed 002's child (``turns`` turns of 150
    deltas, however many events that makes), every other stream has ``events`` events."""
    if kind == "transcript":
        return child_transcript(turns=turns, scale=scale)
    return build_workload(kind, events=events, scale=scale, well_formed=well_formed)


def stream_figure(kinds: Sequence[str], *, events: int, scale: float, rounds: int,
                  warmup: int, batch: int | None = None,
                  turns: int = TRANSCRIPT_TURNS) -> list[dict[str, Any]]:
    rows = []
    for kind in kinds:
        def plain(kind: str = kind) -> Any:
            # orjson refuses lone surrogates: it gets the stream with each one replaced by
            # U+FFFD, which is what the canonical form writes (wire.md §6.1).
            return build(kind, events=events, scale=scale, well_formed=True, turns=turns)

        def raw(kind: str = kind) -> Any:
            return build(kind, events=events, scale=scale, turns=turns)

        variants = [Variant("orjson", plain, orjson_stream)]
        variants += [Variant(fit, raw, project_stream(fit)) for fit in FITS]
        variants.append(Variant("facts only", raw,
                                project_stream("halving", include_live_events=False)))
        paired = measure(variants, rounds=rounds, warmup=warmup, batch=batch)
        lines = paired.results["halving"]
        assert all(len(line) <= DEFAULT_MAX_BYTES for line in lines
                   if line.startswith(b'{"type":"tool_execution_update"'))
        sample = raw()
        rows.append({
            "stream": kind, "events": len(sample), "input_bytes": json_size(sample),
            "bounded_lines": _bounded(lines), "times": paired.times,
            "orjson_ms": paired.median("orjson") * 1e3, "target": target(kind),
            **{name: Spread.of(paired.ratios(name, "orjson")).__dict__
               for name in PROJECTIONS},
        })
        print(f"stream {kind}: " + ", ".join(
            f"{name} {Spread.of(paired.ratios(name, 'orjson')).text()}"
            for name in PROJECTIONS), file=sys.stderr, flush=True)
    return rows


def backstop_figure(*, size: int, rounds: int, warmup: int) -> list[dict[str, Any]]:
    rows = []
    for kind in BACKSTOP_KINDS:
        def build(kind: str = kind) -> Any:
            return live_update(kind, size)

        variants = [Variant("orjson", build, orjson.dumps)]
        variants += [Variant(fit, build, project_one(fit)) for fit in FITS]
        paired = measure(variants, rounds=rounds, warmup=warmup)
        row: dict[str, Any] = {"text": kind, "text_bytes": size,
                               "orjson_ms": paired.median("orjson") * 1e3}
        for fit in FITS:
            stats = BoundStats()
            form = bound_live_update(build(), max_bytes=DEFAULT_MAX_BYTES, fit_strategy=fit,
                                     stats=stats)
            row[fit] = {**Spread.of(paired.ratios(fit, "orjson")).__dict__,
                        "ms": paired.median(fit) * 1e3, "serializations": stats.serializations,
                        "measured": stats.measured,
                        "tail": len(form["partialResult"]["content"][0]["text"]) - len(MARKER)}
        rows.append(row)
    return rows


def memory_figure(*, size: int) -> list[dict[str, Any]]:
    rows = []
    for kind in MEMORY_KINDS:
        def build(kind: str = kind) -> Any:
            return live_update(kind, size)

        text_bytes = len(build()["partialResult"]["content"][0]["text"].encode("utf-8"))
        row: dict[str, Any] = {"text": kind, "text_bytes": text_bytes}
        for name, run in (("orjson", orjson.dumps), *((fit, project_one(fit)) for fit in FITS)):
            peak, _ = peak_memory(build, run)
            row[name] = peak / text_bytes
        rows.append(row)
        print(f"memory {kind}: " + ", ".join(f"{name} {row[name]:.2f}x"
                                             for name in ("orjson", *FITS)),
              file=sys.stderr, flush=True)
    return rows


def event_size_figure(*, rounds: int, warmup: int) -> list[dict[str, Any]]:
    rows = []
    for size in EVENT_SIZES:
        count = max(4, EVENT_SIZE_BYTES_PER_ROUND // size)

        def build(size: int = size, count: int = count) -> Any:
            return sized_events(size, count)

        paired = measure([Variant("orjson", build, orjson_stream),
                          Variant("reference", build, project_stream("halving"))],
                         rounds=rounds, warmup=warmup)
        input_bytes = json_size(build())
        rows.append({
            "size": size, "events": count,
            "orjson_mbs": input_bytes / 1e6 / paired.median("orjson"),
            "reference_mbs": input_bytes / 1e6 / paired.median("reference"),
            "ratio": Spread.of(paired.ratios("reference", "orjson")).__dict__,
        })
    return rows


# -- the page --------------------------------------------------------------------------------


def markdown(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def spread(values: dict[str, Any]) -> str:
    return (f"{values['median']:.2f}x ({values['q1']:.2f}-{values['q3']:.2f}; "
            f"{values['low']:.2f}-{values['high']:.2f})")


def page(results: dict[str, Any]) -> str:
    settings = results["settings"]
    parts = [
        "# Benchmark results",
        "",
        f"Generated by `{results.get('command', COMMAND)}` (`tools/bench/run.py`) on "
        f"{results['date']}; do not "
        "edit by hand. How these figures are measured and how to read them: "
        "[benchmark.md](benchmark.md).",
        "",
        f"Machine: {results['machine']}. Timer: process time. Every ratio is taken within a "
        "round, between variants run back to back on fresh objects in a rotating order; the "
        "table gives the median of the per-round ratios, then (quartiles; lowest-highest). "
        f"{settings['rounds']} rounds after {settings['warmup']} warm-up round(s); streams of "
        f"{settings['events']:,} events.",
        "",
        "## Whole projection against `orjson.dumps` of the same events",
        "",
    ]
    rows = []
    for row in results["streams"]:
        goal = row.get("target", TARGET_RATIO)
        meets = all(row[name]["median"] <= goal for name in PROJECTIONS if name in row)
        facts = spread(row["facts only"]) if "facts only" in row else ""
        rows.append([row["stream"], f"{row['events']:,}", f"{row['input_bytes'] / MiB:,.1f}",
                     row["bounded_lines"], f"{row['orjson_ms']:,.1f}", facts,
                     spread(row["halving"]), spread(row["maximal"]),
                     f"{goal}x: {'yes' if meets else 'no'}"])
    parts += [markdown(["stream", "events", "input MiB", "bounded lines", "orjson ms (median)",
                        "facts only / orjson", "halving / orjson", "maximal / orjson",
                        "target: all three within"], rows), "",
              "`transcript` is a child agent's own stream, seed 002's 20 turns x 150 text "
              "deltas (each `message_update` carrying the partial message so far) and one tool "
              "a turn streaming 20 live updates, 1 KiB more output each; `facts-256` and "
              "`facts-1k` are `tool_execution_end` facts with 256 and 1,024 code points of tool "
              "output. *facts only* projects with `includeLiveEvents` false, the default of "
              "wire.md §4.1.", "",
              "![per-round ratios](img/ratios.svg)", ""]
    if results.get("backstop"):
        parts += [f"## One update of {results['settings']['backstop_bytes'] // MiB} MiB "
                  "(UTF-8, before escaping), maxBytes 262144", "",
                  "`project_event` of the update against one `orjson.dumps` of it. "
                  "*measured* counts the code points whose escaped cost the search measured.",
                  ""]
        rows = []
        for row in results["backstop"]:
            for fit in FITS:
                info = row[fit]
                rows.append([row["text"], fit, f"{info['ms']:,.3f}", spread(info),
                             info["serializations"], f"{info['measured']:,}",
                             f"{info['tail']:,}"])
        parts += [markdown(["text", "fit", "median ms", "x one orjson.dumps", "serializations",
                            "measured", "tail kept (code points)"], rows), ""]
    if results.get("memory"):
        parts += [f"## Peak memory for one {results['settings']['memory_bytes'] // MiB} MiB "
                  "update", "",
                  "Bytes allocated at the peak while the call runs (tracemalloc, the input "
                  "built before), over the text's UTF-8 size; `orjson.dumps` of the whole "
                  f"update for comparison. Target: at most {MEMORY_TARGET}x for both fits.", ""]
        rows = [[row["text"], f"{row['text_bytes'] / MiB:,.1f}", f"{row['orjson']:.2f}x",
                 f"{row['halving']:.2f}x", f"{row['maximal']:.2f}x"]
                for row in results["memory"]]
        parts += [markdown(["text", "UTF-8 MiB", "orjson.dumps", "halving", "maximal"], rows),
                  ""]
    if results.get("event_size"):
        rows = [[f"{row['size']:,}", f"{row['reference_mbs']:,.0f}", f"{row['orjson_mbs']:,.0f}",
                 spread(row["ratio"])] for row in results["event_size"]]
        parts += ["## Throughput against event size", "",
                  "`tool_execution_end` facts of one size, 4 MiB per round, projected "
                  "(halving) and serialized by orjson.", "",
                  markdown(["event text bytes", "reference MB/s", "orjson MB/s",
                            "reference / orjson"], rows), "",
                  "![throughput against event size](img/throughput.svg)", ""]
    if results.get("amplification"):
        parts += ["## Amplification", "", results["amplification"]["table"], "",
                  "![record size against child size](img/amplification.svg)", ""]
    return "\n".join(parts)


def bullet(results: dict[str, Any]) -> str:
    """The README's Throughput bullet, from the same figures as the page."""
    streams = {row["stream"]: row for row in results["streams"]}
    parts = []
    for name in ("light", "heavy"):
        row = streams.get(name)
        if row is not None:
            parts.append(f"{row['halving']['median']:.2f}× (halving) and "
                         f"{row['maximal']['median']:.2f}× (maximal) on the {name} stream "
                         f"({row['events']:,} events, {row['bounded_lines']} bounded)")
    row = streams.get("transcript")
    if row is not None:
        parts.append(f"{row['halving']['median']:.2f}× (live) and "
                     f"{row['facts only']['median']:.2f}× (facts only) on a child's transcript "
                     f"({row['events']:,} events)")
    small = [streams[name] for name in ("facts-256", "facts-1k") if name in streams]
    if small:
        parts.append(" and ".join(f"{row['halving']['median']:.2f}×" for row in small)
                     + " on facts of " + " and ".join(
                         {"facts-256": "256", "facts-1k": "1,024"}[row["stream"]]
                         for row in small) + " code points of tool output")
    text = (f"- **Throughput** (`{results.get('command', COMMAND)}`, process time, median of "
            "per-round ratios over "
            f"{results['settings']['rounds']} interleaved rounds): against `orjson.dumps` of "
            "the same events, the whole projection takes " + "; ".join(parts))
    if results.get("memory"):
        worst = max(row[fit] for row in results["memory"] for fit in FITS)
        text += (f"; bounding one {results['settings']['memory_bytes'] // MiB} MiB update "
                 f"allocates at most {worst:.2f}× its UTF-8 size")
    text += (". The fast fits make at most two serializations of an update. See "
             "[docs/benchmark-results.md](docs/benchmark-results.md) and "
             "[docs/benchmark.md](docs/benchmark.md)")
    amplification = results.get("amplification")
    if amplification:
        text += (f" (the amplification table there: a 40-turn child, "
                 f"{amplification['naive_40']:,.0f} MiB written naively, "
                 f"{amplification['facts_40']:.3f} MiB facts-only)")
    return text + "."


def command(argv: Sequence[str]) -> str:
    """The command that reproduces a run: bench-publish with the options given beyond where
    the figures go."""
    options: list[str] = []
    skip_next = False
    for argument in argv:
        if skip_next:
            skip_next = False
        elif argument in ("--out", "--readme"):
            skip_next = True
        elif not argument.startswith(("--out=", "--readme=")):
            options.append(argument)
    return COMMAND + (" -- " + " ".join(options) if options else "")


def rewrite_readme(path: Path, text: str) -> None:
    readme = path.read_text(encoding="utf-8")
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"error: {path} has no {BEGIN} ... {END} block around the Throughput "
                         "bullet; add the two markers, one line each, around it")
    readme = readme[:start + len(BEGIN)] + "\n" + text + "\n" + readme[end:]
    path.write_text(readme, encoding="utf-8")


# -- plots -----------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "eventproof"  # stable ids: plots diff cleanly
    import matplotlib.pyplot as plt

    return plt


def _finish(plt: Any, figure: Any, axes: Any, path: Path) -> None:
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure)


def plot_ratios(streams: Sequence[dict[str, Any]], path: Path) -> None:
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.2))
    for offset, fit in ((-0.12, "halving"), (0.12, "maximal")):
        for index, row in enumerate(streams):
            ratios = [mine / base for mine, base in zip(row["times"][fit], row["times"]["orjson"],
                                                        strict=True)]
            axes.scatter([index + offset] * len(ratios), ratios, s=12, alpha=0.6,
                         color="C0" if fit == "halving" else "C1",
                         label=fit if index == 0 else None)
            axes.plot([index + offset - 0.08, index + offset + 0.08], [row[fit]["median"]] * 2,
                      color="black")
    for index, row in enumerate(streams):
        axes.plot([index - 0.3, index + 0.3], [row.get("target", TARGET_RATIO)] * 2,
                  color="red", linestyle="--", linewidth=1,
                  label="target" if index == 0 else None)
    axes.set_xticks(range(len(streams)), [row["stream"] for row in streams])
    axes.set_ylabel("projection time / orjson.dumps time (per round)")
    axes.set_title("Whole projection against plain serialization (bar: median)")
    _finish(plt, figure, axes, path)


def plot_throughput(rows: Sequence[dict[str, Any]], path: Path) -> None:
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.2))
    sizes = [row["size"] for row in rows]
    axes.plot(sizes, [row["orjson_mbs"] for row in rows], marker="o", label="orjson.dumps")
    axes.plot(sizes, [row["reference_mbs"] for row in rows], marker="o",
              label="reference projection")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("tool output per event (bytes)")
    axes.set_ylabel("throughput (MB of input JSON per second)")
    axes.set_title("Projection throughput against event size (facts, fresh objects)")
    _finish(plt, figure, axes, path)


def plot_amplification(rows: Sequence[Any], path: Path) -> None:
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.2))
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
    _finish(plt, figure, axes, path)


# -- main ------------------------------------------------------------------------------------


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    from eventproof.reference import _canonical

    walks = "compiled" if _canonical.COMPILED else "Python (no compiled walks)"
    return (f"{cpu}, {os.cpu_count()} logical CPUs, {platform.python_implementation()} "
            f"{platform.python_version()}, orjson {orjson.__version__}, plain-tree walks: "
            f"{walks}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True,
                        help="write docs/benchmark-results.md and .json and docs/img/*.svg "
                             "under this directory")
    parser.add_argument("--readme", type=Path, default=None,
                        help="rewrite the Throughput bullet of this README (bench-publish)")
    parser.add_argument("--rounds", type=int, default=30, help="measured rounds (default 30)")
    parser.add_argument("--warmup", type=int, default=2, help="unrecorded rounds first")
    parser.add_argument("--events", type=int, default=10_000, help="events per stream")
    parser.add_argument("--scale", type=float, default=1.0, help="factor on text lengths")
    parser.add_argument("--turns", type=int, default=TRANSCRIPT_TURNS,
                        help=f"turns of the transcript stream (default {TRANSCRIPT_TURNS})")
    parser.add_argument("--streams", default=",".join(STREAMS),
                        help=f"comma-separated streams (default {','.join(STREAMS)})")
    parser.add_argument("--stream-batch", type=int, default=0,
                        help="let the variants take turns this many events at a time within a "
                             "round (default 0: each projects its whole stream in its turn)")
    parser.add_argument("--backstop-bytes", type=int, default=MiB)
    parser.add_argument("--memory-bytes", type=int, default=64 * MiB)
    parser.add_argument("--skip", default="",
                        help="comma-separated figures to leave out: backstop, memory, "
                             "event-size, amplification")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.events < 1 or args.turns < 1 or args.warmup < 0:
        parser.error("--rounds, --events and --turns must be positive and --warmup not "
                     "negative")
    streams = [name for name in args.streams.split(",") if name]
    unknown = sorted(set(streams) - set(STREAMS))
    if unknown:
        parser.error(f"unknown stream(s) {', '.join(unknown)}; use {', '.join(STREAMS)}")
    skip = {name for name in args.skip.split(",") if name}
    started = time.monotonic()
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(), "machine": _machine(),
        "command": command(sys.argv[1:] if argv is None else argv),
        "settings": {"rounds": args.rounds, "warmup": args.warmup, "events": args.events,
                     "scale": args.scale, "stream_batch": args.stream_batch,
                     "transcript_turns": args.turns,
                     "backstop_bytes": args.backstop_bytes,
                     "memory_bytes": args.memory_bytes},
    }
    results["streams"] = stream_figure(streams, events=args.events, scale=args.scale,
                                       rounds=args.rounds, warmup=args.warmup,
                                       batch=args.stream_batch or None, turns=args.turns)
    if "backstop" not in skip:
        results["backstop"] = backstop_figure(size=args.backstop_bytes, rounds=2 * args.rounds,
                                              warmup=args.warmup)
    if "memory" not in skip:
        results["memory"] = memory_figure(size=args.memory_bytes)
    if "event-size" not in skip:
        results["event_size"] = event_size_figure(rounds=args.rounds, warmup=args.warmup)
    amplification_rows = None
    if "amplification" not in skip:
        import amplification

        amplification_rows = amplification.amplification_table()
        forty = next(row for row in amplification_rows if row.child.turns == 40)
        results["amplification"] = {"table": amplification.format_table(amplification_rows),
                                    "naive_40": forty.naive.bytes / MiB,
                                    "facts_40": forty.facts.bytes / MiB}
    text = page(results)
    docs = args.out / "docs"
    (docs / "img").mkdir(parents=True, exist_ok=True)
    (docs / "benchmark-results.md").write_text(text, encoding="utf-8")
    (docs / "benchmark-results.json").write_text(json.dumps(results, indent=1) + "\n",
                                                 encoding="utf-8")
    plot_ratios(results["streams"], docs / "img" / "ratios.svg")
    if results.get("event_size"):
        plot_throughput(results["event_size"], docs / "img" / "throughput.svg")
    if amplification_rows is not None:
        plot_amplification(amplification_rows, docs / "img" / "amplification.svg")
    if args.readme is not None:
        rewrite_readme(args.readme, bullet(results))
    print(text)
    print(f"\n{bullet(results)}\n\nwrote {docs / 'benchmark-results.md'}, the plots in "
          f"{docs / 'img'} and {docs / 'benchmark-results.json'} "
          f"in {time.monotonic() - started:,.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
