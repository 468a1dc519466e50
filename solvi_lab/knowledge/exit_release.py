"""A fast interpreter exit after a large store: its memory left to the operating system, nothing else changed.

A store opened from a file is watched weakly (`track`, called by `KnowledgeStore.open` and `KnowledgeStore(path)`).
At interpreter exit (`release_at_exit`, an `atexit` hook registered once, at the first open of a file store), every
watched store still alive that holds at least `KnowledgeStore.EXIT_RELEASE_MIN_RECORDS` items has its bulk state —
the store's own built-in containers (items, keys, dependents, the flag index's dicts, ...) — given one extra
reference that is never dropped. The interpreter's teardown then does not free a million items one by one by
reference counting (measured before: ~0.2-0.4 s at 10^5 items, 1.3-1.7 s at 10^6); the operating system reclaims
the process's memory at once.

What reaches disk is unchanged, by construction: the hook writes nothing and closes nothing. The store object, its
journal, its gates and everything else the caller gave it are not kept: they are finalised at teardown exactly as
before (the journal's `__del__` writes its head checkpoint when it runs, a gate's buffered file is flushed by its
own finaliser), and every record was in the file already (an append returns only once its record reached the OS).
Only containers of the store's folded data are kept; they hold no object with a finaliser and no reference to the
journal (tests/knowledge/test_exit_release.py compares the files a child leaves with the hook on and off).

How the extra reference is taken, weighed: `Py_IncRef` through ctypes keeps exactly those containers. The
alternatives were worse: `gc.freeze()` at exit would keep every other reference cycle of the program from being
collected (and their `__del__` from running) at exit; a module-level list is cleared by the teardown itself;
`os._exit` would skip the other atexit hooks and the streams' flushes. Where ctypes cannot reach the C API (not
CPython) nothing is kept and the store is freed as before. An embedder that finalises and re-initialises the
interpreter in one process keeps that memory until the process ends.

What it never does: keep a store alive during the program (it is watched through a weak reference, so a store the
caller dropped is freed at once and is not seen at exit), or touch a store below the threshold.
`KnowledgeStore.EXIT_RELEASE_MIN_RECORDS = None` turns it off.
"""

from __future__ import annotations

import atexit
import weakref
from typing import Any

__all__ = ["release_at_exit", "retained_containers", "track"]

_watched: weakref.WeakSet[Any] = weakref.WeakSet()
_hooked = False
_CONTAINERS = (dict, list, set)
_CALLERS = frozenset({"gates", "journal", "decisions"})  # the caller's and the journal's: finalised as today
_retained = 0  # containers kept at exit (for tests and the benchmark's curiosity)


def track(st: Any) -> None:
    """Watch a store opened from a file (weakly), and register the exit hook once."""
    global _hooked
    if st.EXIT_RELEASE_MIN_RECORDS is None:
        return
    _watched.add(st)
    if not _hooked:
        atexit.register(release_at_exit)
        _hooked = True


def _bulk(st: Any) -> list[Any]:
    """The non-empty built-in containers of the store's fold, and those of the knowledge package's own objects it
    holds (the flag index): plain folded data, no caller objects."""
    out = []
    for name, v in vars(st._fold).items():
        if name in _CALLERS:
            continue
        if type(v) in _CONTAINERS:
            if v:
                out.append(v)
        elif type(v).__module__.startswith(__package__ + ".") and hasattr(v, "__dict__"):
            out.extend(x for x in vars(v).values() if type(x) in _CONTAINERS and x)
    return out


def _incref() -> Any:
    """ctypes' Py_IncRef (holding the GIL), or None where the interpreter has no C API to call."""
    try:
        import ctypes

        return ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", ctypes.pythonapi))
    except (ImportError, AttributeError, OSError):
        return None


def release_at_exit() -> int:
    """The atexit hook (see the module's docstring): keep the bulk state of every large watched store still alive;
    returns how many stores. Calling it twice keeps nothing twice (a released store is no longer watched)."""
    global _retained
    incref = None
    released = 0
    for st in list(_watched):
        limit = getattr(st, "EXIT_RELEASE_MIN_RECORDS", None)
        if limit is None or len(getattr(getattr(st, "_fold", None), "_items", ())) < limit:
            continue
        incref = incref or _incref()
        if incref is None:
            return released
        for c in _bulk(st):
            incref(c)  # never decref'd: freed by the OS with the process, not object by object
            _retained += 1
        _watched.discard(st)
        released += 1
    return released


def retained_containers() -> int:
    """How many containers `release_at_exit` has kept so far in this process."""
    return _retained
