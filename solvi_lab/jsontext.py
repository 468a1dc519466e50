"""The stdlib json encoder and decoder without their per-call Python wrappers (the journal's hot paths).

`json.dumps(obj, **options)` builds a JSONEncoder, whose `encode` builds the C encoder (`c_make_encoder`) and runs
it; `JSONDecoder.decode(text)` skips leading whitespace, runs the C scanner (`scan_once`) and checks for trailing
data. Per call, these wrappers cost more than the C work on a record-sized value. The functions here run the same
C encoder with the same arguments (a fresh circular-reference memo each call, and `encode`'s shortcut for a str),
and the same scanner, falling back to the full stdlib call whenever the shortcut does not apply, so text,
values and every error (type, message) are exactly stdlib's. tests/test_jsontext.py checks both against stdlib.

>>> dumps_canonical({"b": 1, "a": [1.5, "é"]})
'{"a":[1.5,"é"],"b":1}'
>>> dumps_plain([{"b": 1, "a": 2}])
'[{"b": 1, "a": 2}]'
>>> decoder(json.JSONDecoder())(' [1, "x"] ')
[1, 'x']
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

__all__ = [
    "DIGITS_TO_ZERO",
    "LONG_RUN",
    "bytes_decoder",
    "decoder",
    "dumps_canonical",
    "dumps_plain",
    "encode_str",
    "exact_orjson",
]

try:  # a faster parser for the journal's lines, used only where it gives exactly stdlib's value (bytes_decoder)
    from orjson import loads as _orjson_loads
except ImportError:  # pragma: no cover - orjson is a dependency; without it stdlib parses everything
    _orjson_loads = None
if os.environ.get("SOLVI_LAB_STDLIB_JSON"):  # measure or rule out the shortcut: stdlib parses everything
    _orjson_loads = None

encode_str = json.encoder.encode_basestring  # the C one when built: exactly dumps' text of a str (ensure_ascii=False)
_MAKE = json.encoder.c_make_encoder
_DEFAULT = json.JSONEncoder().default  # raises dumps' TypeError for a value that is not JSON


def _dumps_canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _dumps_plain(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def dumps_canonical(obj: Any) -> str:
    """`json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)`."""
    if isinstance(obj, str):
        return encode_str(obj)
    return "".join(_MAKE({}, _DEFAULT, encode_str, None, ":", ",", True, False, False)(obj, 0))


def dumps_plain(obj: Any) -> str:
    """`json.dumps(obj, ensure_ascii=False, allow_nan=False)` (default separators, keys in their order)."""
    if isinstance(obj, str):
        return encode_str(obj)
    return "".join(_MAKE({}, _DEFAULT, encode_str, None, ": ", ", ", False, False, False)(obj, 0))


if _MAKE is None:  # pragma: no cover - a Python built without the _json accelerator
    dumps_canonical = _dumps_canonical  # noqa: F811
    dumps_plain = _dumps_plain  # noqa: F811


def decoder(dec: json.JSONDecoder) -> Callable[[str], Any]:
    """`dec.decode` as a function: the scanner alone when the text is one JSON value with no whitespace around
    it (all the journal writes), else `dec.decode` itself (which also raises every error exactly as stdlib)."""
    scan, full = dec.scan_once, dec.decode

    def decode(text: str) -> Any:
        try:
            value, end = scan(text, 0)
        except Exception:  # not JSON at position 0 (whitespace first, or an error): stdlib says what it is
            return full(text)
        if end != len(text):
            return full(text)  # trailing whitespace (accepted) or extra data (refused), as stdlib decides
        return value

    return decode


# orjson silently parses an int beyond 64 bits as a float (stdlib: an exact int); any run of 19 digits or more
# (such an int, or a long mantissa) sends the text to stdlib. Everything else orjson refuses that stdlib accepts
# (a lone surrogate escape, 1e400, nesting past 1024) is an error there, so it goes to stdlib as well.
DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
LONG_RUN = b"0" * 19


def _long_digits(data: bytes) -> bool:
    """Whether `data` holds a run of 19 digits or more (a regex search is ~10x slower on a journal line)."""
    return LONG_RUN in data.translate(DIGITS_TO_ZERO)


def exact_orjson(dec: json.JSONDecoder) -> Callable[[bytes], Any] | None:
    """orjson's `loads` when `bytes_decoder(dec)` would use it (a plain decoder that refuses NaN and Infinity, orjson
    installed), else None — for a hot loop that inlines bytes_decoder's rule to spare a call per line: a text with
    no run of `LONG_RUN` after ``translate(DIGITS_TO_ZERO)`` goes to it, and a text it refuses or does not get goes
    to ``bytes_decoder(dec)``, which then decides (and raises stdlib's errors).

    >>> import json
    >>> exact_orjson(json.JSONDecoder(object_hook=dict)) is None
    True
    """
    plain = (
        dec.object_hook is None
        and dec.object_pairs_hook is None
        and dec.parse_float is float
        and dec.parse_int is int
        and dec.strict
        and not _accepts_nan(dec)
    )
    return _orjson_loads if plain else None


def bytes_decoder(dec: json.JSONDecoder) -> Callable[[bytes], Any]:
    """`dec.decode(data.decode("utf-8"))` as a function of UTF-8 bytes: orjson where it gives exactly stdlib's value
    (see _long_digits; only for a plain decoder that refuses NaN and Infinity as orjson does, else stdlib always),
    the stdlib path for everything else, which also raises every error exactly as stdlib (tests/test_jsontext.py).
    """
    full = decoder(dec)
    fast = exact_orjson(dec)

    def decode(data: bytes) -> Any:
        if fast is not None and not _long_digits(data):
            try:
                return fast(data)
            except Exception:
                pass  # stdlib decides: it accepts some texts orjson refuses, and names every error its own way
        return full(data.decode("utf-8"))

    return decode


def _accepts_nan(dec: json.JSONDecoder) -> bool:
    try:
        dec.decode("NaN")
    except ValueError:
        return False
    return True
