"""What a decision is given: a snapshot of the store, and the rollback rule it reads.

The specification: a decision is given "the active items that match (facts), the hints (hypotheses, expired or
stale items, with why), the ids they rest on, the store's fingerprint and its journal position".

- **What matches.** Without `about=`, the whole store. With `about=`, the facts whose subject `s` is that JSON
  value and the rules, skills and actions whose `body["name"]` is that value. A list or tuple is one subject —
  `about=["room", 3]` matches `{"s": ["room", 3], ...}` (and `("room", 3)`, the same JSON) — not a set of subjects:
  take one snapshot per subject. `scope=` keeps items whose scope holds every given pair; `r=` keeps facts with
  that relation (rules, skills and actions have none, so `r=` leaves them out). Episode items are records, never
  given to a decision.
- **Facts** are the usable fact items: active, not expired, not stale, valid at `valid_at`, and not resting on a
  rolled-back version.
- **Hints**, each with `why`: hypotheses of every kind (a rule, skill or action a write gate holds, with the
  holding gate's name and every verdict; a fact written as a hypothesis), disputed, expired and stale facts, facts
  not valid at `valid_at`, and items resting on a rolled-back version.
- **What it rests on.** `rests_on` holds the id of every fact and hint given, then every premise they were
  derived from — directly or through other premises, in journal order — so the trace shows what the answer was
  derived from, and `redecide` finds every decision a retraction touches from this list alone.
- **The rollback rule.** A rollback says an update was wrong: its previous version comes back (only as a hint
  while a flag covers it), and whatever was derived from the rolled-back version — directly or through other
  items — is a hint, not a fact, until a newer observation or a person confirms it (`ks.confirm`, or an equal
  observation). Like staleness, this is read from the store's state (the premise refuted by the rollback, the
  item's last confirmation), never stored in a status, so `rebuild(skip=)` and the replay give it exactly. A
  premise refuted by an observation is different: the world changed, and what was derived while it held stands.
"""

from __future__ import annotations

from typing import Any

from ..errors import BadInput
from .items import BEHAVIOUR_KINDS, LIVE, Item, item_id, value_key
from .view import item_status

ROLLBACK = "rollback"  # the refuted_by of a version a rollback took back


def rolled_back_premises(store: Any, it: Item, _memo: dict[str, list[str]] | None = None) -> list[str]:
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
        p = store._items.get(pid)
        if p is None:
            continue
        if p.state == "refuted" and p.refuted_by == ROLLBACK:
            rolled = [(p.id, p.invalidated_at)]
        else:
            rolled = [(r, store._items[r].invalidated_at) for r in rolled_back_premises(store, p, memo)]
        for rid, at in rolled:
            if at is not None and it.confirmed_pos < at and rid not in found:
                found.append(rid)
    memo[it.id] = found
    return found


def rests_on(store: Any, ids: list[str]) -> list[str]:
    """The ids a snapshot's entries rest on: the entries themselves (in their order), then every premise they
    were derived from, directly or through other premises, in journal order.

    >>> from solvi_lab import KnowledgeStore
    >>> ks = KnowledgeStore()
    >>> p = ks.add("fact", {"s": "c17", "r": "country", "o": "se"}, source="outcome")
    >>> d = ks.add("fact", {"s": "c18", "r": "vat", "o": "25%"}, source="spec", derived_from=[p])
    >>> ks.snapshot(about="c18")["rests_on"]
    ['k1', 'k0']
    """
    seen = set(ids)
    premises: list[Item] = []
    todo = [pid for i in ids for pid in store._items[i].derived_from]
    while todo:  # premise edges point back in the journal; `seen` makes it linear anyway
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        p = store._items.get(pid)
        if p is not None:
            premises.append(p)
            todo.extend(p.derived_from)
    return list(ids) + [p.id for p in sorted(premises, key=lambda p: p.pos)]


def _matches(it: Item, subject: str | None, scope: dict[str, Any] | None, r: str | None) -> bool:
    """Whether a candidate (a fact about the subject, or a rule, skill or action of that name) is given."""
    if it.state not in LIVE:
        return False
    if scope is not None and not (it.scope and all(it.scope.get(k) == v for k, v in scope.items())):
        return False
    if it.kind == "fact":
        return (subject is None or it.subject == subject) and (r is None or it.body.get("r") == r)
    # episodes are records, never given; rules, skills and actions have no relation, so r= leaves them out
    return it.kind in BEHAVIOUR_KINDS and r is None


def _candidates(store: Any, about: Any, subject: str | None) -> list[Item]:
    if about is ...:
        return list(store._items.values())
    facts = [store._items[i] for i in store._by_subject.get(subject, ())]
    named = _named(store, subject)
    return sorted(facts + named, key=lambda it: it.pos) if named else facts


def _named(store: Any, name: str) -> list[Item]:
    """Rules, skills and actions whose body["name"] has this value key: an index kept beside the store, extended
    by the journal positions folded since the last call (amortised O(1)), and rebuilt when the store re-folds."""
    idx = store.__dict__.get("_names_index")
    if idx is None or idx["items"] is not store._items or idx["upto"] > store.position:
        idx = store._names_index = {"items": store._items, "upto": 0, "by_name": {}}
    for pos in range(idx["upto"], store.position):
        it = store._items.get(item_id(pos))
        if it is not None and it.kind in BEHAVIOUR_KINDS and isinstance(it.body, dict) and "name" in it.body:
            idx["by_name"].setdefault(value_key(it.body["name"]), []).append(it.id)
    idx["upto"] = store.position
    return [store._items[i] for i in idx["by_name"].get(name, ())]


def _entry(it: Item) -> dict[str, Any]:
    if it.kind == "fact":
        b = it.body
        return {
            "id": it.id,
            "kind": "fact",
            "s": b["s"],
            "r": b["r"],
            "o": b["o"],
            "source": it.source,
            "scope": it.scope,
        }
    name = it.body.get("name") if isinstance(it.body, dict) else None
    return {"id": it.id, "kind": it.kind, "name": name, "body": it.body, "source": it.source, "scope": it.scope}


def _hint_why(store: Any, it: Item, stale: list[str], rolled: list[str], valid_at: Any) -> str | None:
    """Why an item is a hint, or None when it is a usable fact."""
    if rolled:
        how = "; ".join(f"{r} {store._items[r].why}" for r in rolled)
        return f"rests on a rolled-back version, not re-confirmed since: {how}"
    if stale:
        return f"stale: flag {', '.join(stale)} is pending and it was not re-confirmed since"
    if it.expired(store.ticks):
        return f"expired: not re-confirmed within {it.clock_rule} decisions"
    if it.state == "disputed":
        q = store._keys[it.key].open_q
        return f"disputed: {q['id'] if q else 'open'}"
    if it.state == "hypothesis":
        held = [v for v in it.verdicts if not v.get("admit")]
        if held:
            return f"hypothesis: held by gate {held[0].get('gate')}: {held[0].get('reason')}"
        return f"hypothesis: {it.why}"
    if it.kind != "fact":
        return None  # a rule, skill or action in force is used by its consumer, not given as a fact
    if valid_at is not None and not store._valid_at(it, valid_at):
        return f"not valid at {valid_at!r}"
    return None


def snapshot(
    store: Any, about: Any = ..., *, scope: dict[str, Any] | None = None, r: str | None = None, valid_at: Any = None
) -> dict[str, Any]:
    """The snapshot described in the module docstring (KnowledgeStore.snapshot calls this)."""
    if scope is not None and not isinstance(scope, dict):
        raise BadInput(f"scope must be a dict such as {{'map': 'A'}} or None, got {scope!r}.")
    if r is not None and not isinstance(r, str):
        raise BadInput(f"r must be a relation name (a string) or None, got {r!r}.")
    store._catch_up()  # records other writers (the decision log) appended: the position is the journal's now
    subject = None
    if about is not ...:
        try:
            subject = value_key(about)
        except (TypeError, ValueError):
            raise BadInput(f"about={about!r} is not JSON; a subject is a string, number, list or dict.") from None
    facts, hints = [], []
    memo: dict[str, list[str]] = {}
    for it in _candidates(store, about, subject):
        if not _matches(it, subject, scope, r):
            continue
        rolled = rolled_back_premises(store, it, memo) if it.derived_from else []
        why = _hint_why(store, it, store._stale_flags(it), rolled, valid_at)
        entry = _entry(it)
        if why is None:
            if it.kind == "fact":
                facts.append(entry)
            continue
        hint = {**entry, "status": item_status(it, store.ticks), "why": why}
        if it.kind != "fact" and it.verdicts:
            hint["verdicts"] = [dict(v) for v in it.verdicts]
        if rolled:
            hint["rolled_back"] = rolled
        hints.append(hint)
    query: dict[str, Any] = {"scope": scope, "r": r, "valid_at": valid_at}
    head: dict[str, Any] = {}
    if about is not ...:
        query = {"about": about, **query}
        head["about"] = about
    return {
        **head,
        "query": query,
        "facts": facts,
        "hints": hints,
        "rests_on": rests_on(store, [e["id"] for e in facts + hints]),
        "fingerprint": store.fingerprint(),
        "position": store.position,
    }
