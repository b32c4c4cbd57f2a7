"""The mutation driver's module table stays in step with the operation table: an operation added
without its entry module stopped ``nox -s mutation`` on a fresh clone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from eventproof.conformance._operations import OPS

DRIVER = Path(__file__).resolve().parents[2] / "tools" / "mutation" / "run_mutation.py"


def _driver() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eventproof_mutation_driver", DRIVER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


run_mutation = _driver()


def test_every_operation_has_its_entry_module() -> None:
    assert set(run_mutation.ENTRY_MODULE) == set(OPS)


def test_every_entry_module_is_a_mutated_module_of_the_reference() -> None:
    for op, module in run_mutation.ENTRY_MODULE.items():
        assert module in run_mutation.MUTATED_MODULES, op
    for module in run_mutation.MUTATED_MODULES:
        assert (run_mutation.REFERENCE / f"{module}.py").is_file(), module


def test_every_mutated_module_is_reached_by_an_operation() -> None:
    """A module no operation reaches would have every mutant reported unreached."""
    reached = run_mutation.reachable_ops()
    assert set(reached) == set(run_mutation.MUTATED_MODULES)
    assert all(reached.values()), reached
    assert reached["_budget"] == {"details", "roster", "lane", "publish"}
