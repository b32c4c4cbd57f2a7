"""One root cause, one failure: an implementation that refuses one member everywhere, or one
wrong answer that breaks several rules, is shown once (``_results.group_refusals``,
``_engine.Engine._group_causes``)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._operations import RULES
from eventproof.conformance._results import Counterexample, RuleResult, group_refusals
from eventproof.reference import Reference
from hypothesis import given
from hypothesis import strategies as st
from miniatures import Miniature


def _holds(value: Any, member: str) -> bool:
    if isinstance(value, dict):
        return member in value or any(_holds(item, member) for item in value.values())
    if isinstance(value, list):
        return any(_holds(item, member) for item in value)
    return False


class RefusesAMember(Miniature):
    """Answers errored to every input holding a member named :attr:`member` (a port that does
    not know a member the schema allows), the reference otherwise."""

    name = "refuses-a-member"
    member: ClassVar[str] = "usage"

    def run(self, op: str, input: Any) -> Any:
        if _holds(input, self.member):
            raise ValueError(f"unknown member {self.member!r} at offset {len(str(input))}")
        return self.reference.run(op, input)


@pytest.mark.parametrize("member", ["usage", "content"])
def test_a_refused_member_is_one_failure_that_names_it(member: str) -> None:
    """Every rule the refusal blocked is "same cause" as one failure, whose note names the member
    every refused input holds."""
    implementation = type("Refuses", (RefusesAMember,), {"member": member})
    report = check_implementation(implementation, ops=["select", "project"], effort="quick")
    refused = [result for result in report.results if result.outcome == "error"]
    assert len(refused) >= 2, "the refusal should block several rules"
    shown = [result for result in refused if not result.cause]
    assert len(shown) == 1
    assert member in shown[0].note
    assert all(result.cause == shown[0].rule.id for result in refused if result.cause)
    assert not report.conforms  # grouping changes what is shown, never the verdict


_errored_rules = st.lists(st.sampled_from(RULES), min_size=1, max_size=8, unique=True)


@given(rules=_errored_rules, messages=st.lists(st.sampled_from(
    ["unknown member 'mode' at 3", "unknown member 'mode' at 17", "bad type \"x\"",
     "cannot parse 1.5e3"]), min_size=8, max_size=8))
def test_refusals_group_by_what_they_say(rules: list[Any], messages: list[str]) -> None:
    """Refusals group exactly when their messages agree but for the values in them; the verdict's
    outcomes are unchanged and each group has one failure shown, the first in rule order."""
    results = [RuleResult(rule, "error", counterexample=Counterexample(
        rule.op, {"event": {"mode": index}}, {"ok": 1}, {"errored": messages[index]},
        "errored", None)) for index, rule in enumerate(rules)]
    grouped = group_refusals(results)
    assert [r.outcome for r in grouped] == [r.outcome for r in results]
    keys: dict[str, str] = {}
    for result, message in zip(grouped, messages, strict=False):
        key = message.split(" at ")[0].split(" 1")[0]
        if key in keys:
            assert result.cause == keys[key]
        else:
            keys[key] = result.rule.id
            assert result.cause == ""


def test_an_errored_answer_to_an_erroneous_input_is_no_refusal() -> None:
    """An errored answer where the spec expects one is agreement, never grouped."""
    rule = RULES[0]
    results = [RuleResult(rule, "error", counterexample=Counterexample(
        rule.op, {}, {"errored": "x"}, {"errored": "x"}, "m", None))] * 2
    assert group_refusals(results) == results


def test_reference_is_unaffected() -> None:
    """The reference conforms with nothing grouped."""
    report = check_implementation(Reference, ops=["select"], effort="quick")
    assert report.conforms
    assert not any(result.cause for result in report.results)


def _group(op_name: str, found: dict[str, RuleResult]) -> dict[str, RuleResult]:
    from types import SimpleNamespace

    from eventproof.conformance._engine import Engine
    from eventproof.conformance._model import Capabilities
    from eventproof.conformance._operations import operation

    Engine._group_causes(SimpleNamespace(capabilities=Capabilities()),  # type: ignore[arg-type]
                         operation(op_name), found)
    return found


def _failed(rule_id: str, op_input: Any, actual: Any) -> RuleResult:
    rule = next(rule for rule in RULES if rule.id == rule_id)
    return RuleResult(rule, "fail", Counterexample(
        op=rule.op, input=op_input, expected=None, actual=actual, message="", seed=None))


TURN_END = {"type": "turn_end", "message": {"role": "assistant", "content": [
    {"type": "text", "text": "\ud800"}]}, "toolResults": []}


@pytest.mark.parametrize(("line", "same_cause"), [
    # The whole event written, its lone surrogate kept: two bugs, each its own failure.
    ('{"type":"turn_end","message":{"role":"assistant","content":[{"type":"text",'
     '"text":"\\ud800"}]},"toolResults":[]}', False),
    # The projection right, the surrogate kept in the role: repairing it repairs everything.
    ('{"type":"turn_end","messageRole":"\\ud800","toolResultCount":0}', True),
])
def test_a_failure_is_same_cause_only_when_repairing_the_cause_repairs_it(
        line: str, same_cause: bool) -> None:
    """A failure whose counterexample also keeps a lone surrogate is listed "same cause" as
    canon.utf8 only when the answer with its surrogates made well formed no longer breaks its
    rule: an unshrunk input can hold a lone surrogate and an independent bug at once."""
    event = dict(TURN_END, message={**TURN_END["message"], "role": "\ud800"}) if same_cause \
        else TURN_END
    op_input = {"event": event, "includeLiveEvents": False, "maxBytes": 262144}
    actual = {"line": line}
    found = _group("project", {"canon.utf8": _failed("canon.utf8", op_input, actual),
                               "project.turn-end": _failed("project.turn-end", op_input,
                                                           actual)})
    assert (found["project.turn-end"].cause == "canon.utf8") is same_cause
