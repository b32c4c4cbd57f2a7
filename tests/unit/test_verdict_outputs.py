"""Every output states the one verdict: the same headline, counts and exit code as
:attr:`RunReport.verdict`, whatever the implementation did.

Runs are generated with arbitrary behaviours per operation (conforming, failing, skipping,
hanging, crashing, undeclared, anything at all), declared operations and endings, as
:class:`RuleResult` values built from the operation table's rules. Each renderer in
:data:`RENDERERS` renders the run and returns what it states (:class:`Stated`: the fields it does
not state are None); the property compares every stated field with the verdict. To cover another
output, add a :class:`Renderer` to the list.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import pytest
from eventproof.conformance._matrix import badge, matrix_html
from eventproof.conformance._model import Capabilities, Outcome
from eventproof.conformance._operations import OPS, PROFILES, RULES
from eventproof.conformance._reports import junit_tree, markdown_summary, report_document
from eventproof.conformance._results import (
    EXITFIRST_REASON,
    INTERRUPTED_REASON,
    MAX_TIME_REASON,
    OUTCOMES,
    TERMINATED_REASON,
    Counterexample,
    Coverage,
    Invocation,
    ProfileStatus,
    RuleResult,
    RunReport,
    RunVerdict,
    verdict_of_document,
)
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance._shard import shard_ops
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

ACTION = Path(__file__).resolve().parents[2] / ".github" / "action" / "run.py"
PROFILE_NAMES = tuple(profile.name for profile in PROFILES)
BROKEN = ("fail", "error", "crash", "timeout", "unstable")

#: The outcomes each behaviour of an operation gives its rules.
BEHAVIOURS: dict[str, tuple[Outcome, ...]] = {
    "conforming": ("pass",),
    "failing": ("pass", "fail"),
    "skipping": ("skip", "untested"),
    "hanging": ("pass", "timeout", "untested"),
    "crashing": ("pass", "crash", "error"),
    "expected": ("pass", "xfail", "xpass"),
    "anything": OUTCOMES,
}


@dataclass(frozen=True)
class Stated:
    """What one output states of a verdict; None where it states nothing."""

    headline: str
    exit_code: int | None = None
    counts: Mapping[str, int] | None = None
    #: Rules judged, of how many.
    judged: tuple[int, int] | None = None
    #: Each profile's status.
    profiles: Mapping[str, str] | None = None
    #: The part of a whole run it says the run checked, as (rules checked, of how many), or
    #: WHOLE; None where it says nothing of it.
    scope: tuple[int, int] | None = None


#: What an output states of a whole run's scope.
WHOLE = (-1, -1)
_SCOPE = re.compile(r"checked only (\d+) of (\d+) rules")


def _scope_in(text: str) -> tuple[int, int]:
    """The scope a text states: ``checked only N of M rules`` (N, M), or else WHOLE."""
    match = _SCOPE.search(text)
    return (int(match[1]), int(match[2])) if match else WHOLE


@dataclass(frozen=True)
class Renderer:
    name: str
    render: Callable[[RunReport], Stated]


# -- the runs ----------------------------------------------------------------------------------

def _counterexample(op: str, message: str) -> Counterexample:
    return Counterexample(op=op, input={"events": []}, expected=None, actual=[],
                          message=message, seed=None, kind="")


@st.composite
def subsets(draw: st.DrawFn) -> tuple[tuple[str, ...], Invocation]:
    """The operations and rules a run checks, cut as a user cuts one: a whole run, ``--ops``,
    ``--shard K/N``, ``--rule`` (repeated), or a pytest ``-k`` the harness knows only by the
    rules it ran."""
    cut = draw(st.sampled_from(["whole", "ops", "shard", "rules", "pytest -k"]), label="cut")
    impl = "node port.mjs"
    if cut == "whole":
        return tuple(rule.id for rule in RULES), Invocation(impl=impl)
    if cut == "ops":
        ops = tuple(draw(st.lists(st.sampled_from(OPS), min_size=1, unique=True)))
        return (tuple(rule.id for rule in RULES if rule.op in ops),
                Invocation(impl=impl, ops=ops))
    if cut == "shard":
        parts = draw(st.integers(1, 4))
        shard = (draw(st.integers(1, parts)), parts)
        ops = shard_ops(OPS, shard)
        return (tuple(rule.id for rule in RULES if rule.op in ops),
                Invocation(impl=impl, shard=shard))
    chosen = draw(st.lists(st.sampled_from([rule.id for rule in RULES]), min_size=1,
                           unique=True))
    ids = tuple(rule.id for rule in RULES if rule.id in chosen)
    return ids, Invocation(impl=impl, rules=ids if cut == "rules" else ())


@st.composite
def runs(draw: st.DrawFn) -> RunReport:
    ids, invocation = draw(subsets())
    checked = [op for op in OPS if any(rule.op == op and rule.id in ids for rule in RULES)]
    declared = draw(st.frozensets(st.sampled_from(OPS)), label="declared")
    results: list[RuleResult] = []
    for op in [op for op in OPS if op in checked]:  # in run order
        behaviour = draw(st.sampled_from(sorted(BEHAVIOURS)), label=f"{op} behaves")
        first_broken = ""
        for rule in (rule for rule in RULES if rule.op == op and rule.id in ids):
            if op not in declared:
                results.append(RuleResult(rule, "skip", note="not declared"))
                continue
            outcome = draw(st.sampled_from(BEHAVIOURS[behaviour]))
            judged = 0 if outcome in ("skip", "untested") else draw(st.integers(0, 3))
            example = None
            if outcome in (*BROKEN, "xfail"):
                example = _counterexample(op, draw(st.sampled_from(
                    ["output differs", "an empty message was kept", "no answer [in time]"])))
            cause = ""
            if outcome in BROKEN:
                if first_broken and draw(st.booleans()):
                    cause = first_broken
                first_broken = first_broken or rule.id
            results.append(RuleResult(rule, outcome, counterexample=example,
                                      coverage=Coverage(judged=judged), cause=cause,
                                      note="note" if outcome != "pass" else ""))
    ending = draw(st.sampled_from(["", "", MAX_TIME_REASON, INTERRUPTED_REASON,
                                   TERMINATED_REASON, EXITFIRST_REASON]), label="ending")
    allow_untested = draw(st.booleans(), label="allow untested")
    return RunReport(
        implementation={"name": "port", "version": "1.0", "language": "python"},
        capabilities=Capabilities(ops=declared), results=results, effort="quick", seed=None,
        deterministic=True, duration=1.0, calls=10, allow_untested=allow_untested,
        invocation=replace(invocation, allow_untested=allow_untested),
        cut_short=str(ending))


# -- the renderers -----------------------------------------------------------------------------

_LINE = re.compile(r"^(?P<headline>.+?) \(exit code (?P<code>\d+), (?P<judged>\d+) of "
                   r"(?P<rules>\d+) rules judged\)")


def _from_line(line: str, **more: Any) -> Stated:
    """What a verdict line (:meth:`RunVerdict.line`) states."""
    match = _LINE.match(line)
    assert match is not None, line
    return Stated(headline=match["headline"], exit_code=int(match["code"]),
                  judged=(int(match["judged"]), int(match["rules"])), scope=_scope_in(line),
                  **more)


def _document(verdict: Mapping[str, Any]) -> Stated:
    scope = verdict["scope"]
    assert _scope_in(verdict["line"]) == (WHOLE if scope["whole"] else
                                          (scope["checkedRules"], scope["rules"]))
    return Stated(headline=verdict["headline"], exit_code=verdict["exitCode"],
                  counts=dict(verdict["counts"]),
                  judged=(verdict["judgedRules"], verdict["rules"]),
                  profiles={p["profile"]: p["status"] for p in verdict["profiles"]},
                  scope=WHOLE if scope["whole"] else (scope["checkedRules"], scope["rules"]))


def json_report(report: RunReport) -> Stated:
    document = report_document(report)
    assert schema_issues(document, "report.json") == []
    assert document["conforms"] is document["verdict"]["conforms"]
    assert document["totals"] == document["verdict"]["counts"]
    assert document["judgedRules"] == document["verdict"]["judgedRules"]
    return _document(document["verdict"])


def json_read_back(report: RunReport) -> Stated:
    """The verdict of the JSON report judged again from its results (merge, replay)."""
    verdict = verdict_of_document(report_document(report))
    return _document(verdict.document())


class _Elements(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {key: value or "" for key, value in attrs}))


def matrix_page(report: RunReport) -> Stated:
    html = matrix_html([(Path("port.json"), report_document(report))])
    page = _Elements(html)
    lines = re.findall(r'<p class="line">(.*?)</p>', html)
    assert len(lines) == 1
    cards = [attrs for tag, attrs in page.elements if tag == "section"]
    assert len(cards) == 1
    counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    counts.update({attrs["data-outcome"]: int(attrs["data-count"])
                   for tag, attrs in page.elements
                   if tag == "span" and attrs.get("class") == "count"})
    judged = next(attrs for tag, attrs in page.elements
                  if tag == "p" and attrs.get("class") == "counts")
    profiles = {attrs["data-profile"]: attrs["data-status"] for tag, attrs in page.elements
                if tag == "li" and "data-profile" in attrs}
    # The profile rows of the table say the same as the card.
    cells = [attrs["data-status"] for tag, attrs in page.elements
             if tag == "td" and "pcell" in attrs.get("class", "")]
    assert cells == list(profiles.values())
    heads = [attrs["data-headline"] for tag, attrs in page.elements
             if tag == "th" and "impl" in attrs.get("class", "").split()]
    assert heads == [cards[0]["data-headline"]]
    return Stated(headline=cards[0]["data-headline"], exit_code=int(cards[0]["data-exit-code"]),
                  counts=counts, judged=(int(judged["data-judged"]), int(judged["data-rules"])),
                  profiles=profiles, scope=_scope_in(lines[0]))


def badge_file(report: RunReport) -> Stated:
    message = badge(report_document(report))["message"]
    headline, _, notes = message.partition(" (")
    profiles = dict.fromkeys(PROFILE_NAMES, "conforms")
    for note in filter(None, notes.removesuffix(")").split(", ")):
        if note.startswith("checked only "):
            continue  # the scope, read below
        profile, _, status = note.partition(" ")
        profiles[profile] = status
    return Stated(headline=headline, profiles=profiles, scope=_scope_in(notes))


def junit(report: RunReport) -> Stated:
    root = junit_tree(report).getroot()
    stated = {(prop.get("name"), prop.get("value")) for prop in root.iter("property")}
    lines = {value for name, value in stated if name == "verdict"}
    codes = {value for name, value in stated if name == "exit-code"}
    assert len(lines) == 1
    assert len(codes) == 1
    line = _from_line(lines.pop() or "")
    assert line.exit_code == int(codes.pop() or "")
    assert root.get("tests") == str(line.judged[1] if line.judged else "")
    return line


#: Every status a profile can have (schemas/report.json), the longest first.
STATUSES = sorted(get_args(ProfileStatus), key=len, reverse=True)


def _status_in(text: str) -> str:
    """The status a text states (``not checked in this run`` states ``not checked``)."""
    return next((status for status in STATUSES if text.startswith(status)), text)


def markdown(report: RunReport) -> Stated:
    text = markdown_summary(report)
    first = text.splitlines()[0]
    mark, _, headline = first.partition(" eventproof: port 1.0 (python) ")
    verdict = re.search(r"^\*\*Verdict:\*\* (.*)$", text, re.MULTILINE)
    assert verdict is not None
    all_row = re.search(r"^\| \*\*all\*\* \|(.*)\|$", text, re.MULTILINE)
    assert all_row is not None
    counts: dict[str, int] = dict(zip(OUTCOMES, (int(cell.strip().strip("*"))
                                 for cell in all_row[1].split("|")), strict=True))
    profiles = {match[1]: _status_in(match[2])
                for match in re.finditer(r"^\| (\w+) \| ([^|]+) \| \d+ of \d+ \|$", text,
                                         re.MULTILINE)}
    stated = _from_line(verdict[1], counts=counts, profiles=profiles)
    assert stated.headline == headline
    assert mark == ("# ✅" if headline == "conforms" else "# ⚠️" if headline == "checked only part"
                    else "# ❌")
    return stated


def _action() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eventproof_action_run", ACTION)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ACTION_SCRIPT = _action()


def action(report: RunReport) -> Stated:
    """The action's outputs, its last annotation and its job summary (without a Markdown
    file)."""
    document = report_document(report)
    outputs = ACTION_SCRIPT.outputs_of(document)
    stated = _from_line(outputs["summary"], profiles=dict(
        entry.split("=", 1) for entry in outputs["profiles"].split(",") if entry))
    assert stated.headline == outputs["verdict"]
    assert stated.exit_code == int(outputs["exit-code"])
    last = ACTION_SCRIPT.annotation_commands(document)[-1]
    assert last.startswith("::notice " if stated.exit_code == 0 else "::error ")
    assert f"port {stated.headline}::" in last
    summary = ACTION_SCRIPT.step_summary(document, None)
    assert summary.splitlines()[0].endswith(f"eventproof: port {stated.headline}")
    return stated


def console(report: RunReport) -> Stated:
    """The console summary: its last line is the verdict line, and its profiles line (shown
    when a profile does not simply conform) names each profile's status."""
    import io

    from eventproof.conformance._reports import render_console
    from rich.console import Console

    out = io.StringIO()
    render_console(report, Console(file=out, width=300, markup=False, color_system=None,
                                   soft_wrap=True))
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    profiles = None
    shown = [line for line in lines if line.startswith("  profiles:")]
    if shown:
        profiles = {name: _status_in(shown[0].split(f"  {name} ", 1)[1])
                    for name in PROFILE_NAMES if f"  {name} " in shown[0]}
    return _from_line(lines[-1], profiles=profiles)


def pytest_plugin(report: RunReport) -> Stated:
    """The pytest plugin's session summary, judged from what each rule's item reports (its user
    properties, as they reach the xdist controller)."""
    from eventproof.conformance.pytest_plugin import PROPERTY, _Summary, verdict_properties

    summary = _Summary()
    for result in report.results:
        properties = [(f"{PROPERTY}rule", result.rule.id),
                      (f"{PROPERTY}operation", result.rule.op),
                      (f"{PROPERTY}level", result.rule.level),
                      *verdict_properties(report, result, "port")]
        summary.verdicts[result.rule.id] = {name[len(PROPERTY):]: value
                                            for name, value in properties}
    verdict = summary.verdict()
    assert verdict is not None
    return _from_line(verdict.line(), counts=dict(verdict.counts),
                      profiles={p.profile: p.status for p in verdict.profiles})


#: Every output that restates a verdict.
RENDERERS: list[Renderer] = [
    Renderer("console", console),
    Renderer("pytest plugin", pytest_plugin),
    Renderer("JSON report", json_report),
    Renderer("JSON report read back", json_read_back),
    Renderer("matrix page", matrix_page),
    Renderer("badge", badge_file),
    Renderer("JUnit", junit),
    Renderer("Markdown", markdown),
    Renderer("action", action),
]


def disagreements(report: RunReport, renderer: Renderer) -> list[str]:
    """How what ``renderer`` states differs from ``report.verdict`` (empty: it agrees)."""
    verdict: RunVerdict = report.verdict
    stated = renderer.render(report)
    wrong = []
    if stated.headline != verdict.headline:
        wrong.append(f"headline {stated.headline!r}, the verdict's is {verdict.headline!r}")
    if stated.exit_code is not None and stated.exit_code != int(verdict.exit_code):
        wrong.append(f"exit code {stated.exit_code}, the verdict's is {int(verdict.exit_code)}")
    if stated.counts is not None and dict(stated.counts) != dict(verdict.counts):
        wrong.append(f"counts {dict(stated.counts)}, the verdict's are {dict(verdict.counts)}")
    if stated.judged is not None and stated.judged != (verdict.judged, verdict.rules):
        wrong.append(f"{stated.judged} judged, the verdict's {(verdict.judged, verdict.rules)}")
    profiles = {profile.profile: profile.status for profile in verdict.profiles}
    if stated.profiles is not None and dict(stated.profiles) != profiles:
        wrong.append(f"profiles {dict(stated.profiles)}, the verdict's {profiles}")
    scope = (WHOLE if verdict.scope is None or verdict.scope.whole
             else (verdict.scope.checked, verdict.scope.rules))
    if stated.scope is None:
        wrong.append("it states no scope (a whole run, or checked only N of M rules)")
    elif stated.scope != scope:
        wrong.append(f"scope {stated.scope}, the verdict's {scope}")
    return [f"{renderer.name}: {problem}" for problem in wrong]


def overclaims(report: RunReport) -> list[str]:
    """What the verdict calls conforming that the run did not check whole: a profile
    ``conforms`` with a rule of its declared operations left out of the run or judged on no
    answer, or a run headline ``conforms`` with a rule of a whole run left out (judged from the
    results and the operation table, not from the verdict)."""
    verdict = report.verdict
    present = {result.rule.id for result in report.results}
    judged = {row.id for row in report.verdict_rows() if row.judged}
    wrong = []
    if verdict.headline == "conforms" and present != {rule.id for rule in RULES}:
        wrong.append(f"the run conforms, having checked {len(present)} of {len(RULES)} rules")
    declared = report.capabilities.ops
    for profile in verdict.profiles:
        owed = {rule.id for rule in RULES
                if rule.profile == profile.profile and rule.op in declared}
        if profile.status == "conforms" and not owed <= judged:
            wrong.append(f"{profile.profile} conforms, but {sorted(owed - judged)[:3]} were "
                         "not judged")
    if not verdict.whole and verdict.headline in ("conforms",):
        wrong.append("a part of a run is called conforming")
    return wrong


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_every_output_states_the_one_verdict(report: RunReport) -> None:
    problems = [problem for renderer in RENDERERS for problem in disagreements(report, renderer)]
    assert problems == []
    assert overclaims(report) == []


def _scope_blind(report: RunReport) -> Stated:
    """A wrong output: the verdict line without the run's scope, as every output was before a
    subset run said what it covered (``selection conforms (1 of 1 rules judged)``)."""
    verdict = report.verdict
    return Stated(headline=verdict.headline, scope=WHOLE)


def test_the_property_catches_an_output_blind_to_the_scope() -> None:
    """An output that does not say a run was a slice is caught."""
    wrong = Renderer("scope-blind line", _scope_blind)
    found = find(runs(), lambda report: bool(disagreements(report, wrong)),
                 settings=settings(max_examples=200, database=None))
    assert not found.verdict.whole


def test_the_property_catches_a_verdict_that_overclaims() -> None:
    """A verdict that judges a slice as the whole (no scope given to judge_run) is caught."""
    from eventproof.conformance._results import judge_run

    def blind(report: RunReport) -> RunVerdict:
        return judge_run(report.verdict_rows(), declared=report.capabilities.ops,
                         allow_untested=report.allow_untested, ending=report.cut_short)

    class Blind(RunReport):
        @property
        def verdict(self) -> RunVerdict:
            return blind(self)

    found = find(runs(), lambda report: bool(overclaims(Blind(**{
        name: getattr(report, name) for name in report.__dataclass_fields__}))),
        settings=settings(max_examples=300, database=None))
    assert found.results


def _decides_for_itself(report: RunReport) -> Stated:
    """A wrong output: it calls a run conforming when no MUST rule failed, as outputs did before
    the verdict was one value (an untested rule, an interrupted run, a run that judged
    nothing, a stale expectation all "conform")."""
    broken = any(result.outcome in BROKEN and result.rule.level == "MUST"
                 for result in report.results)
    return Stated(headline="does not conform" if broken else "conforms")


def test_the_property_catches_an_output_that_decides_for_itself() -> None:
    wrong = Renderer("deciding badge", _decides_for_itself)
    found = find(runs(), lambda report: bool(disagreements(report, wrong)),
                 settings=settings(max_examples=200, database=None))
    assert disagreements(found, wrong)


@pytest.mark.parametrize("renderer", RENDERERS, ids=lambda renderer: renderer.name)
def test_each_output_states_a_headline(renderer: Renderer) -> None:
    """No output is left out of the property by stating nothing."""
    report = RunReport(implementation={"name": "port", "version": "1.0", "language": "python"},
                       capabilities=Capabilities(),
                       results=[RuleResult(rule, "pass") for rule in RULES],
                       effort="quick", seed=None, deterministic=True)
    assert renderer.render(report).headline == "conforms"
    assert renderer.render(report).scope == WHOLE


@pytest.mark.parametrize("renderer", RENDERERS, ids=lambda renderer: renderer.name)
@pytest.mark.parametrize("invocation", [
    Invocation(impl="port", rules=("select.last-message",)),
    Invocation(impl="port", ops=("select",)), Invocation(impl="port", shard=(1, 3))],
    ids=["--rule", "--ops", "--shard"])
def test_a_slice_that_breaks_nothing_is_checked_only_part(renderer: Renderer,
                                                          invocation: Invocation) -> None:
    """``--rule select.last-message`` and ``--shard 1/3`` exit 0 but are never called
    conforming: every output says ``checked only part`` and how many rules of how many."""
    if invocation.rules:
        ops: tuple[str, ...] = ()
        kept = [rule for rule in RULES if rule.id in invocation.rules]
    else:
        ops = invocation.ops or shard_ops(OPS, invocation.shard or (1, 1))
        kept = [rule for rule in RULES if rule.op in ops]
    report = RunReport(implementation={"name": "port", "version": "1.0", "language": "python"},
                       capabilities=Capabilities(),
                       results=[RuleResult(rule, "pass") for rule in kept],
                       effort="quick", seed=None, deterministic=True, invocation=invocation)
    stated = renderer.render(report)
    assert stated.headline == "checked only part"
    assert stated.scope == (len(kept), len(RULES))
    assert "conforms" not in (stated.profiles or {}).values() or invocation.shard is not None
    assert report.verdict.exit_code == 0
    assert invocation.subset() in report.verdict.line()
