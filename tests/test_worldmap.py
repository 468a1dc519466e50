"""WorldMap: claims, searches, the journal (save/load/verify/rebuild), drop, and the knowledge-store view."""

from __future__ import annotations

import json

import pytest

from solvi_lab.errors import BadInput, CorruptJournal
from solvi_lab.worldmap import FORMAT, WorldMap, decode, encode


def _line() -> WorldMap:
    """a --x--> b --y--> c, all confirmed; c offers z (unknown destination)."""
    m = WorldMap()
    m.arrive("a", "x", "b")
    m.arrive("b", "y", "c")
    m.see("c", "z")
    return m


# -- claims -------------------------------------------------------------------------------------------------------


def test_see_makes_a_hypothesis_and_arrive_confirms_it():
    m = WorldMap()
    m.see("/", "Billing", to="/billing")
    (c,) = m.claims("/", "Billing")
    assert (c.status, c.source, c.evidence) == ("hypothesis", "seen", {"seen": 1})
    arrival = m.arrive("/", "Billing", "/billing")
    assert (arrival.was, arrival.status, arrival.refuted, arrival.contradicted) == (
        "hypothesis",
        "confirmed",
        (),
        False,
    )
    (c,) = m.claims("/", "Billing")
    assert (c.status, c.source, c.evidence) == ("confirmed", "seen", {"seen": 1, "observed": 1})


def test_see_without_destination_is_replaced_by_the_arrival():
    m = WorldMap()
    m.see("/", "Help")
    assert [(c.to, c.status) for c in m.claims("/", "Help")] == [(None, "hypothesis")]
    m.arrive("/", "Help", "/help")
    assert [(c.to, c.status, c.source) for c in m.claims("/", "Help")] == [("/help", "confirmed", "observed")]


def test_arrive_refutes_a_claim_with_another_destination_whoever_made_it():
    m = WorldMap()
    m.human("/", "Reports", "/audit", note="Anna")
    m.human("/", "Reports", "/old-reports", document=True)
    m.see("/", "Reports", to="/rep")
    arrival = m.arrive("/", "Reports", "/reports")
    assert arrival.was is None
    assert sorted(c.to for c in arrival.refuted) == ["/audit", "/old-reports", "/rep"]
    assert arrival.refuted_was == ("hypothesis", "hypothesis", "hypothesis")
    assert not arrival.contradicted  # nobody had confirmed them
    sources = {c.to: (c.status, c.source) for c in m.claims("/", "Reports")}
    assert sources == {
        "/audit": ("refuted", "human"),
        "/old-reports": ("refuted", "told"),
        "/rep": ("refuted", "seen"),
        "/reports": ("confirmed", "observed"),
    }
    # the world changed: the arrival refutes even a confirmed claim, and says so
    arrival = m.arrive("/", "Reports", "/audit")
    assert arrival.was == "refuted" and arrival.refuted_was == ("confirmed",) and arrival.contradicted
    assert m.counts() == {"hypothesis": 0, "confirmed": 1, "refuted": 3}


def test_human_notes_and_arguments_checked():
    m = WorldMap()
    m.human("/", "Reports", "/audit", note="Anna")
    m.human("/", "Reports", "/audit", note="Bob")
    (c,) = m.claims("/", "Reports")
    assert c.notes == ["Anna", "Bob"] and c.evidence == {"human": 2} and c.status == "hypothesis"
    with pytest.raises(BadInput, match="note must be a string"):
        m.human("/", "Reports", "/audit", note=3)
    with pytest.raises(BadInput, match="`to` is the state the action led to"):
        m.arrive("/", "Reports", None)
    with pytest.raises(BadInput, match="say why"):
        m.drop("  ")


# -- searching ------------------------------------------------------------------------------------------------------


def test_next_follows_the_shortest_path_and_prefers_confirmed():
    m = _line()
    assert m.next("a", {"c"}) == "x"
    assert m.next("b", {"c"}) == "y"
    assert m.next("c", {"c"}) is None  # already there
    assert m.next("c", {"a"}) is None  # no known way back
    # a hypothesis shortcut is shorter: taken, unless only confirmed edges may be walked
    m.human("a", "jump", "c", note="Anna")
    assert m.next("a", {"c"}) == "jump"
    assert m.next("a", {"c"}, confirmed_only=True) == "x"
    # equal length: the confirmed edge wins
    m.human("a", "x2", "b")
    assert m.next("a", {"b"}) == "x"
    assert [c.action for c in m.route("a", {"c"}, confirmed_only=True)] == ["x", "y"]


def test_next_ignores_refuted_claims():
    m = WorldMap()
    m.human("a", "door", "b")
    m.arrive("a", "door", "c")
    assert m.next("a", {"b"}) is None
    assert m.next("a", {"b", "c"}) == "door"


def test_explore_heads_to_the_nearest_unchecked_claim():
    m = _line()
    assert m.explore("c") == "z"  # here
    assert m.explore("a") == "x"  # two confirmed steps away
    m.see("a", "w")
    assert m.explore("a") == "w"  # now one here
    m.arrive("a", "w", "d")
    m.arrive("c", "z", "a")
    assert m.explore("a") is None  # nothing left to check
    with pytest.raises(BadInput, match="collection of states"):
        m.next("a", "c")


def test_snapshot_is_plain_json():
    m = _line()
    snap = m.snapshot("a", {"c"})
    assert json.loads(json.dumps(snap)) == snap
    assert snap["next"] == "x" and [r["action"] for r in snap["route"]] == ["x", "y"]
    assert snap["explore"] == "x" and snap["position"] == 3 and snap["counts"]["confirmed"] == 2


# -- states and actions ---------------------------------------------------------------------------------------------


def test_tuple_states_round_trip_exactly(tmp_path):
    path = tmp_path / "m.json"
    m = WorldMap(path)
    room = ("room", 3, (1.5, "x"))
    m.arrive(room, ("go", 1), ("room", 4))
    m.arrive(("room", 4), 7, 2.5)
    m.see(2.5, "back", to=room)
    m.save()
    again = WorldMap(path)
    assert again.edges() == m.edges()
    assert (("room", 4), 7, 2.5, "confirmed") in again.edges()
    rooms = {c.state for c in again.claims()}
    assert room in rooms and all(type(s) in (tuple, float) for s in rooms)
    assert again.next(room, {room}) is None and again.next(room, {2.5}) == ("go", 1)
    assert decode(encode(room)) == room and type(decode(encode((1,)))) is tuple


@pytest.mark.parametrize("bad", [["room", 3], {"room": 3}, None, True, float("nan"), {1, 2}, ("ok", [1])])
def test_other_state_types_are_refused_when_reported(bad):
    m = WorldMap()
    with pytest.raises(BadInput, match="a state or an action is a str|not a finite number"):
        m.see(bad, "go")
    with pytest.raises(BadInput):
        m.arrive("a", bad, "b")
    assert len(m.journal) == 0  # nothing half-written


# -- the journal ----------------------------------------------------------------------------------------------------


def test_save_and_load_replays_the_journal(tmp_path):
    path = tmp_path / "map.json"
    m = WorldMap(path, scope="console")
    m.see("/", "Billing")
    m.arrive("/", "Billing", "/billing")
    m.human("/billing", "Refunds", "/billing/refunds", note="Anna")
    m.save()
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT and len(doc["records"]) == 3 and len(doc["edges"]) == 2
    again = WorldMap(path)
    assert again.scope == "console" and again.edges() == m.edges() and again.journal.head() == m.journal.head()
    assert bool(again.verify())
    again.arrive("/billing", "Refunds", "/billing/refunds")  # a loaded map keeps writing
    assert again.claims("/billing", "Refunds")[0].status == "confirmed"
    with pytest.raises(BadInput, match="holds the map 'console'"):
        WorldMap(path, scope="other")


def test_an_edge_edited_in_the_file_changes_nothing(tmp_path):
    path = tmp_path / "map.json"
    m = WorldMap(path)
    m.human("/", "Reports", "/audit")
    m.save()
    doc = json.loads(path.read_text())
    doc["edges"][0]["status"] = "confirmed"
    doc["edges"][0]["to"] = "/elsewhere"
    path.write_text(json.dumps(doc))
    again = WorldMap(path)
    assert again.edges() == [("/", "Reports", "/audit", "hypothesis")]


@pytest.mark.parametrize("edit", ["payload", "delete", "reorder", "hash", "format"])
def test_a_broken_chain_raises(tmp_path, edit):
    path = tmp_path / "map.json"
    m = WorldMap(path)
    m.arrive("a", "x", "b")
    m.arrive("b", "y", "c")
    m.arrive("c", "z", "a")
    m.save()
    doc = json.loads(path.read_text())
    recs = doc["records"]
    if edit == "payload":
        recs[1]["payload"]["to"] = "elsewhere"
    elif edit == "delete":
        del recs[0]
    elif edit == "reorder":
        recs[0], recs[1] = recs[1], recs[0]
    elif edit == "hash":
        recs[2]["prev"] = "0" * 64
    else:
        doc["format"] = "something else"
    path.write_text(json.dumps(doc))
    with pytest.raises(CorruptJournal, match="(?i)restore|not a world map file"):
        WorldMap(path)


def test_not_json_raises_corrupt(tmp_path):
    path = tmp_path / "map.json"
    path.write_text("{ not json")
    with pytest.raises(CorruptJournal, match="not valid JSON"):
        WorldMap(path)


def test_verify_catches_a_map_changed_outside_its_journal():
    m = _line()
    assert bool(m.verify())
    for by_action in m._edges.values():
        for bucket in by_action.values():
            for c in bucket.values():
                c.status = "refuted"
    report = m.verify()
    assert not report and "replay" in report.problem


def test_rebuild_upto_gives_the_map_as_it_was():
    m = WorldMap()
    m.human("a", "x", "b")  # 1 entry
    m.arrive("a", "x", "c")  # 2 entries: b refuted, c confirmed
    m.drop("moved")  # 3 entries
    assert m.rebuild(upto=0).edges() == []
    assert m.rebuild(upto=1).edges() == [("a", "x", "b", "hypothesis")]
    assert m.rebuild(upto=2).edges() == [("a", "x", "b", "refuted"), ("a", "x", "c", "confirmed")]
    assert m.rebuild(upto=3).edges() == m.edges() == [("a", "x", "b", "refuted"), ("a", "x", "c", "hypothesis")]
    with pytest.raises(BadInput, match="between 0 and 3"):
        m.rebuild(upto=4)


# -- drop -----------------------------------------------------------------------------------------------------------


def test_drop_then_arrivals_reconfirm_or_refute():
    m = _line()
    assert m.drop("the layout may have changed") == 2
    assert m.counts() == {"hypothesis": 3, "confirmed": 0, "refuted": 0}
    assert all(c.dropped for c in m.claims() if c.to is not None)
    assert m.next("a", {"c"}, confirmed_only=True) is None  # nothing confirmed to walk on
    assert m.next("a", {"c"}) == "x"  # hypotheses still give a way
    assert m.explore("a") == "x"  # and they are what to check first
    same = m.arrive("a", "x", "b")
    assert (same.was, same.status, same.claim.dropped) == ("hypothesis", "confirmed", False)
    changed = m.arrive("b", "y", "a")
    assert changed.contradicted and changed.refuted[0].to == "c" and changed.refuted[0].dropped
    assert m.edges() == [("a", "x", "b", "confirmed"), ("b", "y", "a", "confirmed"), ("b", "y", "c", "refuted")]


# -- the knowledge store --------------------------------------------------------------------------------------------

knowledge = pytest.importorskip("solvi_lab.knowledge")


def test_claims_are_facts_and_view_equals_the_map():
    ks = knowledge.KnowledgeStore()
    m = WorldMap(knowledge=ks, scope="A")
    m.see("/", "Billing", to="/billing")
    m.human("/", "Billing", "/bill2", note="Anna")
    m.human("/", "Reports", "/audit", note="Bob")
    m.human("/", "Help", "/help", document=True)
    m.see("/", "Quit")  # no destination: no fact
    m.arrive(("room", 1), "east", ("room", 2))

    def same() -> bool:
        return WorldMap.view(ks, "A").edges() == m.edges()

    assert same()
    facts = ks.query(kind="fact", r="leads_to", scope={"map": "A"})
    assert [(f["source"], f["status"]) for f in facts] == [
        ("spec", "hypothesis"),
        ("person", "hypothesis"),
        ("person", "hypothesis"),
        ("spec", "hypothesis"),
        ("outcome", "active"),
    ]
    assert facts[-1]["body"] == {"s": [{"t": ["room", 1]}, "east"], "r": "leads_to", "o": {"t": ["room", 2]}}
    m.arrive("/", "Reports", "/reports")
    m.arrive("/", "Billing", "/billing")
    assert same()
    assert ks.item(facts[2]["id"])["status"] == "refuted"  # the person's /audit, refuted by the outcome
    m.drop("moved")
    assert same() and ks.report()  # the store's outcomes are stale under the flag: hypotheses in the view
    m.arrive("/", "Billing", "/billing")
    m.arrive("/", "Reports", "/r3")
    assert same() and bool(ks.verify()) and bool(m.verify())
    assert WorldMap.view(ks, "other").edges() == []


def test_a_loaded_map_keeps_its_store_items(tmp_path):
    ks = knowledge.KnowledgeStore()
    path = tmp_path / "map.json"
    m = WorldMap(path, knowledge=ks, scope="A")
    m.arrive("a", "x", "b")
    m.save()
    item = m.claims("a", "x")[0].items[0]
    again = WorldMap(path, knowledge=ks)
    assert again.scope == "A" and again.claims("a", "x")[0].items == [item]
    assert ks.item(item)["body"]["o"] == "b"
    again.arrive("a", "x", "c")
    assert ks.item(item)["status"] == "refuted"
    assert WorldMap.view(ks, "A").edges() == again.edges()


def test_drop_raises_a_flag_on_the_maps_scope():
    ks = knowledge.KnowledgeStore()
    m = WorldMap(knowledge=ks, scope="A")
    m.arrive("a", "x", "b")
    (item,) = m.claims("a", "x")[0].items
    assert not ks.stale(item)
    m.drop("world B")
    assert ks.stale(item)
    flag = m.journal[-1].payload["flag"]
    assert flag.startswith("f")
    m.arrive("a", "x", "b")  # re-confirmed: a newer observation
    assert WorldMap.view(ks, "A").edges() == [("a", "x", "b", "confirmed")]


# -- the map file's load promise (issue 25, 5): one error type for any bad file, a head against cuts -------------
def _saved_map(tmp_path):
    path = tmp_path / "map.json"
    m = WorldMap(path, scope="console")
    m.arrive("a", "x", "b")
    m.arrive("b", "y", "c")
    m.human("c", "z", "é日本", note="Anna")
    m.save()
    return m, path


def test_a_map_file_ends_with_its_head(tmp_path):
    m, path = _saved_map(tmp_path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "solvi_lab.worldmap/2" and list(doc)[-1] == "head"
    assert doc["head"] == {"count": 3, "hash": m.journal.last_hash}


@pytest.mark.parametrize("cut", ["last record", "last two", "head count", "head hash", "no head"])
def test_a_map_file_that_lost_records_is_refused(tmp_path, cut):
    _, path = _saved_map(tmp_path)
    doc = json.loads(path.read_text())
    if cut == "last record":
        doc["records"].pop()
    elif cut == "last two":
        del doc["records"][-2:]
    elif cut == "head count":
        doc["records"].pop()
        doc["head"]["count"] = 2
    elif cut == "head hash":
        doc["head"]["hash"] = "0" * 64
    else:
        del doc["head"]
    path.write_text(json.dumps(doc))
    with pytest.raises(CorruptJournal, match="(?i)cut|head"):
        WorldMap(path)


def test_every_bad_byte_of_a_map_file_is_a_corrupt_journal(tmp_path):
    """One error type for any bad file: a byte that is not UTF-8 (once a bare UnicodeDecodeError), deep nesting, a
    5,000-digit int — each is a CorruptJournal."""
    _, path = _saved_map(tmp_path)
    good = path.read_bytes()
    at = good.index("é".encode())
    path.write_bytes(good[:at] + b"\xff" + good[at + 1 :])
    with pytest.raises(CorruptJournal, match=r"not UTF-8 text \(a bad byte at offset \d+\)"):
        WorldMap(path)
    path.write_text('{"format": "solvi_lab.worldmap/2", "records": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(CorruptJournal, match="not valid JSON"):
        WorldMap(path)
    path.write_text('{"format": "solvi_lab.worldmap/2", "records": [], "n": ' + "7" * 5000 + "}")
    with pytest.raises(CorruptJournal, match="not valid JSON"):
        WorldMap(path)
    path.write_bytes(b"")
    with pytest.raises(CorruptJournal, match="not valid JSON"):
        WorldMap(path)


def test_an_intact_map_file_and_an_old_one_without_a_head_still_load(tmp_path):
    """Negative case: the head refuses only what disagrees with it; a format /1 file (no head) loads with a warning
    that a cut of it could not be noticed."""
    m, path = _saved_map(tmp_path)
    assert WorldMap(path).edges() == m.edges()
    doc = json.loads(path.read_text())
    doc["format"] = "solvi_lab.worldmap/1"
    del doc["head"]
    path.write_text(json.dumps(doc))
    with pytest.warns(UserWarning, match="without a head"):
        assert WorldMap(path).edges() == m.edges()
