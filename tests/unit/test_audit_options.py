"""Every option the audit's words name is an option of ``eventproof audit``: its help, the fixes
and rule texts it shows, every string of its code, and what it writes on every output for
logs that conform, break rules, cannot be read, or are refused."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click
import pytest
from audit_logs import START, TOOL_START, line, session_directory
from click.testing import CliRunner
from eventproof.conformance.audit import _command
from eventproof.conformance.audit._command import audit_command
from eventproof.conformance.audit._rules import AUDIT_RULES, FIXES
from eventproof.conformance.cli import main

#: An option word: ``--name`` not inside a path (``/--work--/``), a CSS ``var(--name)`` nor a CSS
#: ``--name:`` property.
_OPTION = re.compile(r"(?<![\w(/-])--([a-z][a-z0-9-]*)\b(?![:(])")
AUDIT = Path(_command.__file__).parent


def _options() -> set[str]:
    helps = click.Context(audit_command).help_option_names
    return {name for param in audit_command.params
            for name in (*param.opts, *param.secondary_opts) if name.startswith("--")} | {
        name for name in helps if name.startswith("--")}


def _named(text: str) -> set[str]:
    return {f"--{name}" for name in _OPTION.findall(text)}


def _code_strings() -> str:
    texts = []
    for path in sorted(AUDIT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.append(node.value)
    return "\n".join(texts)


def test_the_words_of_the_code_name_only_its_options() -> None:
    words = "\n".join([_code_strings(), *FIXES.values(), *(rule.title for rule in AUDIT_RULES)])
    assert _named(words) - _options() == set()


def _logs(tmp_path: Path) -> list[list[str]]:
    facts = tmp_path / "facts.jsonl"
    facts.write_bytes(line(START) + line(TOOL_START))
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(line(START) + b'{"type": "turn_start"}\n' + b'{"type":"turn_end",')
    endless = tmp_path / "endless.jsonl"
    endless.write_bytes(b"0" * 3000)
    sessions = tmp_path / "sessions"
    for name, content in session_directory("wrong").items():
        (sessions / name).parent.mkdir(parents=True, exist_ok=True)
        (sessions / name).write_bytes(content)
    return [[str(facts)], [str(broken), "--max-findings", "1"],
            [str(endless), "--max-line-bytes", "1024"], [str(sessions)],
            [str(facts), "--kind", "session"], [str(tmp_path / "missing.jsonl")],
            [str(facts), "--json", "-"]]


def test_every_output_names_only_the_commands_options(tmp_path: Path) -> None:
    runner = CliRunner()
    said = [runner.invoke(main, ["audit", "--help"]).output]
    for index, arguments in enumerate(_logs(tmp_path)):
        outputs = [str(tmp_path / f"out{index}.{kind}") for kind in ("md", "xml", "html")]
        result = runner.invoke(main, ["audit", *arguments, "--no-progress", "--markdown",
                                      outputs[0], "--junit", outputs[1], "--html", outputs[2]])
        said.append(result.output)
        said += [Path(output).read_text(encoding="utf-8") for output in outputs
                 if Path(output).exists()]
    assert _named("\n".join(said)) - _options() == set()


@pytest.mark.parametrize("words", ["let through by --allow-untested", "--delegation-tool"])
def test_a_word_naming_another_option_is_caught(words: str) -> None:
    """The check catches what the audit once said (run's option, a removed option)."""
    assert _named(words) - _options()
