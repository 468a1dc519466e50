"""Episodes: events and progress, the view and its detectors, the Chooser and its rerun (replay: the spec's name), LongMemory."""

import pytest

from solvi_lab.checks import HardCheck
from solvi_lab.decisions import DecisionLog
from solvi_lab.episodes import Chooser, Episode, EpisodeView, LongMemory
from solvi_lab.errors import BadInput
from solvi_lab.journal import Journal

try:
    from solvi_lab.knowledge import KnowledgeStore
except ImportError:  # the store is written in parallel; these tests run once it exists
    KnowledgeStore = None

needs_store = pytest.mark.skipif(KnowledgeStore is None, reason="store not yet available")


def episode_of(*acts, kind="act"):
    ep = Episode("t")
    for a in acts:
        ep.note(kind, a)
    return ep


def view_of(*acts, kind="act"):
    return EpisodeView(episode_of(*acts, kind=kind).snapshot())


# -- Episode and EpisodeView ---------------------------------------------------------------------------------------
def test_snapshot_is_plain_json_and_a_copy():
    ep = Episode("ticket 4411")
    ep.note("act", ("restart", 1), detail={"ok": False})
    snap = ep.snapshot()
    assert snap == {
        "episode": "ticket 4411",
        "events": [{"kind": "act", "key": ["restart", 1], "detail": {"ok": False}}],
    }
    snap["events"][0]["detail"]["ok"] = True
    assert ep.snapshot()["events"][0]["detail"] == {"ok": False}


def test_counts_since_progress_and_in_total():
    ep = episode_of("a", "a", "b")
    ep.progress("logged in")
    ep.note("act", "a")
    v = EpisodeView(ep.snapshot())
    assert v.count("a") == 1 and v.count("a", since_progress=False) == 3
    assert v.steps() == 1 and v.steps(since_progress=False) == 4
    assert v.counts(since_progress=False) == {"a": 3, "b": 1}
    assert v.progress == ["logged in"]


def test_keys_strings_as_they_are_others_as_json_text():
    v = view_of(1, "1", (1, 2), [1, 2], "go")
    assert v.count(1) == 2 and v.count("1") == 2  # the number 1 is kept as its JSON text "1": the string "1"
    assert v.count((1, 2)) == 2  # a tuple and a list are the same JSON
    assert v.counts() == {"1": 2, "[1,2]": 2, "go": 1}


def test_facts_board_keeps_the_latest_value():
    ep = Episode("t")
    ep.fact("door", "shut")
    ep.fact(["room", 3], "lit")
    ep.progress("x")
    ep.fact("door", "open")
    assert EpisodeView(ep.snapshot()).facts == {"door": "open", '["room",3]': "lit"}


def test_repeated_and_stalled_and_ping_pong_and_revisits():
    assert view_of("a", "b", "a", "c", "a").repeated(n=3) is True
    assert view_of("a", "b", "a").repeated(n=3) is False
    assert view_of("l", "r", "l", "r").ping_pong() is True
    assert view_of("l", "r", "l", "r").ping_pong(cycles=3) is False
    assert view_of("l", "l", "l", "l").ping_pong() is False  # one key is not a ping-pong
    assert view_of("x", "l", "r", "l", "r").ping_pong() is True  # only the tail counts
    assert view_of(*range(19)).stalled(n=20) is False
    assert view_of(*range(20)).stalled(n=20) is True
    assert view_of("p", "q", "p", "q", "p", kind="visit").revisits(n=3) is True
    assert view_of("p", "q", "p", "r", kind="visit").revisits(n=3) is False


def test_progress_resets_the_detectors():
    ep = episode_of(*(["l", "r"] * 15))
    assert EpisodeView(ep.snapshot()).looping(stalled=20) is True
    ep.progress("found the key")
    v = EpisodeView(ep.snapshot())
    assert not v.looping(stalled=1) and not v.repeated() and not v.stalled(n=1) and not v.ping_pong()


def test_looping_needs_stalled_and_repetition():
    honest = view_of(*(["retry"] * 5))  # repeated, but not stalled
    assert honest.repeated(n=3) and not honest.looping(stalled=20)
    exploring = view_of(*range(25))  # stalled, but every action new
    assert exploring.stalled(n=20) and not exploring.looping(stalled=20)
    stuck = view_of(*range(18), "a", "a", "a")
    assert stuck.looping(stalled=20)
    bouncing = view_of(*range(18), "l", "r", "l", "r")
    assert not bouncing.repeated(n=3) and bouncing.ping_pong() and bouncing.looping(stalled=20)


def test_the_specifications_looping_call_detects_a_loop_of_any_kind_of_event():
    """Spec: "return not EpisodeView(episode).looping(stalled=20)" and "EpisodeView gives the counts ..., the facts
    board and the detectors repeated, ping_pong, stalled, revisits, and looping (stalled and one of the first two —
    single detectors fire on honest repetition)": the detectors read the episode's events, every kind of them."""
    for kind in ("place", "move", "act"):
        v = view_of(*(["table", "chair"] * 12), kind=kind)
        assert v.looping(stalled=20) is True, kind
        assert (v.repeated(), v.ping_pong(), v.stalled()) == (True, True, True), kind
    # events of several kinds make one stream: 10 acts and 10 places, always the same two keys, loop together
    ep = Episode("mixed")
    for _ in range(10):
        ep.note("act", "look")
        ep.note("place", "table")
    v = EpisodeView(ep.snapshot())
    assert v.looping(stalled=20) is True and v.stalled() is True
    # kind= narrows: 10 of each is not stalled at 20 for one kind alone
    assert v.looping(stalled=20, kind="act") is False and v.looping(stalled=20, kind="place") is False
    assert v.looping(stalled=20, kind=["act", "place"]) is True


def test_the_default_detectors_do_not_count_progress_facts_or_honest_work():
    """Negative case of "looping (stalled and one of the first two — single detectors fire on honest repetition)":
    with every kind counted, facts and progress are still not events of the loop, exploring many different places
    is not a loop, and progress starts the count again."""
    ep = Episode("board")
    for i in range(30):
        ep.fact("door", i % 2)  # the facts board changes 30 times: not a step of the agent
    assert EpisodeView(ep.snapshot()).stalled(n=1) is False
    exploring = view_of(*range(25), kind="place")
    assert exploring.stalled(n=20) and not exploring.repeated() and not exploring.looping(stalled=20)
    ep = episode_of(*(["table", "chair"] * 12), kind="place")
    ep.progress("table set")
    v = EpisodeView(ep.snapshot())
    assert (v.repeated(), v.ping_pong(), v.stalled(n=1), v.looping(stalled=1)) == (False, False, False, False)
    assert view_of(*(["table", "chair"] * 12), kind="place").looping(stalled=20, kind="act") is False


def test_a_check_reads_the_snapshot_like_any_fact():
    not_in_a_loop = HardCheck(
        "not_in_a_loop", lambda given, answer: not EpisodeView(given["episode"]).looping(), then={"action": "handoff"}
    )
    ep = episode_of(*(["l", "r"] * 10))
    assert not not_in_a_loop({"episode": ep.snapshot()}, {"action": "l"})


def test_bad_episode_input():
    with pytest.raises(BadInput, match="non-empty string name"):
        Episode("")
    ep = Episode("t")
    with pytest.raises(BadInput, match="event kind"):
        ep.note("", "x")
    with pytest.raises(BadInput, match="JSON value"):
        ep.note("act", {1, 2})
    with pytest.raises(BadInput, match="progress needs"):
        ep.progress("")
    with pytest.raises(BadInput, match="episode snapshot"):
        EpisodeView([])
    with pytest.raises(BadInput, match="event 0"):
        EpisodeView({"events": ["act"]})
    with pytest.raises(BadInput, match="n must be an int"):
        view_of("a").repeated(n=0)
    with pytest.raises(BadInput, match="record needs"):
        ep.record(None, "solved")


# -- Chooser -------------------------------------------------------------------------------------------------------
OPTIONS = {"retry": "press the button again", "reset": "reset the router", "handoff": "call a person"}


def test_the_model_proposes_and_a_valid_proposal_stands():
    ep = Episode("e")
    seen = []
    ch = Chooser(lambda given: seen.append(given) or "reset")
    c = ch.choose("next", "fix the line", OPTIONS, context={"line": 7}, rule="handoff", episode=ep)
    assert (c.option, c.action, c.answered_by, c.refused) == ("reset", "reset the router", "system2", None)
    assert seen[0] == {
        "task": "fix the line",
        "options": ["retry", "reset", "handoff"],
        "context": {"line": 7},
        "episode": {"episode": "e", "events": []},
    }
    assert EpisodeView(ep.snapshot()).count("reset") == 1  # the step is noted in the episode


def test_a_repeated_option_without_progress_is_turned_down_and_the_rule_answers():
    ep = Episode("e")
    ch = Chooser(lambda given: "retry")
    first = ch.choose("next", "t", OPTIONS, rule="handoff", episode=ep)
    second = ch.choose("next", "t", OPTIONS, rule="handoff", episode=ep)
    assert first.option == "retry"
    assert (second.option, second.answered_by, second.proposed) == ("handoff", "rule", "retry")
    assert second.refused == "'retry' was already done without progress"
    ep.progress("the line came back")
    assert ch.choose("next", "t", OPTIONS, rule="handoff", episode=ep).option == "retry"  # progress reopens it


def test_an_option_not_on_offer_and_a_refusing_check_fall_to_the_rule():
    ch = Chooser(lambda given: "reboot the world")
    c = ch.choose("next", "t", OPTIONS, rule=lambda given: given["options"][-1])
    assert (c.option, c.refused) == ("handoff", "'reboot the world' is not on offer")
    ch = Chooser(lambda given: "reset")
    c = ch.choose("next", "t", OPTIONS, rule="handoff", check=lambda given, option: option != "reset")
    assert (c.option, c.refused) == ("handoff", "the check refused 'reset'")
    ch = Chooser(lambda given: {1, 2})  # not even JSON: recorded as its repr
    assert ch.choose("next", "t", OPTIONS, rule="handoff").proposed == "{1, 2}"


def test_every_step_is_recorded_in_the_journal():
    j = Journal()
    ch = Chooser(lambda given: "retry", journal=j)
    ep = Episode("e")
    ch.choose("next", "t", OPTIONS, rule="handoff", episode=ep)
    ch.choose("next", "t", OPTIONS, rule="handoff", episode=ep)
    log = DecisionLog(j)
    assert [(d.answer["option"], d.answered_by) for d in log] == [("retry", "system2"), ("handoff", "rule")]
    assert EpisodeView(ep.snapshot()).counts(since_progress=False) == {"retry": 1, "handoff": 1}
    log2 = DecisionLog(Journal())
    assert Chooser(lambda g: "retry", journal=log2).log is log2


def test_rerun_matches_an_unchanged_model_and_catches_a_changed_one():
    j = Journal()
    proposals = iter(["retry", "retry", "reset"])
    state = {"model": lambda given: next(proposals)}
    ch = Chooser(lambda given: state["model"](given), journal=j)
    ep = Episode("e")
    made = [ch.choose("next", "t", OPTIONS, rule="handoff", episode=ep) for _ in range(3)]
    assert [c.option for c in made] == ["retry", "handoff", "reset"]

    # a deterministic model of the same behaviour replays: it reads the recorded episode
    def same(given):
        done = EpisodeView(given["episode"]).counts(since_progress=False)
        return "reset" if done.get("handoff") else "retry"

    state["model"] = same
    report = ch.rerun()
    assert report.ok and report.checked == 3 and report.mismatches == []
    state["model"] = lambda given: "reset"  # the model changed
    report = ch.replay()
    assert not report.ok
    assert [(m["id"], m["old"]["option"], m["new"]["option"]) for m in report.mismatches] == [
        (made[0].decision, "retry", "reset"),
        (made[1].decision, "handoff", "reset"),
    ]


def test_rerun_of_a_reloaded_log_needs_the_rules():
    j = Journal()
    Chooser(lambda g: "retry", journal=j).choose("next", "t", OPTIONS, rule="handoff")
    fresh = Chooser(lambda g: "retry", journal=j)
    report = fresh.rerun()
    assert report.unchecked == ["d0"] and not report.ok
    assert fresh.rerun(rules={"next": "handoff"}).ok


def test_the_specifications_names_storage_and_replay_are_the_same_calls():
    j = Journal()
    ch = Chooser(lambda g: "retry", storage=j)  # Chooser(model, storage=...): the specification's name for journal=
    ch.choose("next", "t", OPTIONS, rule="handoff")
    assert ch.log.journal is j and [d.id for d in DecisionLog(j)] == ["d0"]
    assert ch.replay() == ch.rerun() and ch.replay().checked == 1  # chooser.replay(): the spec's name for rerun
    with pytest.raises(BadInput, match="journal must be a Journal, a DecisionLog or None, got str"):
        Chooser(lambda g: 1, journal="log.jsonl")
    with pytest.raises(BadInput, match="not both"):
        Chooser(lambda g: 1, journal=j, storage=j)


def test_bad_chooser_input():
    ch = Chooser(lambda g: "retry")
    with pytest.raises(BadInput, match="model must be a callable"):
        Chooser("gpt")
    with pytest.raises(BadInput, match="storage must be"):
        Chooser(lambda g: 1, storage="log.jsonl")
    with pytest.raises(BadInput, match="needs rule="):
        ch.choose("next", "t", OPTIONS)
    with pytest.raises(BadInput, match="non-empty dict"):
        ch.choose("next", "t", {}, rule="x")
    with pytest.raises(BadInput, match="not on offer"):
        Chooser(lambda g: "nope").choose("next", "t", OPTIONS, rule="also nope")
    with pytest.raises(BadInput, match="episode must be"):
        ch.choose("next", "t", OPTIONS, rule="handoff", episode={"events": []})
    with pytest.raises(BadInput, match="non-empty string name"):
        ch.choose("", "t", OPTIONS, rule="handoff")


# -- LongMemory ----------------------------------------------------------------------------------------------------
def test_long_memory_records_and_decays_per_episode():
    lm = LongMemory(decay=0.5)
    lm.record("door", "push", +1)
    lm.record("door", "push", +1)
    lm.record("door", "pull", -1)
    assert lm.scores("door") == {"pull": -1.0, "push": 2.0}
    lm.end_episode()
    assert lm.scores("door") == {"pull": -0.5, "push": 1.0}
    lm.end_episode()
    assert lm.score("door", "push") == 0.5 and lm.score("door", "kick") == 0.0
    assert lm.scores("window") == {}


def test_long_memory_keys_and_contexts_follow_the_key_rule():
    lm = LongMemory()
    lm.record(1, 1, +1)
    lm.record("1", "1", -1)  # the number 1 is kept as its JSON text "1": the same key as the string "1"
    assert lm.scores(1) == {"1": 0.0} and lm.scores("1") == {"1": 0.0}
    lm.record(("room", 3), ("go", "n"), +1)
    lm.record(["room", 3], ["go", "n"], +1)  # the same JSON as the tuples: the same context and key
    assert lm.scores(("room", 3)) == {'["go","n"]': 2.0}


def test_long_memory_round_trips_and_refuses_bad_input():
    lm = LongMemory(decay=0.9)
    lm.record("c", "k", -1)
    assert LongMemory.from_dict(lm.to_dict()).to_dict() == lm.to_dict()
    for decay in (0, 1.5, True, "0.9"):
        with pytest.raises(BadInput, match="decay"):
            LongMemory(decay=decay)
    for outcome in (0, 2, 0.5, True):
        with pytest.raises(BadInput, match="outcome must be"):
            lm.record("c", "k", outcome)
    with pytest.raises(BadInput, match="JSON value"):
        lm.record({1, 2}, "k", 1)
    with pytest.raises(BadInput, match="to_dict"):
        LongMemory.from_dict({"scores": {}})


def test_long_memory_calls_wait_for_one_in_progress_and_copies_keep_their_scores():
    """One agent's threads share a LongMemory (issue 40's thread mix): each call holds its lock, so a decay or a
    read never iterates a row another thread is growing (a bare RuntimeError before) nor loses an update."""
    import copy
    import pickle
    import threading

    lm = LongMemory(decay=0.5)
    lm.record("c", "k", +1)
    got: list = []
    with lm._lock:  # a call in progress
        t = threading.Thread(target=lambda: (lm.record("c", "new", +1), got.append(lm.scores("c"))))
        t.start()
        t.join(0.2)
        assert got == []  # still waiting
    t.join()
    assert got == [{"k": 1.0, "new": 1.0}]
    for other in (copy.deepcopy(lm), pickle.loads(pickle.dumps(lm))):
        assert other.to_dict() == lm.to_dict() and other._lock is not lm._lock
        other.record("c", "k", +1)  # its own lock works
        assert other.score("c", "k") == 2.0 and lm.score("c", "k") == 1.0


# -- the store -----------------------------------------------------------------------------------------------------
@needs_store
def test_record_keeps_the_finished_episode_as_an_outcome_episode_item():
    ks = KnowledgeStore()
    ep = episode_of("a", "b")
    ep.progress("solved")
    d = ks.decisions.record("next", {"x": 1}, "a", answered_by="rule")
    iid = ep.record(ks, "solved", stored_ids=[d.id])
    rec = ks.item(iid)
    assert rec["kind"] == "episode" and rec["source"] == "outcome" and rec["status"] == "active"
    assert rec["body"] == {**ep.snapshot(), "outcome": "solved", "stored_ids": [d.id]}
    assert rec["evidence"] == {"stored_ids": [d.id]}
    # a record, never an answerer: it is not given to a decision as a fact
    snap = ks.snapshot(about="t")
    assert iid not in snap["rests_on"] and all(f["id"] != iid for f in snap["facts"])
    assert ks.verify()
    with pytest.raises(BadInput, match="stored_ids"):
        ep.record(ks, "solved", stored_ids=[3])


def test_a_rule_answering_something_not_json_is_refused_clearly():
    with pytest.raises(BadInput, match="rule's option"):
        Chooser(lambda g: "nope").choose("next", "t", OPTIONS, rule=lambda g: {1, 2})
