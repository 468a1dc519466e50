"""The learner model and the world map pass the shared journal-owner conformance check (solvi_lab.conformance).

Each case drives its owner through random public writing calls — including calls it must refuse — and the check
compares the live owner with its rebuilds: from the journal, up to earlier positions, beside other kinds' records,
with the same seed again, and after closing and reopening a JSONL and an SQLite file.
"""

from __future__ import annotations

import random
import warnings

import pytest

from solvi_lab.conformance import OwnerCase, check_journal_owner
from solvi_lab.errors import BadInput, UnknownId
from solvi_lab.evidence import KIND_WEIGHTS, LearnerModel
from solvi_lab.journal import Journal
from solvi_lab.worldmap import WorldMap

DAY = 86400.0

# -- the learner model -----------------------------------------------------------------------------------------------

CONCEPTS = ["x", "y"]
MISCONCEPTIONS = ["m1", "m2", "m3"]


def _latest(m: LearnerModel) -> float:
    """The latest time the model has seen, read from its state (so a step's times never depend on the wall clock)."""
    st = m.state()
    times = [c["last_any_at"] for c in st["concepts"].values() if c["last_any_at"] is not None]
    times += [mc["last_checked_at"] for mc in st["misconceptions"].values()]
    times += [a["at"] for v in st["assertions"].values() for a in v]
    return max(times, default=0.0)


def _learner_call(m: LearnerModel, rng: random.Random) -> None:
    t = _latest(m) + rng.choice([0.0, 60.0, 3600.0, DAY, 8 * DAY, 31 * DAY])
    concept = rng.choice(CONCEPTS)
    mine = [x["id"] for x in m.misconceptions(concept, at=t)]
    r = rng.random()
    if r < 0.45:
        linked = rng.choice(mine) if mine and rng.random() < 0.5 else None
        m.record(
            concept,
            rng.choice(list(KIND_WEIGHTS)),
            rng.choice(["correct", "correct", "partial", "incorrect"]),
            score=rng.choice([None, 0.1, 0.5, 1.0]),
            hints=rng.choice([0, 0, 1, 3]),
            evaluator_confidence=rng.choice([0.5, 0.9, 1.0]),
            at=t,
            misconception_id=linked,
            dedupe_key=rng.choice([None, None, "q1", "q2"]),  # a reused key: a retry, or refused if it differs
            provenance=rng.choice([(), ["quiz 1"]]),
        )
    elif r < 0.55:
        m.open_misconception(concept, rng.choice(MISCONCEPTIONS), "a wrong idea", by="tutor", at=t)  # twice: refused
    elif r < 0.65:
        # only "active" and "stale" may be set by a person; "repairing", "resolved", "on_hold" are refused
        status = rng.choice(["active", "stale", "repairing", "resolved", "on_hold"])
        m.set_misconception_status(rng.choice(MISCONCEPTIONS), status, by="teacher", why="check", at=t)
    elif r < 0.8:
        ids = [e["id"] for e in m.trajectory(concept)]
        cites = rng.sample(ids, k=min(len(ids), rng.choice([0, 1, 2])))
        m.assert_state(
            concept,
            rng.choice([0.2, 0.95]),
            by="ana",
            source=rng.choice(["learner", "teacher"]),
            why="says so",
            at=t,
            cites=cites,
            provenance=rng.choice([(), ["chat"]]),
        )
    elif r < 0.84:
        m.record(concept, "lecture", "correct", at=t)  # refused: not an evidence kind
    elif r < 0.88:
        m.record(concept, "free_recall", "correct", at=-1.0 if m.trajectory(concept) else "yesterday")  # refused
    elif r < 0.92:
        m.assert_state(concept, 0.9, by="ana", why="trust me", at=t, cites=["e999"])  # refused: unknown id
    elif r < 0.96:
        m.assert_state(concept, 1.5, by="ana", source="robot", why="?", at=t)  # refused: mastery and source
    else:
        m.record(concept, "free_recall", "correct", at=t, misconception_id="never-opened")  # refused: unknown id


def _learner_step(m: LearnerModel, rng: random.Random) -> None:
    try:
        _learner_call(m, rng)
    except UnknownId as e:  # a refusal too (an id that does not resolve): the check watches BadInput
        raise BadInput(str(e)) from None


LEARNER = OwnerCase("learner model", LearnerModel, make=lambda j: LearnerModel(journal=j), step=_learner_step)

# -- the world map ---------------------------------------------------------------------------------------------------

STATES = ["/", "/billing", 3, ("room", 1), ("room", (2, "b")), 2.5]
ACTIONS = ["go", "Billing", ("door", 1)]


def _map_step(m: WorldMap, rng: random.Random) -> None:
    s, a, to = rng.choice(STATES), rng.choice(ACTIONS), rng.choice(STATES)
    r = rng.random()
    if r < 0.25:
        m.see(s, a, to=rng.choice([None, to]))
    elif r < 0.55:
        m.arrive(s, a, to)
    elif r < 0.75:
        m.human(s, a, to, note=rng.choice([None, "Anna"]), document=rng.random() < 0.3)
    elif r < 0.82:
        m.drop(rng.choice(["the layout changed", "world B"]))
    elif r < 0.86:
        m.see(["room", 1], a)  # refused: a list is not a state
    elif r < 0.9:
        m.arrive(s, a, None)  # refused: an arrival has a destination
    elif r < 0.93:
        m.human(s, a, to, note=7)  # refused: a note is text
    elif r < 0.96:
        m.drop("  ")  # refused: say why
    else:
        m.arrive(s, {"a": 1}, True)  # refused: neither is a state or an action


WORLDMAP = OwnerCase(
    "world map",
    WorldMap,
    make=lambda j: WorldMap(journal=j, scope="A"),
    step=_map_step,
    options={"scope": "A"},
)


@pytest.mark.parametrize("case", [LEARNER, WORLDMAP], ids=lambda c: c.name)
def test_the_owner_conforms(case, tmp_path):
    check_journal_owner(case, seeds=(0, 1, 2), steps=40, tmp=tmp_path)


def test_learner_steps_write_and_refuse():
    """The learner case reaches every writing call, accepted and refused (so the check above tests them)."""
    m, refused, rng = LearnerModel(), 0, random.Random(0)
    for _ in range(200):
        try:
            _learner_step(m, random.Random(rng.randrange(2**32)))
        except BadInput:
            refused += 1
    ops = {r.payload.get("op", r.kind) for r in m.journal}
    assert ops == {"evidence", "open_misconception", "misconception_status", "assert_state"}
    assert 0 < refused < 200
    reached = {h["to"] for mc in m.misconceptions() for h in mc["history"]}
    assert reached >= {"active", "repairing", "stale"}  # linked evidence and a person moved misconceptions


def test_learner_state_ignores_other_owners_records_and_the_wall_clock():
    shared = Journal()
    shared.append("conformance.noise", {"n": 0, "text": "another owner"})
    a, b = LearnerModel(shared), LearnerModel(timestamps=lambda: 1e9)
    for m in (a, b):
        e = m.record("x", "free_recall", "correct", at=5.0, dedupe_key="k")
        m.assert_state("x", 0.5, by="ana", why="ok", at=6.0, cites=[e])
    assert a.journal[1].kind == "evidence" and a.trajectory("x")[0]["id"] == "e1"  # ids stay journal positions
    assert a.state() == b.state() and a.snapshot() != b.snapshot()


def test_learner_timestamps_is_the_wall_clock_source_and_clock_its_old_name():
    with pytest.raises(BadInput, match="no clock; pass at="):
        LearnerModel().record("x", "recognition", "correct")
    m = LearnerModel(timestamps=lambda: 50.0)
    assert m.evidence(m.record("x", "recognition", "correct"))["at"] == 50.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = LearnerModel(clock=lambda: 7.0)
    assert [w.category for w in caught] == [DeprecationWarning]
    assert old.evidence(old.record("x", "recognition", "correct"))["at"] == 7.0
    with pytest.raises(BadInput, match="timestamps must be a callable"):
        LearnerModel(timestamps=3)


def test_learner_open_from_journal_and_views_of_the_past(tmp_path):
    path = tmp_path / "learner.sqlite"
    with LearnerModel.open(path) as m:
        e = m.record("x", "transfer", "correct", at=0)
        m.open_misconception("x", "m1", "d", by="t", at=1)
        live = m.state()
    with LearnerModel.open(path) as again:
        assert again.state() == live and again.evidence(e)["kind"] == "transfer"
        past = LearnerModel.from_journal(again.journal, upto=1)
        assert past.misconceptions() == [] and past.concept_state("x", at=0)["evidence_count"] == 1
        with pytest.raises(BadInput, match="rebuilt up to journal position 1"):
            past.record("x", "transfer", "correct", at=2)
    ks = Journal()
    with pytest.raises(BadInput, match="pass journal= or store=, not both"):
        LearnerModel(ks, store=type("S", (), {"journal": ks})())


def test_map_steps_write_and_refuse():
    m, refused, rng = WorldMap(), 0, random.Random(0)
    for _ in range(200):
        try:
            _map_step(m, random.Random(rng.randrange(2**32)))
        except BadInput:
            refused += 1
    assert {r.payload["op"] for r in m.journal} == {"see", "arrive", "human", "drop"}
    assert 0 < refused < 200 and set(m.counts().values()) != {0}


def test_map_open_journal_files_and_the_map_file_alias(tmp_path):
    for name in ("map.jsonl", "map.sqlite"):
        with WorldMap.open(tmp_path / name, scope="A") as m:
            m.arrive("a", "x", "b")
            m.human("a", "x", "c", note="Anna")
        with WorldMap.open(tmp_path / name, scope="A") as again:
            assert again.state() == m.state() and again.journal.path == tmp_path / name
            again.drop("moved")
            assert again.counts() == {"hypothesis": 2, "confirmed": 0, "refuted": 0}
    m = WorldMap.open(tmp_path / "console.map.json", scope="console")  # the specification's map file
    m.arrive("/", "Billing", "/billing")
    m.save()
    assert WorldMap(tmp_path / "console.map.json").state() == m.state()
    assert WorldMap.open(tmp_path / "console.map.json").scope == "console"


def test_map_shared_journal_one_map_per_journal_and_views_of_the_past():
    j = Journal()
    j.append("conformance.noise", {"n": 0, "text": "another owner"})
    m = WorldMap(journal=j)
    m.arrive("a", "x", "b")
    m.arrive("a", "x", "c")
    assert [c.since for c in m.claims()] == [0, 1]  # entries counted among the map's own records
    assert WorldMap.from_journal(j).state() == m.state()
    past = WorldMap.from_journal(j, upto=2)
    assert past.edges() == [("a", "x", "b", "confirmed")] and m.rebuild(upto=2).state() == past.state()
    with pytest.raises(BadInput, match="rebuilt up to journal position 2"):
        past.arrive("a", "x", "d")
    with pytest.raises(BadInput, match="already holds a world map"):
        WorldMap(journal=j)
    with pytest.raises(BadInput, match="holds other records too"):
        m.save("elsewhere.json")
    with pytest.raises(BadInput, match="not both"):
        WorldMap("m.json", journal=Journal())
    with pytest.raises(BadInput, match="pass a journal as WorldMap.journal="):
        WorldMap(Journal())


def test_a_view_of_the_past_verifies_and_snapshots_at_its_own_position():
    m = WorldMap()
    m.arrive("a", "x", "b")
    m.drop("moved")
    past = m.rebuild(upto=1)
    assert bool(past.verify()) and past.snapshot("a")["position"] == 1
    assert past.snapshot("a")["head"] == m.journal[0].hash and m.snapshot("a")["head"] == m.journal.last_hash
