"""What an audit report shows is independent of how much of it is shown: every count, judged
number, verdict and byte figure is the same whatever ``--max-findings`` keeps; only the list of
findings is cut, each rule's first ones kept."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from audit_logs import SESSION_CASES, WIRE_CASES
from eventproof.conformance.audit import Settings, audit, expand
from eventproof.conformance.audit._render import document, markdown
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@st.composite
def _logs(draw: st.DrawFn) -> tuple[bytes, dict[str, Any]]:
    """A wire log of the broken lines of drawn rules, each written several times, in a drawn
    order (opted in to live events when a drawn case is), or a session log of a drawn case."""
    if draw(st.booleans()):
        case = SESSION_CASES[draw(st.sampled_from(sorted(SESSION_CASES)))]()
        if isinstance(case, dict):
            return b"", {"files": case, "kind": "session"}
        return case * draw(st.integers(1, 4)), {"kind": "session"}
    names = draw(st.lists(st.sampled_from(sorted(WIRE_CASES)), min_size=1, max_size=5))
    lines: list[bytes] = []
    live = False
    for name in names:
        options, case, broken = WIRE_CASES[name]
        live = live or bool(options.get("live_events"))
        lines += [case[0]] + [case[broken - 1]] * draw(st.integers(1, 7))
    lines = [item if item.endswith(b"\n") else item + b"\n" for item in lines]
    order = draw(st.permutations(range(len(lines))))
    return b"".join(lines[index] for index in order), {"kind": "wire", "live_events": live}


def _figures(doc: dict[str, Any]) -> dict[str, Any]:
    kept = {key: value for key, value in doc.items()
            if key not in ("findings", "settings", "durationSeconds")}
    return kept


@SETTINGS
@given(_logs(), st.integers(1, 4))
def test_every_figure_is_the_same_whatever_is_shown(drawn: tuple[bytes, dict[str, Any]],
                                                    shown: int) -> None:
    data, options = drawn
    with tempfile.TemporaryDirectory() as directory:
        files = options.pop("files", None) or {"run.jsonl": data}
        for name, content in files.items():
            path = Path(directory) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        sources = expand((directory,))
        every = audit(sources, Settings(max_findings=1000, **options))
        some = audit(sources, Settings(max_findings=shown, **options))
    full, cut = document(every), document(some)
    assert _figures(cut) == _figures(full)
    assert (some.exit_code, some.verdict.line()) == (every.exit_code, every.verdict.line())
    # the findings shown are each rule's first ones
    for rule in full["rules"]:
        listed = [item for item in full["findings"] if item["rule"] == rule["id"]]
        assert [item for item in cut["findings"] if item["rule"] == rule["id"]] == \
            listed[:shown]
    # the Markdown summary restates the same figures
    assert _table(markdown(some)) == _table(markdown(every))


def _table(text: str) -> list[str]:
    return [row for row in text.splitlines() if row.startswith("| `")]
