"""orjson when it is installed (it is fast), the standard library otherwise (same values).

Every module of the audit reaches orjson through this module's ``orjson`` at call time, so
setting it to None turns every fast path off at once (the tests do, to hold both paths equal)."""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is in every test environment
    orjson = None  # type: ignore[assignment]

__all__ = ["DecodeError", "dumps", "loads", "orjson"]

#: What a failed ``loads`` raises, with orjson (its JSONDecodeError is one) or without.
DecodeError: type[Exception] = ValueError


def loads(data: bytes) -> Any:
    """The value of one JSON text, the same with orjson or without; :data:`DecodeError` for
    what is not one (``NaN``, a text nested deeper than the reader follows). orjson is only the
    fast path: what it refuses that is JSON (a lone surrogate escaped, an integer past 64 bits)
    is read by the standard library, so no reading depends on what is installed."""
    if orjson is not None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(data, parse_constant=_not_json)
    except RecursionError as error:
        raise ValueError(f"nested deeper than the reader follows: {error}") from None


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def dumps(value: Any) -> bytes:
    """Compact JSON bytes of ``value``; ``repr`` bytes of what JSON cannot write (a big integer
    or a lone surrogate for orjson), which only sizes and digests read."""
    try:
        if orjson is not None:
            return orjson.dumps(value)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError):
        return _shallow_repr(value)


def _shallow_repr(value: Any) -> bytes:
    """``repr`` bytes of ``value``; a value too deep for ``repr`` itself is named by its type."""
    try:
        return repr(value).encode("utf-8", "surrogatepass")
    except RecursionError:
        return f"<{type(value).__name__} nested deeper than this reader follows>".encode()
