"""Processes that do not search start without the search machinery.

``eventproof run --isolate`` starts ``python -m eventproof.conformance._worker`` for a ``python:``
implementation and starts it again after every crash, so the worker must not pay for Hypothesis,
the strategies, jsonschema or rich. Each check runs in a fresh interpreter: this one has them all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Top-level packages only a search (or a report) needs.
HEAVY = ("hypothesis", "jsonschema", "rich")

#: Defines ``heavy_modules()``: every loaded module a light process must not load.
_HEAVY_MODULES = (
    "import sys\n"
    "def heavy_modules():\n"
    f"    return sorted(name for name in sys.modules if name.partition('.')[0] in {HEAVY!r}\n"
    "        or (name.startswith('eventproof.conformance.') and name.endswith('.strategies')))\n"
)


def _heavy_after(statement: str) -> list[str]:
    script = f"{statement}\n{_HEAVY_MODULES}import json\nprint(json.dumps(heavy_modules()))"
    done = subprocess.run([sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("statement", [
    "import eventproof.conformance._worker",
    "import eventproof.conformance",
    "from eventproof.conformance import HarnessError, ProtocolError, ImplementationError, "
    "Capabilities",
    "from eventproof.conformance._adapters import SubprocessAdapter, adapter_for",
    "from eventproof.conformance._protocol import encode, decode_request, START",
    # The operation table, and every rule in it: `eventproof rules`, `--version`, a report.
    "from eventproof.conformance._operations import OPERATIONS, RULES",
])
def test_a_light_import_loads_no_search_machinery(statement: str) -> None:
    assert _heavy_after(statement) == []


def test_the_public_names_still_load_what_they_name() -> None:
    # The lazily exported names are the same objects as before, and bring their modules along.
    loaded = _heavy_after(
        "import eventproof.conformance as c\n"
        "from eventproof.conformance import _check, _operations\n"
        "assert c.check_implementation is _check.check_implementation\n"
        "assert c.RULES is _operations.RULES\n"
        "assert set(c.__all__) <= set(dir(c))"
    )
    assert "hypothesis" in loaded


def test_a_search_loads_the_strategies_of_its_profile_only() -> None:
    """An operation's families, inputs and observer are its profile's strategies, imported when
    a search first needs them."""
    loaded = _heavy_after(
        "from eventproof.conformance import check_implementation\n"
        "from eventproof.reference import Reference\n"
        "assert check_implementation(Reference, ops=['select'], max_examples=5).conforms"
    )
    strategies = [name for name in loaded if name.startswith("eventproof.")]
    assert strategies == ["eventproof.conformance.selection.strategies"]


def test_the_command_line_loads_neither_hypothesis_nor_a_strategy() -> None:
    """``eventproof rules``, ``--version``, ``report`` and a usage error need only the table (and
    rich, which prints them)."""
    loaded = _heavy_after("import eventproof.conformance.cli")
    assert [name for name in loaded if name.partition(".")[0] != "rich"] == []


def test_a_deferred_function_is_the_function_it_names() -> None:
    import inspect

    from eventproof.conformance._model import Deferred
    from eventproof.conformance.wire import strategies

    deferred = Deferred("eventproof.conformance.wire.strategies", "observe_project")
    assert inspect.unwrap(deferred) is strategies.observe_project
    assert deferred({"event": {"type": "agent_start"}, "maxBytes": 4096}) == (
        strategies.observe_project({"event": {"type": "agent_start"}, "maxBytes": 4096}))
    with pytest.raises(AttributeError, match="no_such_function"):
        Deferred("eventproof.conformance.wire.strategies", "no_such_function")(None)


def test_every_exported_name_resolves_and_an_unknown_one_is_an_attribute_error() -> None:
    import eventproof.conformance as conformance

    namespace: dict[str, object] = {}
    exec("from eventproof.conformance import *", namespace)
    assert sorted(name for name in namespace if not name.startswith("__")) == sorted(
        conformance.__all__)
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = conformance.no_such_name  # type: ignore[attr-defined]


_PROBE = _HEAVY_MODULES + '''

class Probe:
    """Answers every run request with the search machinery loaded in its process."""

    def start(self):
        return {"version": 1, "implementation": {"name": "probe", "language": "python"},
                "capabilities": {"ops": ["select"]}}

    def run(self, op, input):
        return heavy_modules()
'''


def test_the_worker_process_loads_no_search_machinery(tmp_path: Path) -> None:
    (tmp_path / "light_probe.py").write_text(_PROBE, encoding="utf-8")
    requests = [{"cmd": "start", "version": 1},
                {"cmd": "run", "seq": 1, "op": "select", "input": []},
                {"cmd": "stop"}]
    done = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance._worker", "python:light_probe:Probe"],
        input="".join(json.dumps(each) + "\n" for each in requests), capture_output=True,
        text=True, cwd=tmp_path, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    handshake, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert handshake["implementation"]["name"] == "probe"
    assert answer == {"seq": 1, "output": []}


def test_a_run_starts_without_the_other_commands_modules() -> None:
    """`eventproof run` (the command line's module, as it is imported to run any command) does
    not load the audit, the benchmarks, the templates or the report command: each loads when
    its command is asked for."""
    from eventproof.conformance.cli import LAZY_COMMANDS

    script = ("import sys, json\nimport eventproof.conformance.cli\n"
              "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert not {module for module, _ in LAZY_COMMANDS.values()} & loaded


def test_every_lazy_command_loads_when_asked_for() -> None:
    """Each command the group loads on demand is there by its name, with its help."""
    from click.testing import CliRunner
    from eventproof.conformance.cli import LAZY_COMMANDS, main

    for name in LAZY_COMMANDS:
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert f"Usage: main {name}" in result.output or f"{name} [OPTIONS]" in result.output
