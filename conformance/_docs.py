"""Pages of the documentation site made from the code, so that they cannot go stale: every rule
(from the operation table) and every command with its options (from the command line itself).
The site's build hook (``docs/_hooks/site.py``) writes them at build time."""

from __future__ import annotations

import click

from ._operations import PROFILES
from ._reports import section_label


def rules_page() -> str:
    """Every rule, by profile and operation: id, level, spec section and what it demands."""
    lines = ["# Rules", "",
             "Every rule the kit checks, by profile and operation, as `eventproof rules` lists "
             "them. `eventproof rules --where RULE_ID` prints every place a rule lives: its spec "
             "line, schema, reference function, check, input families, vectors and wrong "
             "implementations. MUST rules decide conformance; SHOULD rules are reported but "
             "never fail a run.", ""]
    for profile in PROFILES:
        lines += [f"## The {profile.name} profile", "",
                  f"Stated in [spec/{profile.spec}](../spec/{profile.spec}).", ""]
        for operation in profile.operations:
            lines += [f"### `{operation.name}`", "", "| rule | level | section | demands |",
                      "|---|---|---|---|"]
            for rule in operation.rules:
                title = rule.title.replace("|", "\\|")
                lines.append(f"| `{rule.id}` | {rule.level} | {section_label(rule.section)} | "
                             f"{title} |")
            lines.append("")
    return "\n".join(lines)


def commands_page() -> str:
    """Every command of ``eventproof`` with its help, as ``eventproof COMMAND --help`` prints
    it."""
    from .cli import main

    lines = ["# Commands", "",
             "Every command of `eventproof`, with the help it prints (`eventproof COMMAND "
             "--help`).", ""]
    with click.Context(main, info_name="eventproof") as context:
        for name in main.list_commands(context):
            command = main.get_command(context, name)
            if command is None or command.hidden:
                continue
            with click.Context(command, info_name=f"eventproof {name}",
                               parent=context) as sub:
                text = command.get_help(sub)
            lines += [f"## `eventproof {name}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(lines)
