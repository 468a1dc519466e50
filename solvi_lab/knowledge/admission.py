"""The path of one add before it is written: check the call once, encode it once, decide its key and its checks.

Its one job: turn the arguments of `ks.add(...)` into the journal record to append — its canonical text and the
value JSON gives back for it — with every check done first, so a refused call writes nothing. The values a caller
gives (body, by, scope, evidence, valid) are encoded to canonical JSON and decoded exactly once
(`validation.need_json_canonical`); the competition key, the premise check, the gates (their candidate and their
shadow) and the record reuse those texts and values, and the journal appends the text as it is
(`Journal.append_encoded`). Functions over the fold (knowledge/fold.py), read only — never the store: the store's
facade hands them its fold, its gates and what a gate is given. It may not fold (the fold decides the status again from the record), write the
journal, or keep state of its own.

>>> from solvi_lab.knowledge.fold import Fold
>>> fold = Fold()
>>> text, value = add_record(fold, "fact", {"s": "c1", "r": "tier", "o": ("vip",)}, source="person")
>>> text
'{"body":{"o":["vip"],"r":"tier","s":"c1"},"key":"[null,\\\\"c1\\\\",\\\\"tier\\\\"]","kind":"fact","op":"add","source":"person"}'
>>> from solvi_lab.journal import canonical
>>> canonical(value) == text and fold.position == 0
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import BadInput, UnknownId
from ..jsontext import dumps_canonical, encode_str
from ..validation import need_bool, need_json_canonical, need_str, need_str_list, safe_repr
from .gates import Candidate, Verdict, source_check
from .items import value_key
from .shadow import _Shadow
from .staleness import fact_key

if TYPE_CHECKING:
    from .fold import Fold

DEFAULT = "default"  # reconfirm_after not given: the kind's default applies (nothing is written)


def add_record(
    fold: Fold,
    kind: str,
    body: Any,
    *,
    source: str,
    by: Any = None,
    scope: dict[str, Any] | None = None,
    derived_from: Iterable[str] = (),
    evidence: Any = None,
    supersedes: str | None = None,
    valid: tuple[Any, Any] | None = None,
    of: str | None = None,
    reconfirm_after: Any = DEFAULT,
    hypothesis: bool = False,
    position: int | None = None,
    gates: Sequence[Any] = (),
    gate_store: Any = None,
    shell: Callable[[Fold], Any] | None = None,
) -> tuple[str, dict[str, Any]]:
    """The add record for these arguments as (canonical text, value), after every check (BadInput, UnknownId)
    and the gates' verdicts; the store appends it and folds it. See KnowledgeStore.add for the arguments.

    `position`: the journal position the record will take (the fold's by default); `gates`: the user's gates, each
    called as `gate.admit(gate_store, candidate, shadow)`, where the shadow's `store()` is `shell(fold')` of the
    fold as it would be with the candidate (knowledge/shadow.py). The store has folded what others appended."""
    if isinstance(derived_from, str):
        derived_from = [derived_from]
    derived_from = list(derived_from or ())
    if not all(isinstance(d, str) for d in derived_from):
        raise BadInput(f"derived_from must be item ids (strings like 'k3'), got {safe_repr(derived_from)}.")
    if scope is not None and not isinstance(scope, dict):
        raise BadInput(f"scope must be a dict such as {{'map': 'A'}} or None, got {scope!r}.")
    # Everything is checked before anything is written: a refused call leaves the journal as it was.
    need_str("kind", kind, empty=False)
    need_str("source", source)
    need_str_list("derived_from", derived_from)
    need_str("supersedes", supersedes, none=True)
    need_str("of", of, none=True)
    need_bool("hypothesis", hypothesis)
    # The one encoding of the caller's values: their canonical texts go into the record as they are, and the
    # values decoded from them (lists, not tuples: what the journal gives back) are what everything below reads.
    texts, values = need_json_canonical({"body": body, "by": by, "scope": scope, "evidence": evidence, "valid": valid})
    if valid is not None and (not isinstance(valid, (tuple, list)) or len(valid) != 2):
        given = valid  # named as the caller gave it
    else:
        given = None
    body, by, scope, evidence, valid = values
    items = fold._items
    if position is None:
        position = fold.position
    if supersedes is not None and supersedes not in items:
        raise UnknownId(
            f"supersedes={supersedes!r} names no item of this store; pass the id of the version this one replaces."
        )
    if given is not None:
        raise BadInput(f"valid must be (since, until) — either may be None — got {given!r}.")
    if (
        reconfirm_after is not DEFAULT
        and reconfirm_after is not None
        and (not isinstance(reconfirm_after, int) or isinstance(reconfirm_after, bool) or reconfirm_after < 1)
    ):
        raise BadInput(f"reconfirm_after must be a positive number of decisions or None, got {reconfirm_after!r}.")
    # The competition key: facts by (scope, s, r); other kinds by name, a new version by its predecessor's key.
    own_key = None  # the fact key, when this is one (the premise check compares its premises' keys with it)
    if kind == "fact" and type(body) is dict and "s" in body and "r" in body:
        s, r = body["s"], body["r"]
        if type(s) is str and type(r) is str:  # staleness.fact_key's text, from the scope's text already made
            key = own_key = "[" + texts[2] + "," + encode_str(s) + "," + encode_str(r) + "]"
        else:
            key = own_key = dumps_canonical([scope, s, r])
    elif supersedes is not None:
        key = items[supersedes].key
    elif type(body) is dict and isinstance(body.get("name"), (str, int)):
        key = dumps_canonical([kind, scope, body["name"]])
    else:
        key = dumps_canonical(["item", position])
    if supersedes is not None:
        old = items[supersedes]
        if old.kind != kind or old.key != key:
            raise BadInput(
                f"{supersedes} is a {old.kind} on another key; a new version supersedes a version of "
                "the same item (same kind, and for a fact the same scope, s and r)."
            )
    # Only what was said goes in the record (defaults are left out: smaller journal, faster hashing).
    rc = small_json("reconfirm_after", reconfirm_after) if reconfirm_after is not DEFAULT else None
    cand = Candidate(kind, body, source, by, scope, tuple(derived_from), supersedes, of)
    verdicts: list[dict[str, Any]] = []
    # The two built-in gates (SourceGate, ConsistencyGate), called directly: the premise check reuses the key
    # and the fact's value (the repr of its decoded "o", as the fold's Item computes it).
    base = source_check(kind, body, source, of, fold._decision_info)
    source_ok = base.admit
    if base.admit:
        own_value = repr(body.get("o")) if own_key is not None else None
        base = premise_verdict(fold, kind, body, scope, cand.derived_from, position, own_key, own_value=own_value)
    # The user's gates rule on every item the source check admits, even one the premise check refuses now: a
    # retraction can make its premises sound in the re-fold, which reads the verdicts from the journal. The
    # gates' shadow folds the record's own values, so it sees the item exactly as the store will.
    if source_ok and gates:
        shadow_payload = record(texts, values, kind, source, key, derived_from, supersedes, of, hypothesis, rc)[1]
        for g in gates:
            v = g.admit(gate_store, cand, _Shadow(fold, dict(shadow_payload), shell))
            if not isinstance(v, Verdict):
                raise BadInput(f"gate {getattr(g, 'name', g)!r} returned {v!r}; admit() must return a Verdict.")
            verdicts.append(v.as_dict(getattr(g, "name", type(g).__name__)))
    vd = small_json("the gates' verdicts", verdicts) if verdicts else None
    refused = None if base.admit else base.reason  # informational: the fold decides again
    return record(texts, values, kind, source, key, derived_from, supersedes, of, hypothesis, rc, refused, vd)


def record(
    texts: list[str],
    values: list[Any],
    kind: str,
    source: str,
    key: str,
    derived_from: list[str],
    supersedes: str | None,
    of: str | None,
    hypothesis: bool,
    reconfirm: tuple[str, Any] | None,
    refused: str | None = None,
    verdicts: tuple[str, Any] | None = None,
) -> tuple[str, dict[str, Any]]:
    """The add record as (canonical text, value) from the texts and values of its fields: keys in sorted order
    (canonical JSON), a field left out when it was not given. `texts`/`values`: body, by, scope, evidence, valid."""
    body_t, by_t, scope_t, evidence_t, valid_t = texts
    body, by, scope, evidence, valid = values
    parts = ['{"body":', body_t]
    value: dict[str, Any] = {"body": body}
    if by is not None:
        parts += (',"by":', by_t)
        value["by"] = by
    if derived_from:
        parts += (',"derived_from":[', ",".join(map(encode_str, derived_from)), "]")
        value["derived_from"] = derived_from
    if evidence is not None:
        parts += (',"evidence":', evidence_t)
        value["evidence"] = evidence
    if hypothesis:
        parts.append(',"hypothesis":true')
        value["hypothesis"] = True
    parts += (',"key":', encode_str(key), ',"kind":', encode_str(kind))
    value["key"] = key
    value["kind"] = kind
    if of is not None:
        parts += (',"of":', encode_str(of))
        value["of"] = of
    parts.append(',"op":"add"')
    value["op"] = "add"
    if reconfirm is not None:
        parts += (',"reconfirm_after":', reconfirm[0])
        value["reconfirm_after"] = reconfirm[1]
    if refused is not None:
        parts += (',"refused":', encode_str(refused))
        value["refused"] = refused
    if scope is not None:
        parts += (',"scope":', scope_t)
        value["scope"] = scope
    parts += (',"source":', encode_str(source))
    value["source"] = source
    if supersedes is not None:
        parts += (',"supersedes":', encode_str(supersedes))
        value["supersedes"] = supersedes
    if valid is not None:
        parts += (',"valid":', valid_t)
        value["valid"] = valid
    if verdicts is not None:
        parts += (',"verdicts":', verdicts[0])
        value["verdicts"] = verdicts[1]
    parts.append("}")
    return "".join(parts), value


def small_json(what: str, value: Any) -> tuple[str, Any]:
    """(canonical text, value as JSON gives it back) of a value the store made or a gate returned (not the
    caller's body: that was encoded once, above); BadInput naming `what` when it is not JSON."""
    texts, values = need_json_canonical({what: value})
    return texts[0], values[0]


def premise_verdict(
    fold: Fold,
    kind: str,
    body: Any,
    scope: Any,
    derived_from: Iterable[str],
    pos: int,
    own_key: str | None = None,
    *,
    own_value: str | None = None,
) -> Verdict:
    """The consistency check of a candidate's premises as of position `pos` (ConsistencyGate, through ks._premise_verdict).
    `own_key`, `own_value`: the candidate's fact key and value key when the caller has them (add() does,
    from the body it decoded once), else made here."""
    for pid in derived_from:
        problem, why = fold._premise_state(pid, pos)
        if problem:
            return Verdict(False, why)
        prem = fold._items[pid]
        if kind == "fact" and isinstance(body, dict) and prem.kind == "fact":
            if own_key is None:
                own_key = fact_key(scope, body.get("s"), body.get("r"))
            if own_value is None:
                own_value = value_key(body.get("o"))
            if prem.key == own_key and prem.value != own_value:
                return Verdict(False, f"would refute its own premise {pid}")
    return Verdict(True, "premises sound")
