"""spec/budget.md and the budget rule table agree: every rule is stated, with its level, in the
section the table names, and every rule id the spec mentions is in the table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from eventproof.conformance.budget import OPERATIONS
from eventproof.conformance.budget.rules import RULES, RULES_BY_ID

from tools.spec_check import section_text

SPEC = (Path(__file__).parents[2] / "spec" / "budget.md").read_text("utf-8")


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_rule_is_stated_in_its_section(rule: object) -> None:
    """**Rule `<id>` (<level>).** appears in the section the table names."""
    file, number = rule.section.split("#")  # type: ignore[attr-defined]
    assert file == "budget.md"
    text = section_text(SPEC, number)
    assert text is not None, rule
    assert f"**Rule `{rule.id}` ({rule.level}).**" in text  # type: ignore[attr-defined]


def test_every_mentioned_rule_id_is_in_the_table() -> None:
    groups = {rule.id.split(".")[0] for rule in RULES}
    mentioned = {token for token in re.findall(r"`([a-z]+\.[a-z0-9-]+)`", SPEC)
                 if token.split(".")[0] in groups}
    assert mentioned == set(RULES_BY_ID)


def test_every_operation_has_its_schema_and_catch_all() -> None:
    for operation in OPERATIONS:
        assert f"`{operation.input_schema}`" in SPEC
        assert operation.agreement_rule in RULES_BY_ID
        assert operation.rules[-1].id == operation.agreement_rule
