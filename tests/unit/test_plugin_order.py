"""The pytest plugin lists the rules' failures in the console's order: a failure that follows
from another comes right after it, whatever the rule order (the console prints it as a "same
cause" line under the failure it follows from)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from eventproof.conformance.pytest_plugin import PROPERTY, console_order
from hypothesis import given
from hypothesis import strategies as st


def report(rule: str, cause: str = "") -> Any:
    return SimpleNamespace(user_properties=[(f"{PROPERTY}rule", rule),
                                            (f"{PROPERTY}cause", cause)], name=rule)


def test_a_follower_printed_before_its_cause_moves_after_it() -> None:
    """canon.bytes is the last project rule; the bound failure it explains follows it."""
    other = SimpleNamespace(user_properties=[], name="test_something_else")
    reports = [report("project.agrees", "canon.bytes"), other,
               report("bound.only-when-over", "canon.bytes"), report("canon.bytes")]
    assert [each.name for each in console_order(reports)] == [
        "canon.bytes", "test_something_else", "project.agrees", "bound.only-when-over"]


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-1, 5)), max_size=8,
                unique_by=lambda pair: pair[0]))
def test_every_follower_comes_right_after_its_cause_or_its_siblings(
        drawn: list[tuple[int, int]]) -> None:
    """Whatever the order and the causes, nothing is lost, and a failure whose cause failed
    too comes after that cause with only that cause's other followers between them."""
    rules = {rule for rule, _ in drawn}
    reports = [report(f"r{rule}", f"r{cause}" if cause in rules and cause != rule else "")
               for rule, cause in drawn]
    ordered = console_order(reports)
    assert sorted(each.name for each in ordered) == sorted(each.name for each in reports)
    names = [each.name for each in ordered]
    causes = {each.name: dict(each.user_properties)[f"{PROPERTY}cause"] for each in reports}
    for position, name in enumerate(names):
        cause = causes[name]
        if cause and not causes.get(cause):  # a cause that is itself shown
            start = names.index(cause)
            assert start < position
            assert all(causes[between] == cause for between in names[start + 1:position])
