"""The store's reads that build records for a caller: ks.item, ks.query, ks.report, ks.disputes, ks.questions.

Its one job: answer from the fold state as it stands — item records with their retraction bookkeeping, the
matching items, the counts, the open disputes and questions, staleness and validity in time. It may not change
any state, write the journal or decide a status (statuses are the fold's; `view.item_status` reads expiry).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import BadInput, UnknownId
from ..validation import need_json, need_str, need_str_list
from .items import KINDS, LIVE, Item, value_key
from .staleness import fact_key
from .view import item_status

if TYPE_CHECKING:
    from .keys import _Key
    from .store import KnowledgeStore


def disputes(store: KnowledgeStore) -> list[dict[str, Any]]:
    """ks.disputes: the open disputes, one person question each, with the sides and their items."""
    out = []
    for ks in store._open_keys():
        sides: dict[str, dict[str, Any]] = {}
        for c in ks.live.values():
            if c.state == "disputed":
                sides.setdefault(c.value, {"value": c.body["o"], "items": []})["items"].append(c.id)
        out.append(
            {
                "question": ks.open_q["id"],
                "key": ks.key,
                "opened_at": ks.open_q["opened_at"],
                "sides": list(sides.values()),
            }
        )
    return out


def questions(store: KnowledgeStore) -> list[dict[str, Any]]:
    """ks.questions: every person question ever opened (one per dispute event), open or closed."""
    return sorted(
        (dict(q) for k in store._question_keys for q in store._keys[k].questions), key=lambda q: q["opened_at"]
    )


def stale_flags(store: KnowledgeStore, it: Item) -> list[str]:
    """The pending flags that make a live item stale (and those it was restored under, unless confirmed since)."""
    if it.state not in LIVE:
        return []
    out = [f.id for f in store._flags.pending_covering(it.id, it.key, it.scope) if f.pos > it.confirmed_pos]
    ru = it.restored_under
    if ru and it.confirmed_pos < ru["position"]:
        out += [fid for fid in ru["flags"] if store._flags.flags[fid].pending and fid not in out]
    return out


def valid_at(it: Item, t: Any) -> bool:
    """Whether the item is valid in the world at time t (its valid= interval; no interval: always)."""
    if not it.valid:
        return True
    since, until = it.valid
    try:
        return (since is None or since <= t) and (until is None or t < until)
    except TypeError:
        raise BadInput(
            f"valid_at={t!r} cannot be compared with {it.id}'s validity {it.valid!r}; use the same "
            "type (numbers or ISO date strings)."
        ) from None


def item_record(store: KnowledgeStore, iid: str) -> dict[str, Any]:
    """The full record of an item (ks.item): its fields, counts, status, and retraction bookkeeping."""
    it = store._get(iid)
    if it.state == "refused":
        raise UnknownId(
            f"{iid} was refused when written ({it.why}); the refusal is in the journal at "
            f"position {it.pos}, and the item is not in the store."
        )
    retracted = None
    invalidated = it.invalidated_at
    if it.state == "retracted":
        root = it.id if it.id in store._retracted else None
        if root is None:
            for pid in retracted_roots(store, it):
                root = pid
                break
        info = store._retracted.get(root, {})
        retracted = {"root": root, "position": info.get("position"), "by": info.get("by"), "why": info.get("why")}
        invalidated = info.get("position")
    valid = it.valid or [None, None]
    return {
        "id": it.id,
        "kind": it.kind,
        "body": it.body,
        "scope": it.scope,
        "source": it.source,
        "who": it.by,
        "evidence": it.evidence,
        "derived_from": list(it.derived_from),
        "of": it.of,
        "counts": {
            "confirmations": it.confirmations,
            "refutations": it.refutations,
            "uses": it.uses if it.present else 0,
            "wrong_uses": it.wrong_uses if it.present else 0,
            "guarantee": it.guarantee,
        },
        "status": item_status(it, store.ticks),
        "why": it.why,
        "refuted_by": it.refuted_by,
        "version": it.version,
        "supersedes": it.supersedes,
        "valid": {"since": valid[0], "until": valid[1]},
        "learned_at": it.pos,
        "invalidated_at": invalidated,
        "confirmed_at": it.confirmed_pos,
        "clock": {"learned": it.clock, "confirmed": it.confirmed_clock, "reconfirm_after": it.clock_rule},
        "retracted": retracted,
        "stale": bool(stale_flags(store, it)),
        "rolled_back_under": store.rolled_back_under(iid),
        "promoted": it.promoted,
    }


def retracted_roots(store: KnowledgeStore, it: Item) -> Iterator[str]:
    """The retracted items a retracted item rests on, nearest first (what took it)."""
    seen, todo = set(), list(it.derived_from)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        if pid in store._retracted:
            yield pid
        p = store._items.get(pid)
        if p is not None:
            todo.extend(p.derived_from)


def query(
    store: KnowledgeStore,
    kind: str | None,
    s: Any,
    r: str | None,
    o: Any,
    scope: dict[str, Any] | None,
    status: str | Iterable[str] | None,
) -> list[dict[str, Any]]:
    """ks.query: the items matching every given field (`...` for s and o: not given)."""

    if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
        raise BadInput(f"kind {kind!r} is not one of {KINDS}.")
    for what, v in (("s", s), ("o", o)):
        if v is not ...:
            need_json(what, v)
    need_str("r", r, none=True)
    if scope is not None and not isinstance(scope, dict):
        raise BadInput(f"scope must be a dict or None, got {scope!r}.")
    need_json("scope", scope)
    if status is not None and not isinstance(status, str):
        need_str_list("status", status)
    statuses = {status} if isinstance(status, str) else (set(status) if status is not None else None)
    cands = (
        (store._items.get(i) for i in store._by_subject.get(value_key(s), ()))
        if s is not ...
        else store._items.values()
    )
    out = []
    oc = value_key(o) if o is not ... else None
    for it in cands:
        if it is None or not (it.present or it.state == "retracted"):
            continue
        if kind is not None and it.kind != kind:
            continue
        if r is not None and not (isinstance(it.body, dict) and it.body.get("r") == r):
            continue
        if oc is not None and it.value != oc:
            continue
        if scope is not None and not (it.scope and all(it.scope.get(k) == v for k, v in scope.items())):
            continue
        # item_status, not store.status: a loop over the store pays no public call (net, lock) per item
        if statuses is not None and item_status(it, store.ticks) not in statuses:
            continue
        out.append(item_record(store, it.id))
    return out


def report(store: KnowledgeStore) -> dict[str, Any]:
    """ks.report: counts by status, kind and source; open disputes; flags; the clock; position and fingerprint."""

    by_status: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    by_source: dict[str, int] = {}
    refused = present = 0
    # one set of items for every count: each item written and admitted, retracted ones included (by_status says
    # how many are retracted; `present` how many are not); refused writes are counted apart
    for it in store._items.values():
        if it.state == "refused":
            refused += 1
            continue
        st = item_status(it, store.ticks)  # not store.status: no public call (net, lock) per item
        by_status[st] = by_status.get(st, 0) + 1
        by_kind[it.kind] = by_kind.get(it.kind, 0) + 1
        by_source[it.source] = by_source.get(it.source, 0) + 1
        present += bool(it.present)
    return {
        "items": len(store._items) - refused,
        "counted": "every item written and admitted, retracted ones included; refused writes apart",
        "present": present,
        "refused_writes": refused,
        "by_status": by_status,
        "by_kind": by_kind,
        "by_source": by_source,
        "open_disputes": len(store._open),
        "questions": sum(len(store._keys[k].questions) for k in store._question_keys),
        "flags": [f.as_dict() for f in store._flags.flags.values()],
        "clock": store.ticks,
        "position": store.position,
        "fingerprint": store.fingerprint(),
    }


def key_of(self: KnowledgeStore, key: Any) -> _Key:
    """The key a caller names: an open question's id ("q12"), a key text, or (scope, s, r) (ks._key_of)."""
    if isinstance(key, str) and key.startswith("q") and key[1:].isdigit():
        for ks in self._open_keys():
            if ks.open_q and ks.open_q["id"] == key:
                return ks
        raise BadInput(f"question {key} is not open; ks.disputes() lists the open ones.")
    if isinstance(key, (tuple, list)) and len(key) == 3:
        key = fact_key(*key)
    if not isinstance(key, str) or key not in self._keys:
        raise BadInput(f"{key!r} is not a key of this store; pass a key from ks.disputes() or (scope, s, r).")
    return self._keys[key]


def open_keys(self: KnowledgeStore) -> list[_Key]:
    """The keys with an open dispute, in the order their questions opened."""
    return [self._keys[k] for k in self._open]


def open_key_names(self: KnowledgeStore) -> list[str]:
    """The names of the keys with an open dispute, in the order their questions opened (ks._open)."""
    return sorted(self._open_set, key=lambda k: self._keys[k].open_q["opened_at"])
