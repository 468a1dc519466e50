"""The knowledge store passes the shared journal-owner conformance check (solvi_lab.conformance).

The step draws from the store's whole writing API — add (facts and behaviour items, with sources, ranks,
premises, new versions, validity, hypotheses, reconfirm clocks, evidence, a verified source naming a decision, a
measuring gate that reads the shadow), use, retract, resolve, promote, confirm, rollback, flag, reconfirm,
end_flag, tick — including calls the store must refuse (BadInput: nothing written) and writes it refuses by
rule (WriteRefused: the refusal is journaled, so it is part of the run).

Item, question and flag ids are journal positions ("k12", "q12", "f12"), so the records of another kind that check 3
interleaves shift every id. The comparable state is therefore the store's whole observable record (every item as
`ks.item()` gives it, the questions, the flags, the decision count) with each journal position renamed to its
ordinal among the store's own records: equal exactly when the two stores hold the same items, statuses, reasons
and counts. `ks.state()` itself (fingerprint, position, ...) is compared exactly in the tests below the check.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from solvi_lab.conformance import OwnerCase, check_journal_owner, problems
from solvi_lab.errors import BadInput, UnknownId, WriteRefused
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore, Verdict, WriteGate

SUBJECTS = ["c1", "c2"]
RELATIONS = ["tier", "city"]
VALUES = ["vip", "gold", "basic"]
NAMES = ["greet", "route", "refund"]
WHO = ["ann", "bob", {"team": "ops"}, None]


class CountGate(WriteGate):
    """A gate that measures: it holds a behaviour item when the shadow (the store with the candidate) would have
    more than two active items of that kind. Deterministic, so a rebuild agrees with the journaled verdict."""

    name = "count"

    def admit(self, store: Any, item: Any, shadow: Any) -> Verdict:
        if item.kind == "fact":
            return Verdict(True, "facts are not counted")
        sh = shadow.store()
        n = sum(1 for r in sh.view().records() if r.kind == item.kind and r.status == "active")
        return Verdict(n <= 2, f"{n} active {item.kind}s with it", {"active": n})


GATES = [CountGate()]


def _ids(ks: KnowledgeStore, **want: Any) -> list[str]:
    v = ks.view()
    out = []
    for iid in v.ids():
        rec = v.record(iid)
        if all(getattr(rec, k) == val for k, val in want.items()):
            out.append(iid)
    return out


def _add(ks: KnowledgeStore, rng: random.Random) -> None:
    kw: dict[str, Any] = {}
    present = _ids(ks, present=True)
    if rng.random() < 0.7:
        kind = "fact"
        # mostly one key, so that ranks, disputes and new versions meet
        body = {"s": rng.choice(SUBJECTS[:1] * 3 + SUBJECTS), "r": rng.choice(RELATIONS[:1] * 2 + RELATIONS)}
        body["o"] = rng.choice(VALUES)
        if rng.random() < 0.15:
            kw["scope"] = {"map": rng.choice(["A", "B"])}
    else:
        kind = rng.choice(["rule", "skill", "action"])
        body = {"name": rng.choice(NAMES)}
    r = rng.random()
    source = (
        "outcome" if r < 0.12 else "person" if r < 0.5 else "spec" if r < 0.78 else "verified" if r < 0.92 else "model"
    )
    decisions = list(ks.decisions)
    if source == "verified" and decisions and rng.random() < 0.8:  # refused unless its answer matches the fact
        kw["of"] = rng.choice(decisions).id
    if present and rng.random() < 0.25:
        kw["derived_from"] = rng.sample(present, min(len(present), rng.choice([1, 2])))
    same = [i for i in present if ks.view().record(i).kind == kind]
    if same and rng.random() < 0.2:
        kw["supersedes"] = rng.choice(same)  # refused (BadInput) when it is on another key
    if rng.random() < 0.15:
        kw["valid"] = (rng.choice([None, 2020]), rng.choice([None, 2030]))
    if rng.random() < 0.15:
        kw["hypothesis"] = True
    if rng.random() < 0.15:
        kw["reconfirm_after"] = rng.choice([None, 2, 5])
    if rng.random() < 0.2:
        kw["evidence"] = {"run": rng.randrange(3)}
    if rng.random() < 0.04:
        kw["reconfirm_after"] = 0  # refused: not a positive number of decisions
    ks.add(kind, body, source=source, by=rng.choice(WHO), **kw)


def _step(ks: KnowledgeStore, rng: random.Random) -> None:
    try:
        _one_call(ks, rng)
    except WriteRefused:
        pass  # a write refused by rule: journaled, part of the run
    except UnknownId as e:  # an id the store does not know: refused before anything is written
        raise BadInput(str(e)) from None


def _one_call(ks: KnowledgeStore, rng: random.Random) -> None:
    r = rng.random()
    present = _ids(ks, present=True)
    pick = (lambda ids: rng.choice(ids)) if present else None
    disputes = ks.disputes()
    if disputes and rng.random() < 0.3:  # a person answers an open dispute
        d = rng.choice(disputes)
        ks.resolve(rng.choice([d["question"], d["key"]]), rng.choice(d["sides"])["value"], by="ann", why="asked")
    elif r < 0.05:  # a decision in the shared journal, which a "verified" item may name (answered alone or not)
        ks.decisions.record(
            "ask", {"q": 1}, rng.choice(VALUES), answered_by=rng.choice(["system2", "rule"]), guarantee="g"
        )
    elif r < 0.42 or not present:
        _add(ks, rng)
    elif r < 0.48:
        ks.use(pick(present), wrong=rng.random() < 0.3)
    elif r < 0.55:
        ks.retract(pick(present), by=rng.choice(WHO), why=rng.choice(["typo", "wrong customer", ""]))  # "" refused
    elif r < 0.62:
        if disputes and rng.random() < 0.5:  # refused: a value no side holds
            ks.resolve(disputes[0]["key"], "nobody's value", by="ann")
        else:  # refused: no open dispute there (or no such key)
            ks.resolve((None, rng.choice(SUBJECTS), rng.choice(RELATIONS)), rng.choice(VALUES), by="ann")
    elif r < 0.67:
        hyps = _ids(ks, status="hypothesis")
        target = rng.choice(hyps) if hyps and rng.random() < 0.8 else pick(present)  # a non-hypothesis: refused
        ks.promote(target, by="lead", why="measured")
    elif r < 0.72:
        ks.confirm(pick(present), by="ann", source=rng.choice(["person", "outcome", "outcome", "spec"]))  # spec refused
    elif r < 0.77:
        versions = [i for i in present if ks.view().record(i).supersedes]
        target = rng.choice(versions) if versions and rng.random() < 0.8 else pick(present)
        ks.rollback(target, by="supervision", why="coverage loss")
    elif r < 0.85:
        how = rng.random()
        if how < 0.35:
            ks.flag(scope={"map": rng.choice(["A", "B"])}, why="drift", by="monitor")
        elif how < 0.6:
            ks.flag(key=(None, rng.choice(SUBJECTS), rng.choice(RELATIONS)), why="open-set", by="monitor")
        elif how < 0.85:
            ks.reconfirm(pick(present), why="asked again")
        else:
            ks.flag(scope={"map": "A"}, why="")  # refused: a flag says why
    elif r < 0.91:
        v = ks.view()
        pending = list(v.pending_flags())
        ended = [f for f in v.flags() if f not in pending]
        if pending and rng.random() < 0.8:
            ks.end_flag(rng.choice(pending), by="ann", why="re-confirmed")
        elif ended:
            ks.end_flag(rng.choice(ended), by="ann", why="again")  # refused: already ended
        else:
            ks.end_flag("f999999", by="ann", why="none")  # refused: no such flag
    else:
        ks.tick(rng.choice([1, 1, 2, 0]))  # 0 refused


_POS = re.compile(r"\b([kqfd])(\d+)\b")
_POS_FIELDS = frozenset(
    {"learned_at", "invalidated_at", "confirmed_at", "position", "opened_at", "closed_at", "ended_at"}
)


def relative_state(ks: KnowledgeStore) -> Any:
    """The store's observable record with every journal position renamed to its rank among the positions the
    record mentions: records of another kind only shift positions, never their order, so the ranks are the same.
    (It reads the store only: check 5 reads the state of a store whose journal file is closed.)"""
    v = ks.view()
    items = []
    for iid in v.ids():
        if v.status(iid) == "refused":
            items.append({"id": iid, "status": "refused", "why": v.record(iid).why})
        else:
            items.append(ks.item(iid))
    report = ks.report()
    raw = {
        "ticks": v.ticks,
        "items": items,
        "questions": ks.questions(),
        "disputes": ks.disputes(),
        "flags": report["flags"],
        "counts": [report["by_status"], report["refused_writes"], report["open_disputes"]],
    }
    mentioned: set[int] = set()

    def walk(x: Any, field: str = "", rename: dict[int, int] | None = None) -> Any:
        if isinstance(x, dict):
            return {k: walk(y, k, rename) for k, y in x.items()}
        if isinstance(x, (list, tuple)):
            return [walk(y, "", rename) for y in x]
        if isinstance(x, str):
            if rename is None:
                mentioned.update(int(m[2]) for m in _POS.finditer(x))
                return x
            return _POS.sub(lambda m: f"{m[1]}#{rename[int(m[2])]}", x)
        if field in _POS_FIELDS and isinstance(x, int) and not isinstance(x, bool):
            if rename is None:
                mentioned.add(x)
                return x
            return rename[x]
        return x

    walk(raw)
    return walk(raw, rename={p: i for i, p in enumerate(sorted(mentioned))})


CASE = OwnerCase(
    "knowledge store",
    KnowledgeStore,
    make=lambda j: KnowledgeStore(journal=j, gates=GATES),
    step=_step,
    options={"gates": GATES},
    state=relative_state,
)


def test_the_knowledge_store_conforms(tmp_path):
    check_journal_owner(CASE, seeds=(0, 1, 2), steps=40, tmp=tmp_path)


def _drive(ks: KnowledgeStore, seed: int, steps: int) -> list[tuple[int, dict]]:
    rng, seen = random.Random(seed), []
    for _ in range(steps):
        try:
            _step(ks, random.Random(rng.randrange(2**32)))
        except BadInput:
            pass
        seen.append((ks.journal.position, ks.state()))
    return seen


@pytest.mark.parametrize("seed", [3, 4])
def test_state_is_exact_live_rebuilt_and_reopened(seed, tmp_path):
    """Without other records the positions agree, so state() — fingerprint, ticks, position, retractions,
    decisions — is compared as it is: live, from_journal (also up to earlier positions) and reopened from a file."""
    path = tmp_path / "ks.sqlite"
    with KnowledgeStore.open(path, gates=GATES) as ks:
        seen = _drive(ks, seed, 60)
        assert KnowledgeStore.from_journal(ks.journal, gates=GATES).state() == ks.state()
        for pos, st in seen[::7]:
            past = KnowledgeStore.from_journal(ks.journal, upto=pos)
            assert past.state() == st and past.read_only
        live = ks.state()
    with KnowledgeStore.open(path, gates=GATES) as again:
        assert again.state() == live and not again.read_only


def test_gate_shadow_is_the_store_with_the_candidate():
    """The copy-on-write shadow a gate measures equals the store after the add (when every gate admits), and
    building it changes nothing in the live store."""
    seen: list[tuple[str, dict]] = []

    class Peek(WriteGate):
        name = "peek"

        def admit(self, store, item, shadow):
            before = store.state()
            sh = shadow.store()
            seen.append((sh.fingerprint(), relative_state_of_shadow(sh)))
            assert store.state() == before  # the live store is untouched
            return Verdict(True, "looked")

    def relative_state_of_shadow(sh):
        return sorted((i, sh.status(i)) for i in sh.view().ids())

    ks = KnowledgeStore(gates=[Peek()])
    rng, checked = random.Random(7), 0
    for _ in range(150):
        n = len(seen)
        try:
            _step(ks, random.Random(rng.randrange(2**32)))
        except BadInput:
            continue
        if len(seen) > n and ks.journal[ks.journal.position - 1].kind == "knowledge":
            last = ks.journal[ks.journal.position - 1].payload
            if last.get("op") == "add" and "refused" not in last:
                assert seen[-1][0] == ks.fingerprint()
                assert seen[-1][1] == sorted((i, ks.status(i)) for i in ks.view().ids())
                checked += 1
    assert checked > 20
    assert KnowledgeStore.from_journal(ks.journal).state() == ks.state()


def test_from_journal_views_refuse_writes_and_from_records_has_no_journal():
    ks = KnowledgeStore()
    a = ks.add("fact", {"s": "c1", "r": "tier", "o": "gold"}, source="person")
    past = KnowledgeStore.from_journal(ks.journal, upto=0)
    with pytest.raises(BadInput, match="rebuilt up to journal position 0"):
        past.add("fact", {"s": "c1", "r": "tier", "o": "vip"}, source="person")
    without = KnowledgeStore.from_journal(ks.journal, skip=[a])
    assert without.status(a) == "retracted" and without.read_only
    with pytest.raises(BadInput, match="rebuilt without some items"):
        without.tick()
    listed = KnowledgeStore.from_records(list(ks.journal))
    assert listed.journal is None and listed.fingerprint() == ks.fingerprint()
    with pytest.raises(BadInput, match="folded from a list of records"):
        listed.tick()
    with pytest.raises(BadInput, match="from_journal takes a solvi_lab.journal.Journal"):
        KnowledgeStore.from_journal(list(ks.journal))
    with pytest.raises(BadInput, match=r"upto=5 is not a journal position 0\.\.1"):
        KnowledgeStore.from_journal(ks.journal, upto=5)
    assert KnowledgeStore.from_journal(Journal()).state()["fingerprint"] == KnowledgeStore().fingerprint()


def test_the_check_catches_a_store_whose_live_path_differs_from_its_fold(tmp_path):
    class Leaky(KnowledgeStore):
        def use(self, iid, *, wrong=False):
            super().use(iid, wrong=wrong)
            self._fold._items[iid].confirmations += 1  # live only: never written, so a rebuild cannot see it

    leaky = OwnerCase(
        "leaky store",
        Leaky,
        make=lambda j: Leaky(journal=j, gates=GATES),
        step=_step,
        options={"gates": GATES},
        state=relative_state,
    )
    found = problems(leaky, seeds=(0,), steps=40, tmp=tmp_path)
    assert "seed 0: from_journal(journal) differs from the live owner" in found


def test_gate_shadow_reads_no_journal_record():
    """The shadow is built from the live store's state, not by folding the journal again: a gate asks for it while
    reading the journal is made to fail, and gets the store with the candidate."""

    class NoReplay(WriteGate):
        name = "no_replay"

        def admit(self, store, item, shadow):
            journal = store.journal
            real = journal.records
            journal.records = lambda *a, **k: (_ for _ in ()).throw(AssertionError("the shadow read the journal"))
            try:
                sh = shadow.store()
            finally:
                journal.records = real
            n = sum(1 for r in sh.view().records() if r.kind == "rule" and r.status == "active")
            return Verdict(True, "measured", {"active": n})

    ks = KnowledgeStore(gates=[NoReplay()])
    a = ks.add("rule", {"name": "r0"}, source="spec")
    b = ks.add("rule", {"name": "r1"}, source="spec")
    ks.add("rule", {"name": "r0"}, source="spec", supersedes=a)  # the new version refutes a in the shadow too
    ks.add("rule", {"name": "r2"}, source="spec", hypothesis=True)
    ks.add("rule", {"name": "r1"}, source="person", supersedes=b)
    ks.add("rule", {"name": "r3"}, source="spec")
    assert [r.payload["verdicts"][0]["measured"]["active"] for r in ks.journal] == [1, 2, 2, 2, 2, 3]
    assert KnowledgeStore.from_journal(ks.journal).state() == ks.state()
