"""orjson when it is installed (it is fast), the standard library otherwise (same values)."""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is in every test environment
    orjson = None  # type: ignore[assignment]

__all__ = ["DecodeError", "dumps", "loads", "orjson"]

#: What a failed ``loads`` raises.
DecodeError: type[Exception] = orjson.JSONDecodeError if orjson is not None else ValueError


def loads(data: bytes) -> Any:
    if orjson is not None:
        return orjson.loads(data)
    return json.loads(data)


def dumps(value: Any) -> bytes:
    """Compact JSON bytes of ``value``; ``repr`` bytes of what JSON cannot write (a big integer
    or a lone surrogate for orjson), which only sizes and digests read."""
    try:
        if orjson is not None:
            return orjson.dumps(value)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError):
        return repr(value).encode("utf-8", "surrogatepass")
