"""Pages of the documentation site made from the installed kit, so that they cannot go stale:
every rule (from the operation table), every command with its options (from the command line
itself) and every setting (from the table of settings). The site's build hook
(``docs/_hooks/site.py``) writes them at build time; a maintainer tool, never installed."""

from __future__ import annotations

import click
from eventproof.conformance._operations import PROFILES
from eventproof.conformance._reports import section_label


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
    from eventproof.conformance.cli import main

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


def settings_page() -> str:
    """Every setting of a check, from the table of settings: its type, default and meaning, how
    each face spells it, and each face whose default differs, with the reason."""
    from eventproof.conformance._settings import FACES, SETTINGS, action_default

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("<", "&lt;")

    def code(text: str | None) -> str:
        return "" if text is None else f"`{cell(text)}`"

    lines = ["# Settings", "",
             "Every setting of a check, with the spelling each face gives it: `eventproof run` "
             "(and the environment variable it also reads), `check_implementation` and "
             "`CheckOptions` in Python, the pytest plugin (its option and its ini name in "
             "`[pytest]` or `[tool.pytest.ini_options]`; the command line wins over the file) "
             "and the GitHub action (`with:`). Made from `conformance/_settings.py`, the one "
             "table every face reads its defaults, help and errors from; an empty cell: the "
             "face does not expose the setting. A bad value is named, on every face, by that "
             "face's own spelling, with the fix.", "",
             "| setting | type | default | `eventproof run` | Python | pytest | action | "
             "meaning |", "|---|---|---|---|---|---|---|---|"]
    for entry in SETTINGS.values():
        run = " ".join(code(each) for each in entry.cli or ())
        if entry.env:
            run += f" (or {code(entry.env)})"
        python = code(entry.spelling("python")) if entry.python else ""
        old = entry.old.get("python", ())
        python += "".join(f" (old: `{each}=`)" for each in old)
        plugin = (f"{code(entry.pytest)} / {code(entry.ini)}" if entry.pytest else "")
        action = code(entry.spelling("action")) if entry.action else ""
        if entry.action and action_default(entry) == "" and entry.default is not None:
            action += " (empty: the default)"
        lines.append(f"| `{entry.name}` | {cell(entry.type)} | {code(repr(entry.default))} | "
                     f"{run} | {python} | {plugin} | {action} | {cell(entry.meaning)} |")
    lines += ["", "## Where a face differs", "",
              "A face whose default is not the table's, and why.", ""]
    for entry in SETTINGS.values():
        for face in FACES:
            if face in entry.differs:
                default, why = entry.differs[face]
                lines.append(f"- `{entry.name}` on {face}: `{default!r}`: {why}.")
    lines += ["", "Old spellings, still read: "
              + "; ".join(f"`{entry.name}`: " + ", ".join(f"`{each}`" for each in spellings)
                          + f" ({face})"
                          for entry in SETTINGS.values()
                          for face, spellings in entry.old.items()) + ".", ""]
    return "\n".join(lines)
