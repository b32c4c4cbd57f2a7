"""The conformance matrix page and the badges, from JSON reports as `eventproof run` writes them."""

from __future__ import annotations

import json
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from eventproof.conformance._engine import Counterexample, RuleResult, RunReport
from eventproof.conformance._matrix import MatrixError, badge, load_report, write_matrix
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES, RULES_BY_ID
from eventproof.conformance._reports import report_document
from eventproof.conformance.cli import main

HOSTILE = ('</script><script>alert("x")</script><img src=x onerror=alert(1)> '
           "' \" & \u202eevil\u202c \u2028 \x00 \ud800")
VOID = {"meta", "input", "br", "img", "link", "hr"}


class Page(HTMLParser):
    """The elements of a page, and a check that every element is closed where it was opened."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.open: list[str] = []
        self.texts: dict[int, list[str]] = {}
        self.feed(text)
        self.close()
        assert self.open == [], f"unclosed elements: {self.open}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {key: value or "" for key, value in attrs}))
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open[-1:] == [tag], f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.texts.setdefault(len(self.elements), []).append(data)

    def text(self) -> str:
        return "".join(part for parts in self.texts.values() for part in parts)


def report(name: str, results: list[RuleResult], **identity: str) -> dict[str, Any]:
    run = RunReport(implementation={"name": name, "language": "python", **identity},
                    capabilities=Capabilities(), results=results, budget="quick", seed=None,
                    deterministic=True, duration=1.5, calls=42)
    return report_document(run, replay_files={
        result.rule.id: f".eventproof/failures/{name}/{result.rule.id}.json"
        for result in results if result.counterexample is not None})


def counterexample(message: str, input: Any = None) -> Counterexample:
    return Counterexample(op="select", input=input or {"events": []}, expected=None,
                          actual=[], message=message, seed=None, stderr="")


def every_pass() -> list[RuleResult]:
    return [RuleResult(rule, "pass") for rule in RULES]


def broken() -> list[RuleResult]:
    results = every_pass()
    results[1] = RuleResult(RULES_BY_ID["select.last-message"], "fail", counterexample(
        "your output is [], but the last non-empty message is $.events[0]"))
    return results


def save(tmp_path: Path, name: str, document: dict[str, Any]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def render(tmp_path: Path, *documents: dict[str, Any]) -> tuple[Page, str, list[Path]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = [save(tmp_path, f"report-{index}", document)
             for index, document in enumerate(documents)]
    written = write_matrix(tmp_path / "site", paths)
    text = written[0].read_text(encoding="utf-8")
    return Page(text), text, written


def test_columns_rows_groups_and_cells(tmp_path: Path) -> None:
    select_only = [result for result in broken() if result.rule.op == "select"]
    page, _, written = render(tmp_path, report("ref", every_pass(), version="1.0"),
                              report("port", select_only, version="2.3"))
    assert written[0].name == "index.html"
    # One column per report, in the order given.
    heads = [attrs for tag, attrs in page.elements if tag == "th" and "impl" in attrs.get(
        "class", "").split()]
    assert len(heads) == 2
    assert "ref" in page.text()
    assert "port" in page.text()
    # One row per rule, grouped by profile and spec section, in the registry's order.
    rows = [attrs for tag, attrs in page.elements if tag == "tr" and attrs.get("class") == "rule"]
    assert len(rows) == len(RULES)
    groups = [attrs for tag, attrs in page.elements
              if tag == "tbody" and attrs.get("class") == "group"]
    sections = {(rule.profile, rule.section.partition("#")[0],
                 rule.section.partition("#")[2].split(".")[0]) for rule in RULES}
    assert len(groups) == len(sections)
    # The outcome of every cell: the port's non-select rules were not run.
    cells = [attrs["data-outcome"] for tag, attrs in page.elements
             if tag == "td" and attrs.get("class") == "cell"]
    assert len(cells) == 2 * len(RULES)
    by_rule = dict(zip([rule.id for rule in RULES], zip(cells[::2], cells[1::2], strict=True),
                       strict=True))
    assert by_rule["select.last-message"] == ("pass", "fail")
    assert by_rule["select.never-empty"] == ("pass", "pass")
    assert by_rule["project.agrees"] == ("pass", "none")
    row_outcomes = {attrs["data-outcomes"] for attrs in rows}
    assert "fail pass" in row_outcomes
    assert "none pass" in row_outcomes
    # A filter per outcome present, each on by default.
    filters = {attrs["value"] for tag, attrs in page.elements
               if tag == "input" and "data-filter" in attrs}
    assert filters == {"pass", "fail", "none"}


def test_a_counterexample_is_one_click_away(tmp_path: Path) -> None:
    page, _, _ = render(tmp_path, report("port", broken()))
    links = [attrs for tag, attrs in page.elements if tag == "a" and "data-open" in attrs]
    assert len(links) == 1
    target = links[0]["data-open"]
    assert links[0]["href"] == f"#{target}"
    dialogs = [attrs for tag, attrs in page.elements if tag == "dialog"]
    assert [attrs["id"] for attrs in dialogs] == [target]
    text = page.text()
    assert "your output is [], but the last non-empty message is $.events[0]" in text
    assert "--- expected" in text
    assert "-null" in text
    assert "+[]" in text
    assert ("eventproof replay .eventproof/failures/port/select.last-message.json --impl"
            in text)
    assert "spec/selection.md §3.1" in text


def hostile_report(text: str) -> dict[str, Any]:
    results = every_pass()
    results[1] = RuleResult(RULES_BY_ID["select.last-message"], "fail", Counterexample(
        op="select", input={"events": [{"text": text}]}, expected=None, actual=text,
        message=text, seed=None, stderr=text))
    results[12] = RuleResult(RULES_BY_ID["classify.kind"], "skip", note=text)
    return report(f"<b>{text}</b>", results, homepage='javascript:alert("x")')


def test_hostile_strings_are_shown_not_obeyed(tmp_path: Path) -> None:
    page, text, written = render(tmp_path / "hostile", hostile_report(HOSTILE))
    plain, _, _ = render(tmp_path / "plain", hostile_report("plain text"))
    # The strings create no element: the page has the same elements as with plain text.
    assert Counter(tag for tag, _ in page.elements) == Counter(tag for tag, _ in plain.elements)
    assert [tag for tag, _ in page.elements].count("script") == 2
    assert "<img" not in text
    assert "</script><script>alert" not in text
    assert "&lt;/script&gt;&lt;script&gt;alert(" in text
    # Characters that must not be shown raw are written as escapes; the file is valid UTF-8.
    for raw in ("\u202e", "\u2028", "\x00", "\ud800"):
        assert raw not in text
    assert "\\u202e" in text
    assert "\\u2028" in text
    assert "\\ud800" in text
    written[0].read_bytes().decode("utf-8")
    # A homepage that is not http(s) is never made a link.
    assert not [attrs for tag, attrs in page.elements
                if tag == "a" and attrs.get("href", "").startswith("javascript:")]
    # Attributes hold the hostile text escaped: every title parsed back is the escaped text.
    titles = [attrs["title"] for tag, attrs in page.elements
              if tag == "a" and "data-open" in attrs]
    assert titles
    assert all("<" in title for title in titles)


def test_badges(tmp_path: Path) -> None:
    passing = report("ref", every_pass())
    assert badge(passing) == {"schemaVersion": 1, "label": "eventproof spec 1.0",
                              "message": "conforms", "color": "brightgreen"}
    failing = report("port", broken())
    assert badge(failing) == {"schemaVersion": 1, "label": "eventproof spec 1.0",
                              "message": "1 rule broken", "color": "red"}
    expected = every_pass()
    expected[0] = RuleResult(RULES_BY_ID["select.never-empty"], "xfail",
                             counterexample("known"), note="expected")
    expected[13] = RuleResult(expected[13].rule, "skip", note="not declared")
    assert badge(report("x", expected))["message"] == "conforms (1 xfail, 1 skipped)"
    assert badge(report("x", expected))["color"] == "yellowgreen"
    stale = every_pass()
    stale[0] = RuleResult(RULES_BY_ID["select.never-empty"], "xpass", note="passes now")
    assert badge(report("x", stale))["message"] == "1 stale"
    should = every_pass()
    should[-1] = RuleResult(RULES_BY_ID["canon.bytes"], "fail", counterexample("bytes"))
    assert badge(report("x", should))["message"] == "conforms"  # a SHOULD rule decides nothing
    # The files: one per implementation, distinct names for equal names.
    _, _, written = render(tmp_path, passing, failing, report("port", every_pass()))
    names = sorted(path.name for path in written[1:])
    assert names == ["port-2.json", "port.json", "ref.json"]
    documents = [json.loads(path.read_text("utf-8")) for path in written[1:]]
    assert all(set(doc) == {"schemaVersion", "label", "message", "color"} for doc in documents)


def test_coverage_is_rendered_when_a_result_has_it(tmp_path: Path) -> None:
    document = report("ref", every_pass())
    document["results"][0]["coverage"] = {"judged": 200, "skipped": 3, "errored": 0,
                                          "unanswered": 0, "stopped": "the <budget> was spent"}
    page, text, _ = render(tmp_path, document)
    assert "judged 200 · skipped 3" in page.text()
    assert '<table class="coverage">' in text
    assert "the &lt;budget&gt; was spent" in text


@pytest.mark.parametrize(("content", "named"), [
    ("not json", "not JSON"),
    ("[1]", "a report is a JSON object, this is list"),
    ('{"reportVersion": 1}', "$.reportVersion is 1; this eventproof"),
    ('{"reportVersion": 3}', "$: 'specVersion' is a required property"),
])
def test_a_bad_report_is_named(tmp_path: Path, content: str, named: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(MatrixError) as raised:
        load_report(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert named in str(raised.value)


def test_the_report_command(tmp_path: Path) -> None:
    first = save(tmp_path, "a", report("ref", every_pass()))
    second = save(tmp_path, "b", report("port", broken()))
    runner = CliRunner()
    result = runner.invoke(main, ["report", "--html", str(tmp_path / "out"), str(first),
                                  str(second)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "index.html").is_file()
    assert sorted(p.name for p in (tmp_path / "out" / "badges").iterdir()) == [
        "port.json", "ref.json"]
    missing = runner.invoke(main, ["report", "--html", str(tmp_path / "out"),
                                   str(tmp_path / "nope.json")])
    assert missing.exit_code == 2
    assert "nope.json: no such file" in missing.output


def test_version_names_every_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("eventproof ")
    assert [line.split()[0] for line in lines] == ["eventproof", "spec", "suite", "protocol",
                                                  "report", "vectors-report"]
    assert lines[-1] == "vectors-report 1"
    assert f"({len(RULES)} rules)" in lines[2]


def test_slugs_are_distinct_and_match_the_badges(tmp_path: Path) -> None:
    """Two implementations declaring one name get NAME and NAME-2: the badges are named so, and
    so are the reports `eventproof run --reports DIR` writes."""
    from eventproof.conformance._matrix import slugs

    assert slugs(["My Port", "my port", "ü", "my-port"]) == [
        "my-port", "my-port-2", "implementation", "my-port-3"]
    paths = []
    for index in range(2):
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(report("My Port", [])), encoding="utf-8")
        paths.append(path)
    written = write_matrix(tmp_path / "site", paths)
    assert [path.name for path in written[1:]] == [f"{slug}.json" for slug in
                                                   slugs(["My Port", "My Port"])]
