"""The shipped vectors hold for the reference, the files are fresh and the spec is in step."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from eventproof.conformance import _vectors
from eventproof.conformance._adapters import Ok
from eventproof.conformance._model import FIT_STRATEGIES, Capabilities, ImplErrored
from eventproof.conformance._operations import RULES
from eventproof.conformance.cli import main as cli_main
from eventproof.reference import InvalidInput, Reference
from rich.console import Console

from tools import spec_check as _spec_check
from tools import vectors as vector_tool

ROOT = Path(__file__).resolve().parents[2]
VECTORS = _vectors.load_vectors()


def _answer(fit: str, vector: _vectors.Vector) -> Any:
    try:
        return Reference(fit).run(vector.op, vector.input)
    except InvalidInput as error:
        return ImplErrored(str(error))


@pytest.mark.parametrize("vector", [pytest.param(v, id=v.id) for v in VECTORS])
def test_vector_holds_for_the_reference(vector: _vectors.Vector) -> None:
    """The in-process reference answers the vector as it demands, for each strategy it names."""
    fits = [vector.fit_strategy] if vector.fit_strategy else list(FIT_STRATEGIES)
    for fit in fits:
        answer = _answer(fit, vector)
        response = answer if isinstance(answer, ImplErrored) else Ok(answer)
        result = _vectors.judge_vector(vector, response, Capabilities(fit_strategy=fit))
        assert result.status == "pass", f"{vector.id} ({fit}): {result.message}"


def test_vector_files_are_fresh() -> None:
    """The files in spec/vectors/ are exactly what the sources and the reference generate."""
    stale = _vectors.stale_files(ROOT / "spec" / "vectors")
    assert not stale, (f"stale vector files {stale}: the sources or the reference changed; "
                       "run `nox -s vectors` and commit the result")


def test_every_rule_has_two_vector_sources() -> None:
    """Every rule of the registry is pinned by at least two hand-written vectors."""
    assert _vectors.coverage_gaps(minimum=2) == []


def test_every_group_has_a_file_and_every_vector_its_group() -> None:
    """Each rule group ships one file, and each vector sits in the file of its rule's group."""
    assert {v.file for v in VECTORS} == {f"{group.name}.json" for group in _vectors.GROUPS}
    assert all(v.file == f"{v.group}.json" for v in VECTORS)
    assert {r.id.split(".")[0] for r in RULES} <= {group.name for group in _vectors.GROUPS}


def test_lone_surrogates_survive_the_file() -> None:
    """Inputs with lone surrogates are written as ASCII escapes and read back unchanged."""
    text = (ROOT / "spec" / "vectors" / "canon.json").read_text("utf-8")
    assert text.isascii()
    vector = next(v for v in VECTORS if v.id == "canon.utf8/lone-high-surrogate")
    assert vector.input["event"]["text"] == "a\ud800b"


def test_strategy_dependent_source_without_fits_is_refused() -> None:
    """A source whose answer depends on the fit strategy must declare its strategies."""
    event = {"type": "tool_execution_update", "toolCallId": "t", "toolName": "n", "args": {},
             "partialResult": "x" * 9000}
    source = _vectors.VectorSource("bound.tail", "undeclared", "undeclared strategy",
                                   {"event": event, "includeLiveEvents": True, "maxBytes": 4096})
    with pytest.raises(_vectors.VectorBuildError, match="depends on the fit strategy"):
        _vectors.build_vectors(source)


# -- judging ---------------------------------------------------------------------------------------

def _vector(op: str, op_input: Any, expected: Any, rule: str) -> _vectors.Vector:
    return _vectors.Vector(id=f"{rule}/x", description="d", rule=rule, section="wire.md#4",
                           op=op, input=op_input, expected=expected, fit_strategy=None,
                           file="x.json")


_TWO_MESSAGES = {"events": [
    {"type": "assistant/message", "seq": 0, "time": "t",
     "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": "a"}]}}},
    {"type": "assistant/message", "seq": 1, "time": "t",
     "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": "b"}]}}},
]}


def test_judge_value_difference_fails_by_the_rule_it_breaks() -> None:
    """A different value fails the vector, explained by the specific rule's own check."""
    vector = _vector("select", _TWO_MESSAGES, [{"type": "text", "text": "b"}], "select.agrees")
    result = _vectors.judge_vector(vector, Ok([{"type": "text", "text": "a"}]), Capabilities())
    assert result.status == "fail"
    assert result.broken[0] == "select.last-message"
    assert result.message.startswith("select.last-message: ")
    assert _vectors.judge_vector(vector, Ok(None), Capabilities()).status == "fail"


def test_judge_byte_difference_is_should_only() -> None:
    """The same value written with other bytes breaks only the SHOULD rule canon.bytes."""
    event = {"type": "custom", "a": 30}
    vector = _vector("project", {"event": event}, {"line": '{"type":"custom","a":30}'},
                     "canon.bytes")
    result = _vectors.judge_vector(vector, Ok({"line": '{"a":30.0,"type":"custom"}'}),
                                   Capabilities())
    assert result.status == "should"
    assert result.broken == ("canon.bytes",)


def test_judge_errored_is_required_for_erroneous_input() -> None:
    """An erroneous input passes only with an errored answer, and a valid one never does."""
    update = {"type": "message_update", "message": {"role": "user", "content": []},
              "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "x"}}
    erroneous = _vector("project", {"event": update, "includeLiveEvents": True},
                        {"errored": True}, "project.erroneous")
    failed = _vectors.judge_vector(erroneous, Ok({"line": "{}"}), Capabilities())
    assert (failed.status, failed.broken[0]) == ("fail", "project.erroneous")
    assert _vectors.judge_vector(erroneous, ImplErrored("no"), Capabilities()).status == "pass"
    valid = _vector("project", {"event": {"type": "agent_start"}},
                    {"line": '{"type":"agent_start"}'}, "project.agrees")
    assert _vectors.judge_vector(valid, ImplErrored("no"), Capabilities()).status == "fail"


def test_skips_follow_the_capabilities() -> None:
    """A vector is skipped when its op is not declared or it pins another fit strategy."""
    bounded = next(v for v in VECTORS if v.fit_strategy == "maximal")
    assert "fitStrategy maximal" in str(_vectors._skip_reason(bounded, Capabilities()))
    select = next(v for v in VECTORS if v.op == "select")
    assert "does not declare" in str(
        _vectors._skip_reason(select, Capabilities(ops=frozenset({"project"}))))


# -- running ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("fit", FIT_STRATEGIES)
def test_run_vectors_on_the_reference_conforms(fit: str) -> None:
    """Both references pass every vector of their strategy and skip only the other strategy's."""
    outcome = _vectors.run_vectors(Reference(fit), timeout=30)
    assert outcome.conforms, [r.vector.id for r in outcome.results if r.status != "pass"]
    statuses = Counter(r.status for r in outcome.results)
    assert statuses["fail"] == statuses["should"] == 0
    assert all(r.vector.fit_strategy not in (None, fit) for r in outcome.results
               if r.status == "skip")


class _NoFallback(Reference):
    """The reference without the streamed-text fallback (a deliberately wrong implementation)."""

    def run(self, op: str, input: Any) -> Any:
        answer = super().run(op, input)
        if op == "select" and answer and not any(
            e.get("type") == "assistant/message" for e in input["events"]
        ):
            return None
        return answer


def test_run_vectors_catches_a_wrong_implementation_and_renders_it() -> None:
    """A wrong implementation does not conform, and the report names the vector and its rule."""
    outcome = _vectors.run_vectors(_NoFallback(), timeout=30, rule_prefix="select.")
    assert not outcome.conforms
    assert "select.text-fallback" in outcome.failed_rule_ids
    console = Console(record=True, width=200)
    _vectors.render(outcome, console)
    text = console.export_text()
    assert "select.text-fallback/concatenated-in-order" in text
    assert "selection.md §3.3" in text
    assert "does not conform" in text


@pytest.mark.parametrize("fit", FIT_STRATEGIES)
def test_cli_vectors_on_the_reference_exits_0(fit: str) -> None:
    """`eventproof vectors` on the bundled reference exits 0 and reports no failure."""
    result = CliRunner().invoke(cli_main, ["vectors", "--fit", fit])
    assert result.exit_code == 0, result.output
    assert "0 failed" in result.output


def test_cli_vectors_on_a_wrong_implementation_exits_1() -> None:
    """`eventproof vectors` on a wrong implementation exits 1 and names the broken rule."""
    result = CliRunner().invoke(
        cli_main, ["vectors", "--impl", "python:tests.unit.test_vectors:_NoFallback",
                   "--rule", "select."])
    assert result.exit_code == 1, result.output
    assert "select.text-fallback" in result.output


# -- regeneration ----------------------------------------------------------------------------------

def test_check_mode_lists_stale_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--check` exits 1 naming the stale file, and `--write` makes it fresh again."""
    assert vector_tool.main(["--write", "--dir", str(tmp_path)]) == 0
    assert vector_tool.main(["--check", "--dir", str(tmp_path)]) == 0
    path = tmp_path / "fold.json"
    content = json.loads(path.read_text("utf-8"))
    content["vectors"][0]["expected"] = ["tampered"]
    path.write_text(json.dumps(content), "utf-8")
    capsys.readouterr()
    assert vector_tool.main(["--check", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "fold.json" in err
    assert "nox -s vectors" in err


# -- the spec check --------------------------------------------------------------------------------

CHECKOUT = _spec_check.Checkout(ROOT)


@pytest.mark.parametrize("check", [pytest.param(c, id=c.__name__) for c in _spec_check.CHECKS])
def test_spec_check_passes(check: Any) -> None:
    """Each spec-check function finds no problem in this checkout."""
    assert check(CHECKOUT) == []


def _copy_checkout(tmp_path: Path) -> _spec_check.Checkout:
    import shutil

    for part in ("schemas", "spec"):
        shutil.copytree(ROOT / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return _spec_check.Checkout(tmp_path)


def test_spec_check_finds_a_duplicate_id_and_a_wrong_section(tmp_path: Path) -> None:
    """The vector checks report a reused id and a section that is not the registry's."""
    checkout = _copy_checkout(tmp_path)
    path = checkout.vectors / "select.json"
    content = json.loads(path.read_text("utf-8"))
    content["vectors"][1]["id"] = content["vectors"][0]["id"]
    content["vectors"][2]["section"] = "selection.md#9.9"
    path.write_text(json.dumps(content), "utf-8")
    problems = "\n".join(_spec_check.check_vector_files(checkout))
    assert f"vector id {content['vectors'][0]['id']!r} is also used" in problems
    assert "cites section 'selection.md#9.9'" in problems


def test_spec_check_finds_an_unknown_rule_mention(tmp_path: Path) -> None:
    """A backticked rule-like id in the spec that the registry lacks is reported with its line."""
    checkout = _copy_checkout(tmp_path)
    path = checkout.spec / "selection.md"
    path.write_text(path.read_text("utf-8") + "\nSee `select.made-up`.\n", "utf-8")
    problems = _spec_check.check_spec_mentions(checkout)
    assert any("`select.made-up` looks like a rule id" in p for p in problems)


def test_spec_check_finds_a_mislabelled_example(tmp_path: Path) -> None:
    """An example labelled valid that fails its schema is reported."""
    checkout = _copy_checkout(tmp_path)
    path = checkout.examples / "vector-file.json"
    content = json.loads(path.read_text("utf-8"))
    content["valid"].append({"instance": {"version": 2}})
    path.write_text(json.dumps(content), "utf-8")
    _spec_check._registry.cache_clear()
    problems = _spec_check.check_schema_examples(checkout)
    assert any("labelled valid" in p and "vector-file.json" in p for p in problems)


def test_section_text_includes_subsections_only() -> None:
    """The text of a numbered section runs to the next heading of the same or a higher level."""
    markdown = "# T\n## 3. A\nx\n### 3.1. B\n`y`\n## 4. C\nz\n"
    assert _spec_check.section_text(markdown, "3") == "## 3. A\nx\n### 3.1. B\n`y`"
    assert _spec_check.section_text(markdown, "3.1") == "### 3.1. B\n`y`"
    assert _spec_check.section_text(markdown, "5") is None


def test_spec_check_command_exits_0() -> None:
    """`python -m tools.spec_check` passes on this checkout."""
    assert _spec_check.main(["--root", str(ROOT)]) == 0
