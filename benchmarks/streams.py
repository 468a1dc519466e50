"""The benchmark streams by name, so every benchmark offers the same profiles.

- ``default``: the retraction study's stream (solvi_lab.studies.synthetic; n/10 subjects, short keys);
- ``hot-keys``: benchmarks/hot_keys.py (few subjects, keys of ~5 to ~2,000 events; few items stay live);
- ``derived-keys``: benchmarks/derived_keys.py (derived items on keys of their own, long disputes, many flags;
  about a third of the items stay live).

The two keyed streams share one operation vocabulary and are applied by ``hot_keys.apply_hot_stream``.

>>> PROFILES
('default', 'hot-keys', 'derived-keys')
>>> sum(1 for op in keyed_operations("derived-keys", 50, 0) if op[0] == "add")
50
"""

from __future__ import annotations

from collections.abc import Iterator

PROFILES = ("default", "hot-keys", "derived-keys")
KEYED = ("hot-keys", "derived-keys")


def keyed_operations(profile: str, n: int, seed: int) -> Iterator[tuple]:
    """The operations of a keyed profile (``hot-keys`` or ``derived-keys``), lazily."""
    if profile == "hot-keys":
        from hot_keys import iter_hot_key_operations

        return iter_hot_key_operations(n, seed)
    if profile == "derived-keys":
        from derived_keys import iter_derived_key_operations

        return iter_derived_key_operations(n, seed)
    raise ValueError(f"profile {profile!r} is not a keyed stream; choose one of {KEYED}")
