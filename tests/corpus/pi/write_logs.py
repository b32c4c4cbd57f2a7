"""Write the corpus's pi logs: run the published coding agent (`pi --mode json`) on each scripted
scenario of scenarios/, its model answered by faux-extension.mjs, and keep what it writes.

    python tests/corpus/pi/write_logs.py --pi DIR --out DIR [NAME...]

``--pi`` is a folder where ``@mariozechner/pi-coding-agent`` is installed (``nox -s real-logs``
installs the pinned version into a scratch folder); each log is written to ``--out`` as
``NAME.jsonl``. The agent runs in a scratch working folder holding the scenario's ``files``, with
a scratch home, no session file and no network.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
EXTENSION = HERE / "faux-extension.mjs"


def write_log(pi: Path, scenario: Path, out: Path) -> Path:
    """Run the agent on one scenario and write its standard output to ``out/NAME.jsonl``."""
    spec = json.loads(scenario.read_text(encoding="utf-8"))
    cli = pi / "node_modules" / "@mariozechner" / "pi-coding-agent" / "dist" / "cli.js"
    if not cli.is_file():
        raise SystemExit(f"{cli}: not found; install the agent there first "
                         "(nox -s real-logs does)")
    with tempfile.TemporaryDirectory(prefix="eventproof-pi-") as scratch:
        work = Path(scratch) / "work"
        work.mkdir()
        for name, text in spec.get("files", {}).items():
            (work / name).write_text(text, encoding="utf-8")
        agent = Path(scratch) / "agent"
        env = {**os.environ, "HOME": scratch, "PI_CODING_AGENT_DIR": str(agent),
               "PI_OFFLINE": "1", "EVENTPROOF_PI_SCENARIO": str(scenario)}
        extensions = ["--no-extensions", "--extension", str(EXTENSION)]
        if spec.get("delegation"):
            # The child agents are other pi processes: they find the faux provider, the
            # subagent extension and the one agent, `helper`, in the agent folder's settings.
            subagent = cli.parent.parent / "examples" / "extensions" / "subagent" / "index.ts"
            (agent / "agents").mkdir(parents=True)
            (agent / "agents" / "helper.md").write_text(
                "---\nname: helper\ndescription: Does what it is asked.\nmodel: faux-1\n---\n\n"
                "You help.\n", encoding="utf-8")
            (agent / "settings.json").write_text(json.dumps(
                {"defaultProvider": "eventproof-faux", "defaultModel": "faux-1",
                 "extensions": [str(EXTENSION), str(subagent)]}), encoding="utf-8")
            extensions = []
        command = ["node", str(cli), "--mode", "json", "--no-session", "--offline", *extensions,
                   "--provider", "eventproof-faux", "--model", "faux-1", spec["prompt"]]
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, timeout=120,
                              check=False)
    target = out / f"{scenario.stem}.jsonl"
    target.write_bytes(done.stdout)
    if done.stderr:
        sys.stderr.write(f"{scenario.stem}: exit {done.returncode}; stderr: "
                         f"{done.stderr.decode(errors='replace')[-2000:]}\n")
    lines = done.stdout.count(b"\n")
    print(f"{target}: {len(done.stdout):,} bytes, {lines} lines, exit {done.returncode}")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pi", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("names", nargs="*", help="scenarios to run (default: all)")
    options = parser.parse_args(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    names = options.names or sorted(path.stem for path in SCENARIOS.glob("*.json"))
    for name in names:
        write_log(options.pi.resolve(), SCENARIOS / f"{name}.json", options.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
