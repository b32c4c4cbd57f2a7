"""Hypothesis profiles for this project's own tests, chosen with HYPOTHESIS_PROFILE.

``ci`` (the default under nox) is derandomized so a red run is reproducible; ``dev`` explores a
fresh seed each time; ``thorough`` raises the budget tenfold (``nox -s thorough``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
# The miniature implementations are importable as ``miniatures.selection`` etc.
# The maintainer tools (``tools.spec_check`` etc.) are importable from the checkout's root.
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from helpers import shared_setup_scheduler, tree_state  # noqa: E402 (tests/ is on the path now)

# CI runs on a small shared machine: health checks that depend on load would make it flaky, and
# the strategies' quality is held by their own distribution tests instead.
settings.register_profile(
    "ci", max_examples=100, derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=list(HealthCheck),
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
# pytest-xdist already runs one test per core: a run a test starts checks in its own process
# unless the test asks for --jobs (the default, auto, would start a worker per core under each).
os.environ.setdefault("EVENTPROOF_JOBS", "1")


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: absent under -p no:xdist
def pytest_xdist_make_scheduler(config: Any, log: Any) -> Any:
    """pytest-xdist's scheduler: see helpers.shared_setup_scheduler."""
    return shared_setup_scheduler(config, log)


# -- the suite leaves the working tree as it found it ---------------------------------------------

def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller of xdist, or no xdist
        session.config.stash[_TREE] = tree_state()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the session when a test wrote into the checkout (a report, a case file under
    .eventproof/, a build product): tests write under tmp_path only."""
    before = session.config.stash.get(_TREE, None)
    if before is None or hasattr(session.config, "workerinput"):
        return
    after = tree_state()
    if after is None:
        return
    changed = sorted(path for path in before.keys() | after.keys()
                     if before.get(path) != after.get(path))
    if changed:
        shown = "\n  ".join(changed[:20]) + ("\n  ..." if len(changed) > 20 else "")
        session.config.get_terminal_writer().line(
            f"\nthe test session changed the working tree (tests write under tmp_path "
            f"only):\n  {shown}", red=True, bold=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_TREE = pytest.StashKey[dict[str, tuple[Any, ...]] | None]()
