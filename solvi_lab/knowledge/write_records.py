"""The records of the store's writing calls after add(): each call's arguments checked against the fold, and the
record it writes.

Its one job: turn `retract`, `promote`, `use`, `confirm`, `rollback`, `resolve`, `flag`, `end_flag` and `tick`
arguments into the payload of their journal record, or refuse them (BadInput, UnknownId) before anything is
written. Functions over the fold (knowledge/fold.py) — never the store: the facade hands them its fold and writes
what they return. It may not write the journal or change the fold (the fold decides what a record does when it is
folded); add()'s checks are knowledge/admission.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import BadInput, UnknownId
from ..validation import need_json, need_str, need_str_list
from .items import Item, value_key
from .reads import get, key_of, status
from .staleness import validate_flag_target

if TYPE_CHECKING:
    from .fold import Fold


def live_item(fold: Fold, iid: Any, what: str) -> Item:
    """The item `iid` names, if it is in the store (not refused, not retracted): what a writing call acts on."""
    it = get(fold, iid)
    if it.state == "refused":
        raise UnknownId(f"{iid} was refused when written ({it.why}); it is not in the store, so it cannot be {what}.")
    if it.state == "retracted":
        raise BadInput(f"{iid} is already retracted ({it.why}); nothing to do.")
    return it


def retract(fold: Fold, iid: Any, by: Any, why: Any) -> dict[str, Any]:
    """ks.retract's record: the item, who and why (a reason is required: a retraction must be reviewable)."""
    need_str("why", why)
    need_json("by", by)
    live_item(fold, iid, "retracted")
    if not why:
        raise BadInput("retract() needs why=...: a retraction without a reason cannot be reviewed.")
    return {"op": "retract", "id": iid, "by": by, "why": why}


def key_op(fold: Fold, op: str, iid: Any, **fields: Any) -> dict[str, Any]:
    """The record of an operation on one live item that its competition key folds (promote, use, confirm,
    rollback): the item, its key, the clock and the operation's own fields."""
    for name, v in fields.items():
        need_json(name, v)
    it = live_item(fold, iid, f"given to {op}()")
    return {"op": op, "id": iid, "key": it.key, "clock": fold.ticks, **fields}


def promote(fold: Fold, iid: Any, by: Any, why: Any) -> dict[str, Any]:
    """ks.promote's record: only a hypothesis is promoted."""
    need_str("why", why)
    it = live_item(fold, iid, "promoted")
    if it.state != "hypothesis":
        raise BadInput(f"{iid} is {status(fold, iid)}, not a hypothesis; only a hypothesis is promoted.")
    return key_op(fold, "promote", iid, by=by, why=why)


def confirm(fold: Fold, iid: Any, by: Any, source: Any) -> dict[str, Any]:
    """ks.confirm's record: only a person or an outcome re-confirms an item."""
    if not isinstance(source, str) or source not in ("person", "outcome"):
        raise BadInput(f"confirm(source={source!r}): only a person or an outcome re-confirms an item.")
    return key_op(fold, "confirm", iid, by=by, source=source, rule=None)


def rollback(fold: Fold, update: Any, by: Any, why: Any) -> tuple[dict[str, Any], str]:
    """ks.rollback's record and the id of the version that comes back; the record names the pending flags that
    cover either version (they keep the restored version a hint)."""
    need_str("why", why)
    it = live_item(fold, update, "rolled back")
    if not it.supersedes:
        raise BadInput(f"{update} supersedes nothing; rollback() undoes a new version (written with supersedes=).")
    prev = fold._items[it.supersedes]
    if prev.state != "refuted" or prev.refuted_by != update:
        raise BadInput(
            f"{update}'s previous version {prev.id} is {status(fold, prev.id)}, not the version it "
            "replaced; nothing to roll back to."
        )
    pending = fold._flags.pending_covering
    flags = [f.id for f in pending(it.id, it.key, it.scope)]
    flags += [f.id for f in pending(prev.id, prev.key, prev.scope) if f.id not in flags]
    return key_op(fold, "rollback", update, by=by, why=why, flags=flags), prev.id


def resolve(fold: Fold, key: Any, value: Any, by: Any, why: Any) -> dict[str, Any]:
    """ks.resolve's record: a person's answer to the open dispute on `key`, which one side must hold."""
    need_json("key", key)
    need_json("value", value)
    need_json("by", by)
    need_str("why", why)
    ks = key_of(fold, key)
    if ks.open_q is None:
        raise BadInput(f"there is no open dispute on {ks.key}; ks.disputes() lists the open ones.")
    held = {c.value: c.body["o"] for c in ks.live.values() if c.state == "disputed"}
    try:
        wanted = value_key(value)
    except (TypeError, ValueError):
        raise BadInput(f"resolve value {value!r} is not JSON.") from None
    if wanted not in held:
        raise BadInput(
            f"no side of the dispute on {ks.key} holds {value!r}; the sides hold "
            f"{list(held.values())}. Add the value as a fact first if it is the answer."
        )
    q = ks.open_q["id"]
    return {"op": "resolve", "key": ks.key, "value": value, "by": by, "why": why, "question": q, "clock": fold.ticks}


def flag(fold: Fold, position: int, scope: Any, ids: Any, key: Any, why: Any, by: Any) -> dict[str, Any]:
    """ks.flag's record: the flag (id "f<position>", the journal position it is written at) and what it covers."""
    need_str("why", why)
    need_json("by", by)
    for what, v in (("scope", scope), ("key", key)):
        need_json(what, v)
    if ids is not None and not isinstance(ids, str):
        need_str_list("ids", ids)
    if not why:
        raise BadInput("flag() needs why=...: say what drift or open-set signal raised it.")
    scope, ids, target_key = validate_flag_target(scope, ids, key)
    for i in ids:
        get(fold, i)
    fid = f"f{position}"
    return {"op": "flag", "id": fid, "scope": scope, "ids": list(ids), "target_key": target_key, "why": why, "by": by}


def end_flag(fold: Fold, flag: Any, by: Any, why: Any) -> dict[str, Any]:
    """ks.end_flag's record: a pending flag ends."""
    need_str("flag", flag)
    need_str("why", why)
    need_json("by", by)
    f = fold._flags.flags.get(flag)
    if f is None:
        raise UnknownId(f"no flag {flag!r}; ks.report()['flags'] lists them.")
    if not f.pending:
        raise BadInput(f"flag {flag} already ended at position {f.ended_at}.")
    return {"op": "end_flag", "flag": flag, "by": by, "why": why}


def tick(k: Any) -> dict[str, Any]:
    """ks.tick's record: the clock moves forward by k ≥ 1 decisions."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k.bit_length() > 62:
        raise BadInput(f"tick(k) moves the clock forward by k ≥ 1 decisions, got {k!r}.")
    return {"op": "tick", "k": k}
