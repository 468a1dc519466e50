"""The live store equals the replay of its journal after every step of random operation sequences.

The replay folds the journal from scratch with every retracted item treated as never written, so this checks the
incremental retraction (re-folding only the keys a retraction touches) against the definition. A second machine
(OracleMachine) compares the store with an independent dict model of the rank, dispute and retraction rules, which
can catch a wrong rule that a comparison with the store's own replay cannot."""

import json

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from solvi_lab.errors import WriteRefused
from solvi_lab.knowledge import KnowledgeStore

SUBJECTS = ["a", "b", "c"]
VALUES = ["x", "y", "z"]
SOURCES = ["outcome", "person", "spec", "verified", "model"]


class StoreMachine(RuleBasedStateMachine):
    @initialize()
    def start(self):
        self.ks = KnowledgeStore()
        d = self.ks.decisions.record("q", {}, "x", answered_by="system2", guarantee="≤5% wrong")
        self.decision = d.id

    def ids(self):
        return [i for i, it in self.ks._items.items() if it.present]

    @rule(
        s=st.sampled_from(SUBJECTS),
        o=st.sampled_from(VALUES),
        source=st.sampled_from(SOURCES),
        hyp=st.booleans(),
        premise=st.integers(0, 50),
        use_premise=st.booleans(),
        sup=st.booleans(),
        scoped=st.booleans(),
    )
    def add(self, s, o, source, hyp, premise, use_premise, sup, scoped):
        ids = self.ids()
        derived = [ids[premise % len(ids)]] if (use_premise and ids) else []
        scope = {"w": "1"} if scoped else None
        supersedes = None
        if sup:
            same = [
                i
                for i, it in self.ks._items.items()
                if it.kind == "fact" and it.present and it.body["s"] == s and it.scope == scope
            ]
            supersedes = same[-1] if same else None
        kw = {"of": self.decision} if source == "verified" else {}
        try:
            self.ks.add(
                "fact",
                {"s": s, "r": "r", "o": o},
                source=source,
                derived_from=derived,
                hypothesis=hyp and source != "outcome",
                supersedes=supersedes,
                scope=scope,
                **kw,
            )
        except WriteRefused:
            pass

    @rule(name=st.sampled_from(["r1", "r2"]), n=st.integers(0, 5))
    def add_rule(self, name, n):
        prev = [i for i, it in self.ks._items.items() if it.kind == "rule" and it.present and it.body["name"] == name]
        self.ks.add("rule", {"name": name, "n": n}, source="spec", supersedes=prev[-1] if prev else None)

    @precondition(lambda self: self.ids())
    @rule(i=st.integers(0, 1000))
    def retract(self, i):
        ids = self.ids()
        self.ks.retract(ids[i % len(ids)], by="t", why="test")

    @precondition(lambda self: self.ks.disputes())
    @rule(i=st.integers(0, 100), j=st.integers(0, 100))
    def resolve(self, i, j):
        ds = self.ks.disputes()
        d = ds[i % len(ds)]
        side = d["sides"][j % len(d["sides"])]
        self.ks.resolve(d["key"], side["value"], by="p")

    @precondition(lambda self: self.ids())
    @rule(i=st.integers(0, 1000), kind=st.sampled_from(["promote", "use", "confirm", "rollback", "reconfirm"]))
    def item_op(self, i, kind):
        ids = self.ids()
        iid = ids[i % len(ids)]
        it = self.ks._items[iid]
        if kind == "promote" and it.state == "hypothesis":
            self.ks.promote(iid, by="p", why="ok")
        elif kind == "use":
            self.ks.use(iid, wrong=i % 2 == 0)
        elif kind == "confirm" and it.state in ("active", "hypothesis", "disputed"):
            self.ks.confirm(iid, by="p")
        elif kind == "rollback" and it.supersedes and it.state in ("active", "hypothesis", "disputed"):
            prev = self.ks._items[it.supersedes]
            if prev.state == "refuted" and prev.refuted_by == iid:
                self.ks.rollback(iid, by="p", why="undo")
        elif kind == "reconfirm":
            self.ks.reconfirm(iid)

    @precondition(lambda self: self.updates())
    @rule(i=st.integers(0, 1000), o=st.sampled_from(VALUES), then=st.sampled_from(["rollback", "confirm", "derive"]))
    def derive_from_an_update(self, i, o, then):
        """A fact derived from a new version (directly, or through another derived fact), then the version is
        rolled back — or the derived fact confirmed — so the rollback rule is exercised on chains."""
        ups = self.updates()
        up = ups[i % len(ups)]
        chain = [up] + [d for d in self.ks._dependents.get(up, ()) if self.ks._items[d].present][:1]
        try:
            derived = self.ks.add(
                "fact", {"s": "d", "r": f"r{i % 2}", "o": o}, source="person", derived_from=[chain[-1]]
            )
        except WriteRefused:
            return
        if then == "rollback":
            self.ks.rollback(up, by="p", why="undo")
        elif then == "confirm" and self.ks._items[derived].state in ("active", "hypothesis", "disputed"):
            self.ks.confirm(derived, by="p")

    def updates(self):
        """Live new versions whose previous version they refuted: what rollback() can undo."""
        out = []
        for i, it in self.ks._items.items():
            if it.supersedes and it.state in ("active", "hypothesis", "disputed"):
                prev = self.ks._items[it.supersedes]
                if prev.state == "refuted" and prev.refuted_by == i:
                    out.append(i)
        return out

    @precondition(lambda self: self.ids())
    @rule(i=st.integers(0, 1000))
    def retract_equals_rebuild_skip(self, i):
        """The definition, checked directly: after retract(x) the store is rebuild(skip={x}) computed before it."""
        ids = self.ids()
        x = ids[i % len(ids)]
        expected = self.ks.rebuild(skip={x})
        self.ks.retract(x, by="t", why="test")
        assert self.ks.fingerprint() == expected.fingerprint()
        assert self.ks.snapshot() == {**expected.snapshot(), "position": self.ks.position}

    @rule(scoped=st.booleans())
    def flag(self, scoped):
        if scoped:
            self.ks.flag({"w": "1"}, why="drift")
        else:
            self.ks.flag(key=(None, "a", "r"), why="drift")

    @precondition(lambda self: any(f.pending for f in self.ks._flags.flags.values()))
    @rule(i=st.integers(0, 100))
    def end_flag(self, i):
        pend = [f for f in self.ks._flags.flags.values() if f.pending]
        self.ks.end_flag(pend[i % len(pend)].id, by="p", why="ok")

    @rule(k=st.integers(1, 1500))
    def tick(self, k):
        self.ks.tick(k)

    @invariant()
    def live_equals_replay(self):
        if not hasattr(self, "ks"):
            return
        replayed = KnowledgeStore.from_journal(self.ks.journal)
        if replayed.fingerprint() != self.ks.fingerprint():
            diffs = []
            for iid, it in self.ks._items.items():
                o = replayed._items[iid]
                if it.observable() != o.observable() or it.state != o.state:
                    diffs.append((iid, it.observable(), o.observable()))
            raise AssertionError("live != replay:\n" + json.dumps(diffs, default=str, indent=0)[:3000])
        assert self.ks.questions() == replayed.questions()
        assert self.ks.disputes() == replayed.disputes()
        assert len(self.ks) == len(replayed) == sum(1 for it in self.ks._items.values() if it.present)
        for iid in self.ks._items:
            if self.ks._items[iid].state in ("active", "hypothesis", "disputed"):
                assert self.ks.stale(iid) == replayed.stale(iid)
                assert self.ks.usable(iid) == replayed.usable(iid)
                assert self.ks.rolled_back_under(iid) == replayed.rolled_back_under(iid)
        snap = self.ks.snapshot()
        assert snap == replayed.snapshot()
        # the rollback rule: nothing resting on a rolled-back version (not confirmed since) is given as a fact
        for f in snap["facts"]:
            assert self.ks.rolled_back_under(f["id"]) == [] and self.ks.usable(f["id"])
        assert {h["id"] for h in snap["hints"] if h.get("rolled_back")} == {
            i for i, it in self.ks._items.items() if it.kind == "fact" and self.ks.rolled_back_under(i)
        }


StoreMachine.TestCase.settings = settings(
    max_examples=150, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestStoreMachine = StoreMachine.TestCase


# ---------------------------------------------------------------------------------------------- independent oracle
# A model of the store's rules written from the specification as plain dicts and lists, sharing no code with the
# store: rank (outcome > person > spec; an observation refutes whatever it contradicts), dispute (live sides of
# equal rank holding different values on one key), and retraction (as if never written: the model simply folds
# again without it). Facts only, on two relations, with no hypotheses or clocks, so that the model stays small enough
# to be obviously right.

ORACLE_RANK = {"outcome": 4, "person": 3, "spec": 2}


def oracle_statuses(writes: list[tuple[str, tuple, str, str]], retracted: set[str]) -> dict[str, str]:
    """writes: (id, key, value, source) in write order. Returns id -> status."""
    status: dict[str, str] = {}
    live: dict[tuple, dict[str, tuple[str, str]]] = {}
    for iid, key, value, source in writes:
        if iid in retracted:
            status[iid] = "retracted"
            continue
        here = live.setdefault(key, {})
        loses = source != "outcome" and any(
            v != value and ORACLE_RANK[s] > ORACLE_RANK[source] for v, s in here.values()
        )
        if loses:
            status[iid] = "refuted"
            continue
        for cid, (v, s) in list(here.items()):
            if v != value and (source == "outcome" or ORACLE_RANK[source] > ORACLE_RANK[s]):
                status[cid] = "refuted"
                del here[cid]
        here[iid] = (value, source)
        state = "disputed" if len({v for v, _ in here.values()}) > 1 else "active"
        for cid in here:
            status[cid] = state
    return status


class OracleMachine(RuleBasedStateMachine):
    """The store against the oracle after every step, with reloads from a JSONL journal on disk."""

    @initialize()
    def start(self):
        import tempfile
        from pathlib import Path

        self.path = Path(tempfile.mkdtemp()) / "oracle.jsonl"
        self.ks = KnowledgeStore(self.path)
        self.writes: list[tuple[str, tuple, str, str]] = []
        self.retracted: set[str] = set()

    @rule(
        s=st.sampled_from(SUBJECTS[:2]),
        r=st.sampled_from(["r1", "r2"]),
        o=st.sampled_from(VALUES),
        source=st.sampled_from(sorted(ORACLE_RANK)),
    )
    def add(self, s, r, o, source):
        iid = self.ks.add("fact", {"s": s, "r": r, "o": o}, source=source)
        self.writes.append((iid, (s, r), o, source))

    @precondition(lambda self: len(self.retracted) < len(self.writes))
    @rule(i=st.integers(0, 1000))
    def retract(self, i):
        left = [w[0] for w in self.writes if w[0] not in self.retracted]
        x = left[i % len(left)]
        self.ks.retract(x, by="t", why="test")
        self.retracted.add(x)

    @rule()
    def reload(self):
        self.ks.close()
        self.ks = KnowledgeStore(self.path)

    @invariant()
    def store_agrees_with_oracle(self):
        if not hasattr(self, "ks"):
            return
        expected = oracle_statuses(self.writes, self.retracted)
        got = {iid: self.ks.status(iid) for iid, *_ in self.writes}
        assert got == expected
        view = self.ks.view()
        assert [i for i in view.ids() if view.present(i)] == [i for i, *_ in self.writes if expected[i] != "retracted"]

    def teardown(self):
        if hasattr(self, "ks"):
            self.ks.close()


OracleMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestOracleMachine = OracleMachine.TestCase
