"""A MUST failure that an encoder's byte form explains names that cause, and hints are given
only when their condition is the cause.

An implementation that escapes characters the canonical form writes raw (U+2028 and U+2029 as
many "JavaScript-safe" encoders do, ``<>&`` as Go's HTML-safe default) measures its lines in
that form and bounds a line that fits. Drawn here: the escaped characters, the text and a
``maxBytes`` between the canonical size and the size as written. The failure of
``bound.only-when-over`` must say the byte form is the cause (kind
:data:`~eventproof.conformance._model.BYTE_FORM_KIND`, naming ``canon.bytes``) and never blame the
comparison (``>`` vs ``>=``), which a port that bounds at exactly ``maxBytes`` with canonical
bytes does get, with no byte-form note.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from eventproof.conformance._model import BYTE_FORM_KIND, Capabilities, Case
from eventproof.conformance._operations import RULES_BY_ID
from eventproof.conformance._results import RuleResult, group_byte_forms
from eventproof.conformance.wire.checks.bound import check_only_when_over
from eventproof.reference import Reference, canonical_bytes
from hypothesis import given, settings
from hypothesis import strategies as st
from miniatures.wire import BoundsAtExactlyMaxBytes, MaximalPipeline, Pipeline

#: Characters an encoder may escape that the canonical form writes raw, and others it may hold.
ESCAPABLE = "\u2028\u2029<>&"
OTHERS = "aé😀\"\n"
SMALLEST = 3215


def update(text: str) -> dict[str, Any]:
    return {"type": "tool_execution_update", "toolCallId": "call_1", "toolName": "t",
            "args": {}, "partialResult": {"content": [{"type": "text", "text": text}],
                                          "details": {}}}


def case(impl: Any, event: dict[str, Any], max_bytes: int, fit: str = "halving") -> Case:
    op_input = {"event": event, "includeLiveEvents": True, "maxBytes": max_bytes}
    capabilities = Capabilities(ops=frozenset({"project"}), fit_strategy=fit)
    expected = Reference(fit).run("project", op_input)
    return Case("project", op_input, expected, impl.run("project", op_input), capabilities)


@settings(max_examples=40, deadline=None)
@given(escaped=st.text(alphabet=ESCAPABLE, min_size=1).map(lambda s: "".join(sorted(set(s)))),
       body=st.text(alphabet=ESCAPABLE + OTHERS, min_size=1, max_size=12), data=st.data())
def test_a_bound_broken_by_the_byte_form_names_that_cause(escaped: str, body: str,
                                                          data: st.DataObject) -> None:
    """Whatever characters the encoder escapes, a line that fits but that the encoder measures
    over the bound is reported as the byte form's failure, same cause as canon.bytes, without
    the ``>=`` hint."""
    if not set(body) & set(escaped):
        body += escaped[0]

    class Escapes(Pipeline):
        name = "escapes"
        extra_escapes: ClassVar[str] = escaped

    padding = "0" * (SMALLEST - len(canonical_bytes(update(body))))
    event = update(padding + body)
    size = len(canonical_bytes(event))
    written = Escapes().measure(event)
    max_bytes = data.draw(st.integers(size, written - 1), label="maxBytes")
    found = list(check_only_when_over(case(Escapes(), event, max_bytes)))
    assert len(found) == 1
    [violation] = found
    assert violation.kind == BYTE_FORM_KIND
    assert "canon.bytes" in violation.message
    assert f"{written} bytes" in violation.message
    assert ">=" not in violation.message


def test_bounding_at_exactly_max_bytes_gets_the_comparison_hint_alone() -> None:
    """A port that writes canonical bytes but bounds a line of exactly maxBytes is told about
    ``>`` and ``>=``, and nothing of a byte form."""
    event = update("0" * 3300)
    size = len(canonical_bytes(event))
    [violation] = check_only_when_over(case(BoundsAtExactlyMaxBytes(), event, size))
    assert ">=" in violation.message
    assert violation.kind != BYTE_FORM_KIND
    assert "byte form" not in violation.message


def test_the_byte_form_failure_is_listed_under_canon_bytes() -> None:
    """A failure of that kind, and any failure that followed from it, are "same cause" as the
    canon.bytes failure the run found; without one they stand alone."""
    from eventproof.conformance._results import Counterexample

    def failed(rule: str, kind: str = "", cause: str = "") -> RuleResult:
        example = Counterexample(op="project", input={}, expected=None, actual=None,
                                 message="m", seed=None, kind=kind)
        return RuleResult(RULES_BY_ID[rule], "fail", example, cause=cause)

    results = [failed("project.agrees", cause="bound.only-when-over"),
               failed("bound.only-when-over", kind=BYTE_FORM_KIND), failed("canon.bytes")]
    assert [result.cause for result in group_byte_forms(results)] == [
        "canon.bytes", "canon.bytes", ""]
    assert [result.cause for result in group_byte_forms(results[:2])] == [
        "bound.only-when-over", ""]


class ShortTail(MaximalPipeline):
    """Maximal, but keeps three code points fewer than fit: short for no `<` reason."""

    name = "short-tail"

    def maximal(self, text: str, fits: Callable[[str], bool]) -> int:
        return max(super().maximal(text, fits) - 3, 0)


def test_the_comparison_hint_needs_the_comparison_to_be_the_cause() -> None:
    """bound.tail's ``<=`` hint is given to a tail one ``<`` search would pick, and not to a
    tail that is short for another reason, even where the largest tail lands exactly on
    maxBytes."""
    from eventproof.conformance.wire.checks.bound import check_tail
    from eventproof.conformance.wire.explain import project_view
    from miniatures.wire import MaximalRejectsExactFit

    for text_size in range(3400, 3460):
        event = update("é" * (text_size // 2))
        for max_bytes in range(3215, 3300):
            probe = case(MaximalRejectsExactFit(), event, max_bytes, "maximal")
            view = project_view(probe)
            bound = view.bound() if view is not None else None
            if bound is None:
                continue
            want = bound.pick("maximal", max_bytes)
            if bound.size(want) != max_bytes or want < 4:
                continue
            exact = [v.message for v in check_tail(probe)]
            short = [v.message for v in check_tail(case(ShortTail(), event, max_bytes,
                                                        "maximal"))]
            assert exact
            assert "compare with <=, not <" in exact[0]
            assert short
            assert "compare with <=, not <" not in short[0]
            return
    pytest.fail("no case where the largest tail lands exactly on maxBytes")
