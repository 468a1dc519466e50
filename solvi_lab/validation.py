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
from .lone_reads import THREADS, get_ident, other_thread

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
    "need_path",
    "need_str",
    "need_str_list",
    "op_shapes",
    "public_calls",
    "refusal",
    "safe_repr",
    "value_problem",
    "shape",
    "write_lock",
    "writing_call",
]

_DECODE = decoder(json.JSONDecoder())


def safe_repr(value: Any, limit: int = 80) -> str:
    """repr() for an error message that never raises itself (a 5,000-digit int, a broken __repr__) and stays short.

    >>> safe_repr(10**5000)
    '<an int of about 5001 digits>'
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 13000:
        return f"<an int of about {int(value.bit_length() * 0.30103) + 1} digits>"
    try:
        text = repr(value)
    except Exception:  # a broken __repr__, a value too deep to print: say what type it is
        return f"<a {_type_name(value)} whose repr fails>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_name(value: Any) -> str:
    try:
        return type(value).__name__
    except Exception:  # pragma: no cover - type() of anything has a name
        return "value"


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
    except Exception:  # unhashable, or a __hash__ that raises: described by its type (safe_repr), never bare
        raise BadInput(f"{what} must be hashable (a string, number or tuple), got {_short(value)}.") from None
    return value


def need_path(what: str, value: Any) -> Any:
    """`value` as a pathlib.Path if it is a str or os.PathLike naming a path (non-empty, valid Unicode, no NUL).

    >>> need_path("path", "runs/j.parquet").name
    'j.parquet'
    >>> need_path("path", 3)
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: path must be a file path (a str or os.PathLike), got 3.
    """
    import os
    from pathlib import Path

    if not isinstance(value, (str, os.PathLike)):
        raise BadInput(f"{what} must be a file path (a str or os.PathLike), got {_short(value)}.")
    try:
        text = os.fspath(value)
    except Exception:
        raise BadInput(f"{what} must be a file path (a str or os.PathLike), got {_short(value)}.") from None
    if not isinstance(text, str) or not text or "\x00" in text:
        raise BadInput(f"{what} must be a non-empty file path without NUL characters, got {_short(value)}.")
    need_str(what, text)
    return Path(text)


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


def _journal_of(owner: Any) -> Any:
    """The journal an owner writes to: its own, or its store's (an owner that writes through a store)."""
    for holder in (owner, getattr(owner, "store", None), getattr(owner, "knowledge", None)):
        j = getattr(holder, "journal", None)
        if j is not None and hasattr(j, "position"):
            return j
    return None


def _journal_length(owner: Any) -> int | None:
    j = _journal_of(owner)
    return None if j is None else j.position


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_LOCK = _NoLock()


def write_lock(owner: Any) -> Any:
    """The lock a public write of `owner` holds for all its steps: the reentrant lock of the journal it writes to
    (one per journal, so owners sharing a journal take turns too); a no-op for an owner without a journal. Asked
    for by a thread other than the main one, it first turns the main thread's lone reads off (lone_reads.py)."""
    if not THREADS.shared and get_ident() != THREADS.main:  # other_thread()'s test, inline: every write asks
        other_thread()
    return getattr(_journal_of(owner), "lock", None) or _NO_LOCK


def writing_call(method: Callable) -> Callable:
    """Decorate a public writing method: a bare exception raised before the journal changed (an argument that got
    past the explicit checks: a 5,000-digit int in an error message, a list where a name belongs) becomes
    BadInput naming the argument and what it accepts (`refusal`). If the journal did change, the original
    exception propagates (that is a bug to fix, and the fault harness counts it). The explicit checks at the top
    of each call come first; this is the net under them.

    >>> class Owner:
    ...     journal = None
    ...     @writing_call
    ...     def put(self, x: str): return {x: 1}
    >>> Owner().put([1])
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: Owner.put(): x must be a string, got [1] (TypeError: unhashable type: 'list'); nothing was written.
    """
    return _guarded(method, writing=True)


def public_calls(cls: type) -> type:
    """Class decorator: every public method, classmethod and constructor of `cls` (its own and inherited) gets the
    net of `writing_call` — a bare exception (or any exception when an argument's repr fails) becomes BadInput
    naming the argument and what it accepts — and a refusal quoting a long argument quotes an 80-character prefix.

    Every public method of an instance — reads too — and the read dunders (`__len__`, `__contains__`, `__iter__`,
    `__getitem__`, `__repr__`) hold the owner's journal lock (`write_lock`) for the whole call: a read that settles
    lazy state (pending digests, records other writers appended, a cache) then never interleaves with a write in
    another thread (issue 40). The lock is reentrant and uncontended in one thread, so a read pays one acquire.

    A public property's getter holds the lock too. Methods already marked `writing_call` keep their own net;
    generators are left as they are. The cost is one Python call frame (and one lock acquire) on the success path;
    in the main thread, while no other thread has asked for an owner's lock, a read skips the lock
    (solvi_lab.lone_reads), and the hot reads marked `locks_itself` skip the frame too.

    >>> @public_calls
    ... class Owner:
    ...     journal = None
    ...     def size(self, n: int) -> int: return len(range(n))
    >>> Owner().size(10**5000)
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: Owner.size(): n must be an int, got an int of about 5001 digits (at most 4,000) (<an int of about 5001 digits>) (OverflowError: Python int too large to convert to C ssize_t); nothing was written.
    """
    import inspect

    own = {}
    for base in reversed(cls.__mro__[:-1]):  # inherited public calls too (JournalOwner's open, from_journal, ...)
        own.update(vars(base))
    for name, attr in own.items():
        if name in _LOCKED_DUNDERS and inspect.isfunction(attr) and not getattr(attr, "_solvi_locked", False):
            setattr(cls, name, _read_locked(attr))
            continue
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(attr, property) and attr.fget is not None and not getattr(attr.fget, "_solvi_locked", False):
            setattr(cls, name, property(_read_locked(attr.fget), attr.fset, attr.fdel, attr.__doc__))
            continue
        if isinstance(attr, (classmethod, staticmethod)):
            fn = attr.__func__
            if inspect.isgeneratorfunction(fn) or getattr(fn, "_solvi_guarded", False):
                continue
            setattr(cls, name, type(attr)(_guarded(fn, writing=False, static=isinstance(attr, staticmethod))))
        elif inspect.isfunction(attr):
            if inspect.isgeneratorfunction(attr) or getattr(attr, "_solvi_guarded", False):
                continue
            # a constructor has no journal to lock until it has run: only the net
            setattr(cls, name, _guarded(attr, writing=False, lock=name != "__init__"))
    return cls


# The dunders that read an owner's state (and may settle lazy state: DecisionLog folds new records on len()).
# __eq__ is left out on purpose: it reads two owners, and holding one journal's lock while taking the other's could
# deadlock against a thread comparing them the other way round; it calls state() on each, which locks each in turn.
_LOCKED_DUNDERS = frozenset({"__len__", "__contains__", "__iter__", "__getitem__", "__repr__", "__bool__"})


def locks_itself(method: Callable) -> Callable:
    """Mark a hot public read that looks after the journal's lock in its own body: `public_calls` then leaves it
    unwrapped, and a read called in a loop (`ks.status`, `ks.item`, `in`, `len`) pays no wrapper frame. Its body
    reads without the lock where `solvi_lab.lone_reads` allows it (the main thread alone; the handshake inlined) and
    hands everything else — another thread, an exception, an owner without a journal — to its twin (`read_twin`),
    which reads again under the lock with public_calls' error net. A read changes nothing, so reading twice is safe.

    >>> from solvi_lab.lone_reads import lone_read_allowed
    >>> class Owner:
    ...     journal = None
    ...     @locks_itself
    ...     def size(self, n: int) -> int:
    ...         if lone_read_allowed():  # a real hot read also announces itself (see lone_reads)
    ...             try:
    ...                 return len(range(n))
    ...             except Exception:
    ...                 pass
    ...         return _size(self, n)
    >>> def size(self, n: int) -> int: return len(range(n))
    >>> _size = read_twin(size)
    >>> Owner().size(3)
    3
    >>> Owner().size("3")
    Traceback (most recent call last):
    ...
    solvi_lab.errors.BadInput: Owner.size(): n must be an int, got '3' (TypeError: 'str' object cannot be interpreted as an integer); nothing was written.
    """
    method._solvi_guarded = True  # type: ignore[attr-defined]
    method._solvi_locked = True  # type: ignore[attr-defined]
    return method


def read_twin(method: Callable) -> Callable:
    """What `public_calls` makes of the read `method` (named as the public call it stands for): a read dunder
    holds the journal's lock; a public read holds it and has the error net. The slow path of a `locks_itself` read."""
    if method.__name__ in _LOCKED_DUNDERS:
        return _read_locked(method)
    return _guarded(method, writing=False, lock=True)


def _read_locked(method: Callable) -> Callable:
    """`method` holding its owner's journal lock for the call (a read dunder: see public_calls)."""
    import functools

    lock_of = write_lock

    th, ident, other = THREADS, get_ident, other_thread

    @functools.wraps(method)
    def locked(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ident() == th.main and (not th.shared or th.reading):  # the main thread alone (lone_reads.py)
            th.reading += 1
            try:
                if not th.shared or th.reading > 1:  # inside a lone read already: the other thread waits for it
                    return method(self, *args, **kwargs)
            finally:
                th.reading -= 1
        other()
        try:  # the owner's own journal (two attribute reads: a read is called often), else write_lock's search
            lock = self.journal.lock or lock_of(self)
        except AttributeError:
            lock = lock_of(self)
        with lock:
            return method(self, *args, **kwargs)

    locked._solvi_locked = True  # type: ignore[attr-defined]
    return locked


def _guarded(method: Callable, *, writing: bool, static: bool = False, lock: bool = False) -> Callable:
    import functools
    import types

    bad, known, length, named, compact = BadInput, SolviLabError, _journal_length, refusal, _compact
    about_an_argument, name_it = _about_an_argument, _name_the_argument

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = length(self)
        try:
            return method(self, *args, **kwargs)
        except known as e:
            compact(e, args, kwargs)
            name_it(e, self, method, args, kwargs)
            raise
        except Exception as e:
            # a constructor has no journal before it runs: what it made is dropped with the half-built object
            if (before is not None and length(self) != before) or not about_an_argument(e, args, kwargs):
                raise  # it wrote, or it is not about an argument (a caller's callback failing): not ours to hide
            raise bad(named(self, method, args, kwargs, e)) from None

    def call_read(self: Any, *args: Any, **kwargs: Any) -> Any:
        # a read call or a constructor: nothing to compare before and after, so the success path costs one frame
        try:
            return method(self, *args, **kwargs)
        except known as e:
            compact(e, args, kwargs)
            name_it(e, self, method, args, kwargs)
            raise
        except Exception as e:
            if not about_an_argument(e, args, kwargs):
                raise
            raise bad(named(self, method, args, kwargs, e)) from None

    def call_static(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except known as e:
            compact(e, args, kwargs)
            raise
        except Exception as e:
            if not about_an_argument(e, args, kwargs):
                raise
            raise bad(named(None, method, args, kwargs, e, static=True)) from None

    lock_of = write_lock

    def locked(self: Any, *args: Any, **kwargs: Any) -> Any:
        # The journal's lock for the whole call: threads sharing an owner (or owners sharing a journal) take turns,
        # so the checks, the records and the fold of one call stay together (issue 25).
        with lock_of(self):
            return call(self, *args, **kwargs)

    th, ident, other = THREADS, get_ident, other_thread

    def locked_read(self: Any, *args: Any, **kwargs: Any) -> Any:
        # A read holds the same lock as the writes: it may settle lazy state (issue 40), and it sees one state —
        # unless the main thread is the only one that has used an owner (lone_reads.py): then no other thread can
        # write under it, and it reads without the lock after announcing itself.
        if ident() == th.main and (not th.shared or th.reading):
            th.reading += 1
            try:
                if not th.shared or th.reading > 1:  # inside a lone read already: the other thread waits for it
                    return call_read(self, *args, **kwargs)
            finally:
                th.reading -= 1
        other()
        # The owner's own journal first (two attribute reads: a read is called often), else write_lock's search.
        try:
            lock = self.journal.lock or lock_of(self)
        except AttributeError:
            lock = lock_of(self)
        with lock:
            try:
                return method(self, *args, **kwargs)
            except known as e:
                compact(e, args, kwargs)
                name_it(e, self, method, args, kwargs)
                raise
            except Exception as e:
                if not about_an_argument(e, args, kwargs):
                    raise
                raise bad(named(self, method, args, kwargs, e)) from None

    code = call_static if static else locked if writing else locked_read if lock else call_read
    # Rebuilt in the method's own module so doctest still finds the method's examples.
    wrapped = types.FunctionType(code.__code__, method.__globals__, method.__name__, None, code.__closure__)
    wrapped = functools.wraps(method)(wrapped)
    wrapped._solvi_guarded = True
    return wrapped


# -- naming the argument a refusal is about --------------------------------------------------------------------

MAX_DEPTH = 500  # deeper than this, a value is refused as "too deep" when a call fails on it
_PLAIN = (str, int, float, bool, type(None), bytes)


def value_problem(value: Any, budget: int = 100_000) -> str | None:
    """What makes `value` unusable as an argument — a repr that fails, an int over 4,000 digits, a non-finite
    float, nesting deeper than MAX_DEPTH — or None. Iterative and bounded by `budget` values looked at.

    >>> value_problem(10**5000), value_problem([[1]]), value_problem(float("nan"))
    ('an int of about 5001 digits (at most 4,000)', None, 'a non-finite float (nan or inf)')
    """
    todo = [(value, 0)]
    while todo and budget > 0:
        budget -= 1
        v, depth = todo.pop()
        if depth > MAX_DEPTH:
            return f"a value nested more than {MAX_DEPTH} deep"
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, int):
            if v.bit_length() > 13000:
                return f"an int of about {int(v.bit_length() * 0.30103) + 1} digits (at most 4,000)"
        elif isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                return "a non-finite float (nan or inf)"
        elif isinstance(v, dict):
            todo.extend((x, depth + 1) for kv in v.items() for x in kv)
        elif isinstance(v, (list, tuple, set, frozenset)):
            todo.extend((x, depth + 1) for x in v)
        elif not isinstance(v, _PLAIN):
            try:
                repr(v)
            except Exception:
                return f"a {_type_name(v)} whose repr fails"
    return None


def _about_an_argument(e: BaseException, args: tuple, kwargs: Mapping[str, Any]) -> bool:
    """Whether a bare exception is about an argument: one of the bare types, a path the system refuses as a name
    (too long, invalid), or any exception when an argument's repr fails (a hostile value, not the call's bug)."""
    import errno

    if isinstance(e, _BARE):
        return True
    if isinstance(e, OSError) and e.errno in (errno.ENAMETOOLONG, errno.EINVAL):
        return True
    return _repr_fails(args, kwargs)


def _repr_fails(args: tuple, kwargs: Mapping[str, Any]) -> bool:
    for v in (*args, *kwargs.values()):
        try:
            repr(v)
        except Exception:  # a hostile __repr__ anywhere inside, or a value too deep to print
            return True
    return False


def accepts(annotation: Any) -> str:
    """A parameter's annotation said in words (what the refusal says the argument must be).

    >>> accepts(int), accepts("str | None"), accepts("Iterable[str]")
    ('an int', 'a string or None', 'a list of strings')
    """
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None) or str(annotation)
    text = text.replace("typing.", "").replace("collections.abc.", "")
    words = {
        "str": "a string",
        "int": "an int",
        "float": "a number",
        "bool": "True or False",
        "None": "None",
        "Any": "a JSON value",
        "Node": "a str, int, finite float or tuple of those",
        "State": "a state (a dict)",
        "Check": "a callable",
        "Journal": "a Journal",
        "Prediction": "a Prediction",
        "Vocabulary": "a Vocabulary",
    }
    parts = [p.strip() for p in _split_union(text)]
    out = []
    for p in parts:
        head, _, inner = p.partition("[")
        inner = inner[:-1] if inner.endswith("]") else inner
        if head in words:
            out.append(words[head])
        elif head in ("Iterable", "list", "Sequence", "tuple", "set", "frozenset"):
            item = accepts(inner.split(",")[0]) if inner else "values"
            out.append("a list of " + _plural(item))
        elif head in ("dict", "Mapping"):
            out.append("a dict")
        elif head == "Callable":
            out.append("a callable")
        elif head == "Literal":
            out.append("one of " + inner)
        elif head.endswith("PathLike"):
            out.append("a file path")
        else:
            out.append(f"a {head}" if head else "a value")
    seen: list[str] = []
    for o in out:
        if o not in seen:
            seen.append(o)
    return " or ".join(seen)


def _split_union(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _plural(phrase: str) -> str:
    for a in ("an ", "a "):
        if phrase.startswith(a):
            noun = phrase[len(a) :]
            return noun + ("s" if not noun.endswith("s") else "")
    return phrase


def refusal(
    owner: Any, method: Callable, args: tuple, kwargs: Mapping[str, Any], exc: BaseException, *, static: bool = False
) -> str:
    """The message of a call refused on a bare exception: the argument it is about and what that accepts, a short
    quote of the value (≤ 80 characters; its type when its repr fails) and the exception, short too."""
    import inspect

    where = f"{owner.__name__ if isinstance(owner, type) else type(owner).__name__}." if owner is not None else ""
    where += f"{method.__name__}()"
    if where.endswith("__init__()"):
        where = where[: -len(".__init__()")] + "()"
    try:
        detail = str(exc)[:80]
    except Exception:
        detail = ""
    why = f"({type(exc).__name__}: {detail})" if detail else f"({type(exc).__name__})"
    try:
        sig = inspect.signature(method)
        bound = sig.bind(*((args) if static else (None, *args)), **kwargs).arguments
        params = sig.parameters
    except (TypeError, ValueError):
        return f"{where}: its arguments do not fit its signature {why}; nothing was written. See its docstring."
    names = [n for n in bound if n not in ("self", "cls")] if not static else list(bound)
    chosen = None
    for n in names:
        problem = value_problem(bound[n])
        if problem is not None:
            chosen = (n, problem)
            break
    if chosen is None:
        for n in names:
            if not _fits(params[n].annotation, bound[n], method):
                chosen = (n, None)
                break
    if chosen is None:
        listed = ", ".join(f"{n} ({accepts(params[n].annotation)})" for n in names[:4]) or "none"
        return (
            f"{where}: one of its arguments has a value this call cannot use {why}; nothing was written. It takes: "
            f"{listed}."
        )
    n, problem = chosen
    p = params[n]
    got = f"{problem} ({safe_repr(bound[n])})" if problem else safe_repr(bound[n])
    if p.kind is inspect.Parameter.VAR_KEYWORD:
        return f"{where}: a keyword argument got {got} {why}; nothing was written."
    return f"{where}: {n} must be {accepts(p.annotation)}, got {got} {why}; nothing was written."


def _fits(annotation: Any, value: Any, method: Callable) -> bool:
    """Whether `value` plausibly fits a simple annotation (a type, or a union of str/int/float/bool/None/dict/list)."""
    import inspect

    if annotation is inspect.Parameter.empty:
        return True
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    simple = {"str": str, "int": int, "float": (int, float), "bool": bool, "None": type(None), "dict": dict}
    kinds: list[Any] = []
    for part in _split_union(text):
        head = part.strip().partition("[")[0]
        if head in simple:
            kinds.append(simple[head])
        elif head in ("Iterable", "list", "tuple", "Sequence", "set"):
            kinds.append((list, tuple, set, frozenset))
        elif head in ("Mapping",):
            kinds.append(dict)
        else:
            return True  # not a simple annotation: cannot say it does not fit
    flat = tuple(t for k in kinds for t in (k if isinstance(k, tuple) else (k,)))
    if isinstance(value, bool) and bool not in flat and int in flat:
        return False
    return isinstance(value, flat)


def _name_the_argument(e: BaseException, owner: Any, method: Callable, args: tuple, kwargs: Mapping[str, Any]) -> None:
    """A BadInput raised deep inside a call (the journal refusing a payload that is not JSON, say) names no
    argument; when one argument has a visible problem (too deep, a huge int, a repr that fails, not JSON), the
    message is prefixed with the call, that argument and what is wrong with it."""
    import inspect

    if not isinstance(e, BadInput) or not e.args or not isinstance(e.args[0], str):
        return
    try:
        bound = inspect.signature(method).bind(None, *args, **kwargs).arguments
    except (TypeError, ValueError):
        return
    names = [n for n in list(bound)[1:]]
    msg = e.args[0]
    if any(n in msg for n in names):
        return
    for n in names:
        problem = value_problem(bound[n])
        if problem is None:
            try:
                dumps_canonical(bound[n])
            except (TypeError, ValueError, RecursionError):
                problem = "not a JSON value"
        if problem is not None:
            cls = owner.__name__ if isinstance(owner, type) else type(owner).__name__
            e.args = (f"{cls}.{method.__name__}(): {n} is {problem} — {msg}", *e.args[1:])
            return


def _compact(e: BaseException, args: tuple, kwargs: Mapping[str, Any]) -> None:
    """Shorten a refusal's message in place: a long argument quoted whole becomes its 80-character prefix, and a
    message still over 1,000 characters keeps its start and its end (where it says what to do)."""
    try:
        msg = e.args[0] if e.args and isinstance(e.args[0], str) else None
    except Exception:  # pragma: no cover
        return
    if msg is None or len(msg) <= 120:
        return
    for v in (*args, *kwargs.values()):
        for text in _texts(v):
            at = msg.find(text[:81])
            while at >= 0:  # the quote, however much of the value it holds, becomes an 80-character prefix
                end = at + 81
                while end < len(msg) and end - at < len(text) and msg[end] == text[end - at]:
                    end += 1
                msg = msg[:at] + text[:77] + "..." + msg[end:]
                at = msg.find(text[:81])
    if len(msg) > 1000:
        msg = msg[:600] + " … " + msg[-300:]
    e.args = (msg, *e.args[1:])


def _texts(v: Any) -> list[str]:
    out = []
    for f in (repr, str):
        try:
            t = f(v)
        except Exception:
            continue
        if len(t) > 80:
            out.append(t)
    return out


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
