"""The conformance matrix page and the badges, from JSON reports as `eventproof run` writes them."""

from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from eventproof.conformance import _results
from eventproof.conformance._engine import Counterexample, RuleResult, RunReport
from eventproof.conformance._matrix import (
    MatrixError,
    badge,
    column_labels,
    load_report,
    unchecked_report,
    write_matrix,
)
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES, RULES_BY_ID
from eventproof.conformance._reports import report_document
from eventproof.conformance._results import Invocation, RunVerdict
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance._style import STYLE as _STYLE
from eventproof.conformance.cli import main
from hypothesis import given
from hypothesis import strategies as st

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


def report(name: str, results: list[RuleResult], *, invocation: Invocation | None = None,
           capabilities: Capabilities | None = None, **identity: str) -> dict[str, Any]:
    run = RunReport(implementation={"name": name, "language": "python", **identity},
                    capabilities=capabilities or Capabilities(), results=results, effort="quick",
                    seed=None, deterministic=True, duration=1.5, calls=42,
                    invocation=invocation or Invocation(impl=f"node {name}.mjs", timeout=5))
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
    # The replay command is the report's own: its case file, its implementation and settings.
    assert ("eventproof replay .eventproof/failures/port/select.last-message.json --impl "
            "'node port.mjs' --timeout 5" in text)
    assert "<the implementation" not in text
    assert "spec/selection.md §3.1" in text
    spec_links = [attrs["href"] for tag, attrs in page.elements
                  if tag == "a" and "/spec/" in attrs.get("href", "")]
    assert "https://github.com/eventproof/eventproof/blob/v0.1.0/spec/selection.md#31-the-last-" \
           "non-empty-message" in spec_links


def test_the_replay_command_is_the_report_s_run(tmp_path: Path) -> None:
    """--shell and --timeout of the run reach the replay command; a report of a run from code
    (no command starts it) says so instead of showing a placeholder."""
    shelled = report("port", broken(), invocation=Invocation(
        impl="PORT_MODE=strict node port.mjs", use_shell=True, timeout=2.5))
    page, _, _ = render(tmp_path / "shell", shelled)
    assert ("eventproof replay .eventproof/failures/port/select.last-message.json --impl "
            "'PORT_MODE=strict node port.mjs' --shell --timeout 2.5") in page.text()
    in_code = report("port", broken())
    del in_code["rerun"]
    page, _, _ = render(tmp_path / "code", in_code)
    text = page.text()
    assert "eventproof replay .eventproof/failures/port/select.last-message.json" in text
    assert "does not say how the implementation is started" in text
    assert "--impl '<" not in text


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


def test_badges_restate_the_verdict(tmp_path: Path) -> None:
    passing = report("ref", every_pass())
    assert badge(passing) == {"schemaVersion": 1, "label": "eventproof spec 1.0",
                              "message": "conforms", "color": "brightgreen"}
    failing = report("port", broken())
    assert badge(failing) == {
        "schemaVersion": 1, "label": "eventproof spec 1.0",
        "message": "does not conform (selection does not conform)", "color": "red"}
    # A profile the implementation does not declare is on the badge, never a plain "conforms".
    partial = [RuleResult(rule, "pass" if rule.profile != "budget" else "skip")
               for rule in RULES]
    declared = Capabilities(ops=frozenset(rule.op for rule in RULES
                                          if rule.profile != "budget"))
    document = report("x", partial, capabilities=declared)
    assert document["verdict"]["headline"] == "conforms"
    assert badge(document) == {"schemaVersion": 1, "label": "eventproof spec 1.0",
                               "message": "conforms (budget not declared)",
                               "color": "yellowgreen"}
    stale = every_pass()
    stale[0] = RuleResult(RULES_BY_ID["select.never-empty"], "xpass", note="passes now")
    # A stale expectation is the expectations file's fault, named so; no profile is red.
    assert badge(report("x", stale))["message"] == "stale expectations"
    should = every_pass()
    should = [RuleResult(result.rule, "fail", counterexample("bytes"))
              if result.rule.id == "canon.bytes" else result for result in should]
    assert badge(report("x", should))["message"] == "conforms"  # a SHOULD rule decides nothing
    unchecked = unchecked_report("node gone.mjs", RunVerdict.could_not_check("not found"))
    assert badge(unchecked) == {"schemaVersion": 1, "label": "eventproof",
                                "message": "could not be checked", "color": "lightgrey"}
    # The badge states the document's verdict as it is: it never recomputes it.
    edited = report("port", broken())
    edited["verdict"]["headline"] = "interrupted"
    assert badge(edited)["message"].startswith("interrupted")
    # The files: one per implementation, distinct names for equal names.
    _, _, written = render(tmp_path, passing, failing, report("port", every_pass()))
    names = sorted(path.name for path in written[1:])
    assert names == ["port-2.json", "port.json", "ref.json"]
    documents = [json.loads(path.read_text("utf-8")) for path in written[1:]]
    assert all(set(doc) == {"schemaVersion", "label", "message", "color"} for doc in documents)


def unstyled(css: str, outcomes: tuple[str, ...]) -> list[str]:
    """The outcomes the CSS gives no background colour (a pill of white text on white)."""
    return [outcome for outcome in outcomes
            if not re.search(rf"(^|[}}\s,])\.o-{re.escape(outcome)}\s*\{{[^}}]*background\s*:",
                             css)]


def test_every_outcome_has_a_style(tmp_path: Path) -> None:
    """Every outcome of the results model (read from the list, so an outcome added later is
    walked too) has a colour in the page's CSS; a page without one is caught."""
    _, text, _ = render(tmp_path, report("port", broken()))
    css = re.search(r"<style>(.*?)</style>", text, re.DOTALL)
    assert css is not None
    assert unstyled(css.group(1), _results.OUTCOMES) == []
    # The check finds the defect it stands for: the page of an earlier release had no untested.
    without = re.sub(r"\.o-untested\{[^}]*\}", "", _STYLE)
    assert unstyled(without, _results.OUTCOMES) == ["untested"]
    assert unstyled(_STYLE, (*_results.OUTCOMES, "outcome-added-later")) == [
        "outcome-added-later"]


def test_the_header_and_cards_restate_each_verdict(tmp_path: Path) -> None:
    """The counts, headlines and profile statuses are each report's verdict, as written; an
    implementation that could not be checked has a column with its error."""
    partial = [RuleResult(rule, "pass" if rule.op in ("select", "fold") else "skip")
               for rule in RULES]
    declared = Capabilities(ops=frozenset({"select", "fold"}))
    documents = [report("ref", every_pass(), version="1.0"),
                 report("port", broken(), version="1.0"),
                 report("half", partial, capabilities=declared),
                 unchecked_report("no-such-program", RunVerdict.could_not_check(
                     "'no-such-program' was not found: <install it>"))]
    page, text, written = render(tmp_path, *documents)
    header = re.search(r'<header class="top"><h1>[^<]*</h1><p>([^<]*)</p>', text)
    assert header is not None
    assert header.group(1).startswith(
        "2 of 4 implementations conform (1 does not conform, 1 could not be checked)")
    heads = [attrs["data-headline"] for tag, attrs in page.elements
             if tag == "th" and "impl" in attrs.get("class", "").split()]
    assert heads == ["conforms", "does not conform", "conforms", "could not be checked"]
    cards = [attrs for tag, attrs in page.elements if tag == "section"]
    assert [(card["data-headline"], card["data-exit-code"]) for card in cards] == [
        ("conforms", "0"), ("does not conform", "1"), ("conforms", "0"),
        ("could not be checked", "2")]
    counted = [(attrs["data-outcome"], attrs["data-count"]) for tag, attrs in page.elements
               if tag == "span" and attrs.get("class") == "count"]
    assert ("fail", "1") in counted
    # Each profile's status per column: the half port declares two selection operations.
    statuses = [attrs["data-status"] for tag, attrs in page.elements
                if tag == "td" and "pcell" in attrs.get("class", "")]
    assert statuses == [
        "conforms", "does not conform", "partly declared", "could not be checked",
        "conforms", "conforms", "not declared", "could not be checked",
        "conforms", "conforms", "not declared", "could not be checked"]
    assert "select, fold checked; settle not declared" in text
    # The unchecked column: its command, its error, escaped; every rule "not run".
    assert "&#x27;no-such-program&#x27; was not found: &lt;install it&gt;" in text
    cells = [attrs["data-outcome"] for tag, attrs in page.elements
             if tag == "td" and attrs.get("class") == "cell"]
    assert cells[3::4] == ["none"] * len(RULES)
    assert sorted(path.name for path in written[1:]) == [
        "half.json", "no-such-program.json", "port.json", "ref.json"]
    # What the page shows is the verdict its results give (the one judge), never the stored
    # one restated: an edited verdict is judged again, and the page says it disagreed.
    edited = report("port", broken())
    edited["verdict"]["headline"] = "terminated"
    edited["verdict"]["counts"]["fail"] = 7
    page, text, _ = render(tmp_path / "edited", edited)
    assert [attrs["data-headline"] for tag, attrs in page.elements if tag == "section"] == [
        "does not conform"]
    assert ("fail", "1") in [(attrs["data-outcome"], attrs["data-count"])
                             for tag, attrs in page.elements
                             if tag == "span" and attrs.get("class") == "count"]
    assert "its stored verdict (terminated, exit code 1) is not the one its results give" in text


def test_the_unchecked_shape_is_a_report() -> None:
    document = unchecked_report("node gone.mjs", RunVerdict.could_not_check("gone"))
    assert schema_issues(document, "report.json") == []
    assert schema_issues({**document, "verdict": report("x", every_pass())["verdict"]},
                         "report.json") != []


@given(st.lists(st.tuples(st.sampled_from(["port", "port 1.0", "js"]),
                          st.sampled_from(["", "1.0", "1.0 (2)"])), min_size=1, max_size=6),
       st.booleans())
def test_column_labels_are_always_distinct(identities: list[tuple[str, str]],
                                           labelled: bool) -> None:
    """Whatever names, versions and labels are given (the same ones included), no two columns
    are headed alike, and each heading starts with what it was to be called."""
    documents = [report(name, [], version=version) for name, version in identities]
    wanted = [name for name, _ in identities] if labelled else None
    shown = column_labels(documents, wanted)
    assert len(set(shown)) == len(shown)
    for heading, (name, version) in zip(shown, identities, strict=True):
        assert heading.startswith(name if labelled else " ".join(filter(None, [name, version])))


def test_columns_are_told_apart() -> None:
    """--label heads the columns; without it, name and version, numbered while still equal."""
    same = [report("js-example", [], version="0.1.0") for _ in range(3)]
    other = report("js-example", [], version="0.2.0")
    assert column_labels([*same, other]) == [
        "js-example 0.1.0", "js-example 0.1.0 (2)", "js-example 0.1.0 (3)", "js-example 0.2.0"]
    assert column_labels(same, ["node 20", "node 22", "node 22"]) == [
        "node 20", "node 22", "node 22 (2)"]
    with pytest.raises(MatrixError, match="2 label"):
        column_labels(same, ["a", "b"])
    with pytest.raises(MatrixError, match="label 2 is empty"):
        column_labels(same, ["a", " ", "c"])


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
    ('{"reportVersion": 3, "suiteVersion": "0.1.0", "implementation": {"command": "x"}, '
     '"verdict": {"conforms": true}}', "$.verdict: 'exitCode' is a required property"),
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


def test_run_html_gives_every_implementation_a_column(tmp_path: Path) -> None:
    """`eventproof run --html`'s page: one column per --impl, those that could not be checked
    (or that a run ended before reaching) with their error, headed by their labels."""
    from eventproof.conformance.cli import _Checked, _console, _write_html

    checked = [_Checked("node gone.mjs", None, error="'node' was not found"),
               _Checked("node later.mjs", None, error="not checked: the run ended before it "
                                                       "reached this implementation")]
    _write_html(tmp_path / "site", checked, ("gone", "later"), None, _console())
    page = Page((tmp_path / "site" / "index.html").read_text("utf-8"))
    heads = [attrs["data-headline"] for tag, attrs in page.elements
             if tag == "th" and "impl" in attrs.get("class", "").split()]
    assert heads == ["could not be checked"] * 2
    assert "'node' was not found" in page.text()
    assert "the run ended before it reached this implementation" in page.text()
    assert sorted(path.name for path in (tmp_path / "site" / "reports").iterdir()) == [
        "unchecked-node-gone.mjs.json", "unchecked-node-later.mjs.json"]
    assert [entry.json_file is not None for entry in checked] == [True, True]
