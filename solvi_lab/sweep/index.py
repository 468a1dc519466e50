"""The index of the stored sweeps (`docs/sweeps/index.json`): which stored file holds each study's sweep.

Its one job: read the index. stored.py writes it (and the files it names); headlines.py and the pass-rate blocks
read it through here, so neither reaches into the other (no import circle: tests/test_architecture.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import BadInput

INDEX = "index.json"


def read_index(docs: Path) -> dict[str, dict[str, Any]]:
    """The index as a dict (`"study:size"` -> its entry); empty when `docs/sweeps/` holds none."""
    path = Path(docs) / "sweeps" / INDEX
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise BadInput(f"{path} is not valid JSON ({e}); restore it from git.") from None
