"""Shared input checks for every writing call: one style, one error (BadInput), cost O(size of the input).

A writing call checks its whole input with these before it touches the journal, so nothing is written that
cannot be read back: a value must be JSON that survives a round trip (string keys, finite numbers, ints
within Python's digit limit, valid UTF-8 — no lone surrogates — and nesting under ~900 deep), ids must be
strings, and so on. The same helpers build the payload shape checks that owner modules register for their
journal record kinds (`journal.register_kind`), so the write-time and load-time rules are one rule.

>>> need_str("by", "ann")
'ann'
>>> need_str("by", "\\ud800")
Traceback (most recent call last):
...
solvi_lab.errors.BadInput: by must be a string of valid Unicode (no lone surrogates), got '\\ud800'.
>>> need_json("body", {"o": float("nan")})
Traceback (most recent call last):
...
solvi_lab.errors.BadInput: body must be a JSON value (dicts with string keys, lists, strings, finite numbers, booleans, None); {'o': nan} is not (ValueError: Out of range float values are not JSON compliant).
>>> check_shape("a tick", {"op": "tick", "k": 2}, {"op": str, "k": int})
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from .errors import BadInput, SolviLabError
from .jsontext import decoder, dumps_canonical, dumps_plain

__all__ = [
    "ANY",
    "JSON",
    "Opt",
    "check_shape",
    "need_bool",
    "need_hashable",
    "need_int",
    "need_json",
    "need_json_all",
    "need_json_canonical",
    "need_number",
    "need_str",
    "need_str_list",
    "op_shapes",
    "safe_repr",
    "shape",
    "writing_call",
]

_DECODE = decoder(json.JSONDecoder())


def safe_repr(value: Any, limit: int = 80) -> str:
    """repr() for an error message that never raises itself (a 5,000-digit int, a broken __repr__) and stays short.

    >>> safe_repr(10**5000)
    '<an int of 5001 digits>'
    """
    try:
        text = repr(value)
    except Exception:
        if isinstance(value, int):
            return f"<an int of {len(str(abs(value) // 10**4000)) + 4000} digits>"
        return f"<a {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_short = safe_repr


def need_json(what: str, value: Any) -> str:
    """The canonical JSON text of `value`; BadInput unless it is JSON that reads back exactly as JSON gives it.

    >>> need_json("a plan", ("go", 1))
    '["go",1]'
    """
    try:
        text = dumps_canonical(value)
        text.encode("utf-8")
        _DECODE(text)
    except (TypeError, ValueError, RecursionError) as e:
        raise BadInput(
            f"{what} must be a JSON value (dicts with string keys, lists, strings, finite numbers, booleans, "
            f"None); {_short(value)} is not ({type(e).__name__}: {e})."
        ) from None
    return text


def need_json_all(named: Mapping[str, Any]) -> None:
    """need_json on several values in one pass (a hot path: one serialisation); BadInput names the first bad one.

    >>> need_json_all({"body": {"o": 1}, "by": {2}})
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: by must be a JSON value (dicts with string keys, lists, strings, finite numbers, booleans, None); {2} is not (TypeError: Object of type set is not JSON serializable).
    """
    try:
        text = dumps_plain(list(named.values()))
        text.encode("utf-8")
        _DECODE(text)
    except (TypeError, ValueError, RecursionError):
        for what, value in named.items():
            need_json(what, value)
        raise  # pragma: no cover - one of them fails alone


def need_json_canonical(named: Mapping[str, Any]) -> tuple[list[str], list[Any]]:
    """The canonical JSON text of each value and each value as JSON gives it back (tuples become lists), with one
    encoding and one decoding for all of them: a write reuses both for its key, its checks and its journal record,
    so nothing encodes them again. BadInput names the first bad one, as need_json_all.

    >>> need_json_canonical({"body": {"o": ("x", 2)}, "by": None})
    (['{"o":["x",2]}', 'null'], [{'o': ['x', 2]}, None])
    >>> need_json_canonical({"body": {"o": float("inf")}})
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: body must be a JSON value (dicts with string keys, lists, strings, finite numbers, booleans, None); {'o': inf} is not (ValueError: Out of range float values are not JSON compliant).
    """
    try:
        texts = ["null" if v is None else dumps_canonical(v) for v in named.values()]
        joined = "[" + ",".join(texts) + "]"
        joined.encode("utf-8")
        values = _DECODE(joined)
    except (TypeError, ValueError, RecursionError):
        for what, value in named.items():
            need_json(what, value)
        raise
    return texts, values


def need_str(what: str, value: Any, *, none: bool = False, empty: bool = True) -> Any:
    """`value` if it is a str of valid Unicode (and non-empty unless empty=True; None allowed when none=True).

    >>> need_str("why", "", empty=False)
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: why must be a non-empty string, got ''.
    """
    if value is None and none:
        return value
    if not isinstance(value, str):
        raise BadInput(f"{what} must be a {'non-empty ' if not empty else ''}string, got {_short(value)}.")
    if not empty and not value:
        raise BadInput(f"{what} must be a non-empty string, got ''.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"{what} must be a string of valid Unicode (no lone surrogates), got {_short(value)}.") from None
    return value


def need_int(
    what: str,
    value: Any,
    *,
    min: int | None = None,
    none: bool = False,
    error: type[BadInput] = BadInput,
    hint: str = "",
) -> Any:
    """`value` if it is an int (not a bool: True is never a count) ≥ min, within 4,000 digits.

    error: the BadInput subclass to raise (BadParameter for a study's parameter); hint: said after the problem.

    >>> need_int("k", 0, min=1)
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: k must be an int ≥ 1, got 0.
    >>> need_int("n", True, hint="e.g. n=10")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: n must be an int, got True; e.g. n=10.
    """
    if value is None and none:
        return value
    tail = f"; {hint}." if hint else "."
    if not isinstance(value, int) or isinstance(value, bool) or value.bit_length() > 13000:
        raise error(f"{what} must be an int{'' if min is None else f' ≥ {min}'}, got {_short(value)}{tail}")
    if min is not None and value < min:
        raise error(f"{what} must be an int ≥ {min}, got {value!r}{tail}")
    return value


def need_number(
    what: str, value: Any, *, min: float | None = None, max: float | None = None, none: bool = False
) -> Any:
    """`value` if it is a finite int or float (not a bool) within [min, max]."""
    if value is None and none:
        return value
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok and isinstance(value, int):
        ok = value.bit_length() <= 1000
    if not ok or not abs(float(value)) < float("inf"):
        raise BadInput(f"{what} must be a finite number, got {_short(value)}.")
    if (min is not None and value < min) or (max is not None and value > max):
        raise BadInput(f"{what} must lie in [{min}, {max}], got {value!r}.")
    return value


def need_bool(what: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadInput(f"{what} must be True or False, got {_short(value)}.")
    return value


def need_hashable(what: str, value: Any) -> Any:
    """`value` if it can be a dict key or set member (an id, a name)."""
    try:
        hash(value)
    except TypeError:
        raise BadInput(f"{what} must be hashable (a string, number or tuple), got {_short(value)}.") from None
    return value


def need_str_list(what: str, value: Any, *, none: bool = False) -> list[str]:
    """A list of valid strings from a list/tuple/set of them (a lone string is refused: say [x])."""
    if value is None and none:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise BadInput(f"{what} must be a list of strings, got {_short(value)}.")
    out = list(value)
    for v in out:
        need_str(f"each of {what}", v)
    return out


# -- the last line of defence of a writing call ------------------------------------------------------------------

_BARE = (TypeError, ValueError, RecursionError, OverflowError, AttributeError, KeyError, IndexError, LookupError)


def _journal_length(owner: Any) -> int | None:
    for holder in (owner, getattr(owner, "store", None), getattr(owner, "knowledge", None)):
        j = getattr(holder, "journal", None)
        if j is not None and hasattr(j, "position"):
            return j.position
    return None


def writing_call(method: Callable) -> Callable:
    """Decorate a public writing method: a bare exception raised before the journal changed (an argument that got
    past the explicit checks: a 5,000-digit int in an error message, a list where a name belongs) becomes
    BadInput naming the call. If the journal did change, the original exception propagates (that is a bug to
    fix, and the fault harness counts it). The explicit checks at the top of each call come first; this is the
    net under them.

    >>> class Owner:
    ...     journal = None
    ...     @writing_call
    ...     def put(self, x): return {x: 1}
    >>> Owner().put([1])
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: Owner.put(): an argument has a wrong type or value (TypeError: unhashable type: 'list'); nothing was written. Check the call against its docstring.
    """
    import functools
    import types

    bad, known, bare, length = BadInput, SolviLabError, _BARE, _journal_length

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = length(self)
        try:
            return method(self, *args, **kwargs)
        except known:
            raise
        except bare as e:
            if length(self) != before:
                raise
            try:
                detail = str(e)[:200]
            except Exception:
                detail = ""
            raise bad(
                f"{type(self).__name__}.{method.__name__}(): an argument has a wrong type or value "
                f"({type(e).__name__}: {detail}); nothing was written. Check the call against its docstring."
            ) from None

    # Rebuilt in the method's own module so doctest still finds the method's examples.
    wrapped = types.FunctionType(call.__code__, method.__globals__, method.__name__, None, call.__closure__)
    return functools.wraps(method)(wrapped)


# -- payload shapes -------------------------------------------------------------------------------------------


class _Any:
    def __repr__(self) -> str:
        return "ANY"


ANY = _Any()  # any JSON value
JSON = ANY


class Opt:
    """An optional field: absent, or matching `spec`."""

    def __init__(self, spec: Any):
        self.spec = spec


def _predicate(spec: Any) -> Callable[[Any], bool]:
    """Compile a spec once into a test (shape checks run on every append and every loaded record)."""
    if spec is ANY:
        return lambda v: True
    if spec is None:
        return lambda v: v is None
    if isinstance(spec, tuple):
        tests = [_predicate(s) for s in spec]
        return lambda v: any(t(v) for t in tests)
    if isinstance(spec, list):  # [spec]: a list whose every element matches spec
        each = _predicate(spec[0])
        return lambda v: type(v) is list and all(each(x) for x in v)
    if spec is int:
        return lambda v: type(v) is int or (isinstance(v, int) and not isinstance(v, bool))
    if spec is float:
        return lambda v: type(v) in (int, float) or (isinstance(v, (int, float)) and not isinstance(v, bool))
    if callable(spec) and not isinstance(spec, type):
        return lambda v: bool(spec(v))
    return lambda v: type(v) is spec or isinstance(v, spec)


_MISSING = object()


class _Never:
    """A type no value has: the fast accept of a spec that has none."""


def _accepts_type(spec: Any) -> type:
    """A type whose exact instances `spec` always accepts (checked first, without a call), or _Never."""
    if spec is None:
        return type(None)
    if isinstance(spec, type):
        return spec  # int: an exact int is never a bool; float: an exact float is accepted
    if isinstance(spec, tuple):
        for s in spec:
            t = _accepts_type(s)
            if t is not _Never:
                return t
    return _Never


def _compile(fields: Mapping[str, Any]) -> tuple[dict[str, tuple[Callable[[Any], bool], Any, type]], frozenset]:
    tests, required = {}, []
    for name, spec in fields.items():
        optional = isinstance(spec, Opt)
        inner = spec.spec if optional else spec
        if inner is not ANY:
            tests[name] = (_predicate(inner), inner, _accepts_type(inner))
        if not optional:
            required.append(name)
    return tests, frozenset(required)


def _check_compiled(what: str, payload: Any, compiled: tuple, names: frozenset | None) -> None:
    if type(payload) is not dict and not isinstance(payload, dict):
        raise BadInput(f"{what} must be a JSON object, got {_short(payload)}.")
    tests, required = compiled
    if not required <= payload.keys():
        raise BadInput(f"{what}: field {sorted(required - payload.keys())[0]!r} is missing.")
    get = tests.get
    for name, v in payload.items():  # cost: the fields present, not the fields declared
        t = get(name)
        if t is not None and type(v) is not t[2] and not t[0](v):
            raise BadInput(f"{what}: field {name!r} is {_short(v)}, not a {t[1]!r}.")
    if names is not None:
        unknown = sorted(set(payload) - names)
        if unknown:
            raise BadInput(f"{what}: unknown field(s) {unknown}.")


def check_shape(what: str, payload: Any, fields: Mapping[str, Any], *, extra: bool = True) -> None:
    """BadInput unless `payload` is a dict with every required field matching its spec (a type, a tuple of
    alternatives, [spec] for a list, None, ANY, a predicate, or Opt(spec) for an optional field). extra=False
    also refuses fields not named. For a check that runs often, build it once with `shape(...)`."""
    _check_compiled(what, payload, _compile(fields), None if extra else frozenset(fields))


def shape(what: str, fields: Mapping[str, Any], *, extra: bool = True) -> Callable[[Any], None]:
    """`check_shape` compiled once: a payload check to register for a record kind.

    >>> check = shape("a note", {"text": str, "n": Opt(int)})
    >>> check({"text": "hi"})
    >>> check({"text": "hi", "n": True})
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: a note: field 'n' is True, not a <class 'int'>.
    """
    compiled = _compile(fields)
    names = None if extra else frozenset(fields)
    return lambda payload: _check_compiled(what, payload, compiled, names)


def op_shapes(kind: str, shapes: Mapping[str, Mapping[str, Any]], *, op_field: str = "op") -> Callable[[Any], None]:
    """A payload check for a record kind whose payloads are dicts told apart by an `op` field.

    >>> check = op_shapes("note", {"say": {"text": str}})
    >>> check({"op": "say", "text": "hi"})
    >>> check({"op": "shout"})
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: a 'note' record: op 'shout' is not one of ['say'].
    """

    compiled = {op: (f"a {kind!r} {op!r} record", _compile(fields)) for op, fields in shapes.items()}

    def check(payload: Any) -> None:
        if type(payload) is not dict and not isinstance(payload, dict):
            raise BadInput(f"a {kind!r} record's payload must be a JSON object, got {_short(payload)}.")
        op = payload.get(op_field)
        entry = compiled.get(op) if type(op) is str else None
        if entry is None:
            raise BadInput(f"a {kind!r} record: {op_field} {_short(op)} is not one of {sorted(shapes)}.")
        _check_compiled(entry[0], payload, entry[1], None)

    return check
