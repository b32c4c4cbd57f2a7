"""A restarted program must answer the handshake it answered first (spec/protocol.md §7.4): any
change of a member that shapes the run stops it with an error naming every changed member, in
one process and in each worker of --jobs."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._adapters import SubprocessAdapter
from eventproof.conformance._protocol import (
    HandshakeChanged,
    handshake_changed,
    start_response_from_json,
)
from eventproof.reference import Reference
from hypothesis import given
from hypothesis import strategies as st

PROGRAM = Path(__file__).resolve().parent / "programs" / "fault_program.py"
ROOT = Path(__file__).resolve().parents[2]
FIRST: dict[str, Any] = Reference().start()

#: Each member that shapes a run, and values it can change to.
CHANGES: dict[tuple[str, str], st.SearchStrategy[Any]] = {
    ("implementation", "name"): st.text(min_size=1, max_size=300),
    ("implementation", "language"): st.text(min_size=1, max_size=20),
    ("implementation", "version"): st.text(max_size=20),
    ("implementation", "homepage"): st.just("https://example.org/other"),
    ("capabilities", "ops"): st.lists(st.sampled_from(FIRST["capabilities"]["ops"]),
                                      min_size=1, unique=True),
    ("capabilities", "fitStrategy"): st.sampled_from(["halving", "maximal"]),
    ("capabilities", "variableMaxBytes"): st.booleans(),
    ("capabilities", "loneSurrogates"): st.booleans(),
}


@given(data=st.data(), changed=st.lists(st.sampled_from(sorted(CHANGES)), min_size=1,
                                        max_size=3, unique=True))
def test_every_changed_member_is_named_and_nothing_else(
        data: st.DataObject, changed: list[tuple[str, str]]) -> None:
    again: dict[str, Any] = json.loads(json.dumps(FIRST))
    for section, member in changed:
        again[section][member] = data.draw(CHANGES[section, member])
    first, second = start_response_from_json(FIRST), start_response_from_json(again)
    error = handshake_changed(first, second, "when it was restarted")
    really = [f"$.{section}.{member}" for section, member in changed
              if first.to_json()[section].get(member) != second.to_json()[section].get(member)]
    if not really:  # drawn back to the first value, or to the default
        assert error is None
        return
    assert isinstance(error, HandshakeChanged)
    for path in really:
        assert f"{path} was " in str(error)
    assert len(re.findall(r"\$\.\w+\.\w+ was ", str(error))) == len(really)


def test_a_default_spelt_out_is_no_change() -> None:
    implicit = {**FIRST, "capabilities": {"ops": FIRST["capabilities"]["ops"]}}
    explicit = {**FIRST, "capabilities": {**implicit["capabilities"], "fitStrategy": "halving",
                                          "variableMaxBytes": True, "loneSurrogates": True}}
    assert handshake_changed(start_response_from_json(implicit),
                             start_response_from_json(explicit), "now") is None


@pytest.mark.parametrize("member", ["name", "fitStrategy", "ops", "loneSurrogates"])
def test_a_restarted_program_with_another_handshake_stops_every_later_request(
        tmp_path: Path, member: str) -> None:
    adapter = SubprocessAdapter([sys.executable, str(PROGRAM), str(tmp_path), "handshake",
                                 member, "1"], timeout=10)
    try:
        adapter.start()
        event = {"event": {"type": "turn_start"}}
        adapter.run("classify", event)  # the program exits: a crash
        for _ in range(2):
            with pytest.raises(HandshakeChanged, match=rf"\.{member} was "):
                adapter.run("classify", event)
    finally:
        adapter.stop()


def test_each_worker_of_jobs_answers_the_handshake_of_the_first(tmp_path: Path) -> None:
    """fault_program changes its handshake in every start after the first: the second worker's
    program is such a start. A worker's handshake is compared when it takes a search, so the
    run holds enough searches (40 examples each) that the second worker takes one even when the
    first has started long before it on a loaded machine."""
    impl = f"{shlex.quote(sys.executable)} {PROGRAM} {tmp_path / 'program'} handshake version 99"
    done = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run", "--impl", impl, "--ops",
         "select,classify", "--max-examples", "40", "--jobs", "2", "--deterministic",
         "--no-progress", "--state-dir", str(tmp_path / "state")],
        capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert "handshake changed when a worker process of --jobs started it" in said
    assert "$.implementation.version was " in said
    assert "Traceback" not in done.stderr
