"""Transfer to another policy (the wanderer), calls at a rule's exact amount, the edge probes of the installed
Crafter, and the survivor's pieces."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from solvi_lab.actions import ConservativeActionModel
from solvi_lab.errors import BadInput
from solvi_lab.studies.crafter import evaluation, learning, probe, protocol
from solvi_lab.studies.crafter.env import CrafterWorld, SymState
from solvi_lab.studies.crafter.survivor import PIECES, Survivor
from solvi_lab.studies.crafter.vocabulary import ITEMS, vocabulary

BASE = CrafterWorld(seed=1).state


def _state(inv: dict[str, int], faced: tuple[str, str] = ("grass", "none")) -> SymState:
    """A real state (seed 1's first) at (5, 5) facing down, with this inventory and faced cell."""
    full = {**{k: 0 for k in ITEMS}, "health": 9, "food": 9, "drink": 9, "energy": 9, **inv}
    return replace(BASE, inventory=full, faced=faced, pos=(5, 5), facing=(0, 1))


def test_the_edge_probe_finds_crafting_refused_on_the_first_row_and_column_only() -> None:
    rows = probe.edge_probes(seed=0)
    assert len(rows) == 6 * len(probe.PLACES)  # every make call of data.yaml at every place
    differs = probe.differences(rows)
    assert {r["where"] for r in differs} == {"left edge (x = 0)", "top edge (y = 0)"}
    assert len(differs) == 12  # six make calls, two edges
    assert all(r["accepted"] for r in rows if r["where"] in ("interior", "right edge", "bottom edge"))


def test_the_wanderer_is_its_own_policy_and_its_calls_are_labelled() -> None:
    w = CrafterWorld(seed=3)
    calls = evaluation.record([w], steps=120, seed=0)
    assert calls and all({"call", "state", "accepted", "world"} <= set(c) for c in calls)
    assert not w.done and w.state.step == 0  # the world was copied, not stepped
    assert evaluation.record([w], steps=120, seed=0)[0]["call"] == calls[0]["call"]  # seeded


def test_transfer_counts_abstentions_false_accepts_and_the_accept_share() -> None:
    model = ConservativeActionModel(vocabulary(), journal=False)
    ok = _state({"wood": 1}, ("table", "none"))
    model.observe(ok, "make_wood_pickaxe", {}, accepted=True, effect={"wood": -1, "wood_pickaxe": 1})
    calls = [
        {"call": "make_wood_pickaxe", "state": ok, "accepted": True},  # seen: accept
        {"call": "make_wood_sword", "state": ok, "accepted": True},  # never seen: unknown
        {"call": "make_wood_sword", "state": _state({}), "accepted": False},  # never seen: unknown
    ]
    t = evaluation.transfer(model, calls)
    assert t["calls"] == 3 and t["abstained"] == 2 and t["false_accepts"] == 0
    assert t["env_accepted"] == 2 and t["accepted_predicted_accept"] == 1 and t["accept_share"] == 0.5
    b = evaluation.boundary(model, calls)
    row = b.filter((b["action"] == "make_wood_pickaxe") & (b["rule"] == "inv:wood>=1")).row(0, named=True)
    assert (row["calls"], row["accepted"], row["predicted_accept"], row["false_accepts"]) == (1, 1, 1, 0)
    sword = b.filter((b["action"] == "make_wood_sword") & (b["rule"] == "inv:wood>=1")).row(0, named=True)
    assert (sword["calls"], sword["accepted"], sword["predicted_accept"]) == (
        1,
        1,
        0,
    )  # the one with 0 wood not counted


def test_a_model_trained_on_more_varied_calls_abstains_less_without_false_accepts() -> None:
    worlds = [CrafterWorld(seed=s) for s in (0, 1)]
    held = [CrafterWorld(seed=100)]
    train = learning.record([w.seed for w in worlds], 300, 0, {w.seed: w for w in worlds})
    wander_train = evaluation.record(worlds, 300, 0)
    wander_test = evaluation.record(held, 300, 0)
    alone = evaluation.transfer(learning.train(train), wander_test)
    both = evaluation.transfer(learning.train(train + wander_train), wander_test)
    assert alone["false_accepts"] == 0 and both["false_accepts"] == 0
    assert both["abstention_share"] < alone["abstention_share"]


def test_survivor_arms_name_their_pieces() -> None:
    assert protocol.survivor_arm("survivor") == {}
    assert protocol.survivor_arm("survivor-no_carried") == {"use_model": False}
    assert {p: protocol.survivor_arm(f"survivor-no_{p}") for p in PIECES}["failures"] == {"failures": False}
    assert protocol.survivor_arm("agenda") is None
    with pytest.raises(BadInput, match="unknown survivor piece"):
        protocol.survivor_arm("survivor-no_luck")


def test_the_survivor_tries_for_a_sapling_once_per_cell_and_plants_in_a_walled_spot() -> None:
    s = Survivor(rng=random.Random(0))
    facing_grass = _state({})
    assert s._garden(facing_grass) == "do"  # no sapling: try this grass cell
    assert s._garden(facing_grass) is None  # ... once
    # a sapling, a stone, grass ahead walled by trees on its three other sides, free cells behind: plant, then close
    s.nav.cells.update(
        {(5, 6): "grass", (4, 6): "tree", (6, 6): "tree", (5, 7): "tree", (5, 4): "grass", (5, 3): "grass"}
    )
    holding = _state({"sapling": 1, "stone": 1})
    assert s._garden(holding) == "place_plant"
    assert s.gardens[(5, 6)]["door"] == (5, 5)
    assert [a for a, _ in s._macro] == ["move_up", "move_up", "move_down", "place_stone"]


def test_a_short_survivor_episode_runs_in_the_protocol() -> None:
    rows = protocol.play_arms([CrafterWorld(seed=4)], 80, 0, arms=("survivor", "survivor-no_world_map"))
    assert rows.height == 2 and set(rows["arm"]) == {"survivor", "survivor-no_world_map"}
    assert rows["died"].to_list() == [r is not None for r in rows["cause"].to_list()]
