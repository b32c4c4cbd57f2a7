"""``eventproof bench`` and the workloads it drives (docs/benchmark.md): fast, counts only."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from eventproof.conformance import _workloads
from eventproof.conformance._bench import NoopImplementation
from eventproof.conformance.cli import main
from eventproof.reference import Reference

TINY = ["--events", "40", "--batch", "7", "--rounds", "2", "--scale", "0.05"]
WIDE = {"COLUMNS": "200"}  # one table row per line, whatever the terminal


def bench(*args: str) -> Any:
    return CliRunner().invoke(main, ["bench", *args], env=WIDE)


class SelectOnly(Reference):
    """Declares only ``select``: nothing to benchmark."""

    def start(self) -> dict[str, Any]:
        handshake = super().start()
        handshake["capabilities"]["ops"] = ["select"]
        return handshake


class AlwaysErrs(Reference):
    """Errs on every request: its figures would measure nothing."""

    def run(self, op: str, input: Any) -> Any:
        raise ValueError("not today")


# -- the command -----------------------------------------------------------------------------------


def test_bench_prints_the_implementation_beside_the_reference_and_both_no_ops() -> None:
    """The default run measures the bundled reference, the direct reference and two no-ops."""
    result = bench(*TINY)
    assert result.exit_code == 0, result.output
    for row in ("eventproof-reference-halving", "reference (halving)", "eventproof-noop ",
                "eventproof-noop-program"):
        assert row in result.output
    for column in ("events/s", "MB/s", "µs/event", "x reference"):
        assert column in result.output
    assert "40 line" in result.output  # every event of the stream answered with a line
    assert "40 no line" in result.output  # the no-ops answer null


def test_bench_measures_an_in_process_implementation_alone() -> None:
    """--impl with --no-baselines measures only that implementation, here the no-op."""
    result = bench("--impl", "python:eventproof.conformance._bench:NoopImplementation",
                   "--no-baselines", "--stream", "escape", *TINY)
    assert result.exit_code == 0, result.output
    assert "eventproof-noop" in result.output
    assert "reference (" not in result.output
    assert "40 no line" in result.output


def test_bench_shows_one_table_per_workload() -> None:
    """--stream repeated: a table for the transcript and one for small facts, each with the
    implementation, the reference and both no-ops answering every event."""
    result = bench("--stream", "transcript", "--stream", "facts-256", *TINY)
    assert result.exit_code == 0, result.output
    assert "stream transcript: 40 events" in result.output
    assert "stream facts-256: 40 events" in result.output
    assert result.output.count("µs/event") == 2
    assert result.output.count("reference (halving)") == 2
    assert result.output.count("eventproof-noop-program") == 2


def test_bench_follows_the_declared_fit_strategy() -> None:
    """The direct reference row uses the fit strategy the implementation declared."""
    result = bench("--fit", "maximal", "--stream", "astral", *TINY)
    assert result.exit_code == 0, result.output
    assert "reference (maximal)" in result.output


def test_bench_refuses_an_implementation_without_project() -> None:
    """An implementation that does not declare 'project' is a usage error (exit 2)."""
    result = bench("--impl", f"python:{__name__}:SelectOnly", *TINY)
    assert result.exit_code == 2, result.output
    assert "does not declare the 'project' operation" in result.output


def test_bench_fails_when_the_implementation_does_not_answer() -> None:
    """Errored answers make the figures meaningless: said plainly, exit code 1."""
    result = bench("--impl", f"python:{__name__}:AlwaysErrs", "--no-baselines", *TINY)
    assert result.exit_code == 1, result.output
    assert "40 errored" in result.output
    assert "eventproof run --ops project" in result.output


def test_bench_names_a_bad_impl_without_a_traceback() -> None:
    """A misspelt --impl is one clear message and exit code 2."""
    result = bench("--impl", "python:eventproof.nowhere:Thing", *TINY)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "eventproof.nowhere" in result.output


def test_noop_implementation_answers_without_looking() -> None:
    """The no-op answers project with null, classify with "fact", and skips the rest."""
    noop = NoopImplementation()
    assert noop.start()["capabilities"]["ops"] == ["classify", "project"]
    assert noop.run("project", {"event": {"type": "x"}}) is None
    assert noop.run("classify", {"event": {"type": "x"}}) == "fact"
    with pytest.raises(NotImplementedError):
        noop.run("select", {"events": []})


# -- the workloads ---------------------------------------------------------------------------------


#: Where the generators put the text they build (the rest are constants such as "assistant").
GENERATED = frozenset({"text", "thinking", "delta", "content", "command", "path"})


def strings(value: Any, key: str | None = None) -> Iterator[tuple[str | None, str]]:
    """Every string in a JSON value with the member name it sits under, in a fixed order."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from strings(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, key)


def joined(value: Any) -> str:
    return "".join(text for _, text in strings(value))


@pytest.mark.parametrize("kind", _workloads.STREAM_KINDS)
def test_streams_are_deterministic_and_fresh(kind: str) -> None:
    """Two calls give equal events whose generated strings are never the same objects."""
    first = _workloads.build_stream(kind, events=300, scale=0.2)
    second = _workloads.build_stream(kind, events=300, scale=0.2)
    assert first == second
    pairs = [(a, b) for (key, a), (_, b) in zip(strings(first), strings(second), strict=True)
             if key in GENERATED and len(a) > 1]  # "" and one-character strings are shared
    assert len(pairs) > 500
    assert all(a is not b for a, b in pairs)
    # Within one call no generated string object is used twice either: each event has its own.
    ids = [id(a) for a, _ in pairs]
    assert len(set(ids)) == len(ids)


def test_stream_has_the_requested_length_and_shape() -> None:
    """A stream has exactly the events asked for, opens with agent_start, ends with agent_end."""
    events = _workloads.build_stream("light", events=500, scale=0.1)
    assert len(events) == 500
    assert events[0]["type"] == "agent_start"
    assert events[-1]["type"] == "agent_end"
    kinds = {event["type"] for event in events}
    assert {"message_update", "tool_execution_start", "tool_execution_end", "turn_end",
            "message_start", "message_end"} <= kinds
    deltas = [event["assistantMessageEvent"]["delta"] for event in events
              if event["type"] == "message_update"
              and event["assistantMessageEvent"]["type"] == "text_delta"]
    assert deltas
    assert all(1 <= len(delta) <= 20 for delta in deltas)  # 20-200 code points, scaled by 0.1


def test_streams_carry_what_their_names_promise() -> None:
    """light has ANSI escapes, escape has quotes/backslashes/NUL/ESC, astral has surrogates."""
    light = joined(_workloads.build_stream("light", events=400, scale=0.3))
    assert "\x1b[" in light
    escape = joined(_workloads.build_stream("escape", events=200, scale=0.2))
    for char in ('"', "\\", "\x00", "\x1b", "\x01"):
        assert char in escape
    astral = _workloads.build_stream("astral", events=200, scale=0.2)
    clean = _workloads.build_stream("astral", events=200, scale=0.2, well_formed=True)
    text, clean_text = joined(astral), joined(clean)
    assert any(0xD800 <= ord(char) <= 0xDFFF for char in text)
    assert not any(0xD800 <= ord(char) <= 0xDFFF for char in clean_text)
    assert any(ord(char) > 0xFFFF for char in text)
    assert len(text) == len(clean_text)  # the same stream, surrogates replaced one for one


@pytest.mark.parametrize("kind", _workloads.TEXT_KINDS)
def test_texts_have_the_requested_utf8_size(kind: str) -> None:
    """text_of_size gives about the requested UTF-8 bytes of its kind, freshly built."""
    size = 64 * 1024
    first = _workloads.text_of_size(kind, size)
    second = _workloads.text_of_size(kind, size)
    assert first == second
    assert first is not second
    assert size - 4 <= len(first.encode("utf-8")) <= size + 4


def test_bad_workload_arguments_are_refused() -> None:
    """An unknown stream or a non-positive size is a ValueError that names it."""
    with pytest.raises(ValueError, match="'nope'"):
        _workloads.build_stream("nope", events=10)
    with pytest.raises(ValueError, match="events=0"):
        _workloads.build_stream("light", events=0)
    with pytest.raises(ValueError, match="scale=0"):
        _workloads.build_stream("light", events=10, scale=0)


@pytest.mark.parametrize("kind", ["transcript", "facts-256", "facts-1k"])
def test_small_event_workloads_are_deterministic_and_fresh(kind: str) -> None:
    """The transcript and the small facts: equal on every call, never the same strings."""
    first = _workloads.build_workload(kind, events=300)
    second = _workloads.build_workload(kind, events=300)
    assert first == second
    assert len(first) == 300
    pairs = [(a, b) for (key, a), (_, b) in zip(strings(first), strings(second), strict=True)
             if key in GENERATED and len(a) > 1]
    assert len(pairs) > 250
    assert all(a is not b for a, b in pairs)
    ids = [id(a) for a, _ in pairs]
    assert len(set(ids)) == len(ids)


def test_transcript_has_the_shape_of_seed_002s_child() -> None:
    """Per turn: 150 deltas whose updates carry the growing partial message twice, 20 live
    tool updates growing by 1 KiB of output, turn_end with its messages; agent_end with all."""
    events = _workloads.child_transcript()
    assert events[0]["type"] == "agent_start"
    assert events[-1]["type"] == "agent_end"
    turns = [event for event in events if event["type"] == "turn_end"]
    assert len(turns) == _workloads.TRANSCRIPT_TURNS == 20
    deltas = [event for event in events if event["type"] == "message_update"
              and event["assistantMessageEvent"]["type"] == "text_delta"]
    assert len(deltas) == 20 * 150
    first_turn = deltas[:150]
    texts = [event["message"]["content"][0]["text"] for event in first_turn]
    assert all(3 <= len(event["assistantMessageEvent"]["delta"]) <= 8 for event in first_turn)
    assert all(later.startswith(earlier) and len(later) > len(earlier)
               for earlier, later in itertools.pairwise(texts))
    for event in first_turn:
        partial = event["assistantMessageEvent"]["partial"]
        assert partial == event["message"]
        assert partial is not event["message"]
        assert event["message"]["content"][0]["text"].endswith(
            event["assistantMessageEvent"]["delta"])
    updates = [event for event in events if event["type"] == "tool_execution_update"]
    assert len(updates) == 20 * 20
    sizes = [len(event["partialResult"]["content"][0]["text"]) for event in updates[:20]]
    assert sizes == [1024 * count for count in range(1, 21)]
    assert [len(turn["toolResults"]) for turn in turns] == [1] * 20
    assert turns[0]["message"]["role"] == "assistant"
    messages = events[-1]["messages"]
    assert len(messages) == 1 + 2 * 20  # the task, then each turn's answer and tool result
    assert messages[1] == turns[0]["message"]
    assert messages[2] == turns[0]["toolResults"][0]


def test_small_facts_have_their_size_and_bad_workloads_are_refused() -> None:
    for kind, size in (("facts-256", 256), ("facts-1k", 1024)):
        facts = _workloads.build_workload(kind, events=5)
        assert {fact["type"] for fact in facts} == {"tool_execution_end"}
        assert {len(fact["result"]["content"][0]["text"]) for fact in facts} == {size}
    with pytest.raises(ValueError, match="'nope'"):
        _workloads.build_workload("nope", events=10)
    with pytest.raises(ValueError, match="events=0"):
        _workloads.build_workload("transcript", events=0)
    with pytest.raises(ValueError, match="scale=0"):
        _workloads.build_workload("facts-256", events=3, scale=0)
    with pytest.raises(ValueError, match="turns=0"):
        _workloads.child_transcript(turns=0)


def test_heavy_stream_bounds_about_one_event_in_200() -> None:
    """heavy: about one event in 200 is a live update over the default maxBytes, with texts of
    300 KB to 4 MiB of ASCII, CJK, emoji or controls; final results keep only the last lines."""
    from eventproof.reference import DEFAULT_MAX_BYTES, canonical_bytes

    events = _workloads.build_stream("heavy")
    over = [event for event in events if event["type"] == "tool_execution_update"
            and len(canonical_bytes(event)) > DEFAULT_MAX_BYTES]
    assert len(events) / 300 <= len(over) <= len(events) / 120, len(over)
    texts = [event["partialResult"]["content"][0]["text"] for event in over]
    largest = max(len(text.encode("utf-8")) for text in texts)
    assert 1_000_000 < largest <= _workloads.HEAVY_UPDATE_BYTES[1]
    joined_text = "".join(texts)
    assert any("\u4e00" <= char <= "\u9fff" for char in joined_text)  # CJK
    assert any(ord(char) > 0xFFFF for char in joined_text)  # emoji
    assert joined_text.count("\r") > 10_000  # terminal redraws
    results = [event["result"]["content"][0]["text"] for event in events
               if event["type"] == "tool_execution_end"]
    assert max(map(len, results)) <= _workloads.HEAVY_RESULT_CHARS


# -- the paired measurement and the publisher (tools/bench/) --------------------------------


def _benchmarks_module(name: str) -> Any:
    """A module of tools/bench/, imported the way its scripts import each other."""
    import importlib
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "tools" / "bench"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(name)


def test_paired_rounds_rotate_and_ratios_are_taken_within_a_round() -> None:
    """Every round runs every variant once on freshly built input, first place rotating, and a
    ratio divides two times of the same round."""
    paired = _benchmarks_module("paired")
    order: list[str] = []
    built: list[object] = []
    clock = iter(range(1000))

    def variant(name: str, cost: int) -> Any:
        def build() -> object:
            built.append(object())
            return built[-1]

        def run(argument: object) -> object:
            assert argument is built[-1]  # the input built for this very call
            order.append(name)
            for _ in range(cost - 1):
                next(clock)
            return argument

        return paired.Variant(name, build, run)

    result = paired.measure([variant("a", 1), variant("b", 3)], rounds=3, warmup=1,
                            timer=lambda: float(next(clock)))
    assert order == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert len(result.times["a"]) == len(result.times["b"]) == 3
    assert result.ratios("b", "a") == [b / a for a, b in zip(result.times["a"],
                                                             result.times["b"], strict=True)]
    assert len({id(item) for item in built}) == 8
    spread = paired.Spread.of([1.0, 2.0, 4.0])
    assert (spread.median, spread.low, spread.high, spread.rounds) == (2.0, 1.0, 4.0, 3)
    assert spread.text().startswith("2.00x (IQR")
    with pytest.raises(ValueError, match="rounds=0"):
        paired.measure([variant("a", 1)], rounds=0)


def test_publisher_writes_page_plots_and_readme_bullet_from_one_run(tmp_path: Any) -> None:
    """run.py writes the results page, the plots, the JSON and the README bullet from the same
    figures: the bullet's ratios are the page's medians."""
    import json

    pytest.importorskip("matplotlib", reason="the plots need the bench dependency group "
                        "(nox -s bench-publish installs it)")
    run = _benchmarks_module("run")
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{run.BEGIN}\n- **Throughput** old figures\n{run.END}\n\nrest\n",
                      encoding="utf-8")
    code = run.main(["--out", str(tmp_path), "--readme", str(readme), "--rounds", "2",
                     "--warmup", "0", "--events", "150", "--scale", "0.02",
                     "--streams", "light,heavy,transcript,facts-256", "--turns", "2",
                     "--skip", "backstop,memory,event-size,amplification"])
    assert code == 0
    page = (tmp_path / "docs" / "benchmark-results.md").read_text(encoding="utf-8")
    results = json.loads((tmp_path / "docs" / "benchmark-results.json").read_text(encoding="utf-8"))
    text = readme.read_text(encoding="utf-8")
    assert "old figures" not in text
    assert text.startswith("# x\n\n")
    assert text.endswith("\n\nrest\n")
    assert (tmp_path / "docs" / "img" / "ratios.svg").exists()
    rows = {row["stream"]: row for row in results["streams"]}
    assert list(rows) == ["light", "heavy", "transcript", "facts-256"]
    for row in rows.values():
        assert len(row["times"]["orjson"]) == len(row["times"]["facts only"]) == 2
        for name in ("halving", "maximal", "facts only"):
            assert f"| {row[name]['median']:.2f}x (" in page
    for name in ("light", "heavy"):
        halving, maximal = (f"{rows[name][fit]['median']:.2f}" for fit in ("halving", "maximal"))
        assert f"{halving}× (halving) and {maximal}× (maximal) on the {name} stream" in text
    transcript = rows["transcript"]
    assert transcript["events"] == 369  # two turns of seed 002's child, whatever --events says
    assert (f"{transcript['halving']['median']:.2f}× (live) and "
            f"{transcript['facts only']['median']:.2f}× (facts only) on a child's transcript"
            in text)
    assert f"{rows['facts-256']['halving']['median']:.2f}× on facts of 256 code points" in text
    assert rows["facts-256"]["target"] == 2.0
    assert transcript["target"] == 1.15
    # The command that reproduces the figures, with the options of this run.
    reproduce = ("`nox -s bench-publish -- --rounds 2 --warmup 0 --events 150 --scale 0.02 "
                 "--streams light,heavy,transcript,facts-256 --turns 2 "
                 "--skip backstop,memory,event-size,amplification`")
    assert reproduce in text
    assert f"Generated by {reproduce}" in page
    assert run.command(["--out", "x", "--readme", "y"]) == "nox -s bench-publish"


def test_publisher_refuses_a_readme_without_markers(tmp_path: Any) -> None:
    """Without the two markers the README is left alone and the run says what to add."""
    run = _benchmarks_module("run")
    readme = tmp_path / "README.md"
    readme.write_text("- **Throughput** by hand\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="bench:throughput"):
        run.rewrite_readme(readme, "- new")
    assert readme.read_text(encoding="utf-8") == "- **Throughput** by hand\n"


def test_paired_batches_alternate_between_variants() -> None:
    """With a batch size, variants take turns batch by batch over their own fresh inputs; a
    round's time is the sum of its batches and the result the whole stream's."""
    paired = _benchmarks_module("paired")
    calls: list[tuple[str, list[int]]] = []
    clock = iter(range(10_000))

    def variant(name: str) -> Any:
        def run(piece: list[int]) -> list[int]:
            calls.append((name, list(piece)))
            return [item * 10 for item in piece]

        return paired.Variant(name, lambda: list(range(5)), run)

    result = paired.measure([variant("a"), variant("b")], rounds=1, warmup=0, batch=2,
                            timer=lambda: float(next(clock)))
    assert calls == [("a", [0, 1]), ("b", [0, 1]), ("a", [2, 3]), ("b", [2, 3]),
                     ("a", [4]), ("b", [4])]
    assert result.results["a"] == result.results["b"] == [0, 10, 20, 30, 40]
    assert result.times["a"] == result.times["b"] == [3.0]  # three batches, one tick each
    with pytest.raises(ValueError, match="batch=0"):
        paired.measure([variant("a")], rounds=1, batch=0)


def test_bench_json_holds_every_figure_and_the_tables_go_to_stderr() -> None:
    """--json - writes one JSON document to stdout (the tables to stderr): per stream, each
    subject's rounds and median figures, the same subjects the table lists."""
    import json

    result = CliRunner().invoke(main, ["bench", "--json", "-", *TINY], env=WIDE)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    [stream] = document["streams"]
    subjects = [row["subject"] for row in stream["results"]]
    assert subjects[1:] == ["reference (halving)", "eventproof-noop", "eventproof-noop-program"]
    for row in stream["results"]:
        assert len(row["roundSeconds"]) == document["rounds"]
        assert row["eventsPerSecond"] > 0
    assert "events/s" in result.stderr


def test_the_bench_table_is_not_wrapped_in_a_narrow_log() -> None:
    """Outside a terminal (a CI log rich renders 80 columns wide) each row of the table is one
    line, whatever the width: nothing wraps or is cut."""
    result = CliRunner().invoke(main, ["bench", *TINY], env={"COLUMNS": "60", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "reference (halving)" in line]
    assert len(rows) == 1
    assert "direct call" in rows[0]
    assert "40 line" in rows[0]  # the last column, "answers", on the same line
    assert max(len(line) for line in result.output.splitlines()) > 60
