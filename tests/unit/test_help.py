"""``eventproof run --help`` lists its options by what they are for."""

from __future__ import annotations

import click
from click.testing import CliRunner
from eventproof.conformance import cli


def test_every_option_of_run_has_a_section() -> None:
    """A new option must be placed in a section: none is listed under "Other"."""
    command = cli.main.commands["run"]
    assert isinstance(command, cli._Grouped)
    placed = {name for _, names in command.SECTIONS for name in names}
    with click.Context(command) as ctx:
        for param in command.get_params(ctx):
            if param.get_help_record(ctx) is None:
                continue  # hidden: an old name of another option
            name = next((opt for opt in param.opts if opt.startswith("--")), param.opts[0])
            assert name in placed, f"{name} is in no section of _Grouped.SECTIONS"


def test_the_help_shows_the_sections_in_order() -> None:
    text = CliRunner().invoke(cli.main, ["run", "--help"]).output
    titles = [title for title, _ in cli._Grouped.SECTIONS]
    positions = [text.index(f"{title}:") for title in titles]
    assert positions == sorted(positions)
    assert "Other:" not in text
    assert "--budget" not in text  # old names stay hidden
