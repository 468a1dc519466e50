"""When a fold may let go of an item or a key: the plan behind verify()'s lean second fold.

verify() folds the journal a second time beside the live store and compares fingerprints. Holding that second
store whole doubles peak memory, yet a forward fold (no retraction re-folds it: every retracted item is skipped
from the start) reads an item only at journal positions a pre-scan can list: its key's events (adds, resolutions,
promotions, confirmations, rollbacks, which read and move the key's live items), a later item that names it as a
premise or as the version it supersedes, a use of it, and the rollback of the version that superseded it. After
the last of those its fold state is final, so its digest can be added to the item sum and the item dropped; after
a key's last event the key's question digests are final too.

`ReleasePlan.see(record)` is fed every record once (by the journal's chain walk, so no second parse), then
`plan.release_position(id, key, position)` says after which record an item may go, `plan.key_ending_at(position)`
which key may go once the record at that position is folded. It only reads records: it may not fold, hash or change a store.

>>> from solvi_lab.journal import Journal
>>> j = Journal()
>>> _ = j.append("knowledge", {"op": "add", "kind": "fact", "body": {}, "source": "person", "key": "a"})
>>> _ = j.append("knowledge", {"op": "add", "kind": "fact", "body": {}, "source": "person", "key": "b",
...                            "derived_from": ["k0"]})
>>> plan = ReleasePlan()
>>> for r in j.records():
...     plan.see(r)
>>> plan.release_position("k0", "a", 0), plan.release_position("k1", "b", 1), plan.key_ending_at(0)
(1, 1, 'a')
"""

from __future__ import annotations

from ..journal import Record
from .items import item_id

_KEY_EVENTS = frozenset({"resolve", "promote", "confirm", "rollback"})
_BY_ID = frozenset({"promote", "confirm", "rollback", "use", "retract"})


class ReleasePlan:
    """The last journal position at which a forward fold reads each key and each item named by a later record."""

    def __init__(self) -> None:
        self.key_last: dict[str, int] = {}  # key -> position of its last event
        self.read_last: dict[str, int] = {}  # item id -> last position a record other than its key's events reads it
        self.retracted: set[str] = set()  # every id a retract record names: the fold skips them from the start
        self._supersedes: dict[str, str] = {}  # new version -> the version it superseded (for rollbacks)
        self._key_ends: dict[int, str] | None = None

    def see(self, r: Record) -> None:
        """Note what the record at r.position reads (records of other kinds are ignored)."""
        if r.kind != "knowledge" or type(r.payload) is not dict:
            return
        p, pos = r.payload, r.position
        op = p.get("op")
        key = p.get("key")
        if op == "add" or op in _KEY_EVENTS:
            if type(key) is str:
                self.key_last[key] = pos
        if op == "add":
            for pid in p.get("derived_from") or ():
                if type(pid) is str:
                    self.read_last[pid] = pos
            old = p.get("supersedes")
            if type(old) is str:
                self.read_last[old] = pos
                self._supersedes[item_id(pos)] = old
        elif op in _BY_ID:
            iid = p.get("id")
            if type(iid) is str:
                self.read_last[iid] = pos
                if op == "retract":
                    self.retracted.add(iid)
                if op == "rollback" and iid in self._supersedes:
                    self.read_last[self._supersedes[iid]] = pos  # a rollback reads the version it restores

    def release_position(self, iid: str, key: str, pos: int) -> int:
        """The position after which item `iid` (written at `pos` on `key`) is never read again."""
        return max(pos, self.key_last.get(key, pos), self.read_last.get(iid, pos))

    def key_ending_at(self, pos: int) -> str | None:
        """The key whose last event is the record at `pos` (a record is an event of one key at most)."""
        if self._key_ends is None:
            self._supersedes = {}  # the scan is over: free what only it needed
            self._key_ends = {last: k for k, last in self.key_last.items()}
        return self._key_ends.get(pos)
