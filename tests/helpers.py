"""Helpers shared by the tests and the benchmarks (``tests/`` is on their import path)."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: The checkout.
ROOT = Path(__file__).resolve().parent.parent


def without_duration(document: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON report (schemas/report.json) without ``durationSeconds``: all that two
    deterministic runs of one implementation must agree on, however they ran."""
    return {key: value for key, value in document.items() if key != "durationSeconds"}


def sigint_as_at_a_terminal() -> None:
    """``preexec_fn`` of every run a test starts: the child takes SIGINT and SIGHUP by default,
    as it would at a terminal. A test session started in the background (``&`` in a script) has
    SIGINT ignored, one under ``nohup`` SIGHUP; every child inherits that, and a run would then
    never end on the signal a test sends it (or an implementation in process sends the
    harness)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_DFL)


def strings(value: Any) -> list[str]:
    """Every string in a JSON value, member names included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for name, each in value.items() for text in [name, *strings(each)]]
    if isinstance(value, list):
        return [text for each in value for text in strings(each)]
    return []


#: The environment variable every process of a test's run inherits, naming that run.
RUN_MARK = "EVENTPROOF_TEST_RUN"


def survivors(marker: str) -> list[str]:
    """Live (non-zombie) processes, other than this one, whose environment names the run
    ``marker`` (:data:`RUN_MARK`): every process a run starts inherits it."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        if int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and f"{RUN_MARK}={marker}".encode() in environ:
            found.append(entry.name)
    return found


def wait_for(ready: Path, process: subprocess.Popen[str], seconds: float = 120.0) -> None:
    """Wait until ``ready`` exists (the run is under way), failing if the run ended first."""
    deadline = time.monotonic() + seconds
    while not ready.exists():
        if process.poll() is not None:
            _, stderr = process.communicate()
            raise AssertionError(f"the run ended before it was under way: {stderr}")
        assert time.monotonic() < deadline, f"{ready} never appeared"
        time.sleep(0.02)


def run_marked(command: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
               send: signal.Signals | None = None, ready: Path | None = None,
               to_group: bool = False, settle: float = 3.0) -> tuple[int, str, str, float]:
    """Run ``command`` from the checkout; return its exit code, stdout, stderr and seconds, and
    assert that no process it started is still alive ``settle`` seconds after it ended.

    With ``send``, that signal is sent once the file ``ready`` exists (the program under test
    creates it when the run is under way: an event, not a guess of how long starting takes), to
    the command alone or (``to_group``) to its whole process group, as a cancelled CI job's
    runner may; the seconds then count from the signal."""
    marker = uuid.uuid4().hex
    started = time.monotonic()
    process = subprocess.Popen(
        list(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        start_new_session=to_group,
        env={**os.environ, "COLUMNS": "1000", **(env or {}), RUN_MARK: marker},
        preexec_fn=sigint_as_at_a_terminal)
    if send is not None:
        assert ready is not None
        wait_for(ready, process)
        started = time.monotonic()
        if to_group:
            os.killpg(process.pid, send)
        else:
            process.send_signal(send)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # The run, or what it left behind holding its pipes, is still there: stop all of it,
        # so that the test fails (below) rather than waits for ever.
        process.kill()
        held = survivors(marker)
        for pid in held:
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)
        stdout, stderr = process.communicate(timeout=30)
        assert not held, f"processes of the run survived it, holding its pipes: {held}"
    seconds = time.monotonic() - started
    deadline = time.monotonic() + settle
    while (left := survivors(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes of the run survived it: {left}"
    return process.returncode, stdout, stderr, seconds


#: Test modules whose tests share one costly setup (a module fixture or a cache): a port's build,
#: a browser page, a sample drawn once. Under pytest-xdist each goes to one worker whole, so the
#: setup is made once, not once on every worker that gets one of its tests.
SHARED_SETUP = frozenset({
    "tests/integration/test_typescript_port.py",  # npm ci and tsc
    "tests/integration/test_go_port.py",  # go build
    "tests/integration/test_matrix_browser.py",  # two runs and the matrix page
    "tests/integration/test_js_port_protocol.py",  # the reference's answers to every case
    "tests/unit/test_selection_strategies.py",  # each operation's fixed sample
    "tests/unit/test_stop_early.py",  # one whole quick run
})


def shared_setup_scheduler(config: Any, log: Any) -> Any:
    """The suite's pytest-xdist scheduler (tests/conftest.py), with ``-n`` and the default
    ``--dist load``: every test is scheduled on its own, as load schedules it, except that a
    module of SHARED_SETUP is one unit of work; None (xdist's own) for another mode.
    (pytest-xdist's loadgroup cannot group them: it rides on a node id suffix pytest 9.2 no
    longer lets it write.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of_work(nodeid)

    return SharedSetupScheduling(config, log)


def unit_of_work(nodeid: str) -> str:
    """The scope a test is scheduled in: its module's path for a module of SHARED_SETUP, its own
    node id otherwise."""
    path = nodeid.split("::", 1)[0]
    return path if path in SHARED_SETUP else nodeid


#: Caches of the tools that run the suite, which they keep in the checkout by design: the only
#: things a test session may write there. Everything else a test writes goes under tmp_path.
TOOL_CACHES = (".hypothesis/", ".pytest_cache/", ".ruff_cache/", ".mypy_cache/", ".venv/",
               ".nox/", "eventproof.egg-info/")


def tree_state(root: Path = ROOT) -> dict[str, tuple[Any, ...]] | None:
    """Every changed, untracked or ignored file of the checkout (tool caches aside) with its
    size and modification time; None outside a git checkout (an unpacked sdist)."""
    try:
        listed = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--ignored", "--untracked-files=all"],
            cwd=root, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listed.returncode != 0:
        return None
    state: dict[str, tuple[Any, ...]] = {}
    for entry in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
        status, path = entry[:2], entry[3:]
        if (not path or path.startswith(TOOL_CACHES) or "/__pycache__/" in f"/{path}"
                or Path(path).name.startswith(".coverage")):
            continue
        try:
            stat = (root / path).stat()
        except OSError:
            state[path] = (status,)
        else:
            state[path] = (status, stat.st_size, stat.st_mtime_ns)
    return state


def conforms_on_a_quick_run(impl: Any, op: str, seed: int) -> bool:
    """Whether ``impl`` conforms on a random quick run of ``op`` from ``seed``, stopping at the
    first broken rule, unshrunk (whether it conforms is all that is asked): how the tests that
    plant a wrong implementation hold the generators to catching it."""
    from eventproof.conformance import check_implementation

    report = check_implementation(impl, ops=[op], effort="quick", seed=seed,
                                  deterministic=False, exitfirst=True, shrink=False)
    return report.verdict.conforms


#: Between a catalogue case's miniature and the variant it is searched on, in its test id.
VARIANT_MARK = "@"


def tiered(cases: Sequence[tuple[Any, ...]], key: Any, variant: Any) -> list[Any]:
    """``cases`` as pytest parameters in two tiers: the first case of each miniature (its
    ``key``) runs in the default test run, every other one (another seed, another operation it
    answers wrongly) only under ``-m slow``. So the default run catches every miniature once,
    and ``nox -s slow`` measures that it is caught everywhere. Each case's id is
    ``<key>@<variant>``; tests/unit/test_shared_setup.py holds every slow case of a test that
    catches miniatures to one whose key the default run keeps."""
    import pytest

    seen: set[str] = set()
    params = []
    for case in cases:
        name = str(key(*case))
        if VARIANT_MARK in name:
            raise ValueError(f"a miniature's key may not hold {VARIANT_MARK!r}: {name!r}")
        marks = [pytest.mark.slow] if name in seen else []
        seen.add(name)
        params.append(pytest.param(*case, marks=marks,
                                   id=f"{name}{VARIANT_MARK}{variant(*case)}"))
    return params


@functools.cache
def quick_inputs(op_name: str, seed: int | None = None) -> tuple[Any, ...]:
    """The inputs a quick search of ``op_name`` draws under the default capabilities: each
    family with its share of the quick budget, inside ``isolated_constants``, as the engine
    generates them (shrinking aside): derandomized, or from ``seed`` as a random run's."""
    from eventproof.conformance._engine import EFFORTS, isolated_constants, split_examples
    from eventproof.conformance._model import Capabilities
    from eventproof.conformance._operations import operation
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded

    families = operation(op_name).families(Capabilities())
    drawn: list[Any] = []
    for index, (family, share) in enumerate(
            zip(families, split_examples(EFFORTS["quick"], families), strict=True)):
        @settings(max_examples=share, derandomize=seed is None, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(family.strategy)
        def draw(op_input: Any) -> None:
            drawn.append(op_input)

        if seed is not None:
            draw = seeded(seed * 1000 + index)(draw)
        with isolated_constants():
            draw()
    return tuple(drawn)


def quick_start() -> list[str]:
    """The commands of the first sh block under the README's "## Quick start", one per line."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    _, found, after = readme.partition("\n## Quick start\n")
    assert found, "README.md has no '## Quick start' section"
    block = re.search(r"^```sh\n(.*?)^```", after, re.S | re.M)
    assert block is not None, "the Quick start section has no sh block"
    return block.group(1).strip().splitlines()
