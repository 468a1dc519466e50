"""What each study's code declares for its checked rows, read from the record `tests/studies/test_claims.py` keeps
equal to the code (`data/expected/claims/<study>.json`). One module of its own so that the pass-rate pages
(`stored.py`) and the README's headlines (`headlines.py`) both read it without importing each other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def declared_rows(root: Path, study: str) -> dict[str, dict[str, Any]]:
    """What the study's code declares for each checked row now (part, threshold, the specification's sentence,
    caveats): the "rows" of `data/expected/claims/<study>.json`, which `tests/studies/test_claims.py` keeps equal to
    the code. Empty for a study without a record (its blocks show the stored parts only)."""
    path = Path(root) / "data" / "expected" / "claims" / f"{study}.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8")).get("rows", {})
