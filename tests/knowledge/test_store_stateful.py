"""The live store equals the replay of its journal after every step of random operation sequences.

The replay folds the journal from scratch with every retracted item treated as never written, so this checks the
incremental retraction (re-folding only the keys a retraction touches) against the definition. A second machine
(OracleMachine) compares the store with an independent model of the specification's rules (tests/knowledge/oracle.py:
ranks, disputes, supersede, valid=, reconfirm_after and tick, premises, a write gate, retraction), which can catch a
wrong rule that a comparison with the store's own replay cannot."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from oracle import DEFAULT, LIVE, Oracle  # same folder: pytest puts it on sys.path
from oracle import RANK as RANK_OF_SOURCE

from solvi_lab.errors import BadInput, UnknownId, WriteRefused
from solvi_lab.knowledge import KnowledgeStore, Verdict, WriteGate
from solvi_lab.studies.params import quick_from_env

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
        return [i for i, it in self.ks._fold._items.items() if it.present]

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
                for i, it in self.ks._fold._items.items()
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
        prev = [i for i, it in self.ks._fold._items.items() if it.kind == "rule" and it.present and it.body["name"] == name]
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
        it = self.ks._fold._items[iid]
        if kind == "promote" and it.state == "hypothesis":
            self.ks.promote(iid, by="p", why="ok")
        elif kind == "use":
            self.ks.use(iid, wrong=i % 2 == 0)
        elif kind == "confirm" and it.state in ("active", "hypothesis", "disputed"):
            self.ks.confirm(iid, by="p")
        elif kind == "rollback" and it.supersedes and it.state in ("active", "hypothesis", "disputed"):
            prev = self.ks._fold._items[it.supersedes]
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
        chain = [up] + [d for d in self.ks._fold._dependents.get(up, ()) if self.ks._fold._items[d].present][:1]
        try:
            derived = self.ks.add(
                "fact", {"s": "d", "r": f"r{i % 2}", "o": o}, source="person", derived_from=[chain[-1]]
            )
        except WriteRefused:
            return
        if then == "rollback":
            self.ks.rollback(up, by="p", why="undo")
        elif then == "confirm" and self.ks._fold._items[derived].state in ("active", "hypothesis", "disputed"):
            self.ks.confirm(derived, by="p")

    def updates(self):
        """Live new versions whose previous version they refuted: what rollback() can undo."""
        out = []
        for i, it in self.ks._fold._items.items():
            if it.supersedes and it.state in ("active", "hypothesis", "disputed"):
                prev = self.ks._fold._items[it.supersedes]
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

    @precondition(lambda self: any(f.pending for f in self.ks._fold._flags.flags.values()))
    @rule(i=st.integers(0, 100))
    def end_flag(self, i):
        pend = [f for f in self.ks._fold._flags.flags.values() if f.pending]
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
            for iid, it in self.ks._fold._items.items():
                o = replayed._fold._items[iid]
                if it.observable() != o.observable() or it.state != o.state:
                    diffs.append((iid, it.observable(), o.observable()))
            raise AssertionError("live != replay:\n" + json.dumps(diffs, default=str, indent=0)[:3000])
        assert self.ks.questions() == replayed.questions()
        assert self.ks.disputes() == replayed.disputes()
        assert len(self.ks) == len(replayed) == sum(1 for it in self.ks._fold._items.values() if it.present)
        for iid in self.ks._fold._items:
            if self.ks._fold._items[iid].state in ("active", "hypothesis", "disputed"):
                assert self.ks.stale(iid) == replayed.stale(iid)
                assert self.ks.usable(iid) == replayed.usable(iid)
                assert self.ks.rolled_back_under(iid) == replayed.rolled_back_under(iid)
        snap = self.ks.snapshot()
        assert snap == replayed.snapshot()
        # the rollback rule: nothing resting on a rolled-back version (not confirmed since) is given as a fact
        for f in snap["facts"]:
            assert self.ks.rolled_back_under(f["id"]) == [] and self.ks.usable(f["id"])
        assert {h["id"] for h in snap["hints"] if h.get("rolled_back")} == {
            i for i, it in self.ks._fold._items.items() if it.kind == "fact" and self.ks.rolled_back_under(i)
        }


StoreMachine.TestCase.settings = settings(
    max_examples=150, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestStoreMachine = StoreMachine.TestCase


# ---------------------------------------------------------------------------------------------- independent oracle
# The store against `oracle.Oracle` (tests/knowledge/oracle.py): a plain-Python model of the specification's rules —
# ranks, disputes and questions, supersede, valid=, reconfirm_after and tick, a write gate, retraction — that shares
# no code with the store. Facts on two subjects × two relations and rules on two names; reloads from a JSONL or a
# SQLite journal on disk; time travel (`from_journal(upto=)`) against the model folded to the same position.
# Sizes: SOLVI_LAB_ORACLE_EXAMPLES / SOLVI_LAB_ORACLE_STEPS (defaults: small under SOLVI_LAB_QUICK=1, as in CI).

ORACLE_VALUES = ["x", "y", "z"]
ORACLE_SUBJECTS = ["a", "a", "a", "b"]  # weighted: most writes meet on one key, so disputes and re-folds happen
ORACLE_RELATIONS = ["r1", "r1", "r2"]
ORACLE_DRAWN_VALUES = ["x", "x", "y", "y", "z"]
ORACLE_SOURCES = ["outcome", "person", "person", "spec", "spec", "verified", "verified", "model"]
VALID_AT = [None, 0, 2, 4]
RULE_KEY = "rule"


class OracleGate(WriteGate):
    """A gate whose verdict the oracle computes itself: it holds a rule whose "n" is odd, and refuses a fact that is
    not an observation on a key under an open dispute (read through the store's public disputes() and item())."""

    name = "oracle_gate"

    def admit(self, store, item, shadow):
        if item.kind == "rule":
            return Verdict(item.body["n"] % 2 == 0, "odd n is held")
        if item.source != "outcome":
            for d in store.disputes():
                for side in d["sides"]:
                    for i in side["items"]:
                        body = store.item(i)["body"]
                        if (body["s"], body["r"]) == (item.body["s"], item.body["r"]):
                            return Verdict(False, "key under dispute: an observation or a resolution settles it")
        return Verdict(True, "ok")


def _oracle_settings() -> settings:
    quick = quick_from_env()
    examples = int(os.environ.get("SOLVI_LAB_ORACLE_EXAMPLES", "150" if quick else "400"))
    steps = int(os.environ.get("SOLVI_LAB_ORACLE_STEPS", "30" if quick else "50"))
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


class OracleMachine(RuleBasedStateMachine):
    """The store against the independent oracle after every step."""

    @initialize(backend=st.sampled_from(["jsonl", "sqlite"]), gated=st.booleans())
    def start(self, backend, gated):
        self.dir = Path(tempfile.mkdtemp())
        self.path = self.dir / f"oracle.{backend}"
        self.gates = [OracleGate()] if gated else []
        self.ks = KnowledgeStore.open(self.path, gates=self.gates)
        self.model = Oracle()
        # decisions a "verified" fact can name: System 2 alone under a guarantee (one per value), and one that is not
        self.decided = {
            v: self.ks.decisions.record("q", {}, v, answered_by="system2", guarantee="≤5% wrong").id
            for v in ORACLE_VALUES
        }
        self.unguaranteed = self.ks.decisions.record("q", {}, "x", answered_by="system1").id

    def last(self) -> int:
        return len(self.ks.journal) - 1

    def now(self):
        return self.model.fold()

    def gate_admits(self, now, kind, key, value, source, n=None) -> bool:
        if not self.gates:
            return True
        if kind == "rule":
            return n % 2 == 0
        return source == "outcome" or not now.open_question.get(key, False)

    def unchanged(self, call, error):
        """A call the store must refuse before writing anything."""
        before = len(self.ks.journal)
        with pytest.raises(error):
            call()
        assert len(self.ks.journal) == before

    @rule(
        s=st.sampled_from(ORACLE_SUBJECTS),
        r=st.sampled_from(ORACLE_RELATIONS),
        o=st.sampled_from(ORACLE_DRAWN_VALUES),
        source=st.sampled_from(ORACLE_SOURCES),
        bad_of=st.integers(0, 4),
        sup=st.one_of(st.none(), st.integers(0, 1000)),
        valid=st.one_of(
            st.none(), st.tuples(st.one_of(st.none(), st.integers(0, 4)), st.one_of(st.none(), st.integers(0, 5)))
        ),
        reconfirm=st.sampled_from([DEFAULT, DEFAULT, DEFAULT, None, 1, 3]),
        premise=st.one_of(st.none(), st.none(), st.integers(0, 1000)),
    )
    def add_fact(self, s, r, o, source, bad_of, sup, valid, reconfirm, premise):
        now = self.now()
        key = (s, r)
        same = [i for i, w in now.writes.items() if w.kind == "fact" and w.key == key]
        supersedes = same[sup % len(same)] if (sup is not None and same) else None
        kw = {}
        of_ok = True
        if source == "verified":  # one time in five: a decision that does not vouch for this fact
            if bad_of == 0:
                kw["of"], of_ok = self.unguaranteed, False
            elif bad_of == 1:
                kw["of"] = self.decided[ORACLE_VALUES[(ORACLE_VALUES.index(o) + 1) % 3]]
                of_ok = False
            else:
                kw["of"] = self.decided[o]
        if reconfirm != DEFAULT:
            kw["reconfirm_after"] = reconfirm
        derived = ()
        if premise is not None and now.writes:  # any earlier item: present, refuted, refused or retracted
            ids = list(now.writes)
            derived = (ids[premise % len(ids)],)
        source_ok = source in RANK_OF_SOURCE and of_ok
        # the user's gates rule on every item the source check admits (spec: "Write gates"), even one whose premise
        # is refused now: a retraction can make the premise sound in the re-fold, which reads their verdict
        gate_ok = not source_ok or self.gate_admits(now, "fact", key, o, source)
        body = {"s": s, "r": r, "o": o}
        try:
            iid = self.ks.add(
                "fact", body, source=source, supersedes=supersedes, valid=valid, derived_from=derived, **kw
            )
        except WriteRefused as e:
            iid = e.item_id
        expect = self.model.add(
            int(iid[1:]),
            "fact",
            key,
            o,
            source,
            supersedes=supersedes,
            derived_from=derived,
            valid=valid,
            reconfirm_after=reconfirm,
            admitted_by_source=source_ok,
            gate_admits=gate_ok,
        )
        assert iid == expect and int(iid[1:]) == self.last()

    @rule(
        name=st.sampled_from(["r1", "r2"]),
        n=st.integers(0, 5),
        sup=st.one_of(st.none(), st.integers(0, 1000)),
        reconfirm=st.sampled_from([DEFAULT, None, 2]),
    )
    def add_rule(self, name, n, sup, reconfirm):
        now = self.now()
        key = (RULE_KEY, name)
        same = [i for i, w in now.writes.items() if w.kind == "rule" and w.key == key]
        supersedes = same[sup % len(same)] if (sup is not None and same) else None
        kw = {} if reconfirm == DEFAULT else {"reconfirm_after": reconfirm}
        iid = self.ks.add("rule", {"name": name, "n": n}, source="spec", supersedes=supersedes, **kw)
        self.model.add(
            int(iid[1:]),
            "rule",
            key,
            n,
            "spec",
            supersedes=supersedes,
            reconfirm_after=reconfirm,
            gate_admits=self.gate_admits(now, "rule", key, n, "spec", n=n),
        )

    @precondition(lambda self: any(self.now().present(i) for i in self.model.writes))
    @rule(i=st.integers(0, 1000))
    def retract(self, i):
        now = self.now()
        left = [i for i in self.model.writes if now.present(i)]
        x = left[i % len(left)]
        self.ks.retract(x, by="t", why="test")
        self.model.retract(self.last(), x)

    @rule(k=st.sampled_from([1, 1, 2, 1000, 2000]))
    def tick(self, k):
        self.ks.tick(k)
        self.model.tick(self.last(), k)

    @precondition(lambda self: self.facts_present())
    @rule(i=st.integers(0, 1000), source=st.sampled_from(["person", "outcome"]))
    def confirm(self, i, source):
        ids = self.facts_present()
        x = ids[i % len(ids)]
        self.ks.confirm(x, by="p", source=source)
        self.model.confirm(self.last(), x, source)

    def facts_present(self):
        now = self.now()
        return [i for i, w in self.model.writes.items() if w.kind == "fact" and now.present(i)]

    @precondition(lambda self: any(self.now().state[i] == "hypothesis" for i in self.model.writes))
    @rule(i=st.integers(0, 1000))
    def promote(self, i):
        now = self.now()
        held = [i for i in self.model.writes if now.state[i] == "hypothesis"]
        x = held[i % len(held)]
        self.ks.promote(x, by="lead", why="measured")
        self.model.promote(self.last(), x)

    @precondition(lambda self: any(self.now().open_question.values()))
    @rule(i=st.integers(0, 100), j=st.integers(0, 100))
    def resolve(self, i, j):
        now = self.now()
        keys = [k for k, is_open in now.open_question.items() if is_open]
        key = keys[i % len(keys)]
        values = sorted({now.writes[c].value for c in now.live_on(key) if now.state[c] == "disputed"})
        value = values[j % len(values)]
        self.ks.resolve((None, *key), value, by="p")
        self.model.resolve(self.last(), key, value)

    @precondition(lambda self: self.model.writes)
    @rule(what=st.sampled_from(["supersede", "retract", "resolve"]), i=st.integers(0, 1000), o=st.sampled_from("xyz"))
    def refused_calls(self, what, i, o):
        """Calls the store refuses before writing anything: a new version of an item on another key (or of another
        kind), retracting what is not present, resolving a key without an open dispute or with a value no side
        holds."""
        now = self.now()
        ids = list(now.writes)
        w = now.writes[ids[i % len(ids)]]
        if what == "supersede":
            if w.kind == "fact":
                kind, body = "fact", {"s": w.key[0] + "!", "r": w.key[1], "o": "x"}
            else:
                kind, body = "fact", {"s": "a", "r": "r1", "o": "x"}  # a fact cannot supersede a rule
            self.unchanged(lambda: self.ks.add(kind, body, source="person", supersedes=w.id), BadInput)
        elif what == "retract" and not now.present(w.id):
            error = UnknownId if now.state[w.id] == "refused" else BadInput
            self.unchanged(lambda: self.ks.retract(w.id, by="t", why="again"), error)
        elif what == "resolve" and w.kind == "fact":
            held = {now.writes[c].value for c in now.live_on(w.key) if now.state[c] == "disputed"}
            if not now.open_question.get(w.key) or o not in held:
                self.unchanged(lambda: self.ks.resolve((None, *w.key), o, by="p"), BadInput)

    @rule(via=st.sampled_from(["open", "init"]))
    def reload(self, via):
        self.ks.close()
        self.ks = (
            KnowledgeStore.open(self.path, gates=self.gates)
            if via == "open"
            else KnowledgeStore(self.path, gates=self.gates)
        )

    @rule(p=st.integers(0, 1000))
    def time_travel(self, p):
        """The store rebuilt up to a journal position equals the model folded up to it."""
        upto = p % (len(self.ks.journal) + 1)
        past = KnowledgeStore.from_journal(self.ks.journal, upto=upto)
        then = self.model.fold(upto)
        assert past.ticks == then.ticks
        assert {i: past.status(i) for i in then.writes} == {i: then.status(i) for i in then.writes}
        assert len(past) == sum(1 for i in then.writes if then.present(i))

    @invariant()
    def store_agrees_with_oracle(self):
        if not hasattr(self, "ks"):
            return
        ks, now = self.ks, self.now()
        assert ks.ticks == now.ticks
        assert {i: ks.status(i) for i in now.writes} == {i: now.status(i) for i in now.writes}
        present = [i for i in now.writes if now.present(i)]
        view = ks.view()
        assert [i for i in view.ids() if view.present(i)] == present
        assert len(ks) == len(present)
        # disputes and questions: one question per dispute event
        assert {frozenset(i for side in d["sides"] for i in side["items"]) for d in ks.disputes()} == (
            now.open_disputes()
        )
        assert len(ks.questions()) == now.questions
        for i in present:
            w, rec = now.writes[i], ks.item(i)
            assert rec["valid"] == {"since": (w.valid or (None, None))[0], "until": (w.valid or (None, None))[1]}
            assert rec["supersedes"] == w.supersedes
            if now.chain_present(i):
                assert rec["version"] == now.version(i), i
            if now.state[i] in LIVE:
                assert (rec["clock"]["confirmed"], rec["clock"]["reconfirm_after"]) == (now.confirmed[i], now.rule[i])
        for t in VALID_AT:
            assert {i: ks.usable(i, valid_at=t) for i in present} == {i: now.usable(i, t) for i in present}
            facts = {f["id"] for f in ks.snapshot(valid_at=t)["facts"]}
            assert facts == {i for i in present if now.writes[i].kind == "fact" and now.usable(i, t)}

    def teardown(self):
        if hasattr(self, "ks"):
            self.ks.close()
        if hasattr(self, "dir"):
            shutil.rmtree(self.dir, ignore_errors=True)


OracleMachine.TestCase.settings = _oracle_settings()
TestOracleMachine = OracleMachine.TestCase
