"""Every bug planted in the JavaScript port fails ``eventproof run`` by its rules, with both fits
where the fit can matter (a bug of ``select``, ``fold`` or ``settle`` is run with one).

The port is an implementation written outside the reference, in another language, behind the
subprocess protocol: the way the suite is used. Each planted bug (``EVENTPROOF_JS_BUG``) is run
through the engine exactly as ``eventproof run --deterministic --timeout 3`` runs it, on the
operations the bug can reach; the table in examples/js/README.md lists what these runs report.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._operations import RULES_BY_ID

pytestmark = pytest.mark.node

PORT = Path(__file__).resolve().parents[2] / "examples" / "js" / "eventproof-port.mjs"
if shutil.which("node") is None:
    pytest.skip("node is not on PATH: the JavaScript port cannot run (install Node.js 20+)",
                allow_module_level=True)

#: bug -> fit -> rules the run must report broken (at least these).
CAUGHT_BY: dict[str, dict[str, set[str]]] = {
    "unfiltered-last-message": {"*": {"select.never-empty", "select.last-message"}},
    "message-beats-nothing": {"*": {"select.never-empty", "select.text-fallback"}},
    "no-text-fallback": {"*": {"select.text-fallback"}},
    "text-presence": {"*": {"select.last-message"}},
    "empty-array-last-assistant": {"*": {"settle.last-assistant"}},
    "cancelled-completed-wrong": {"*": {"settle.cancelled"}},
    "last-turn-end-wins": {"*": {"settle.accounting-turn"}},
    "claims-ignored": {"*": {"settle.accounting-turn"}},
    "drops-never-cleared": {"*": {"settle.dropped-unrun"}},
    "blocked-is-error": {"*": {"settle.one-shot-reason"}},
    "one-mapping": {"*": {"settle.continuable-reason"}},
    "empty-diagnostic-dropped": {"*": {"settle.tool-result"}},
    "frames-always": {"*": {"project.frame-opt-in"}},
    "keep-partial": {"*": {"project.message-update"}},
    "bound-end-too": {"*": {"bound.only-updates"}},
    "no-id-clip": {"halving": {"bound.ids", "bound.converges"}, "maximal": {"bound.ids"}},
    "slice-zero": {"halving": {"bound.converges"}, "maximal": {"bound.fits"}},
    "utf16-tail": {"halving": {"bound.tail"}, "maximal": {"bound.text"}},
    "chars-not-bytes": {"*": {"bound.fits"}},
}


#: Operations whose inputs and answers do not depend on the fit strategy: a bug there is run
#: with one fit (the run with the other would ask and answer exactly the same).
FIT_FREE = {"select", "fold", "settle"}


def _cases() -> list[tuple[str, str]]:
    cases = []
    for bug in sorted(CAUGHT_BY):
        rules = set().union(*CAUGHT_BY[bug].values())
        free = {RULES_BY_ID[rule].op for rule in rules} <= FIT_FREE
        cases += [(bug, fit) for fit in (("halving",) if free else ("halving", "maximal"))]
    return cases


@pytest.mark.parametrize(("bug", "fit"), _cases(), ids=[f"{bug}-{fit}" for bug, fit in _cases()])
def test_planted_bug_is_caught(bug: str, fit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = CAUGHT_BY[bug].get(fit, CAUGHT_BY[bug].get("*", set()))
    ops = sorted({RULES_BY_ID[rule].op for rule in expected})
    monkeypatch.setenv("EVENTPROOF_JS_BUG", bug)
    monkeypatch.setenv("EVENTPROOF_JS_FIT", fit)
    # The run stops once the expected rules are broken; the rounds until then are a whole run's.
    report = check_implementation(f"node {PORT}", ops=ops, timeout=3.0, stop_after=expected)
    assert not report.conforms
    assert expected <= report.failed_rule_ids, (bug, fit, sorted(report.failed_rule_ids))
