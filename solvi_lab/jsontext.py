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
from collections.abc import Callable
from typing import Any

__all__ = ["decoder", "dumps_canonical", "dumps_plain", "encode_str"]

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
