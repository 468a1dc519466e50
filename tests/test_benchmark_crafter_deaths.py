"""The survivor's death diagnostic (benchmarks/crafter_deaths.py): what each step was doing adds up to the steps
played, every point of health lost is accounted for, and it refuses the score's held-out seeds and unknown
constants."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def deaths():
    sys.path.insert(0, str(BENCH))
    try:
        import crafter_deaths

        yield crafter_deaths
    finally:
        sys.path.remove(str(BENCH))


def test_a_short_episode_is_accounted_for(deaths):
    (row,) = deaths.play(seed=0, first=0, worlds=1, steps=60, arm="survivor")
    assert (row["world"], row["seed"], row["steps"], row["died"], row["cause"]) == (0, 0, 60, False, None)
    assert sum(row["doing"].values()) == 60
    assert sum(row["doing_last"].values()) == deaths.TAIL
    assert "option:do_tree" in row["doing"]  # the first goal is wood
    assert all(h["lost"] > 0 and 1 <= h["step"] <= 60 for h in row["hurts"])
    assert "| 1 | 0 | 60 | 60 | alive 1 |" in deaths.summary([row])
    # the step each achievement first came: one per achievement unlocked, within the episode, wood before the table
    assert sorted(row["unlocked_at"]) == row["achievements"]
    assert all(1 <= s <= 60 for s in row["unlocked_at"].values())
    assert row["unlocked_at"]["collect_wood"] < row["unlocked_at"].get("place_table", 61)


def test_by_step_cuts_each_episode_at_t_and_pools_what_was_unlocked_by_then(deaths, monkeypatch, tmp_path):
    import json

    rows = [
        {"died": True, "steps": 200, "unlocked_at": {"collect_wood": 10, "eat_cow": 150}},
        {"died": False, "steps": 10000, "unlocked_at": {"collect_wood": 20, "eat_plant": 700}},
    ]
    # by 100: wood in both (100%) -> exp(ln(101)/22) - 1 = 0.23; by 1,000: wood 100%, eat_cow and eat_plant 50%
    assert deaths.by_step_table(rows, (100, 1000)).splitlines()[2:] == [
        "| 100 | 2 of 2 | 0.2 | 0.0 |",
        "| 1,000 | 1 of 2 | 0.8 | 50.0 |",
    ]
    # died at exactly T: not alive after T
    assert "| 200 | 1 of 2 |" in deaths.by_step_table(rows, (200,))
    monkeypatch.setattr(deaths, "OUT", tmp_path)
    meta = {"arm": "survivor", "seed": 0, "first": 0, "worlds": 2, "steps": 10000, "set": []}
    (tmp_path / "new.json").write_text(json.dumps({"meta": meta, "episodes": rows}))
    old = [{k: v for k, v in r.items() if k != "unlocked_at"} for r in rows]
    (tmp_path / "old.json").write_text(json.dumps({"meta": meta, "episodes": old}))
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--by-step", "new", "old", "--tag", "cut"])
    with pytest.raises(SystemExit, match="old was stored before runs kept when each achievement came; play it again"):
        deaths.main()
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--by-step", "new", "nope", "--tag", "cut"])
    with pytest.raises(SystemExit, match=r"--by-step: no stored run nope in .*; play it first"):
        deaths.main()
    assert not (tmp_path / "cut.md").exists()
    (tmp_path / "empty.json").write_text(json.dumps({"meta": meta, "episodes": []}))
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--by-step", "empty", "--tag", "cut"])
    with pytest.raises(SystemExit, match="--by-step: empty holds no episode; play it again with --worlds 1 or more"):
        deaths.main()
    assert not (tmp_path / "cut.md").exists()
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--by-step", "new", "--tag", "cut"])
    deaths.main()
    page = (tmp_path / "cut.md").read_text()
    assert page.startswith("# What the episodes had unlocked by each step (cut)")
    assert "| 5,000 | 1 of 2 |" in page and "runs `new` (2 episodes on design worlds, pooled)" in page


def test_refuses_held_out_seeds_and_unknown_constants(deaths, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--first", "490", "--worlds", "20"])
    with pytest.raises(SystemExit, match="held-out"):
        deaths.main()
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--worlds", "1", "--set", "NO_SUCH=1"])
    with pytest.raises(SystemExit, match="not a constant"):
        deaths.main()
    with pytest.raises(SystemExit, match="not a survivor arm"):
        deaths.play(seed=0, first=0, worlds=1, steps=5, arm="planner")


def test_a_stream_other_than_the_protocols_changes_only_the_agents_random_choices(deaths):
    import random

    assert deaths.agent_rng(0, "survivor", 3).random() == random.Random("0-survivor-3").random()  # the protocol's
    assert deaths.agent_rng(0, "survivor", 3, 1).random() == random.Random("0-survivor-3-stream1").random()
    assert deaths.agent_rng(0, "survivor", 3, 1).random() != deaths.agent_rng(0, "survivor", 3).random()


def test_the_spread_table_gives_each_run_and_the_largest_minus_smallest(deaths):
    def ep(died, steps, achieved):
        return {"died": died, "steps": steps, "achievements": achieved}

    a = [ep(True, 100, ["collect_wood"]), ep(True, 300, ["collect_wood", "eat_plant"])]
    b = [ep(True, 500, ["collect_wood"]), ep(False, 700, ["collect_wood"])]
    text = deaths.spread_table([("a", {"arm": "survivor"}, a), ("b", {"arm": "survivor", "stream": 2}, b)])
    lines = text.splitlines()
    assert lines[2].startswith("| a | 0 | 2 | 2 | 200 | ")
    assert lines[3].startswith("| b | 2 | 2 | 1 | 600 | ")
    assert lines[2].endswith(" | 50.0 |") and lines[3].endswith(" | 0.0 |")
    assert lines[4].startswith("| spread (largest − smallest) | | | 1 | 400 | ") and lines[4].endswith(" | 50.0 |")


def test_refuses_a_negative_stream_and_a_spread_of_unlike_runs(deaths, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--stream", "-1"])
    with pytest.raises(SystemExit, match="--stream must be 0"):
        deaths.main()
    import json

    monkeypatch.setattr(deaths, "OUT", tmp_path)
    for tag, worlds in (("x", 8), ("y", 16)):
        meta = {"arm": "survivor", "seed": 0, "first": 0, "worlds": worlds, "steps": 10, "set": []}
        (tmp_path / f"{tag}.json").write_text(json.dumps({"meta": meta, "episodes": []}))
    _refused(deaths, monkeypatch, ["--spread", "x", "y", "--tag", "z"], "one agent on the same worlds", tmp_path)
    _refused(
        deaths,
        monkeypatch,
        ["--spread", "x", "nope", "--tag", "z"],
        r"--spread: no stored run nope in .*; play it first",
        tmp_path,
    )


def _refused(deaths, monkeypatch, args, match, out) -> None:
    """crafter_deaths.py with these arguments exits saying `match`, and writes no <tag>.md into `out`."""
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", *args])
    with pytest.raises(SystemExit, match=match):
        deaths.main()
    assert not (out / f"{args[args.index('--tag') + 1]}.md").exists()


def test_variants_put_different_agents_on_the_same_worlds_side_by_side(deaths, monkeypatch, tmp_path):
    import json

    def ep(died, steps, achieved, settled=None, first=None):
        return {
            "died": died,
            "steps": steps,
            "achievements": achieved,
            "settled_at": settled,
            "first_settled_at": first,
        }

    plain = [ep(True, 300, ["collect_wood"]), ep(True, 601, ["collect_wood"])]  # a death at 300 is a first-night one
    plain[0].pop("first_settled_at")  # a run stored before it was recorded: "—"
    # settled at 140 and at the end; settled at 90, on a day trip when it died
    home = [ep(True, 120, [], first=90), ep(False, 10000, ["collect_wood", "eat_plant"], settled=140, first=140)]
    home[0]["cause"] = "arrow"  # shot after it had settled (on its day trip)
    plain[1]["cause"] = "arrow"  # shot, never settled: not counted
    monkeypatch.setattr(deaths, "OUT", tmp_path)
    metas = {
        "plain": {"arm": "survivor", "seed": 0, "first": 0, "worlds": 2, "steps": 10000, "set": []},
        "home": {
            "arm": "survivor",
            "seed": 0,
            "first": 0,
            "worlds": 2,
            "steps": 10000,
            "set": ["HOME_AFTER=300"],
            "stream": 1,
        },
        "other": {"arm": "survivor", "seed": 0, "first": 2, "worlds": 2, "steps": 10000, "set": []},
    }
    for tag, rows in (("plain", plain), ("home", home), ("other", plain)):
        (tmp_path / f"{tag}.json").write_text(json.dumps({"meta": metas[tag], "episodes": rows}))
    monkeypatch.setattr(sys, "argv", ["crafter_deaths.py", "--variants", "plain", "home", "--tag", "v"])
    deaths.main()
    lines = (tmp_path / "v.md").read_text().splitlines()
    assert "seed 0, worlds 0–1, up to 10,000 steps" in lines[2]
    table = lines[lines.index(next(x for x in lines if x.startswith("| run |"))) :]
    assert table[0] == (
        "| run | agent | agent's random stream | episodes | deaths | deaths by step 300 | deaths by step 600 | "
        "mean_steps | score | eat_plant | settled | ever settled | arrow deaths, settled before |"
    )
    assert table[2].startswith("| plain | `survivor` | 0 | 2 | 2 | 1 | 1 | 450 | ") and table[2].endswith(
        " | 0.0 | 0 | — | — |"
    )
    assert table[3].startswith("| home | `survivor` HOME_AFTER=300 | 1 | 2 | 1 | 1 | 1 | 5060 | ")
    assert table[3].endswith(" | 50.0 | 1 | 2 | 1 |")
    # runs on other worlds are refused, and nothing is written
    _refused(
        deaths,
        monkeypatch,
        ["--variants", "plain", "other", "--tag", "w"],
        "--variants compares agents on the same worlds",
        tmp_path,
    )
    _refused(
        deaths,
        monkeypatch,
        ["--variants", "plain", "nope", "--tag", "w"],
        r"--variants: no stored run nope in .*; play it first",
        tmp_path,
    )


def test_homestead_searches_are_listed_per_episode_and_the_wrapped_names_put_back(deaths):
    from solvi_lab.studies.crafter import navigation, survivor

    (row,) = deaths.play(seed=0, first=0, worlds=1, steps=30, arm="survivor")
    assert (row["home_searches"], row["home_plans"]) == ([], [])  # the homestead is off: no search, no plan
    assert survivor.homestead_sites is navigation.homestead_sites and survivor.pocket_plan is navigation.pocket_plan
    assert deaths._homestead_lines([row]) == []
    searched = dict(
        row,
        world=7,
        settled_at=None,
        home_searches=[
            {"step": 107, "walls": 3, "found": False, "walls_needed": 5},
            {"step": 407, "walls": 6, "found": True, "walls_needed": 4},
            {"step": 707, "walls": 1, "found": False, "walls_needed": None},
        ],
        home_plans=[{"step": 407, "made": False}],
    )
    lines = deaths._homestead_lines([row, searched])
    assert lines[-1] == "| 7 | 107: 3 → 5; 407: 6 → 4; 707: 1 → — | 1 | 0 / 1 | — |"
    assert len(lines) == 6  # a blank line, the sentence, a blank line, the header, its rule, one episode


def test_the_food_budget_counts_meals_the_cap_and_idle_sealed_steps(deaths):
    from types import SimpleNamespace

    def st(food, energy=9, sleeping=False, cows=0, plants=0, placed=0):
        ach = {"eat_cow": cows, "eat_plant": plants, "place_plant": placed}
        return SimpleNamespace(inventory={"food": food, "energy": energy}, achievements=ach, sleeping=sleeping)

    b = deaths._FoodBudget(st(5))
    b.step(st(5), st(9, cows=1), sealed=False)  # a cow at 5: up to the cap (9), the rest lost
    b.step(st(2, cows=1), st(8, cows=2), sealed=False)  # a cow at 2: all of it
    b.step(st(8, cows=2), st(9, cows=2, plants=1), sealed=True)  # a plant at 8 (at the cap); sealed, full: idle
    b.step(st(9, energy=8, cows=2, plants=1), st(9, energy=8, cows=2, plants=1), sealed=True)  # may sleep: not idle
    b.step(st(9, sleeping=True, cows=2, plants=1), st(9, cows=2, plants=1), sealed=True)  # asleep: not idle
    b.step(st(9, cows=2, plants=1), st(9, cows=2, plants=1, placed=1), sealed=False)  # a plant placed
    assert (b.meals, b.gained, b.capped, b.idle_sealed, b.placed) == (
        {"cows": 2, "plants": 1},
        {"cows": 10, "plants": 1},
        {"cows": 1, "plants": 1},
        1,
        1,
    )


def test_an_episodes_food_adds_up(deaths):
    (row,) = deaths.play(seed=0, first=0, worlds=1, steps=400, arm="survivor")
    f = row["food"]
    assert f["spent"] == f["start"] + f["from_cows"] + f["from_plants"] - f["end"]
    assert f["end"] == row["inventory_at_end"]["food"]
    # world 0, the protocol's stream, 400 steps (the survivor as of the eighth pass): a pin that follows behaviour
    assert f == {
        "start": 9,
        "cows_eaten": 2,
        "plants_eaten": 0,
        "from_cows": 9,
        "from_plants": 0,
        "cows_eaten_at_the_cap": 1,
        "plants_eaten_at_the_cap": 0,
        "end": 6,
        "spent": 12,
    }
    assert (row["idle_sealed"], row["plants"]) == (91, {"placed": 2, "eaten": 0, "alive_at_end": 1})
    text = deaths.summary([row])
    table = text[text.index("| food | all episodes |") :].split("\n\n")[0].splitlines()
    assert table[2:6] == [
        "| steps played | 400 |",
        "| cows eaten | 2 |",
        "| food they gave | 9 |",
        "| cows eaten up to the food cap (the rest of the meal lost) | 1 |",
    ]
    assert table[9] == "| food spent (start + gained − end) | 12 |"
    assert table[10] == "| steps sealed in, awake, at full energy (Crafter lets no one sleep then) | 91 (23%) |"
    assert table[11:] == [
        "| plants placed | 2 |",
        "| plants alive at the end | 1 |",
        "| plants killed by a creature beside them | 1 |",
    ]
    assert deaths._food_lines([{k: v for k, v in row.items() if k != "food"}]) == []  # a run stored before it


@pytest.mark.parametrize(
    "setting, match",
    [
        ("TRIPS=true", "an int is wanted"),
        ("TRIPS=five", "not a JSON value"),
        ("HOME_RANGE=1.5", "an int is wanted"),
        ("SAPLING_RETRY=1", "a bool is wanted"),
        ("NOT_A_SETTING=1", "is not a constant of the survivor module"),
    ],
)
def test_a_bad_set_is_refused_with_what_to_pass_and_nothing_is_written(deaths, monkeypatch, tmp_path, setting, match):
    monkeypatch.setattr(deaths, "OUT", tmp_path)
    _refused(deaths, monkeypatch, ["--worlds", "1", "--set", setting, "--tag", "bad"], match, tmp_path)
