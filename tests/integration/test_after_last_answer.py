"""Nothing a program writes after its last answer goes unread (spec/protocol.md §6): a line, bytes
no newline ends, or an answer to the stop request is a protocol error of that last answer, under
every scheduler and on every command that asks a program (run, replay, vectors); a program that
writes nothing there conforms."""

from __future__ import annotations

import base64
import shlex
import sys
from pathlib import Path

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._operations import operation
from eventproof.conformance._vectors import run_vectors
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

PROGRAM = Path(__file__).resolve().parent / "programs" / "reference_port.py"


def _command(written: bytes, when: str = "stop") -> str:
    encoded = base64.b64encode(written).decode("ascii")
    return shlex.join([sys.executable, str(PROGRAM), encoded, when])


def _errors(report: object) -> list[tuple[str, str]]:
    return [(result.rule.id, result.counterexample.message)
            for result in report.results  # type: ignore[attr-defined]
            if result.outcome == "error" and result.counterexample is not None]


#: What may come after the last answer: a line, several, a valid-looking answer, bytes no newline
#: ends, a lone newline (an empty line is a line).
WRITTEN = st.one_of(
    st.just(b"\n"),
    st.binary(min_size=1, max_size=40),
    st.lists(st.text(max_size=10).map(str.encode), min_size=1, max_size=3).map(
        lambda lines: b"".join(line + b"\n" for line in lines)),
    st.just(b'{"seq":0,"output":"frame"}\n'),
)


@settings(max_examples=3, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))  # the engine's own @given runs inside
@example(written=b"bye\n", jobs=2, when="stop")
@example(written=b"xxxxx", jobs=1, when="eof")
@example(written=b"\n", jobs=2, when="eof")
@given(written=WRITTEN, jobs=st.sampled_from([1, 2]), when=st.sampled_from(["stop", "eof"]))
def test_what_a_program_writes_after_its_last_answer_is_an_error_of_that_answer(
        written: bytes, jobs: int, when: str) -> None:
    report = check_implementation(_command(written, when), ops=["classify"], max_examples=12,
                                  jobs=jobs)
    errors = _errors(report)
    assert not report.verdict.conforms
    assert [rule for rule, _ in errors] == [operation("classify").agreement_rule], errors
    message = errors[0][1]
    assert "after answering run request" in message
    assert "its last request" in message
    assert "spec/protocol.md §5.1, §6" in message


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_program_that_writes_nothing_after_its_last_answer_conforms(jobs: int) -> None:
    report = check_implementation(_command(b""), ops=["classify"], max_examples=12, jobs=jobs)
    assert report.verdict.conforms, _errors(report)


def test_the_error_goes_to_the_operation_of_the_last_request() -> None:
    report = check_implementation(_command(b"late\n"), ops=["classify", "project"],
                                  max_examples=12, jobs=1)
    # project is checked last, so its request was the last answered.
    assert [rule for rule, _ in _errors(report)] == [operation("project").agreement_rule]


def test_a_failure_already_reported_keeps_its_own_counterexample() -> None:
    """The late bytes turn a passing agreement rule into an error, and never replace a failure
    of it that the search found (with its own, smaller counterexample)."""
    from types import SimpleNamespace

    from eventproof.conformance._adapters import AfterLastAnswer, Broken
    from eventproof.conformance._engine import Engine
    from eventproof.conformance._errors import ProtocolError
    from eventproof.conformance._model import Capabilities
    from eventproof.conformance._results import Counterexample, RuleResult

    rule = next(rule for rule in operation("classify").rules
                if rule.id == operation("classify").agreement_rule)
    found = [AfterLastAnswer("classify", {"event": {"type": "agent_start"}}, Broken(
        ProtocolError("the program's stdout", "the line", "nothing", "late", "fix it")))]
    engine = SimpleNamespace(capabilities=Capabilities(), run_seed=None, broken=set())
    judged = Engine.judge_after_last_answers(engine,  # type: ignore[arg-type]
                                             [RuleResult(rule, "pass")], found)
    assert [result.outcome for result in judged] == ["error"]
    assert judged[0].counterexample is not None
    assert judged[0].counterexample.input == found[0].input
    assert engine.broken == {rule.id}
    earlier = RuleResult(rule, "fail", Counterexample("classify", {"event": {}}, "fact",
                                                      "frame", "its own", None))
    assert Engine.judge_after_last_answers(engine, [earlier], found) == [  # type: ignore[arg-type]
        earlier]


def test_vectors_give_the_last_vector_asked_the_error() -> None:
    outcome = run_vectors(_command(b"late\n"), rule_prefix="classify.")
    failed = [result for result in outcome.results if result.status != "pass"
              and result.status != "skip"]
    assert len(failed) == 1, [result.status for result in outcome.results]
    assert failed[0].unanswered
    assert "after answering run request" in failed[0].message
    clean = run_vectors(_command(b""), rule_prefix="classify.")
    assert {result.status for result in clean.results} <= {"pass", "skip"}


def test_a_replay_gives_the_last_case_asked_the_error(tmp_path: Path) -> None:
    from eventproof.conformance._replay import load_cases, replay, save_failures

    report = check_implementation(_command(b"late\n"), ops=["classify"], max_examples=12,
                                  jobs=1)
    saved = save_failures(report, tmp_path)
    cases = load_cases(list(saved.values()))
    again = replay(cases, _command(b"late\n"))
    assert [result.status for result in again] == ["error"]
    assert "after answering run request" in again[0].message
    assert [result.status for result in replay(cases, _command(b""))] == ["fixed"]
