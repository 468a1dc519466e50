"""Adapters that apply the synthetic operation stream to a peer implementation (the PyPI package `solvi`).

The peer is measured, never copied: only its public API (the specification's call shapes) is used here.
"""

from __future__ import annotations

from typing import Any


def solvi_available() -> bool:
    try:
        import solvi.core.knowledge  # noqa: F401
    except ImportError:
        return False
    return True


def solvi_store(path: str | None) -> Any:
    from solvi.core.knowledge import KnowledgeStore

    return KnowledgeStore(path)


def apply_stream_solvi(ks: Any, ops: Any, progress: Any = None) -> list[str | None]:
    """The same operations through solvi's API. Hypotheses are written as plain facts (solvi has no
    hypothesis flag on add), so promotions are no-ops there; the benchmark stream has no "verified" source."""
    ids: list[str | None] = []
    values: list[Any] = []
    flags: list[Any] = []
    for op in ops:
        kind = op[0]
        if kind == "add":
            _, s, r, o, source, scope, premises, _hyp = op
            derived = [ids[j] for j in premises if ids[j] is not None]
            values.append(o)
            try:
                ids.append(
                    ks.add("fact", {"s": s, "r": r, "o": o}, scope=scope, source=source, derived_from=tuple(derived))
                )
            except Exception:  # a refusal: the peer raises its own error types
                ids.append(None)
            if progress is not None:
                progress.update(1)
        elif kind == "resolve":
            iid = ids[op[1]]
            if iid is None:
                continue
            for d in ks.disputes():
                if iid in d.get("items", ()):
                    try:
                        ks.resolve(d["key"], values[op[1]], by="synthetic-person")
                    except Exception:
                        pass
                    break
        elif kind == "tick":
            ks.tick(op[1])
        elif kind == "flag":
            flags.append(ks.flag(scope=op[1], why="synthetic drift"))
        elif kind == "end_flag":
            try:
                ks.end_flag(flags[op[1]], by="synthetic-person", why="re-confirmed")
            except Exception:
                pass
    return ids


def apply_hot_stream_solvi(ks: Any, ops: Any, progress: Any = None) -> tuple[list[str | None], list[str]]:
    """The hot-key stream (benchmarks/hot_keys.py) through solvi's API; returns (ids, the key of each add).
    Hypotheses are plain facts there (so promotions are no-ops); a refused write or operation is skipped."""
    import json

    ids: list[str | None] = []
    keys: list[str] = []
    values: list[Any] = []
    flags: list[Any] = []
    for op in ops:
        kind = op[0]
        if kind == "add":
            _, s, r, o, source, scope, premises, _hyp, sup = op
            derived = [ids[j] for j in premises if ids[j] is not None]
            values.append(o)
            keys.append(json.dumps([scope, s, r], sort_keys=True))
            try:
                ids.append(
                    ks.add(
                        "fact",
                        {"s": s, "r": r, "o": o},
                        scope=scope,
                        source=source,
                        derived_from=tuple(derived),
                        supersedes=ids[sup] if sup is not None else None,
                    )
                )
            except Exception:  # a refusal: the peer raises its own error types
                ids.append(None)
            if progress is not None:
                progress.update(1)
            continue
        iid = ids[op[1]] if kind in ("resolve", "rollback", "use", "flag_key") else None
        try:
            if kind == "resolve" and iid is not None:
                for d in ks.disputes():
                    if iid in d.get("items", ()):
                        ks.resolve(d["key"], values[op[1]], by="synthetic-person")
                        break
            elif kind == "rollback" and iid is not None:
                ks.rollback(iid, by="synthetic-person", why="bad update")
            elif kind == "use" and iid is not None:
                ks.used([iid], wrong=op[1] % 3 == 0)
            elif kind == "tick":
                ks.tick(op[1])
            elif kind == "flag":
                flags.append(ks.flag(scope=op[1], why="synthetic drift"))
            elif kind == "flag_key":
                scope, s, r = json.loads(keys[op[1]])
                flags.append(ks.flag(key=[scope, s, r], why="synthetic drift on one key"))
            elif kind == "end_flag" and op[1] < len(flags):
                ks.end_flag(flags[op[1]], by="synthetic-person", why="re-confirmed")
        except Exception:  # noqa: BLE001 - the peer refusing an operation is skipped, as in the default stream
            continue
    return ids, keys
