"""The JavaScript port's budget profile (examples/js/budget.mjs) agrees with the reference on the
budget strategies' inputs, and each of its planted budget bugs is caught by the rules it breaks.

The port is driven through the subprocess protocol (spec/protocol.md) directly, since the engine
does not read the budget operations yet; each answer is judged by the budget checks, exactly as
tests/miniatures/test_budget_miniatures.py judges the in-process miniatures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._model import Capabilities, Case, ImplErrored
from eventproof.conformance.budget import OPERATIONS
from eventproof.conformance.budget.checks import CHECK_BY_RULE
from eventproof.conformance.budget.rules import RULES_BY_ID
from hypothesis import HealthCheck, Phase, given, settings

pytestmark = pytest.mark.node

PORT = Path(__file__).resolve().parents[2] / "examples" / "js" / "eventproof-port.mjs"
if shutil.which("node") is None:
    pytest.skip("node is not on PATH: the JavaScript port cannot run (install Node.js 20+)",
                allow_module_level=True)

CAPABILITIES = Capabilities()
OPERATION = {operation.name: operation for operation in OPERATIONS}
#: Examples per operation.
BUDGET = 200
#: bug -> the rules that must catch it.
CAUGHT_BY = {
    "zero-allowance-whole": ("details.rejected",),
    "first-come": ("details.fair-share", "details.output"),
    "uncharged-fields": ("details.bounded",),
    "diagnostics-after-output": ("details.claim-order",),
    "no-identity-clip": ("details.identity",),
    "unbounded-roster": ("roster.bounded",),
    "roster-without-count": ("roster.count",),
    "lane-clears-count": ("lane.total", "lane.count"),
    "lane-uncapped": ("lane.merge",),
    "status-immediate": ("publish.window",),
    "late-publish": ("publish.after-return",),
}


class Port:
    """The port behind the protocol: one process, requests answered in order."""

    def __init__(self, bug: str = "") -> None:
        env = {**os.environ, "EVENTPROOF_JS_BUG": bug}
        self.proc = subprocess.Popen(["node", str(PORT)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, text=True,
                                     encoding="utf-8")
        self.seq = 0
        self.handshake = self._send({"cmd": "start", "version": 1})

    def _send(self, message: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def run(self, op: str, op_input: Any) -> Any:
        self.seq += 1
        answer = self._send({"cmd": "run", "seq": self.seq, "op": op, "input": op_input})
        if "errored" in answer:
            return ImplErrored(answer["errored"]["message"])
        return answer["output"]

    def stop(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
        self.proc.stdin.flush()
        return self.proc.wait(timeout=10)


def _cases(port: Port, op: str, rule: str | None, stop_at_first: bool) -> list[Case]:
    """Cases of ``op`` over its families (aimed at ``rule`` first), judged by ``rule``'s check
    (every check of the op when None); the failing ones."""
    operation = OPERATION[op]
    checks = operation.checks if rule is None else (CHECK_BY_RULE[rule],)
    families = sorted(operation.families(CAPABILITIES), key=lambda f: rule not in f.aims)
    total = sum(family.weight for family in families)
    failing: list[Case] = []
    for family in families:

        @settings(max_examples=max(1, BUDGET * family.weight // total), derandomize=True,
                  database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(family.strategy)
        def probe(op_input: Any) -> None:
            if failing and stop_at_first:
                return
            case = Case(op, op_input, operation.reference(op_input, CAPABILITIES),
                        port.run(op, op_input), CAPABILITIES)
            if any(True for check in checks for _ in check(case)):
                failing.append(case)

        probe()
        if failing and stop_at_first:
            break
    return failing


def test_the_port_declares_the_budget_operations() -> None:
    port = Port()
    try:
        assert {"details", "roster", "lane", "publish"} <= set(
            port.handshake["capabilities"]["ops"])
    finally:
        assert port.stop() == 0


@pytest.mark.parametrize("op", sorted(OPERATION))
def test_the_port_agrees_with_the_reference(op: str) -> None:
    """On every budget strategy's inputs, no budget check finds fault with the port."""
    port = Port()
    try:
        failing = _cases(port, op, None, stop_at_first=False)
    finally:
        port.stop()
    assert failing == [], [v.message for check in OPERATION[op].checks for v in
                           check(failing[0])][:3]


@pytest.mark.parametrize(("bug", "rule"), [(bug, rule) for bug, rules in sorted(CAUGHT_BY.items())
                                           for rule in rules])
def test_planted_budget_bug_is_caught(bug: str, rule: str) -> None:
    port = Port(bug)
    try:
        failing = _cases(port, RULES_BY_ID[rule].op, rule, stop_at_first=True)
    finally:
        port.stop()
    assert failing, f"{bug} was not caught by {rule} within {BUDGET} examples"
