"""Text from outside is never markup: whatever a schema, a spec line, an input or an
implementation says reaches the console as written (``cli._console`` has markup off)."""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.conformance import cli
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES
from eventproof.conformance._reports import render_console
from eventproof.conformance._results import Counterexample, Coverage, RuleResult, RunReport
from hypothesis import given
from hypothesis import strategies as st

# Bracketed words are what rich would read as markup: styles, closings, links, escapes.
_bracketed = st.lists(st.sampled_from(
    ["[a-z]", "[bold]", "[/]", "[/bold]", "[link=x]", "\\[", "[red]x[/red]", "^[a-z0-9-]*\\.md",
     "[", "]", "word", " "]), min_size=1, max_size=8).map("".join)


@given(text=_bracketed)
def test_a_usage_error_prints_its_text_as_written(text: str) -> None:
    """An error message (which quotes schemas and user values) is printed character for
    character."""
    with pytest.raises(SystemExit), _captured() as out:
        cli._fail(text)
    assert text in out.getvalue()


@given(text=_bracketed)
def test_a_report_prints_the_implementations_text_as_written(text: str) -> None:
    """A skip reason, a failure message and an answer from the implementation are printed as
    the implementation wrote them."""
    rule, other = RULES[0], RULES[1]
    report = RunReport(
        implementation={"name": text}, capabilities=Capabilities(), effort="quick", seed=None,
        deterministic=True, results=[
            RuleResult(rule, "fail", counterexample=Counterexample(
                rule.op, {"text": text}, 1, {"errored": text}, text, None),
                coverage=Coverage(judged=1)),
            RuleResult(other, "untested", note=text, coverage=Coverage())])
    with _captured() as out:
        render_console(report, cli._console())
    printed = out.getvalue()
    assert printed.count(text) >= 3  # the name, the message, the note


class _captured:
    """Standard output and error of the console, as a string buffer."""

    def __enter__(self) -> _Buffer:
        import sys

        self.buffer = _Buffer()
        self.saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.buffer  # type: ignore[assignment]
        return self.buffer

    def __exit__(self, *exc: object) -> None:
        import sys

        sys.stdout, sys.stderr = self.saved


class _Buffer:
    def __init__(self) -> None:
        import io

        self._io = io.StringIO()

    def write(self, text: str) -> int:
        return self._io.write(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def getvalue(self) -> str:
        return self._io.getvalue()


@given(text=_bracketed)
def test_the_console_reads_no_markup_in_plain_strings(text: str) -> None:
    """Every console of the command line prints a plain string as written: a message built by
    interpolating outside text can never turn into markup, whoever prints it."""
    for stderr in (False, True):
        with _captured() as out:
            cli._console(stderr=stderr).print(text)
        assert text in out.getvalue()


def test_the_old_names_of_effort_still_work_with_a_notice() -> None:
    """``--examples``, ``--budget`` and ``--profile`` are old names of ``--effort``: accepted,
    with a notice naming the new flag, and the run takes their effort; a disagreement with
    --effort is a usage error."""
    from click.testing import CliRunner

    runner = CliRunner()
    with runner.isolated_filesystem():
        _old_names(runner)


def _old_names(runner: Any) -> None:
    for old in ("--examples", "--budget", "--profile"):
        result = runner.invoke(cli.main, ["run", old, "quick", "--ops", "classify",
                                          "--deterministic", "--no-progress", "--state-dir",
                                          "st"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert f"{old} is now --effort (use --effort quick)" in result.output
        assert "effort quick" in result.output
        clash = runner.invoke(cli.main, ["run", old, "quick", "--effort", "thorough"])
        assert clash.exit_code == 2
        assert "disagree" in clash.output


@given(pieces=st.lists(st.tuples(st.sampled_from(["0", "a", "😀", "\\", '"', "\u2028"]),
                                 st.integers(1, 400)), min_size=1, max_size=6),
       text=st.text(max_size=200))
def test_a_folded_string_says_exactly_what_it_holds(pieces: list[tuple[str, int]],
                                                    text: str) -> None:
    """A long string is folded into runs ("0" × 1646) and a cut middle, never silently: runs
    add up to the string, and the fold is never longer than the string's JSON."""
    import json

    from eventproof.conformance._reports import fold_text

    value = "".join(char * count for char, count in pieces) + text
    folded = fold_text(value)
    if folded is None:
        return
    assert len(folded) < len(json.dumps(value))
    import re

    parts = list(re.finditer(r'("(?:[^"\\]|\\.)*")(?: × (\d+))?|… (\d+) characters …',
                             folded))
    assert " + ".join(part.group(0) for part in parts) == folded
    if all(part.group(3) is None for part in parts):
        rebuilt = "".join(json.loads(part.group(1)) * int(part.group(2) or 1)
                          for part in parts)
        assert rebuilt == value
