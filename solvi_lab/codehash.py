"""One rule for fingerprinting code: what a check or predicate computes, as a SHA-256 hex digest.

The rule (used by the action model's vocabulary and by the agenda's goals and gates):

- a Python function contributes its bytecode, its names (``co_names``), its constants (nested code objects —
  lambdas, comprehensions, inner functions — recursively), its defaults and keyword defaults, and the values in
  its closure cells;
- helper functions it reaches are hashed too: through closure cells, and through module globals it names
  (``co_names`` looked up in ``__globals__``), so editing a helper changes the fingerprint of every caller;
- helpers are followed up to ``MAX_DEPTH`` calls deep (deeper chains hash as ``<deep>``) and each function is
  hashed once per fingerprint (a cycle hashes as ``<seen>``);
- ``functools.partial`` hashes its function, args and keywords; a bound method its function and the repr of its
  owner's type; a builtin its qualified name; any other callable object its class's own ``__call__`` and its
  attributes;
- plain values hash through a repr that depends neither on hash randomisation nor on memory addresses;
- the digest is the full SHA-256 hex digest (64 hex digits).

>>> code_fingerprint(lambda s: s["x"] > 1) == code_fingerprint(lambda s: s["x"] > 1)
True
>>> code_fingerprint(lambda s: s["x"] > 1) == code_fingerprint(lambda s: s["x"] > 2)
False
>>> len(code_fingerprint(len))
64
"""

from __future__ import annotations

import functools
import hashlib
import types
from typing import Any

__all__ = ["MAX_DEPTH", "code_fingerprint", "digest_callable", "stable_repr"]

MAX_DEPTH = 16  # helper chains deeper than this are not followed: the callers' code already tells versions apart


def stable_repr(obj: Any) -> str:
    """repr that does not depend on hash randomisation or memory addresses.

    >>> stable_repr(frozenset({"b", "a"}))
    "{'a','b'}"
    """
    if isinstance(obj, (frozenset, set)):
        return "{" + ",".join(sorted(stable_repr(o) for o in obj)) + "}"
    if isinstance(obj, (tuple, list)):
        return "(" + ",".join(stable_repr(o) for o in obj) + ")"
    if isinstance(obj, dict):
        items = sorted(obj.items(), key=lambda kv: repr(kv[0]))
        return "{" + ",".join(f"{stable_repr(k)}:{stable_repr(v)}" for k, v in items) + "}"
    if obj is None or isinstance(obj, (bool, int, float, str, bytes, complex)) or obj is Ellipsis:
        return repr(obj)
    if isinstance(obj, types.CodeType):
        return f"<code {obj.co_name}>"
    return f"<{type(obj).__module__}.{type(obj).__qualname__}>"


def _digest_code(code: types.CodeType, h: Any) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):  # nested lambdas, comprehensions, inner functions
            _digest_code(const, h)
        else:
            h.update(stable_repr(const).encode())


def _digest_value(obj: Any, h: Any, seen: set[int], depth: int) -> None:
    if isinstance(obj, (types.FunctionType, functools.partial, types.MethodType)):
        digest_callable(obj, h, seen, depth)
    elif isinstance(obj, (tuple, list)):
        h.update(b"(")
        for o in obj:
            _digest_value(o, h, seen, depth)
        h.update(b")")
    elif isinstance(obj, dict):
        h.update(b"{")
        for k, v in sorted(obj.items(), key=lambda kv: repr(kv[0])):
            h.update(stable_repr(k).encode())
            _digest_value(v, h, seen, depth)
        h.update(b"}")
    else:
        h.update(stable_repr(obj).encode())


def digest_callable(fn: Any, h: Any, seen: set[int] | None = None, depth: int = 0) -> None:
    """Feed what ``fn`` computes into the hash object ``h`` (see the module's rule)."""
    seen = set() if seen is None else seen
    if depth > MAX_DEPTH:
        h.update(b"<deep>")
        return
    if id(fn) in seen:  # recursion through closures or globals
        h.update(b"<seen>")
        return
    seen.add(id(fn))
    if isinstance(fn, functools.partial):
        h.update(b"partial")
        digest_callable(fn.func, h, seen, depth + 1)
        _digest_value(list(fn.args), h, seen, depth + 1)
        _digest_value(dict(fn.keywords), h, seen, depth + 1)
    elif isinstance(fn, types.MethodType):
        h.update(b"method")
        digest_callable(fn.__func__, h, seen, depth + 1)
        h.update(stable_repr(fn.__self__).encode())
    elif isinstance(fn, types.FunctionType):
        _digest_code(fn.__code__, h)
        _digest_value(fn.__defaults__ or (), h, seen, depth + 1)
        _digest_value(fn.__kwdefaults__ or {}, h, seen, depth + 1)
        for cell in fn.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell
                h.update(b"<empty>")
                continue
            _digest_value(contents, h, seen, depth + 1)
        # module-level helpers a function calls by name change what it computes: hash their code too
        for name in fn.__code__.co_names:
            target = fn.__globals__.get(name)
            if isinstance(target, types.FunctionType):
                digest_callable(target, h, seen, depth + 1)
    elif isinstance(fn, types.BuiltinFunctionType):
        h.update(f"builtin {fn.__module__}.{fn.__qualname__}".encode())
    else:  # a callable object (or a class): its class's own __call__ and its attributes
        h.update(f"object {type(fn).__module__}.{type(fn).__qualname__}".encode())
        if isinstance(fn, type):
            h.update(f"class {fn.__module__}.{fn.__qualname__}".encode())
            return
        call = type(fn).__dict__.get("__call__")  # the class body only: inherited object.__call__ is not code
        if isinstance(call, types.FunctionType):
            digest_callable(call, h, seen, depth + 1)
        _digest_value(dict(getattr(fn, "__dict__", {})), h, seen, depth + 1)


def code_fingerprint(fn: Any) -> str:
    """The SHA-256 hex digest (64 digits) of what ``fn`` computes, by the module's rule."""
    h = hashlib.sha256()
    digest_callable(fn, h, set())
    return h.hexdigest()
