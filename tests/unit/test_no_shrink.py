"""``shrink=False`` (a check that asks only which rules break) changes nothing but the
counterexamples' size: the same rules break, with the same outcomes and the same verdict, and no
request is spent shrinking (only the count of distinct causes, told from shrunk inputs, may
differ)."""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._operations import RULES_BY_ID
from miniatures import budget, selection, wire

#: One wrong implementation per profile, each with the rule it breaks (its operation checked).
#: The default run compares the selection one; the others are second copies of that comparison
#: on the other profiles' searches (nox -s slow).
WRONG = [selection.MINIATURES["last-message-unfiltered"],
         pytest.param(*wire.MINIATURES["slice-minus-zero-loop"], marks=pytest.mark.slow),
         pytest.param(*budget.MINIATURES["roster-skips-to-fit"], marks=pytest.mark.slow)]


def _outcomes(report: Any) -> dict[str, str]:
    return {result.rule.id: result.outcome for result in report.results}


@pytest.mark.parametrize(("wrong", "rule"), WRONG, ids=["selection", "wire", "budget"])
def test_the_same_rules_break_without_shrinking(wrong: Any, rule: str) -> None:
    op = RULES_BY_ID[rule].op
    shrunk = check_implementation(wrong, ops=[op], effort="quick", timeout=1.0)
    unshrunk = check_implementation(wrong, ops=[op], effort="quick", timeout=1.0, shrink=False)
    assert _outcomes(shrunk)[rule] != "pass"
    assert _outcomes(unshrunk) == _outcomes(shrunk)
    # The verdict is the same; how many failures share a cause is told from the shrunk inputs
    # (two failures on one minimal input), so that count may differ.
    assert unshrunk.verdict.headline == shrunk.verdict.headline
    assert unshrunk.verdict.exit_code == shrunk.verdict.exit_code
    assert unshrunk.calls < shrunk.calls
