"""What a decision is given: a snapshot of the fold, and the rollback rule it reads.

The specification: a decision is given "the active items that match (facts), the hints (hypotheses, expired or
stale items, with why), the ids they rest on, the store's fingerprint and its journal position".

- **What matches.** Without `about=`, the whole fold. With `about=`, the facts whose subject `s` is that JSON
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

from typing import TYPE_CHECKING, Any

from ..errors import BadInput
from . import digests
from .items import BEHAVIOUR_KINDS, LIVE, Item, item_id, value_key
from .reads import ROLLBACK, rolled_back_premises, stale_flags, valid_at
from .view import item_status

if TYPE_CHECKING:
    from .fold import Fold

__all__ = ["ROLLBACK", "rests_on", "rolled_back_premises", "snapshot"]


def rests_on(fold: Fold, ids: list[str]) -> list[str]:
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
    todo = [pid for i in ids for pid in fold._items[i].derived_from]
    while todo:  # premise edges point back in the journal; `seen` makes it linear anyway
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        p = fold._items.get(pid)
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


def _candidates(fold: Fold, about: Any, subject: str | None, names: dict[str, Any]) -> list[Item]:
    if about is ...:
        return list(fold._items.values())
    facts = [fold._items[i] for i in fold._by_subject.get(subject, ())]
    named = _named(fold, subject, names)
    return sorted(facts + named, key=lambda it: it.pos) if named else facts


def _named(fold: Fold, name: str, idx: dict[str, Any]) -> list[Item]:
    """Rules, skills and actions whose body["name"] has this value key: an index kept beside the fold, extended
    by the journal positions folded since the last call (amortised O(1)), and rebuilt when the store re-folds."""
    if idx.get("items") is not fold._items or idx["upto"] > fold.position:
        idx.clear()
        idx.update(items=fold._items, upto=0, by_name={})
        seed = getattr(fold._items, "names", None)  # a snapshot's open: its rows' names (snapshot_rows._load_rows)
        if seed is not None and seed[0] <= fold.position:
            idx.update(upto=seed[0], by_name={k: list(v) for k, v in seed[1].items()})
    for pos in range(idx["upto"], fold.position):
        it = fold._items.get(item_id(pos))
        if it is not None and it.kind in BEHAVIOUR_KINDS and isinstance(it.body, dict) and "name" in it.body:
            idx["by_name"].setdefault(value_key(it.body["name"]), []).append(it.id)
    idx["upto"] = fold.position
    return [fold._items[i] for i in idx["by_name"].get(name, ())]


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


def _hint_why(fold: Fold, it: Item, stale: list[str], rolled: list[str], at: Any) -> str | None:
    """Why an item is a hint, or None when it is a usable fact."""
    if rolled:
        how = "; ".join(f"{r} {fold._items[r].why}" for r in rolled)
        return f"rests on a rolled-back version, not re-confirmed since: {how}"
    if stale:
        return f"stale: flag {', '.join(stale)} is pending and it was not re-confirmed since"
    if it.expired(fold.ticks):
        return f"expired: not re-confirmed within {it.clock_rule} decisions"
    if it.state == "disputed":
        q = fold._keys[it.key].open_q
        return f"disputed: {q['id'] if q else 'open'}"
    if it.state == "hypothesis":
        held = [v for v in it.verdicts if not v.get("admit")]
        if held:
            return f"hypothesis: held by gate {held[0].get('gate')}: {held[0].get('reason')}"
        return f"hypothesis: {it.why}"
    if it.kind != "fact":
        return None  # a rule, skill or action in force is used by its consumer, not given as a fact
    if at is not None and not valid_at(it, at):
        return f"not valid at {at!r}"
    return None


def snapshot(
    fold: Fold,
    about: Any = ...,
    *,
    scope: dict[str, Any] | None = None,
    r: str | None = None,
    valid_at: Any = None,
    names: dict[str, Any] | None = None,
    fingerprint: str | None = None,
) -> dict[str, Any]:
    """The snapshot described in the module docstring, of `fold` as it stands (KnowledgeStore.snapshot calls this
    after folding what other writers appended). `names`: the store's name index (see `_named`); `fingerprint`: the store's, when it has it."""
    if scope is not None and not isinstance(scope, dict):
        raise BadInput(f"scope must be a dict such as {{'map': 'A'}} or None, got {scope!r}.")
    if r is not None and not isinstance(r, str):
        raise BadInput(f"r must be a relation name (a string) or None, got {r!r}.")
    subject = None
    if about is not ...:
        try:
            subject = value_key(about)
        except (TypeError, ValueError):
            raise BadInput(f"about={about!r} is not JSON; a subject is a string, number, list or dict.") from None
    facts, hints = [], []
    memo: dict[str, list[str]] = {}
    for it in _candidates(fold, about, subject, {} if names is None else names):
        if not _matches(it, subject, scope, r):
            continue
        rolled = rolled_back_premises(fold, it, memo) if it.derived_from else []
        why = _hint_why(fold, it, stale_flags(fold, it), rolled, valid_at)
        entry = _entry(it)
        if why is None:
            if it.kind == "fact":
                facts.append(entry)
            continue
        hint = {**entry, "status": item_status(it, fold.ticks), "why": why}
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
        "rests_on": rests_on(fold, [e["id"] for e in facts + hints]),
        "fingerprint": digests.fingerprint(fold) if fingerprint is None else fingerprint,
        "position": fold.position,
    }
