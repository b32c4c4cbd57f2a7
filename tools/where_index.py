"""Write (or check) the index of wrong implementations that ``eventproof rules --where`` ships.

    python tools/where_index.py          # write conformance/miniatures.json
    python tools/where_index.py --check  # exit 1 when it is out of step with tests/miniatures

Each module of ``tests/miniatures`` has a ``MINIATURES`` table (name -> (class, rule id)); the
index lists, for every rule, the classes that declare it and where they are defined
(``tests/miniatures/wire.py:295``), so that an installed kit names them without a checkout's
tests on its import path. A maintainer tool: it imports the tests, which the package never does.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "conformance" / "miniatures.json"
MODULES = ("selection", "wire", "budget")


def index() -> dict[str, Any]:
    """The index of the checkout's miniatures, by rule id (rules and classes sorted)."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        rules: dict[str, list[dict[str, str]]] = {}
        for name in MODULES:
            module = importlib.import_module(f"miniatures.{name}")
            for cls, rule in module.MINIATURES.values():
                file = Path(inspect.getsourcefile(cls) or "?").resolve().relative_to(ROOT)
                _, line = inspect.getsourcelines(cls)
                rules.setdefault(rule, []).append(
                    {"class": cls.__name__, "where": f"{file.as_posix()}:{line}"})
    finally:
        sys.path.remove(str(ROOT / "tests"))
    return {"about": "the wrong implementations of tests/miniatures, by the rule each declares "
                     "(written by tools/where_index.py)",
            "rules": {rule: sorted(found, key=lambda item: item["class"])
                      for rule, found in sorted(rules.items())}}


def text() -> str:
    return json.dumps(index(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        if INDEX.read_text("utf-8") != text():
            print(f"{INDEX.relative_to(ROOT)} is out of step with tests/miniatures: run "
                  "python tools/where_index.py", file=sys.stderr)
            return 1
        return 0
    INDEX.write_text(text(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
