"""Sessions: tests, bare, lint, typing, spec, build, docs (default: every gate, the README's test
command); slow, thorough, release, vectors, mutation, blind, catch-rate, bench, bench-publish,
real, real-logs (opt-in: searches, measurements and maintainer commands, most of them in tools/).

Every session uses the Python that runs nox; dependency groups come from pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

import nox

ROOT = Path(__file__).parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")

#: Every gate: the README's test command (`python3 -m nox`) runs them all, and CI runs that.
nox.options.sessions = ["tests", "bare", "lint", "typing", "spec", "build", "docs"]
nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True


def _group(name: str) -> list[str]:
    return nox.project.dependency_groups(PYPROJECT, name)


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (unit, integration, miniatures) against the installed wheel, except
    the tests marked slow (see the slow session)."""
    session.install(".", *_group("test"))
    # pytest exits 5 when it collected nothing; nox treats every non-zero code as a failure.
    session.run("pytest", "-n", "auto", "-q", "-m", "not slow", *session.posargs,
                env={"HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")})


#: The tests the bare leg runs: every path orjson, zstandard or the compiled walks would take
#: (the encoder, projection, the audit's reader, the vectors, the default run end to end).
BARE_TESTS = (
    "tests/unit/test_canonical.py", "tests/unit/test_one_equality.py",
    "tests/unit/test_reference_wire.py", "tests/unit/test_audit_read.py",
    "tests/unit/test_real_logs.py", "tests/unit/test_vectors.py",
    "tests/integration/test_default_install.py",
)


@nox.session
def bare(session: nox.Session) -> None:
    """The install without anything optional: no orjson, no zstandard, no compiled walks
    (EVENTPROOF_NO_EXTENSIONS=1). The pure paths must answer, find and write exactly what the
    fast ones do: the tests of every such path run here."""
    session.install("--no-deps", ".")
    runtime = [dep for dep in PYPROJECT["project"]["dependencies"]
               if not dep.startswith(OPTIONAL_SPEEDUPS)]
    session.install(*runtime, *(dep for dep in _group("test")
                                if not dep.startswith(OPTIONAL_SPEEDUPS)))
    session.run("python", "-c", "import importlib.util as u, sys; "
                "found = [m for m in ('orjson', 'zstandard') if u.find_spec(m)]; "
                "sys.exit(f'installed, but the bare session must not have them: {found}' "
                "if found else 0)")
    session.run("pytest", "-n", "auto", "-q", "-m", "not slow", *BARE_TESTS, *session.posargs,
                env={"HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci"),
                     "EVENTPROOF_NO_EXTENSIONS": "1"})


#: Packages the kit runs faster with but answers the same without (the bare session).
OPTIONAL_SPEEDUPS = ("orjson", "zstandard")


@nox.session(default=False)
def slow(session: nox.Session) -> None:
    """Run only the tests marked slow: searches the tests session leaves out because every
    miniature is caught without them (each catalogued wrong implementation on its other seeds
    and operations), second copies of its checks (the JavaScript port's whole planted-bug
    matrix, more wrong implementations under replays and --jobs), and the action's real
    install."""
    session.install(".", *_group("test"))
    session.run("pytest", "-n", "auto", "-q", "-m", "slow", *session.posargs,
                env={"HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")})


@nox.session(default=False)
def thorough(session: nox.Session) -> None:
    """Run the test suite with the thorough Hypothesis profile (many more examples)."""
    session.install(".", *_group("test"))
    session.run("pytest", "-n", "auto", *session.posargs, env={"HYPOTHESIS_PROFILE": "thorough"})


@nox.session(default=False)
def blind(session: nox.Session) -> None:
    """Check the wrong implementations written from the spec alone (tools/blind/): each is wrong
    on an input it names, and the full port they start from agrees with the reference. `--
    measure` then measures how many the default run catches (tools/blind/RESULTS.md)."""
    session.install(".", *_group("test"))
    measure = "measure" in session.posargs
    args = [arg for arg in session.posargs if arg != "measure"]
    session.run("pytest", "-n", "auto", "-q", "tools/blind", *([] if measure else args))
    if measure:
        session.run("python", "-m", "tools.blind.measure", *args)


@nox.session(name="catch-rate", default=False)
def catch_rate(session: nox.Session) -> None:
    """Measure how often the default run catches each miniature over many seeds."""
    session.install(".", *_group("test"))
    session.run("python", "tools/catch_rate.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check style and common mistakes with ruff."""
    session.install(*_group("lint"))
    session.run("ruff", "check", "reference", "conformance", "tests", "tools", "noxfile.py",
                ".github/action")


@nox.session
def typing(session: nox.Session) -> None:
    """Type-check reference/ and conformance/ strictly with mypy."""
    # The source folders are mapped onto eventproof.* at install time, so mypy checks the
    # installed package (a regular install; an editable mapping is invisible to mypy).
    session.install(".", *_group("typing"))
    session.run("mypy", "--strict", "-p", "eventproof.reference", "-p", "eventproof.conformance")


@nox.session
def spec(session: nox.Session) -> None:
    """Validate every schema, schema example and vector file; check that the trap plan is the
    one the traps and the shipped vectors make; run the vectors on the reference."""
    session.install(".")
    session.run("python", "-m", "tools.spec_check")
    session.run("python", "-m", "tools.trap_build", "--check")
    session.run("eventproof", "vectors")


@nox.session
def build(session: nox.Session) -> None:
    """Build the sdist and the wheel; install each into a fresh environment and run the CLI."""
    session.install("build")
    tmp = Path(session.create_tmp()).resolve()
    dist = tmp / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    # Without --sdist/--wheel, build makes the sdist and then the wheel *from the sdist*, so a
    # file missing from the sdist fails here rather than on a user's machine.
    session.run("python", "-m", "build", "--outdir", str(dist))
    artifacts = [*dist.glob("eventproof-*.tar.gz"), *dist.glob("eventproof-*.whl")]
    if len(artifacts) != 2:
        session.error(f"expected one sdist and one wheel in {dist}, found {artifacts}")
    for artifact in artifacts:
        kind = "wheel" if artifact.suffix == ".whl" else "sdist"
        venv = tmp / f"fresh-{kind}"
        shutil.rmtree(venv, ignore_errors=True)
        session.run("python", "-m", "venv", str(venv))
        bin_dir = venv / ("Scripts" if sys.platform == "win32" else "bin")
        session.run(str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(artifact),
                    external=True)
        workdir = tmp / f"run-{kind}"
        workdir.mkdir(exist_ok=True)
        with session.chdir(workdir):
            eventproof = str(bin_dir / "eventproof")
            session.run(eventproof, "--version", external=True)
            if shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]):
                # With a C compiler at hand the compiled walks must have been built.
                session.run(str(bin_dir / "python"), "-c",
                            "from eventproof.reference import _canonical; "
                            "assert _canonical.COMPILED, 'the compiled walks were not built'",
                            external=True)
            session.run(eventproof, "rules", external=True)
            session.run(eventproof, "vectors", external=True)
            session.run(eventproof, "run", "--effort", "quick", "--deterministic",
                        "--no-progress", "--json", "report.json", external=True)
            session.run(eventproof, "report", "--html", "matrix", "report.json", external=True)


@nox.session
def docs(session: nox.Session) -> None:
    """Build README, spec/ and docs/ into a static site (build/site); a broken link fails."""
    # The rules and commands pages are made from the installed kit at build time.
    session.install(".", *_group("docs"))
    session.run("mkdocs", "build", "--strict", "--clean", *session.posargs)


@nox.session(default=False)
def release(session: nox.Session) -> None:
    """Check that a release is one version: pyproject.toml's, CHANGELOG.md's top release and
    every tag the README, docs, templates and action name, and that tag present in the checkout;
    `-- --tag vX.Y.Z` checks the tag being pushed instead."""
    session.run("python", "tools/release_check.py", *session.posargs)


@nox.session(default=False)
def vectors(session: nox.Session) -> None:
    """Regenerate spec/vectors/ from the reference (commit the result)."""
    session.install("-e", ".")
    session.run("python", "-m", "tools.vectors", "--write")


@nox.session(default=False)
def mutation(session: nox.Session) -> None:
    """Mutate the reference and count the mutants `eventproof run` kills (slow)."""
    session.install("-e", ".", *_group("mutation"), *_group("test"))
    session.run("python", "tools/mutation/run_mutation.py", *session.posargs)


#: Where `nox -s bench` writes: git-ignored scratch, never a committed file.
BENCH_SCRATCH = ROOT / ".benchmarks"


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmark projection against plain serialization; figures go to .benchmarks/ only.

    pytest-benchmark runs the benchmarks (saved under .benchmarks/storage for
    --benchmark-compare; the posargs go to pytest), then tools/bench/run.py writes the
    paired figures, the plots and the README bullet it would publish to .benchmarks/latest/.
    """
    session.install(".", *_group("bench"))
    session.run(
        "pytest", "tests/benchmarks", "-p", "no:xdist", "--benchmark-autosave",
        "--benchmark-storage", str(BENCH_SCRATCH / "storage"), *session.posargs,
    )
    session.run("python", "tools/bench/run.py", "--out", str(BENCH_SCRATCH / "latest"))


@nox.session(name="bench-publish", default=False)
def bench_publish(session: nox.Session) -> None:
    """Measure and rewrite the committed figures: docs/benchmark-results.md, docs/img/*.svg
    and the README's Throughput bullet, all from one run (posargs go to run.py)."""
    session.install(".", *_group("bench"))
    session.run("python", "tools/bench/run.py", "--out", str(ROOT),
                "--readme", str(ROOT / "README.md"), *session.posargs)


#: The coding agent whose `--mode json` logs make the corpus (tests/corpus/pi/), pinned.
PI_CODING_AGENT = "@mariozechner/pi-coding-agent@0.73.1"


@nox.session(name="real-logs", default=False)
def real_logs(session: nox.Session) -> None:
    """Write the corpus's real logs: install the pinned coding agent from the npm registry into
    a scratch folder (never committed) and run it on each scripted scenario of
    tests/corpus/pi/scenarios/, its model answered by the faux provider it ships. The logs go to
    build/real-logs/ (posargs: scenario names); a log copied into tests/corpus/pi/ needs its
    findings written by hand in NAME.expected.yaml beside it."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        session.error("real-logs needs node and npm on PATH (Node.js 20 or newer)")
    scratch = Path(session.create_tmp()).resolve() / "pi"
    scratch.mkdir(parents=True, exist_ok=True)
    session.run("npm", "install", "--prefix", str(scratch), "--no-audit", "--no-fund",
                "--ignore-scripts", PI_CODING_AGENT, external=True)
    session.run("python", "tests/corpus/pi/write_logs.py", "--pi", str(scratch),
                "--out", str(ROOT / "build" / "real-logs"), *session.posargs)


@nox.session(default=False)
def real(session: nox.Session) -> None:
    """Check every real implementation a package registry holds and publish their page: each is
    installed, pinned, into a scratch folder with npm (never committed), checked by
    `eventproof run` through its adapter in tools/real/, and becomes a column of the matrix
    (build/real/matrix/index.html); build/real/index.html lists every disagreement, classified
    by tools/real/disagreements.yaml, with its minimal case asked of both sides
    (docs/real-implementations.md). Posargs go to tools/real/implementations.py (`--report
    FILE` adds the report of an implementation run elsewhere; `--effort quick`)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        session.error("real needs node and npm on PATH (Node.js 20 or newer)")
    session.install(".", "pyyaml")
    work = Path(session.create_tmp()).resolve() / "implementations"
    session.run("python", "tools/real/implementations.py", "--work", str(work),
                "--out", str(ROOT / "build" / "real"), *session.posargs)
