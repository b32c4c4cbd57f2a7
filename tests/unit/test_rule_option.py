"""``run --rule ID``: only the rules asked for are searched for and reported."""

from __future__ import annotations

import pytest
from eventproof.conformance import HarnessError, check_implementation
from miniatures.wire import CountsCharacters


def test_only_the_rules_asked_for_are_reported() -> None:
    """A bug of another rule is not looked for; the rule asked for is, and fails."""
    elsewhere = check_implementation(CountsCharacters, rules=["select.last-message"],
                                     effort="quick")
    assert [result.rule.id for result in elsewhere.results] == ["select.last-message"]
    assert elsewhere.conforms
    assert "--rule select.last-message" in (elsewhere.invocation.rerun()
                                            if elsewhere.invocation else "")
    caught = check_implementation(CountsCharacters, rules=["bound.fits"], effort="quick")
    assert [result.rule.id for result in caught.results] == ["bound.fits"]
    assert caught.results[0].outcome == "fail"
    assert not caught.conforms


def test_a_misspelt_rule_names_the_closest() -> None:
    with pytest.raises(HarnessError, match=r"Did you mean bound\.fits"):
        check_implementation(CountsCharacters, rules=["bound.fit"])
