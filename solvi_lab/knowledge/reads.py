"""The store's reads that build records for a caller: ks.item, ks.query, ks.report, ks.disputes, ks.questions.

Functions over the fold (knowledge/fold.py) — never the store: the store's facade hands them its fold. Its one job:
answer from the fold state as it stands — item records with their retraction bookkeeping, the
matching items, the counts, the open disputes and questions, staleness and validity in time. It may not change
any state, write the journal or decide a status (statuses are the fold's; `view.item_status` reads expiry).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import BadInput, UnknownId
from ..validation import need_json, need_str, need_str_list
from . import digests
from .items import KINDS, LIVE, Item, value_key
from .staleness import fact_key
from .view import item_status

if TYPE_CHECKING:
    from .fold import Fold
    from .keys import _Key

ROLLBACK = "rollback"  # an item refuted by a rollback has refuted_by == "rollback"


def get(fold: Fold, iid: Any) -> Item:
    """The item `iid` names (refused ones too); BadInput for a non-string, UnknownId for an id no add() returned."""
    if not isinstance(iid, str):
        raise BadInput(f"an item id is a string like 'k3', got {iid!r}.")
    it = fold._items.get(iid)
    if it is None:
        raise UnknownId(f"no item {iid!r} in this store ({len(fold._items)} written); use an id add() returned.")
    return it


def status(fold: Fold, iid: str) -> str:
    """ks.status: the item's status now (expiry read from the clock)."""
    return item_status(get(fold, iid), fold.ticks)


def rolled_back_premises(fold: Fold, it: Item, _memo: dict[str, list[str]] | None = None) -> list[str]:
    """The rolled-back versions `it` rests on (directly or through its premises) and was not confirmed since.

    A premise confirmed after the rollback cuts the chain: what rests on it follows it, not the rolled-back
    version behind it.
    """
    memo = {} if _memo is None else _memo
    if it.id in memo:
        return memo[it.id]
    memo[it.id] = []  # premise edges point back in the journal, so there is no cycle; this guards anyway
    found: list[str] = []
    for pid in it.derived_from:
        p = fold._items.get(pid)
        if p is None:
            continue
        if p.state == "refuted" and p.refuted_by == ROLLBACK:
            rolled = [(p.id, p.invalidated_at)]
        else:
            rolled = [(r, fold._items[r].invalidated_at) for r in rolled_back_premises(fold, p, memo)]
        for rid, at in rolled:
            if at is not None and it.confirmed_pos < at and rid not in found:
                found.append(rid)
    memo[it.id] = found
    return found


def rolled_back_under(fold: Fold, iid: str) -> list[str]:
    """ks.rolled_back_under: the rolled-back versions this live item rests on and was not confirmed since."""
    it = get(fold, iid)
    return rolled_back_premises(fold, it) if it.derived_from and it.state in LIVE else []


def usable(fold: Fold, iid: str, at: Any = None) -> bool:
    """ks.usable: active, not expired, not stale, not resting on a rolled-back version, valid at `at` if given."""
    it = get(fold, iid)
    if it.state != "active" or it.expired(fold.ticks) or stale_flags(fold, it) or rolled_back_under(fold, iid):
        return False
    return at is None or valid_at(it, at)


def disputes(fold: Fold) -> list[dict[str, Any]]:
    """ks.disputes: the open disputes, one person question each, with the sides and their items."""
    out = []
    for ks in open_keys(fold):
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


def questions(fold: Fold) -> list[dict[str, Any]]:
    """ks.questions: every person question ever opened (one per dispute event), open or closed."""
    return sorted(
        (dict(q) for k in fold._question_keys for q in fold._keys[k].questions), key=lambda q: q["opened_at"]
    )


def stale_flags(fold: Fold, it: Item) -> list[str]:
    """The pending flags that make a live item stale (and those it was restored under, unless confirmed since)."""
    if it.state not in LIVE:
        return []
    out = [f.id for f in fold._flags.pending_covering(it.id, it.key, it.scope) if f.pos > it.confirmed_pos]
    ru = it.restored_under
    if ru and it.confirmed_pos < ru["position"]:
        out += [fid for fid in ru["flags"] if fold._flags.flags[fid].pending and fid not in out]
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


def item_record(fold: Fold, iid: str) -> dict[str, Any]:
    """The full record of an item (ks.item): its fields, counts, status, and retraction bookkeeping."""
    it = get(fold, iid)
    if it.state == "refused":
        raise UnknownId(
            f"{iid} was refused when written ({it.why}); the refusal is in the journal at "
            f"position {it.pos}, and the item is not in the fold."
        )
    retracted = None
    invalidated = it.invalidated_at
    if it.state == "retracted":
        root = it.id if it.id in fold._retracted else None
        if root is None:
            for pid in retracted_roots(fold, it):
                root = pid
                break
        info = fold._retracted.get(root, {})
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
        "status": item_status(it, fold.ticks),
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
        "stale": bool(stale_flags(fold, it)),
        "rolled_back_under": rolled_back_under(fold, iid),
        "promoted": it.promoted,
    }


def retracted_roots(fold: Fold, it: Item) -> Iterator[str]:
    """The retracted items a retracted item rests on, nearest first (what took it)."""
    seen, todo = set(), list(it.derived_from)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        if pid in fold._retracted:
            yield pid
        p = fold._items.get(pid)
        if p is not None:
            todo.extend(p.derived_from)


def query(
    fold: Fold,
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
        (fold._items.get(i) for i in fold._by_subject.get(value_key(s), ()))
        if s is not ...
        else fold._items.values()
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
        # item_status, not ks.status: a loop over the store pays no public call (net, lock) per item
        if statuses is not None and item_status(it, fold.ticks) not in statuses:
            continue
        out.append(item_record(fold, it.id))
    return out


def state(fold: Fold, fingerprint: str) -> dict[str, Any]:
    """ks.state: the fingerprint, the clock, the position folded, the retractions and the decisions, as plain data."""
    return {
        "fingerprint": fingerprint,
        "ticks": fold.ticks,
        "position": fold.position,
        "retracted": {k: dict(v) for k, v in fold._retracted.items()},
        "decisions": {k: list(v) for k, v in fold._decision_info.items()},
    }


def report(fold: Fold, fingerprint: str | None = None) -> dict[str, Any]:
    """ks.report: counts by status, kind and source; open disputes; flags; the clock; position and fingerprint."""

    by_status: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    by_source: dict[str, int] = {}
    refused = present = 0
    # one set of items for every count: each item written and admitted, retracted ones included (by_status says
    # how many are retracted; `present` how many are not); refused writes are counted apart
    for it in fold._items.values():
        if it.state == "refused":
            refused += 1
            continue
        st = item_status(it, fold.ticks)  # not fold.status: no public call (net, lock) per item
        by_status[st] = by_status.get(st, 0) + 1
        by_kind[it.kind] = by_kind.get(it.kind, 0) + 1
        by_source[it.source] = by_source.get(it.source, 0) + 1
        present += bool(it.present)
    return {
        "items": len(fold._items) - refused,
        "counted": "every item written and admitted, retracted ones included; refused writes apart",
        "present": present,
        "refused_writes": refused,
        "by_status": by_status,
        "by_kind": by_kind,
        "by_source": by_source,
        "open_disputes": len(fold._open_set),
        "questions": sum(len(fold._keys[k].questions) for k in fold._question_keys),
        "flags": [f.as_dict() for f in fold._flags.flags.values()],
        "clock": fold.ticks,
        "position": fold.position,
        "fingerprint": digests.fingerprint(fold) if fingerprint is None else fingerprint,
    }


def key_of(fold: Fold, key: Any) -> _Key:
    """The key a caller names: an open question's id ("q12"), a key text, or (scope, s, r) (ks._key_of)."""
    if isinstance(key, str) and key.startswith("q") and key[1:].isdigit():
        for ks in open_keys(fold):
            if ks.open_q and ks.open_q["id"] == key:
                return ks
        raise BadInput(f"question {key} is not open; ks.disputes() lists the open ones.")
    if isinstance(key, (tuple, list)) and len(key) == 3:
        key = fact_key(*key)
    if not isinstance(key, str) or key not in fold._keys:
        raise BadInput(f"{key!r} is not a key of this store; pass a key from ks.disputes() or (scope, s, r).")
    return fold._keys[key]


def open_keys(fold: Fold) -> list[_Key]:
    """The keys with an open dispute, in the order their questions opened."""
    return [fold._keys[k] for k in open_key_names(fold)]


def open_key_names(fold: Fold) -> list[str]:
    """The names of the keys with an open dispute, in the order their questions opened (ks._open)."""
    return sorted(fold._open_set, key=lambda k: fold._keys[k].open_q["opened_at"])
