"""Canonical serialization: the exact bytes of a wire line (spec/wire.md §6).

The canonical form of a JSON value is the UTF-8 encoding of what ECMAScript's ``JSON.stringify``
writes for it once every string (and every member name) is well-formed (§6.1). Pinning an
existing, widely implemented encoder lets a TypeScript port agree byte for byte with no code of its
own, and leaves every other language a short, fully specified target.

:func:`canonical_bytes_clear` is the spec in code: a small recursive encoder.
:func:`canonical_bytes` answers the same bytes, taking a fast path through ``orjson`` when it is
installed and the value provably needs nothing orjson does differently (no array-index member
names, no integers beyond 2^53-1, only plain ``dict``/``list``/``str``/``int``/``float``/
``bool``/``None``); the few floats whose orjson text is not ``Number::toString`` are
handed to orjson pre-formatted (the comment above :func:`_native_float` proves which).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any

from ._errors import InvalidInput

_orjson: ModuleType | None
# orjson stays optional (the test and bench groups install it, the package does not require
# it): every fast path falls back to the clear encoder, which writes the same bytes, so without
# orjson the reference is slower but never different, and a port's author or an audit on a
# platform without orjson wheels still gets the spec in code with no compiled dependency.
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised by the no-orjson test
    _orjson = None

#: The largest integer a double holds exactly together with all its neighbours (wire.md §7).
MAX_SAFE_INTEGER = 2**53 - 1
#: ECMAScript array indices are integers 0 <= i < 2^32 - 1 (wire.md §6.4).
_ARRAY_INDEX_LIMIT = 2**32 - 1

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\]')
# JSON.stringify's QuoteJSONString: two-character escapes where ECMA-262 has one, lowercase
# \u00xx for the other controls, everything else (U+007F, U+2028, U+2029 included) raw (§6.2).
_ESCAPES: dict[str, str] = {
    '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r",
}
for _code in range(0x20):
    _ESCAPES.setdefault(chr(_code), f"\\u{_code:04x}")
del _code
_c_encode_basestring = getattr(json.encoder, "c_encode_basestring", None)
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


# -- §6.1 well-formed text ---------------------------------------------------------------------


def _join_pair(match: re.Match[str]) -> str:
    high, low = ord(match[1]), ord(match[2])
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def well_formed(s: str) -> str:
    """``s`` as ECMAScript's ``String.prototype.toWellFormed`` sees it (wire.md §6.1).

    A high surrogate followed by a low surrogate is one astral code point (that is how the pair
    reads in UTF-16); every other surrogate becomes U+FFFD, one U+FFFD per surrogate.
    """
    if not has_surrogate(s):  # the common case: nothing to do
        return s
    return _SURROGATE.sub("\ufffd", _SURROGATE_PAIR.sub(_join_pair, s))


#: Code points checked for surrogates at once by :func:`has_surrogate`.
_SCAN_PIECE = 1 << 20


def has_surrogate(s: str) -> bool:
    """True when ``s`` holds a surrogate code point, paired or not (so well_formed changes it).

    The strict UTF-16 encoder refuses every surrogate code point, and encodes ten to twenty
    times faster than a regular expression searches for one (a test holds the two equal); it
    runs a piece at a time so that its copy stays small.
    """
    if s.isascii():
        return False
    try:
        if len(s) <= _SCAN_PIECE:
            s.encode("utf-16-le")
        else:
            for start in range(0, len(s), _SCAN_PIECE):
                s[start:start + _SCAN_PIECE].encode("utf-16-le")
    except UnicodeEncodeError:
        return True
    return False


# -- §6.2 strings ------------------------------------------------------------------------------


def escape_clear(text: str) -> str:
    """The body of a canonical string literal for well-formed ``text``, quotes excluded."""
    return _NEEDS_ESCAPE.sub(lambda match: _ESCAPES[match[0]], text)


def _escape(text: str) -> str:
    """:func:`escape_clear`, by CPython's C string escaper (a test holds the two equal).

    ``json.encoder.c_encode_basestring`` escapes exactly the characters of ``_ESCAPES``, the
    same way, and is ten times faster on escape-heavy text.
    """
    if _c_encode_basestring is None:  # pragma: no cover - CPython always has the C escaper
        return escape_clear(text)
    escaped: str = _c_encode_basestring(text)
    return escaped[1:-1]


def quote(s: str) -> str:
    """The canonical string literal for ``s``, quotes included (wire.md §6.2)."""
    return '"' + _escape(well_formed(s)) + '"'


def escaped_cost(char: str) -> int:
    """Bytes one code point costs inside a canonical string literal (wire.md §6.5 table).

    ``char`` is one code point; a lone surrogate costs what its U+FFFD replacement costs.
    """
    code = ord(char)
    if char in _ESCAPES:
        return len(_ESCAPES[char])  # 2 for '"', '\\', \b \t \n \f \r; 6 for \u00xx
    if code < 0x80:
        return 1
    if code < 0x800:
        return 2
    if code < 0x10000:
        return 3  # includes U+FFFD, which every lone surrogate becomes
    return 4


def escaped_size(text: str) -> int:
    """Bytes ``text`` costs inside a canonical string literal, quotes excluded.

    Equal to the sum of :func:`escaped_cost` over the code points of ``well_formed(text)``: the
    cost of a string is additive over its code points, which is what makes a tail's size
    computable piece by piece (wire.md §5.6).
    """
    if _orjson is not None:
        # orjson writes a string exactly as the canonical form does (§6.2; the fast path below
        # relies on the same fact, and a test holds the two equal), in one C pass with no
        # intermediate str; it refuses lone surrogates, which well_formed replaces first.
        try:
            return len(_orjson.dumps(text)) - 2
        except _orjson.JSONEncodeError:
            return len(_orjson.dumps(well_formed(text))) - 2
    return escaped_size_clear(text)


def escaped_size_clear(text: str) -> int:
    """:func:`escaped_size` by the standard library alone: escape, then count UTF-8 bytes."""
    body = _escape(well_formed(text))
    return len(body) if body.isascii() else len(body.encode("utf-8"))


# -- §6.3 numbers ------------------------------------------------------------------------------


def _shortest_digits(x: float) -> tuple[str, int]:
    """For finite ``x > 0``: the shortest round-trip digits ``s`` and the exponent ``n`` with
    ``x == 0.s × 10^n`` (ECMA-262 Number::toString's ``s`` and ``n``).

    ``repr`` already picks the shortest digit string that reads back as ``x`` (and the nearest
    one among equals), which is exactly what ECMA-262 asks for; only the layout differs.
    """
    mantissa, _, exponent = float.__repr__(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    significant = digits.lstrip("0")
    point -= len(digits) - len(significant)
    return significant.rstrip("0"), point


def number_to_string(x: float) -> str:
    """ECMA-262 ``Number::toString(x)`` in radix 10, for a finite ``x`` (wire.md §6.3)."""
    if x == 0:
        return "0"  # -0 too: JSON.stringify(-0) is "0"
    if x < 0:
        return "-" + number_to_string(-x)
    digits, n = _shortest_digits(x)
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)  # an integer: 30.0 -> "30", 1e21 stays below
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits  # 1e-6 -> "0.000001"
    exponent = n - 1
    sign = "+" if exponent >= 0 else "-"
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{sign}{abs(exponent)}"  # 1e21 -> "1e+21", 1e-7 -> "1e-7"


# -- §6.4 member order -------------------------------------------------------------------------


def is_array_index(key: str) -> bool:
    """True when ``key`` is an ECMAScript array index: the canonical decimal of 0 <= i < 2^32-1."""
    if not key or len(key) > 10 or not key.isascii() or not key.isdigit():
        return False
    if key[0] == "0" and key != "0":
        return False  # "01" is not canonical: it is an ordinary name
    return int(key) < _ARRAY_INDEX_LIMIT


def member_path(path: str, key: str) -> str:
    """The JSONPath of member ``key`` of the object at ``path`` (``$.a``, ``$["a b"]``)."""
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=True)}]"


def ordered_members(value: Mapping[Any, Any], path: str) -> list[tuple[str, Any, str]]:
    """The members of ``value`` as ``JSON.stringify`` visits them (wire.md §6.4).

    Names are well-formed first; when two names become equal, the later value replaces the
    earlier one at the earlier one's position (what assignment to a JS object does). Array-index
    names come first in ascending numeric order, then the others in insertion order
    (OrdinaryOwnPropertyKeys). Each member is ``(name, value, path of the original member)``.
    """
    members: dict[str, tuple[Any, str]] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise InvalidInput(
                value=key, path=path, reason="is a member name that is not a string",
                fix="JSON object member names are strings; convert the key to a string.",
            )
        members[well_formed(key)] = (item, member_path(path, key))
    indices = sorted((key for key in members if is_array_index(key)), key=int)
    others = [key for key in members if not is_array_index(key)]
    return [(key, *members[key]) for key in indices + others]


# -- the clear encoder (the spec) --------------------------------------------------------------


def _encode(value: Any, path: str) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise InvalidInput(
                value=value, path=path,
                reason="is an integer beyond 2^53-1 in magnitude: a double cannot hold it exactly, "
                       "so a JSON.parse reader would silently round it (wire.md §7, RFC 7493 §2.2)",
                fix="Send integers within ±9007199254740991, or carry the value as a string.",
            )
        return str(int(value))  # int(): an IntEnum's str() is its name, not its digits
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidInput(
                value=value, path=path,
                reason="is not a finite number; JSON has no NaN or Infinity (wire.md §7)",
                fix="Send a finite number, null, or a string such as \"NaN\".",
            )
        return number_to_string(float(value))
    if isinstance(value, Mapping):
        members = ordered_members(value, path)
        return "{" + ",".join(
            quote(key) + ":" + _encode(item, item_path) for key, item, item_path in members
        ) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(
            _encode(item, f"{path}[{index}]") for index, item in enumerate(value)
        ) + "]"
    raise InvalidInput(
        value=value, path=path, reason=f"is a {type(value).__name__}, not a JSON value",
        fix="Send only objects, arrays, strings, numbers, booleans and null.",
    )


def canonical_text(value: Any) -> str:
    """The canonical serialization of ``value`` as text (what ``JSON.stringify`` returns)."""
    try:
        return _encode(value, "$")
    except RecursionError:
        raise InvalidInput(
            value="<deeply nested value>", path="$",
            reason="nests deeper than the reference can follow (wire.md §7)",
            fix="Send a value nested at most a few hundred levels deep.",
        ) from None


def canonical_bytes_clear(value: Any) -> bytes:
    """The canonical serialization of ``value`` by the clear encoder alone (wire.md §6)."""
    return canonical_text(value).encode("utf-8")


# -- the optional fast path --------------------------------------------------------------------
#
# Why orjson's float text is Number::toString on exactly the floats _native_float accepts.
#
# Both writers print the same digits. ECMA-262 Number::toString takes the shortest decimal digit
# string s (k digits, exponent n, value 0.s × 10^n) that reads back as x, the one nearest x among
# equally short ones. orjson 3.13 formats a finite double with the zmij crate (older releases
# used ryu, whose layout writes "1e21"), both Schubfach/Ryu-style shortest-round-trip algorithms
# making the same choice: the shortest digits in the rounding interval, the nearest to x among
# them (zmij's test suite compares it with ryu; here 3 million random doubles of every magnitude
# and the tests below agreed with number_to_string). So only the layout can differ. With
# e = n - 1 (the exponent of the leading digit), zmij's write<f64> (`(-5..=15).contains(&dec_exp)`)
# and ryu's format64 (`-5 < kk <= 16`, kk = n) both write:
#   -5 <= e <= 15, all digits integral (k <= n):  digits, n - k zeros, ".0"   ("30.0", "1e15" is
#                                                 "1000000000000000.0")
#   0 <= e <= 15 otherwise:   the first n digits, ".", the rest               ("123.456")
#   -5 <= e < 0:              "0.", -n zeros, the digits                      ("0.00001234")
#   otherwise:                d[.ddd]e-|e| for e < 0; for e > 0 zmij "e+", ryu "e" ("1e-7")
# ECMA-262 §6.3 writes, for the same s, k, n: k <= n <= 21 digits and zeros (no ".0");
# 0 < n <= 21 "digits.digits"; -6 < n <= 0 "0." zeros digits; otherwise d[.ddd]e±|n-1|.
# Hence, for x != 0 not an integer (then k > n: a non-integral double is at least one ulp from
# every integer and its rounding interval is half an ulp wide, so its shortest decimal is no
# integer either):
#   -4 <= n <= 16 (e in [-5, 15]): both "digits.digits" (n > 0) or "0." + -n zeros + digits
#                                  (n <= 0), the same bytes;
#   n <= -6 (e <= -7):             both "d[.ddd]e-" + (1 - n), the same bytes;
#   n = -5 (e = -6):               JS "0.00000ddd", orjson "d.ddde-6": they DIFFER;
#   n >= 17:                       no such x (doubles from 2^53 on are integers).
# In terms of x: 10^-5 and 10^-6 are not dyadic, so the double nearest each (the literals 1e-5,
# 1e-6) holds it strictly inside its rounding interval; every double below that literal has all
# its interval below 10^m and every double above it has all its interval above. So n >= -4
# exactly when |x| >= 1e-5, n <= -6 exactly when |x| < 1e-6, and n <= 16 exactly when
# |x| < 1e16 (10^16 is a double). _native_float accepts x when it is not an integer and
# 1e-5 <= |x| < 1e16 or |x| < 1e-6: orjson writes exactly Number::toString(x) for it.
# An integral x with |x| <= 2^53-1 is the int(x) orjson writes as that integer: every integer in
# that range is a double whose rounding interval (half an ulp <= 1/2 each side) holds no other
# integer, so Number::toString(x) is its exact decimal (30.0 -> "30", -0.0 -> int 0 -> "0").
# Every other finite float (integral beyond 2^53-1, 1e-6 <= |x| < 1e-5) becomes an
# orjson.Fragment of number_to_string(x), the spec's own text, which orjson copies verbatim.
# _ORJSON_FLOATS_AGREE re-checks the layout on the edges at import and turns native floats off
# (everything through number_to_string) if an orjson ever formats them differently.

_NONE = type(None)
_Fragment: Any = getattr(_orjson, "Fragment", None)
#: Magnitudes between which (with |x| < 1e-6) a non-integral double's orjson text is canonical.
_NATIVE_LOW, _NATIVE_HIGH, _NATIVE_TINY = 1e-5, 1e16, 1e-6
_INFINITY = float("inf")
#: What the first pass reports: orjson may write the value as it is, after _for_orjson, or never.
_AS_IS, _REWRITE, _DECLINE = 0, 1, 2


def _native_float(x: float) -> bool:
    """True when orjson's text for the finite-or-not float ``x`` is ``number_to_string(x)``."""
    magnitude = abs(x)
    if _NATIVE_LOW <= magnitude < _NATIVE_HIGH:
        return not magnitude.is_integer()
    return 0.0 < magnitude < _NATIVE_TINY


def _edges() -> list[float]:
    """Floats on both sides of every layout switch of either writer, for the import check."""
    import math

    edges = [0.1 + 0.2, 123456789.123, 5e-324, 2.2250738585072014e-308, 1.5e-7, 1.234e-7]
    for exponent in range(-8, 18):
        power = float(f"1e{exponent}")
        for value in (power, math.nextafter(power, 0.0), math.nextafter(power, _INFINITY),
                      1.5 * power, 9.87654321 * power):
            edges += [value, -value]
    return edges


def _orjson_floats_agree() -> bool:
    """True when the installed orjson writes every native float of the edge set canonically."""
    if _orjson is None:
        return False
    native = [x for x in _edges() if _native_float(x)]
    expected = "[" + ",".join(map(number_to_string, native)) + "]"
    written: bytes = _orjson.dumps(native)
    return written == expected.encode("ascii")


#: Whether orjson may write native floats itself (the import-time check above passed).
_ORJSON_FLOATS_AGREE = _orjson_floats_agree()


def _orjson_plan(value: Any) -> int:
    """How orjson can write ``value`` canonically: ``_AS_IS``, ``_REWRITE`` or ``_DECLINE``.

    orjson writes the same escapes and the same member order as the canonical form for plain
    objects, arrays, strings, booleans, null and integers; it differs on some floats (see the
    comment above: integral ones get ".0", 1e-6 <= |x| < 1e-5 an exponent), on array-index
    names (it keeps insertion order) and on integers up to 2^64 (the canonical form refuses
    those beyond 2^53-1); it writes NaN and the infinities as null (the canonical form refuses
    them). ``_REWRITE``: only floats stand in the way, and :func:`_for_orjson` replaces them.
    Lone surrogates make orjson raise, which sends the value to the clear encoder.
    """
    plan = _AS_IS
    native_floats = _ORJSON_FLOATS_AGREE
    # This loop is the fast path's own cost, so it is written for speed: containers are pushed,
    # their members are checked in place, the commonest types first.
    pending = [value]
    pop, push = pending.pop, pending.append
    while pending:
        item = pop()
        kind = type(item)
        if kind is dict:
            for key in item:
                # Every array-index name starts with an ASCII digit ("0" <= key < ":" says
                # exactly that, and is the cheapest test); other digit-led names are rare.
                if type(key) is not str or "0" <= key < ":":
                    return _DECLINE
            members: Iterable[Any] = item.values()
        elif kind is list:
            members = item
        else:
            members = (item,)  # the value itself is a scalar
        for member in members:
            kind = type(member)
            if kind is str:
                continue
            if kind is dict or kind is list:
                push(member)
            elif kind is float:
                # _native_float, inlined.
                magnitude = abs(member)
                if native_floats and (
                    (_NATIVE_LOW <= magnitude < _NATIVE_HIGH and not magnitude.is_integer())
                    or 0.0 < magnitude < _NATIVE_TINY
                ):
                    continue
                if member != member or magnitude == _INFINITY or _Fragment is None:
                    return _DECLINE  # the clear encoder refuses non-finite numbers with a path
                plan = _REWRITE
            elif kind is int:
                if not -MAX_SAFE_INTEGER <= member <= MAX_SAFE_INTEGER:
                    return _DECLINE
            elif kind is not bool and kind is not _NONE:
                return _DECLINE
    return plan


def _orjson_float(x: float) -> float | int | Any:
    """``x``, or what orjson writes as ``number_to_string(x)`` for a finite ``x``."""
    if _ORJSON_FLOATS_AGREE and _native_float(x):
        return x
    if x.is_integer() and -MAX_SAFE_INTEGER <= x <= MAX_SAFE_INTEGER:
        return int(x)  # its exact decimal is Number::toString(x); -0.0 becomes 0
    return _Fragment(number_to_string(x))


def _for_orjson(value: Any) -> Any:
    """A copy of ``value`` (one ``_orjson_plan`` rated ``_REWRITE``) with every float replaced
    by :func:`_orjson_float`; strings and other scalars are shared, never copied."""
    kind = type(value)
    if kind is float:
        return _orjson_float(value)
    if kind is dict:
        return {key: _for_orjson(item) if type(item) in _NESTED else item
                for key, item in value.items()}
    if kind is list:
        return [_for_orjson(item) if type(item) in _NESTED else item for item in value]
    return value


_NESTED = frozenset({dict, list, float})


def _well_formed_for_orjson(value: Any) -> Any:
    """:func:`_for_orjson` of ``value`` with every string and member name well-formed (§6.1).

    For a value ``_orjson_plan`` did not decline but orjson refused (it refuses surrogates).
    A dict built name by name keeps a repeated name at its first position with the last value,
    exactly as §6.1 asks when two names become equal; no name becomes an array index (a
    surrogate becomes U+FFFD or an astral character, never a digit), so the order still holds.
    """
    kind = type(value)
    if kind is str:
        return well_formed(value)
    if kind is dict:
        return {well_formed(key): _well_formed_for_orjson(item) for key, item in value.items()}
    if kind is list:
        return [_well_formed_for_orjson(item) for item in value]
    if kind is float:
        return _orjson_float(value)
    return value


# -- the plain-tree shortcut -------------------------------------------------------------------
#
# Most values are what a JSON reader just built: plain dicts and lists of strings, small
# integers, booleans, null and ordinary floats. For those, _plain_tree is the whole check before
# orjson writes the value: a dict or list holding, at any depth, only str member names that do
# not start with an ASCII digit (no array index among them, §6.4), and only exact dict, list,
# str, int, bool, None or floats _native_float accepts. It is _orjson_plan's _AS_IS answer minus
# the integer range, written as one recursive function with the commonest types first; the
# range is left to orjson itself: OPT_STRICT_INTEGER makes orjson refuse every integer beyond
# ±(2^53-1) (the canonical form's own limit, checked at import by _strict_integers_agree), and
# a refusal, like one for a lone surrogate, sends the value down the general path below, which
# names the culprit. Whatever _plain_tree does not accept goes the general path too, so a
# False is never wrong, only slower.

_STRICT_INTEGER: int = getattr(_orjson, "OPT_STRICT_INTEGER", 0)


def _strict_integers_agree() -> bool:
    """True when orjson refuses exactly the integers beyond ±(2^53-1) under OPT_STRICT_INTEGER."""
    if _orjson is None or not _STRICT_INTEGER:
        return False
    inside = [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0]
    if _orjson.dumps(inside, option=_STRICT_INTEGER) != b"[9007199254740991,-9007199254740991,0]":
        return False
    for outside in (MAX_SAFE_INTEGER + 1, -MAX_SAFE_INTEGER - 1, 2**64, -(2**63)):
        try:
            _orjson.dumps([outside], option=_STRICT_INTEGER)
        except _orjson.JSONEncodeError:
            continue
        return False
    return True


#: Whether canonical_bytes may take the plain-tree shortcut (the import-time checks passed).
_PLAIN_SHORTCUT = _ORJSON_FLOATS_AGREE and _strict_integers_agree()


class _NeverRaised(Exception):
    """Stands for orjson's error when orjson is not installed (the shortcut is off then)."""


#: orjson's writer and its refusal, for the callers of the shortcut (_wire).
_dumps: Any = getattr(_orjson, "dumps", None)
JSONEncodeError: type[Exception] = getattr(_orjson, "JSONEncodeError", _NeverRaised)


def _plain_tree_py(value: Any) -> bool:
    """True when ``value`` is a dict or list that orjson writes canonically, integers aside
    (see the comment above): the walk of :func:`_plain_tree_code_points_py`, its count unread.
    May raise RecursionError on deep nesting."""
    return _plain_tree_code_points_py(value) >= 0


def _plain_tree_code_points_py(value: Any) -> int:
    """The code points of every string and member name of ``value`` when
    :func:`_plain_tree_py` accepts it, else -1 (the same walk, counting as it goes). May raise
    RecursionError on deep nesting."""
    total = 0
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str or "0" <= key < ":":
                return -1
            total += len(key)
            kind = type(item)
            if kind is str:
                total += len(item)
            elif kind is int or kind is bool or item is None:
                continue
            elif kind is dict or kind is list:
                inner = _plain_tree_code_points_py(item)
                if inner < 0:
                    return -1
                total += inner
            elif kind is not float or not _native_float(item):
                return -1
        return total
    if type(value) is list:
        for item in value:
            kind = type(item)
            if kind is str:
                total += len(item)
            elif kind is int or kind is bool or item is None:
                continue
            elif kind is dict or kind is list:
                inner = _plain_tree_code_points_py(item)
                if inner < 0:
                    return -1
                total += inner
            elif kind is not float or not _native_float(item):
                return -1
        return total
    return -1


# The same two walks compiled (reference/_speedups.c), when the package was built with a C
# compiler: a walk in Python costs more than orjson's whole serialization of a small event, and
# the compiled one a fraction of it. They answer exactly what the Python ones answer (a
# differential property test holds them equal), apart from nesting deeper than Python recurses,
# which the compiled walk declines (False, -1) where the Python one raises RecursionError, and
# every caller treats both alike. EVENTPROOF_NO_EXTENSIONS=1 in the environment keeps the
# Python walks (as when no compiler was at hand).

def _compiled_walks() -> tuple[Callable[[Any], bool], Callable[[Any], int]] | None:
    """The compiled walks, unless switched off or not built."""
    if os.environ.get("EVENTPROOF_NO_EXTENSIONS", "") not in ("", "0"):
        return None
    try:
        from . import _speedups
    except ImportError:  # built without a C compiler: the Python walks answer the same
        return None
    return _speedups.plain_tree, _speedups.plain_tree_code_points


_WALKS = _compiled_walks()
#: Whether the compiled walks are in use.
COMPILED = _WALKS is not None
_plain_tree, _plain_tree_code_points = _WALKS or (_plain_tree_py, _plain_tree_code_points_py)


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 bytes of ``JSON.stringify(value)`` after well-forming every string (wire.md §6).

    No trailing newline. Raises :class:`InvalidInput` (naming the JSONPath) for integers beyond
    2^53-1, NaN and infinities, non-string member names and non-JSON values (wire.md §7).
    """
    if _PLAIN_SHORTCUT:
        try:
            plain = _plain_tree(value)
        except RecursionError:
            plain = False
        if plain:
            try:
                line: bytes = _orjson.dumps(value, option=_STRICT_INTEGER)  # type: ignore[union-attr]
                return line
            except _orjson.JSONEncodeError:  # type: ignore[union-attr]
                pass  # a lone surrogate or an integer beyond 2^53-1: the general path decides
    if _orjson is not None:
        plan = _orjson_plan(value)
        if plan != _DECLINE:
            # The prepared values are built outside the ``try``: orjson's JSONEncodeError is a
            # TypeError, and a TypeError from our own preparation must surface, never be
            # mistaken for "orjson declined" and hidden behind the clear encoder.
            try:
                prepared = value if plan == _AS_IS else _for_orjson(value)
            except RecursionError:  # deeper than Python recurses: the clear encoder refuses it
                return canonical_bytes_clear(value)
            fast: bytes
            try:
                fast = _orjson.dumps(prepared)
                return fast
            except (_orjson.JSONEncodeError, RecursionError):
                pass  # surrogates, or nesting deeper than orjson follows
            try:
                well_formed_copy = _well_formed_for_orjson(value)
            except RecursionError:
                return canonical_bytes_clear(value)
            try:
                fast = _orjson.dumps(well_formed_copy)
                return fast
            except (_orjson.JSONEncodeError, RecursionError):
                pass  # nesting deeper than orjson follows: the clear encoder answers
    return canonical_bytes_clear(value)
