"""Claim-level regression checks at three quick seeds: a claim that stops holding fails with its key.

`data/expected/claims/<study>.json` records, per seed, whether each checked row (claim, finding, mechanism; see
`Comparison.kind`) held at the study's quick size. A failing claim of the specification is recorded as failing — it
is reported, never dropped — so the test fails only on a *change*:

- a row that held and no longer does: "claim stopped holding: <key> (<threshold>)";
- a row that failed and now holds, or a key that appeared or vanished: the record must be updated, said so;
- at seed 0, when every row is as recorded but a pinned number of `data/expected/<study>.json` moved: "changed pin"
  (every claim still holds: a change of numbers, not of findings);
- at seed 0, each row's declaration (part, threshold, the specification's sentence, caveats) against the record's
  "rows", which the docs' pass-rate blocks render (`solvi_lab/sweep/stored.py`).

Rows whose verdict rests on timings (a study's TIMING_KEYS) are never compared: a loaded machine moves them.
Regenerate the records with `python tests/studies/test_claims.py` after a change made on purpose.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from solvi_lab.errors import DataMissing
from solvi_lab.studies import registry

SEEDS = (0, 1, 2)
STUDIES = (
    "risk_dungeon",
    "toy_crafting",
    "retraction",
    "learner_evidence",
    "taubench_action_model",
    "taubench_airline",
    "tau2_telecom",
)
CLAIMS_DIR = registry.REPO_ROOT / "data" / "expected" / "claims"


def _run(study: str, seed: int):
    info = registry.STUDIES[study]
    module = importlib.import_module(info.module)
    # The quick parameters as declared: τ-bench retail's held_out_split is "dev" there, so no test task is read here.
    params = {**module.QUICK_PARAMS, "seed": seed}
    kwargs: dict[str, Any] = {"progress": False} if "progress" in module.run.__code__.co_varnames else {}
    return module, module.run(**params, **kwargs)


def _checked(module: Any, result: Any) -> dict[str, bool]:
    timing = set(getattr(module, "TIMING_KEYS", ()))
    return {k: v for k, v in result.claims().items() if k not in timing}


def _rows(module: Any, result: Any) -> dict[str, dict[str, Any]]:
    """What each checked row declares (its part, threshold, the specification's sentence, its caveats), by key: the
    record the docs' pass-rate blocks render beside the stored pass rates, so the labels cannot drift from the code."""
    return result.declarations()  # timing rows included: a declaration does not move with the machine's load


def _metric_problems(expected: dict[str, Any], metrics: dict[str, Any]) -> list[str]:
    """The pinned seed-0 numbers that moved (the same specs as tests/notebooks)."""
    out = []
    for name, spec in expected.items():
        if name not in metrics:
            continue  # recorded by the notebook only; tests/notebooks checks those
        got = metrics[name]
        if "exact" in spec:
            ok = got == spec["exact"] and isinstance(got, bool) == isinstance(spec["exact"], bool)
        elif "approx" in spec:
            ok = got == pytest.approx(spec["approx"], rel=spec.get("rel"), abs=spec.get("abs"))
        elif "min" in spec or "max" in spec:
            ok = spec.get("min", -math.inf) <= got <= spec.get("max", math.inf)
        else:
            ok = got == metrics.get(spec["equals_metric"])
        if not ok:
            out.append(f"{name}: pinned {spec}, got {got!r}")
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("study", STUDIES)
def test_claims_as_recorded(study: str, seed: int) -> None:
    path = CLAIMS_DIR / f"{study}.json"
    assert path.exists(), f"{path.relative_to(registry.REPO_ROOT)} is missing; run python {__file__}"
    recorded = json.loads(path.read_text(encoding="utf-8"))[str(seed)]
    try:
        module, result = _run(study, seed)
    except DataMissing as e:
        pytest.skip(str(e))
    now = _checked(module, result)
    thresholds = {c.key: c.threshold for c in result.comparison if c.holds is not None}
    stopped = [f"{k} ({thresholds.get(k, '')})" for k, v in recorded.items() if v and now.get(k) is False]
    assert not stopped, f"{study}, quick seed {seed}: claim stopped holding: " + "; ".join(stopped)
    started = [k for k, v in recorded.items() if not v and now.get(k) is True]
    assert not started, (
        f"{study}, quick seed {seed}: now holds (recorded as failing): {started}; if intended, update "
        f"data/expected/claims/{study}.json (python {Path(__file__).name})"
    )
    assert set(now) == set(recorded), (
        f"{study}, quick seed {seed}: checked rows changed: new {sorted(set(now) - set(recorded))}, "
        f"gone {sorted(set(recorded) - set(now))}; update data/expected/claims/{study}.json"
    )
    if seed == 0:
        rows = json.loads(path.read_text(encoding="utf-8")).get("rows")
        assert rows == _rows(module, result), (
            f"{study}: a checked row's part, threshold, sentence or caveats changed; update "
            f"data/expected/claims/{study}.json (python {Path(__file__).name})"
        )
        info = registry.STUDIES[study]
        expected = json.loads(info.expected_path.read_text(encoding="utf-8"))["metrics"]
        moved = _metric_problems(expected, result.metrics)
        assert not moved, (
            f"{study}: changed pin (every claim still as recorded): " + "; ".join(moved) + f" — if intended, "
            f"update data/expected/{study}.json"
        )


def _write_records() -> None:
    """Record every study's checked rows at the three quick seeds (after a change made on purpose)."""
    CLAIMS_DIR.mkdir(parents=True, exist_ok=True)
    for study in STUDIES:
        out = {}
        for seed in SEEDS:
            try:
                module, result = _run(study, seed)
            except DataMissing as e:
                print(f"{study}: skipped ({e})")
                break
            out[str(seed)] = _checked(module, result)
            if seed == 0:
                out["rows"] = _rows(module, result)
        if out:
            (CLAIMS_DIR / f"{study}.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
            print(f"{study}: recorded", {s: sum(v.values()) for s, v in out.items() if s != "rows"})


SPEC = Path(os.environ.get("SOLVI_LAB_SPEC", registry.REPO_ROOT.parent / "shared" / "seeds" / "solvi-knowledge.txt"))


def _normal(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("study", STUDIES)
def test_every_claim_of_the_specification_quotes_its_sentence(study: str) -> None:
    """A row is tallied as the specification's only with the specification's sentence it tests, quoted (fragments
    joined by " … "); rows of our own are findings. Checked word for word against the specification's text when it
    is at $SOLVI_LAB_SPEC (else ../shared/seeds/solvi-knowledge.txt beside the checkout)."""
    rows = json.loads((CLAIMS_DIR / f"{study}.json").read_text(encoding="utf-8"))["rows"]
    claims = {k: r for k, r in rows.items() if r["kind"] == "claim"}
    assert all(r["sentence"] for r in claims.values()), [k for k, r in claims.items() if not r["sentence"]]
    assert all(r["threshold"] for r in rows.values())
    if SPEC.is_file():
        spec = _normal(SPEC.read_text(encoding="utf-8"))
        missing = [
            (k, frag)
            for k, r in rows.items()
            if r["sentence"]
            for frag in r["sentence"].split(" … ")
            if _normal(frag) not in spec
        ]
        assert missing == [], f"{study}: sentences not in the specification: {missing}"


def test_rows_of_our_own_are_never_claims() -> None:
    """Crafter, the airline and the learner-evidence study test targets of our own: none of their rows is a claim."""
    for study in ("taubench_airline", "learner_evidence"):
        rows = json.loads((CLAIMS_DIR / f"{study}.json").read_text(encoding="utf-8"))["rows"]
        assert [k for k, r in rows.items() if r["kind"] == "claim"] == [], study
    crafter = (registry.REPO_ROOT / "solvi_lab" / "studies" / "crafter" / "study.py").read_text(encoding="utf-8")
    assert 'kind="claim"' not in crafter


if __name__ == "__main__":
    sys.exit(_write_records())
