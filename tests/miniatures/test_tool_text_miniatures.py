"""Ports that read a text the delegation tool result carries otherwise (miniatures/tool_texts.py)
are caught by a quick search of each operation whose answer their reading changes, on every
seed: the ``tool-texts`` families build a log of each class (selection.md §3.3, §5.6).

The default run searches each port and operation from seed 0; seeds 1 and 2 run under
``-m slow`` (``helpers.tiered``). That the built logs alone catch each port on each operation is
held here in the default run."""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.conformance._model import Case
from eventproof.conformance._operations import operation
from eventproof.conformance.selection.strategies.tool_texts import (
    tool_text_folds,
    tool_text_selects,
    tool_text_settles,
)
from eventproof.reference import Reference
from helpers import conforms_on_a_quick_run, tiered

from miniatures.tool_texts import TOOL_TEXT_MINIATURES

SEEDS = (0, 1, 2)
CASES = [(cls, op) for cls, ops in TOOL_TEXT_MINIATURES.items() for op in ops]
IDS = [f"{cls.name}-{op}" for cls, op in CASES]
BUILT = {"select": tool_text_selects, "fold": tool_text_folds, "settle": tool_text_settles}


@pytest.mark.parametrize(("cls", "op", "seed"), tiered(
    [(cls, op, seed) for cls, op in CASES for seed in SEEDS],
    key=lambda cls, op, seed: f"{cls.name}-{op}", variant=lambda cls, op, seed: f"seed{seed}"))
def test_a_quick_search_catches_each_reading(cls: type, op: str, seed: int) -> None:
    """A quick search of ``op`` from any seed finds the port that reads the text otherwise."""
    assert not conforms_on_a_quick_run(cls(), op, seed), (cls.name, op, seed)


def _violations(impl: Any, op: str, op_input: Any) -> set[str]:
    case = Case(op, op_input, Reference().run(op, op_input), impl.run(op, op_input))
    return {violation.rule for check in operation(op).checks for violation in check(case)}


@pytest.mark.parametrize(("cls", "op"), CASES, ids=IDS)
def test_the_built_logs_alone_catch_each_reading(cls: type, op: str) -> None:
    """The built logs by themselves, whatever the search draws, break a rule of ``op`` for
    each port: the catch comes from construction."""
    assert any(_violations(cls(), op, op_input) for op_input in BUILT[op]()), (cls.name, op)


@pytest.mark.parametrize("op", sorted(BUILT))
def test_the_reference_answers_every_built_log(op: str) -> None:
    """Every built log is a valid input: the reference answers it (no refusal) and breaks no
    rule."""
    for op_input in BUILT[op]():
        assert not _violations(Reference(), op, op_input)
