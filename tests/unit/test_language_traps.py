"""The language traps (conformance/_traps.py) reach every operation on every run: each trap is
planted in a schema-valid input, the plan module and the port checklist's table are written from
the one list, and a quick search asks every planted input whatever its seed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._operations import OPERATIONS, OPS, operation
from eventproof.conformance._schemas import validator_for
from eventproof.conformance._traps import SIZES, TRAPS, checklist_table, trap_inputs
from helpers import quick_inputs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("traps", [TRAPS, SIZES], ids=["TRAPS", "SIZES"])
def test_the_checklist_table_is_the_list(traps: tuple[Any, ...]) -> None:
    """docs/port-checklist.md holds the tables rendered from TRAPS and SIZES, row for row."""
    assert checklist_table(traps) in (ROOT / "docs" / "port-checklist.md").read_text("utf-8"), (
        "regenerate the table: paste eventproof.conformance._traps.checklist_table(...)")


def test_trap_names_are_unique() -> None:
    """Each trap and size has a name of its own."""
    names = [trap.name for trap in TRAPS + SIZES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("op", OPS)
def test_every_planted_input_is_valid(op: str) -> None:
    """Every planted input of ``op`` is valid against the operation's input schema."""
    validator = validator_for(operation(op).input_schema + "#/$defs/input")
    for name, op_input in trap_inputs(op) + trap_inputs(op, "SIZES"):
        errors = [error.message for error in validator.iter_errors(op_input)]
        assert not errors, (op, name, errors[:3])


def test_every_trap_reaches_some_operation_and_every_operation_many_traps() -> None:
    """Every trap and size is planted in some operation's inputs; every operation gets a
    family of traps, and one of sizes past 1,024 items or 65,536 characters."""
    planted = {name for op in OPS for name, _ in trap_inputs(op) + trap_inputs(op, "SIZES")}
    assert planted == {trap.name for trap in TRAPS + SIZES}
    for each in OPERATIONS:
        assert len(trap_inputs(each.name)) >= 3, each.name
        names = {name for name, _ in trap_inputs(each.name, "SIZES")}
        assert names & {"items-past-1024-after", "text-past-65536"}, each.name


def _key(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize("seed", [None, 1])
@pytest.mark.parametrize("op", OPS)
def test_a_quick_search_asks_every_planted_input(op: str, seed: int | None) -> None:
    """A quick search of ``op``, derandomized or from a seed, asks each planted input and each
    size."""
    asked = {_key(op_input) for op_input in quick_inputs(op, seed)}
    missing = [name for name, op_input in trap_inputs(op) + trap_inputs(op, "SIZES")
               if _key(op_input) not in asked]
    assert not missing, (op, missing)
