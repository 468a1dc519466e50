"""Time the conservative action model at the size docs/readme/actions.md quotes (moved out of the tests, issue 43).

20,000 observations and 6,000 predictions of 20 conditions over 5 actions (refused iff c0 = 2 or c1 = 2);
`tests/test_actions.py::test_tens_of_thousands_of_observations_give_the_reference_verdicts` checks every verdict of
the same stream exactly, without a clock.

    python benchmarks/action_model_scale.py
"""

from __future__ import annotations

import random
import time

from solvi_lab.actions import ConservativeActionModel, Vocabulary


def _position(i: int):
    return lambda s, a: a["v"][i]


def measure(observations: int = 20_000, predictions: int = 6_000, seed: int = 0) -> dict[str, float]:
    """Seconds spent observing and predicting (wall clock, this process)."""
    rng = random.Random(seed)
    m = ConservativeActionModel(Vocabulary({f"c{i}": _position(i) for i in range(20)}))
    t0 = time.perf_counter()
    for _ in range(observations):
        vec = [rng.randrange(3) for _ in range(20)]
        m.observe({}, f"a{rng.randrange(5)}", {"v": vec}, accepted=vec[0] != 2 and vec[1] != 2)
    t1 = time.perf_counter()
    for _ in range(predictions):
        m.predict({}, f"a{rng.randrange(5)}", {"v": [rng.randrange(4) for _ in range(20)]})
    t2 = time.perf_counter()
    return {"observe_seconds": round(t1 - t0, 3), "predict_seconds": round(t2 - t1, 3)}


if __name__ == "__main__":
    print(measure())
