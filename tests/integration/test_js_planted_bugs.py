"""Every bug planted in the JavaScript port fails ``eventproof run`` by its rules, with both fits
where the fit can matter (a bug of ``select``, ``fold`` or ``settle`` is run with one).

The port is an implementation written outside the reference, in another language, behind the
subprocess protocol: the way the suite is used. Each planted bug (``EVENTPROOF_JS_BUG``, planted by
the overlay programs/js-bugs/, which patches the port's code as it loads) is run
through the engine exactly as ``eventproof run --deterministic --timeout 3`` runs it, on the
operations the bug can reach; the table in
programs/js-bugs/README.md lists what these runs report.

The default run takes one planted bug per operation, with both fits where the fit matters
(``DEFAULT_RUN``): every planted bug is a copy of a miniature the default run already catches in
process (``tests/miniatures/``), and ``test_js_port_protocol.py`` shows each one changes an answer
of the port. The rest of the matrix, the two hangs included, is marked ``slow`` and runs in
``nox -s slow``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._operations import RULES_BY_ID

pytestmark = pytest.mark.node

#: The JavaScript port with the bugs named in EVENTPROOF_JS_BUG planted (programs/js-bugs/).
PORT = Path(__file__).resolve().parent / "programs" / "js-bugs" / "eventproof-port-bugs.mjs"
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


#: The runs the default test run makes: one bug per operation, under each fit where the fit can
#: matter (``test_the_default_run_takes_each_operation_and_fit``). Every other run is ``slow``.
DEFAULT_RUN = {("text-presence", "halving"), ("last-turn-end-wins", "halving"),
               ("utf16-tail", "halving"), ("utf16-tail", "maximal")}


def _ops_of(bug: str) -> set[str]:
    return {RULES_BY_ID[rule].op for rules in CAUGHT_BY[bug].values() for rule in rules}


def _cases() -> list[tuple[str, str]]:
    return [(bug, fit) for bug in sorted(CAUGHT_BY)
            for fit in (("halving",) if _ops_of(bug) <= FIT_FREE else ("halving", "maximal"))]


def test_the_default_run_takes_each_operation_and_fit() -> None:
    """The default run keeps a planted bug of every operation the matrix reaches, under both fits
    for an operation whose answers depend on the fit, and nothing outside the matrix."""
    assert set(_cases()) >= DEFAULT_RUN
    reached = {(op, fit) for bug, fit in _cases() for op in _ops_of(bug)}
    kept = {(op, fit) for bug, fit in DEFAULT_RUN for op in _ops_of(bug)}
    assert kept == reached, sorted(reached - kept)


@pytest.mark.parametrize(("bug", "fit"), [
    pytest.param(bug, fit, id=f"{bug}-{fit}",
                 marks=() if (bug, fit) in DEFAULT_RUN else pytest.mark.slow)
    for bug, fit in _cases()])
def test_planted_bug_is_caught(bug: str, fit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = CAUGHT_BY[bug].get(fit, CAUGHT_BY[bug].get("*", set()))
    ops = sorted({RULES_BY_ID[rule].op for rule in expected})
    monkeypatch.setenv("EVENTPROOF_JS_BUG", bug)
    monkeypatch.setenv("EVENTPROOF_JS_FIT", fit)
    # The run stops once the expected rules are broken; the rounds until then are a whole run's.
    report = check_implementation(f"node {PORT}", ops=ops, timeout=3.0, stop_after=expected)
    assert not report.conforms
    assert expected <= report.failed_rule_ids, (bug, fit, sorted(report.failed_rule_ids))
