"""The shipped vector files as data, and which of their inputs an implementation may be sent.

A low layer: :mod:`._vectors` (the ``eventproof vectors`` command) and :mod:`._traps` (the run's
``shipped-vectors`` family and the inputs traps are planted in) read the files and decide what
to send by these two functions alone.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from eventproof.reference import DEFAULT_MAX_BYTES

from ._model import Capabilities


def read_vector_files(directory: Path | None = None) -> dict[str, Any]:
    """Every vector file, parsed, by file name in name order: the package's, or ``directory``'s."""
    if directory is None:
        texts = {entry.name: entry.read_text("utf-8")
                 for entry in files("eventproof.vectors").iterdir()
                 if entry.name.endswith(".json")}
    else:
        texts = {path.name: path.read_text("utf-8") for path in directory.glob("*.json")}
    return {name: json.loads(texts[name]) for name in sorted(texts)}


@cache
def shipped() -> tuple[tuple[str, str, Any, str | None], ...]:
    """Every shipped vector as ``(id, op, input, pinned fit strategy or None)``, file by file in
    name order."""
    return tuple((raw["id"], raw["op"], raw["input"],
                  (raw.get("capabilities") or {}).get("fitStrategy"))
                 for content in read_vector_files().values() for raw in content["vectors"])


def unsendable_reason(op: str, op_input: Any, fit_strategy: str | None,
                      capabilities: Capabilities) -> str | None:
    """Why a vector's input is never sent to an implementation of ``capabilities`` (an op it
    does not declare, the other fit strategy, a ``maxBytes`` it cannot take), or None."""
    if op not in capabilities.ops:
        return f"the implementation does not declare the op {op!r}"
    if fit_strategy is not None and fit_strategy != capabilities.fit_strategy:
        return (f"the vector pins fitStrategy {fit_strategy}; the implementation "
                f"declares {capabilities.fit_strategy}")
    max_bytes = op_input.get("maxBytes") if isinstance(op_input, dict) else None
    if (op == "project" and not capabilities.variable_max_bytes
            and max_bytes not in (None, DEFAULT_MAX_BYTES)):
        return (f"the vector uses maxBytes {max_bytes}; the implementation declares "
                f"variableMaxBytes false (only {DEFAULT_MAX_BYTES})")
    return None
