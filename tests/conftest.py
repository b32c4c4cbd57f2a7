"""Hypothesis profiles for this project's own tests, chosen with HYPOTHESIS_PROFILE.

``ci`` (the default under nox) is derandomized so a red run is reproducible; ``dev`` explores a
fresh seed each time; ``thorough`` raises the budget tenfold (``nox -s thorough``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
# The miniature implementations are importable as ``miniatures.selection`` etc.
sys.path.insert(0, str(ROOT / "tests"))

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


def pytest_xdist_make_scheduler(config: Any, log: Any) -> Any:
    """With ``-n`` and the default ``--dist load``: every test is scheduled on its own, as load
    schedules it, except that a module of SHARED_SETUP is one unit of work. (pytest-xdist's
    loadgroup cannot group them: it rides on a node id suffix pytest 9.2 no longer lets it
    write.)"""
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
