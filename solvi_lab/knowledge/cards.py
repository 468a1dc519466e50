"""How the store and what it returns show themselves in Jupyter: small HTML cards and one-line texts.

`ItemRecord` (what `ks.item(id)` returns) and `Snapshot` (what `ks.snapshot()` returns) are plain dicts — equal to
the dicts they were, JSON as before — that also render as a card. `store_text` / `store_card` are the store's
`__repr__` / `_repr_html_`; they read only its public reads (`report()`, `disputes()`, `position`, the journal's
path) and the last `verify()` result it kept, so showing a store changes nothing in it.

>>> from solvi_lab.knowledge import KnowledgeStore
>>> ks = KnowledgeStore()
>>> k = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person")
>>> store_text(ks)
'<KnowledgeStore in memory · position 1 · 1 item: active 1 · 0 open disputes>'
>>> "c17 tier vip" in ks.snapshot()._repr_html_()
True
"""

from __future__ import annotations

from typing import Any

from ..display import MAX_LIST, card, counts_text, short


def _fact_text(body: Any) -> str:
    if isinstance(body, dict) and {"s", "r", "o"} <= set(body):
        return f"{short(body['s'], 30)} {short(body['r'], 30)} {short(body['o'], 30)}"
    return short(body)


class ItemRecord(dict):  # type: ignore[type-arg]
    """An item's full record (a dict: `ks.item(id)`), shown in Jupyter as a small card."""

    def _repr_html_(self) -> str:
        counts = self.get("counts") or {}
        rows: list[tuple[str, Any]] = [
            ("body", _fact_text(self.get("body"))),
            ("source", self.get("source") + (f" (by {short(self['who'], 40)})" if self.get("who") else "")),
            ("status", self.get("status")),
        ]
        if self.get("why"):
            rows.append(("why", self.get("why")))
        if self.get("scope"):
            rows.append(("scope", self.get("scope")))
        rows.append(
            (
                "counts",
                f"{counts.get('confirmations', 0)} confirmations, {counts.get('refutations', 0)} refutations, "
                f"{counts.get('uses', 0)} uses ({counts.get('wrong_uses', 0)} wrong)",
            )
        )
        rows.append(("learned at", f"position {self.get('learned_at')}"))
        if self.get("version") is not None:
            rows.append(("version", f"{self.get('version')}, supersedes {self.get('supersedes') or '—'}"))
        if self.get("derived_from"):
            rows.append(("derived from", ", ".join(self["derived_from"])))
        if self.get("retracted"):
            r = self["retracted"]
            rows.append(("retracted", f"at position {r.get('position')} by {short(r.get('by'), 30)}: {r.get('why')}"))
        return card(f"item {self.get('id')} · {self.get('kind')} · {self.get('status')}", rows)


class Snapshot(dict):  # type: ignore[type-arg]
    """What a decision is given (a dict: `ks.snapshot()`), shown in Jupyter as a small card."""

    def _repr_html_(self) -> str:
        facts, hints = self.get("facts", []), self.get("hints", [])
        title = f"snapshot at position {self.get('position')}"
        if "about" in self:
            title += f" about {short(self['about'], 40)}"
        rows = [
            ("facts", f"{len(facts):,} usable"),
            ("hints", f"{len(hints):,} ({counts_text(_count(h.get('status') for h in hints))})"),
            ("rests on", f"{len(self.get('rests_on', [])):,} items"),
            ("fingerprint", str(self.get("fingerprint", ""))[:16] + "…"),
        ]
        listed = [f"fact {f.get('id')}: {_fact_text(f)}" for f in facts[:MAX_LIST]]
        room = max(0, MAX_LIST - len(listed))
        listed += [
            f"hint {h.get('id')} ({h.get('kind')}, {h.get('status')}): {short(h.get('why'), 60)}" for h in hints[:room]
        ]
        return card(title, rows, listed=listed, more=len(facts) + len(hints) - len(listed))


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return out


def _where(store: Any) -> str:
    journal = getattr(store, "journal", None)
    path = getattr(journal, "path", None) if journal is not None else None
    where = str(path) if path is not None else "in memory"
    if getattr(store, "read_only", False):
        where += " (read-only view)"
    return where


def store_text(store: Any) -> str:
    """The store's `__repr__`: where it lives, its position, its items by status and its open disputes."""
    try:
        r = store.report()
    except Exception as err:  # a repr never raises: say what could not be read
        return f"<KnowledgeStore {_where(store)} · unreadable: {type(err).__name__}>"
    n = r["items"]
    return (
        f"<KnowledgeStore {_where(store)} · position {r['position']:,} · {n:,} item{'s' if n != 1 else ''}"
        f"{': ' + counts_text(r['by_status']) if n else ''} · {r['open_disputes']} open dispute"
        f"{'s' if r['open_disputes'] != 1 else ''}>"
    )


def store_card(store: Any) -> str:
    """The store's `_repr_html_`: path, position, items by status, kind and source, open disputes, fingerprint and
    the last verify() (on this object)."""
    try:
        r = store.report()
        disputes = store.disputes()
    except Exception as err:
        return card("KnowledgeStore", [("unreadable", f"{type(err).__name__}: {err}")])
    last = getattr(store, "last_verification", None)
    if last is None:
        verified = "not run on this object (ks.verify())"
    else:
        result, position = last
        verified = (
            f"ok at position {position:,} ({result.records:,} records)"
            if result.ok
            else f"FAILED at position {position:,}: {result.problem}"
        )
    rows: list[tuple[str, Any]] = [
        ("journal", _where(store)),
        ("position", f"{r['position']:,}"),
        ("items", f"{r['items']:,}: {counts_text(r['by_status'])}"),
        ("by kind", counts_text(r["by_kind"])),
        ("by source", counts_text(r["by_source"])),
        ("open disputes", f"{r['open_disputes']:,}"),
    ]
    if r.get("refused_writes"):
        rows.append(("refused writes", f"{r['refused_writes']:,} (in the journal, not in the store)"))
    rows += [("fingerprint", r["fingerprint"][:16] + "…"), ("last verify", verified)]
    listed = [
        f"dispute {d.get('question')}: {short(d.get('key'), 50)} — sides "
        + " | ".join(short(side.get("value"), 20) for side in d.get("sides", []))
        for d in disputes[:MAX_LIST]
    ]
    return card("KnowledgeStore", rows, listed=listed, more=max(0, len(disputes) - len(listed)))
