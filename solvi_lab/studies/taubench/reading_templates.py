"""Templates that read an argument the way a tool reads it (issue 43), generic for every τ-bench domain.

The base vocabulary reads free text by its character classes and lists by their length, so an expression that
overflows or has a thousands separator looks like an accepted one, and ``""`` or a dict passed for a list is
unreadable. These families read what the tool reads. Nothing here names a tool or an argument.

shapes (a free-text argument the tool parses: a string with no entity, enum or field it names, whose schema
description gives an example or a format — :func:`parsed_by_tool`; "a thought to think about" is not parsed)
    ``<arg>:parse`` — only where the tool declares the function it parses the argument with (its class attribute
    ``parses``: argument → function, e.g. retail's ``evaluate_expression`` for ``calculate``): the text as *that
    function* reads it (:func:`parse_class`): ``"finite"``, ``"not finite"`` (inf or nan), or the name of the
    exception it raises (``"InvalidCharacters"`` — a thousands separator —, ``"SyntaxError"`` — an unbalanced
    bracket —, ``"ZeroDivisionError"``, ``"OverflowError"``, ``"TypeError"`` …). The environment's own code, not a
    copy of it: what the tool would do is what the condition says;
    ``<arg>:raises`` — with the same function: whether it raises (any exception);
    ``<arg>:symbols`` — only where no parser is declared: its separators, the distinct characters that are neither
    letters, digits nor spaces (a thousands separator, an underscore in a number, a slash in a date);
    ``<arg>:length`` — its length class (:func:`length_class`).
    A shape training never saw accepted is a violated value: "unknown" (or "refuse" through a signature), never
    "accept".
lists (a list argument)
    ``<arg>:iterates`` — what a ``for`` loop over the value walks: ``"list"``, ``"string"`` (its characters),
    ``"mapping"`` (its keys), ``"none"`` (not iterable);
    ``<arg>:iter_len`` — how many elements that walk yields, bucketed 0 / 1 / 2+ (unreadable when not iterable):
    ``""`` and ``[]`` both walk nothing, a tool that loops over them does nothing. With the family on, the
    domain's other list templates read a list argument through :func:`walk_as_tool` too (its elements as the
    tool's loop sees them; the JSON type apart, ``""`` reads as ``[]``).

>>> c = shape_conditions("e", parse=float)
>>> [(k, c[k](None, {"e": "1,000"})) for k in sorted(c)]
[('e:length', 'short'), ('e:parse', 'ValueError'), ('e:raises', True)]
>>> [parse_class(float, t) for t in ("1e400", "x", " 12.5")]
['not finite', 'ValueError', 'finite']
>>> d = list_conditions("ids")
>>> [(d["ids:iterates"](None, {"ids": v}), d["ids:iter_len"](None, {"ids": v})) for v in ("", [], {"a": 1}, ["x", "y"])]
[('string', 0), ('list', 0), ('mapping', 1), ('list', '2+')]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "walk_as_tool",
    "parsed_by_tool",
    "parser_of",
    "parse_class",
    "shape_conditions",
    "symbols",
    "raises",
    "list_conditions",
    "token_pattern",
    "length_class",
    "PATTERN_MAX",
]

Predicate = Callable[[Any, Mapping[str, Any]], Any]

#: A token pattern longer than this reads "long" (prose: one value, not one per sentence).
PATTERN_MAX = 24


def parser_of(tool: Any, arg: str) -> Callable[[str], Any] | None:
    """The function a tool class declares it parses ``arg`` with (its ``parses`` mapping), or None.

    >>> class T:
    ...     parses = {"e": float}
    >>> parser_of(T, "e") is float, parser_of(T, "x"), parser_of(object, "e")
    (True, None, None)
    """
    return (getattr(tool, "parses", None) or {}).get(arg)


def parse_class(parse: Callable[[str], Any], text: Any) -> str:
    """How the tool's own ``parse`` reads the text: ``"finite"`` / ``"not finite"`` for a number, ``"parsed"``
    for another value, else the name of the exception it raises; TypeError (unreadable) when not text."""
    if not isinstance(text, str):
        raise TypeError("not text")  # read as unreadable: the jtype condition says what it is
    try:
        value = parse(text)
    except Exception as e:  # what the tool reports as an error: its kind is the condition's value
        return type(e).__name__
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "finite" if math.isfinite(value) else "not finite"
    return "parsed"


def token_pattern(text: Any) -> str:
    """Runs of letters → ``a``, of digits → ``9``, of whitespace → one space; ``"long"`` past :data:`PATTERN_MAX`.

    >>> token_pattern("(12.5 + 3) * 4"), token_pattern("2024-05-15"), token_pattern("x" * 3 + " " * 30 + "1" * 30)
    ('(9.9 + 9) * 9', '9-9-9', 'a 9')
    """
    if not isinstance(text, str):
        raise TypeError("not text")
    out: list[str] = []
    for ch in text:
        token = "a" if ch.isalpha() else "9" if ch.isdigit() else " " if ch.isspace() else ch
        if not (out and token in "a9 " and out[-1] == token):
            out.append(token)
            if len(out) > PATTERN_MAX:
                return "long"
    return "".join(out)


def length_class(text: Any) -> str:
    """``"empty"``, ``"short"`` (≤ 16 characters), ``"medium"`` (≤ 64), ``"long"``."""
    if not isinstance(text, str):
        raise TypeError("not text")
    n = len(text)
    return "empty" if n == 0 else "short" if n <= 16 else "medium" if n <= 64 else "long"


_EXAMPLE = re.compile(r"such as|e\.g\.|for example|format", re.IGNORECASE)


def parsed_by_tool(schema: Mapping[str, Any]) -> bool:
    """Whether a string argument's schema says its value has a form (an example or a format to follow).

    >>> parsed_by_tool({"description": "The expression to calculate, such as '2 + 2'."})
    True
    >>> parsed_by_tool({"description": "A thought to think about."}), parsed_by_tool({})
    (False, False)
    """
    return bool(_EXAMPLE.search(str(schema.get("description") or "")))


def symbols(text: Any) -> tuple[str, ...]:
    """The distinct characters that are neither letters, digits nor spaces, sorted: the text's separators.

    >>> symbols("1,000 + 2.5"), symbols("2024-05-15"), symbols("1_000")
    (('+', ',', '.'), ('-',), ('_',))
    """
    if not isinstance(text, str):
        raise TypeError("not text")
    return tuple(sorted({ch for ch in text if not (ch.isalnum() or ch.isspace())}))


def raises(parse: Callable[[str], Any], text: Any) -> bool:
    """Whether the tool's own ``parse`` raises on the text (TypeError, unreadable, when it is not text).

    >>> raises(float, "1,5"), raises(float, "1e400"), raises(float, "2")
    (True, False, False)
    """
    return parse_class(parse, text) not in ("finite", "not finite", "parsed")


def shape_conditions(
    arg: str, parse: Callable[[str], Any] | None = None, pattern: bool = False
) -> dict[str, Predicate]:
    """The shapes family's conditions of one free-text argument (``parse``: the function the tool parses it with,
    :func:`parser_of`; ``pattern``: also its token pattern, a finer reading that abstains on every new arrangement
    of the same tokens).

    With a declared parser, what the tool reads of the text is what that parser makes of it: ``<arg>:parse`` (its
    class) and ``<arg>:raises`` (whether it raises at all: one refused call whose text the parser rejects forms a
    signature on both, which every other rejected text then matches, while a text that parses to a value never
    seen — ``"not finite"`` — stays "unknown"); the separators (``symbols``) are a proxy of the same reading and are
    left out, so an arrangement the parser reads as before is not a new shape (issue 43's diagnosis,
    ``results/benchmarks/issue43_reading_diagnosis.md``). Without one, ``symbols`` stands in for it."""
    out: dict[str, Predicate] = {f"{arg}:length": lambda s, a: length_class(a[arg])}
    if parse is not None:
        out[f"{arg}:parse"] = lambda s, a: parse_class(parse, a[arg])
        out[f"{arg}:raises"] = lambda s, a: raises(parse, a[arg])
    else:
        out[f"{arg}:symbols"] = lambda s, a: symbols(a[arg])
    if pattern:
        out[f"{arg}:pattern"] = lambda s, a: token_pattern(a[arg])
    return out


def walk_as_tool(value: Any) -> list[Any]:
    """What ``for x in value`` yields (a mapping: its keys); TypeError when nothing can be walked."""
    if isinstance(value, (str, list, tuple)):
        return list(value)
    if isinstance(value, Mapping):
        return list(value)
    raise TypeError("not iterable")


def _iterates(value: Any) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return "none"


def _bucket(n: int) -> Any:
    return n if n < 2 else "2+"


def list_conditions(arg: str) -> dict[str, Predicate]:
    """The lists family's conditions of one list argument."""
    return {
        f"{arg}:iterates": lambda s, a: _iterates(a[arg]),
        f"{arg}:iter_len": lambda s, a: _bucket(len(walk_as_tool(a[arg]))),
    }
