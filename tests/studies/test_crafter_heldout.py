"""The default's held-out figures and the requirements table with each rule's boundary figures (issue 43): the
stored result, its pooling, and the two blocks of docs/readme/crafter.md rendered from it."""

from __future__ import annotations

import json

from solvi_lab.studies.crafter import defaults, heldout


def _stored() -> dict:
    return json.loads(heldout.RESULT_FILE.read_text(encoding="utf-8"))


def test_stored_result_is_of_the_default_on_every_held_out_seed() -> None:
    result = _stored()
    assert result["default"] == heldout.default_name()
    assert defaults.CANDIDATES[result["default"]] == (defaults.TRAINING, defaults.MEMORY)
    assert [s["seed"] for s in result["seeds"]] == list(heldout.SEEDS)
    assert all(set(s["candidates"]) == set(defaults.CANDIDATES) for s in result["seeds"])
    assert result["requirements"] == heldout.requirements_rows(result)  # the table is derived, not typed


def test_requirements_rows_pool_the_boundary_and_add_the_probed_differences() -> None:
    result = _stored()
    rows = heldout.requirements_rows(result)
    graded = [r for r in rows if "probe_seeds" not in r]
    assert len(graded) == len(result["seeds"][0]["candidates"][result["default"]]["graded"])
    name = result["default"]
    for r in graded:
        at = [
            b
            for s in result["seeds"]
            for b in s["candidates"][name]["boundary_wanderer"]
            if (b["action"], b["rule"]) == (r["action"], r["condition"])
        ]
        assert r["wanderer"] == (heldout.pooled(at, heldout.BOUNDARY_KEYS) if at else None)
        if r["wanderer"] is not None:  # predicted accept counts only calls Crafter accepted
            assert r["wanderer"]["predicted_accept"] <= r["wanderer"]["accepted"] <= r["wanderer"]["calls"]
    differs = [r for r in rows if "probe_seeds" in r]
    probed = {(d["action"], d["where"]) for s in result["seeds"] for d in s["probe_differences"]}
    assert len(differs) == len(probed) and all(r["probe_seeds"] for r in differs)
    assert all(r["condition"].startswith("near:table@1") and r["wanderer"] is None for r in differs)


def test_both_blocks_are_rendered_from_the_stored_file() -> None:
    result = _stored()
    text = heldout.DOC_FILE.read_text(encoding="utf-8")
    for block in (heldout.render_transfer(result), heldout.render_table(result)):
        assert block in text, (
            "a block of docs/readme/crafter.md is stale: run python -m solvi_lab.studies.crafter.heldout --render"
        )
    assert heldout.render_transfer(result).count("**(default)**") == 1
    table = heldout.render_table(result)
    assert "installed differs (probed at seeds" in table and "`inv:stone>=1`" in table


def test_summary_takes_shares_of_pooled_counts() -> None:
    counts = {"calls": 10, "abstained": 2, "false_accepts": 0, "pred_refuse": 4, "caught": 4, "env_accepted": 5,
              "accepted_predicted_accept": 4}  # fmt: skip
    s = heldout.summary(counts)
    assert (s["abstention_share"], s["precision"], s["accept_share"]) == (0.2, 1.0, 0.8)
    none = heldout.summary({k: 0 for k in counts})
    assert none["abstention_share"] is None and none["precision"] is None and none["accept_share"] is None
